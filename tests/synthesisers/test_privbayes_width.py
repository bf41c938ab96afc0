"""PrivBayes on wide tables (issue 29): the vectorised network search chooses exactly what the
module doc's loop chooses, a 200-column table fits, and a search too large is refused up front."""

import warnings
from itertools import combinations

import numpy as np
import pytest

from privmetrics.compendium.benchmarks.bench_synthesisers import wide_table
from privmetrics.data.validation import InvalidInputError
from privmetrics.synthesisers import make_synthesiser
from privmetrics.synthesisers import privbayes as P


def reference_network(model, codes, cards, eps1, eps2, rng):
    """Step 1 of the module doc written as the plain loop over every candidate."""
    n, d = codes.shape
    max_cells = n * eps2 / (2 * d * model.theta)
    first = int(rng.integers(d))
    network, placed = [(first, ())], [first]
    step_eps = eps1 / (d - 1) if d > 1 else 0.0
    for _ in range(d - 1):
        candidates, scores, binary = [], [], []
        for x in (j for j in range(d) if j not in placed):
            for size in range(min(model.degree, len(placed)) + 1):
                for parents in combinations(placed, size):
                    if size and cards[x] * np.prod(cards[list(parents)], dtype=float) > max_cells:
                        continue
                    pcode, npar = model._parent_code(codes, cards, parents)
                    candidates.append((x, parents))
                    scores.append(P.mutual_information(codes[:, x], pcode, cards[x], npar))
                    binary.append(cards[x] <= 2 or npar <= 2)
        sens = np.where(binary, P.mi_sensitivity(n, True), P.mi_sensitivity(n, False))
        utility = step_eps * np.asarray(scores) / (2 * sens)
        choice = int(np.argmax(utility + rng.gumbel(size=len(utility))))
        network.append(candidates[choice])
        placed.append(candidates[choice][0])
    return network


@pytest.mark.parametrize("columns, rows, epsilon, degree",
                         [(12, 300, 1.0, 2), (20, 3000, 1e4, 2), (15, 2000, 1e3, 3), (9, 500, 10.0, 1)])  # fmt: skip
def test_the_vectorised_search_chooses_what_the_plain_loop_chooses(columns, rows, epsilon, degree):
    frame, schema = wide_table(columns, rows)
    model = make_synthesiser("privbayes", seed=1, epsilon=epsilon, degree=degree).fit(frame, schema)
    codes = model.discretiser_.encode(frame)
    cards = model.discretiser_.cardinalities
    half = model.epsilon / 2
    model.ledger_ = P.Ledger()  # the search writes to the ledger; a fresh one for the replay
    got = model._learn_network(codes, cards, half, half, np.random.default_rng(5))
    expected = reference_network(
        model, codes, np.asarray(cards), half, half, np.random.default_rng(5)
    )
    assert got == expected
    assert any(parents for _, parents in got) or epsilon < 100  # large budgets do pick parents


@pytest.mark.slow
def test_a_200_column_table_fits_and_samples():
    frame, schema = wide_table(200, 300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = make_synthesiser("privbayes", seed=0, epsilon=1.0).fit_sample(frame, schema)
    assert out.shape == frame.shape and out.notna().all().all()


def test_a_search_too_large_is_refused_up_front_with_the_limit():
    P.check_width(200, 2)  # about 4 million pairs per step: fine
    with pytest.raises(
        InvalidInputError, match=r"degree 3 on 200 columns .* use at most \d+ columns"
    ):
        P.check_width(200, 3)
    frame, schema = wide_table(200, 50)
    with pytest.raises(InvalidInputError, match="degree 3 on 200 columns"):
        make_synthesiser("privbayes", seed=0, epsilon=1.0, degree=3).fit(frame, schema)
