"""PrivBayes and PATE-GAN: privacy accounting, and that epsilon changes what they generate."""

import numpy as np
import pandas as pd
import pytest

from privmetrics.compendium.benchmarks.bench import generated_texas_like
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.fidelity import marginal_distance
from privmetrics.synthesisers import make_synthesiser
from privmetrics.synthesisers.accounting import Ledger, MomentsAccountant
from privmetrics.synthesisers.privbayes import mi_sensitivity, mutual_information

GRID = [0.2, 1.0, 2.0, 10.0]


@pytest.fixture(scope="module")
def table():
    return generated_texas_like(rows=2000, seed=3)


# --- PrivBayes -----------------------------------------------------------------------------------


def test_mutual_information_by_hand():
    x = np.array([0, 1, 0, 1])
    # X = Pi, uniform binary: I = H(X) = 1 bit; independent pairs: I = 0
    assert mutual_information(x, x, 2, 2) == pytest.approx(1.0)
    assert mutual_information(x, np.array([0, 0, 1, 1]), 2, 2) == pytest.approx(0.0)
    # Zhang et al. Lemma 4.1 at n = 2: log2(2)/2 + 1/2 log2(2) = 1
    assert mi_sensitivity(2, binary=True) == pytest.approx(1.0)


@pytest.mark.parametrize("epsilon", GRID)
def test_privbayes_budget_adds_up_to_epsilon(table, epsilon):
    frame, schema = table
    model = make_synthesiser("privbayes", epsilon=epsilon, seed=0).fit(frame, schema)
    d = len(schema.names)
    network = [e for w, e, _ in model.ledger_.entries if w.startswith("network")]
    conditionals = [e for w, e, _ in model.ledger_.entries if w.startswith("conditional")]
    assert sum(network) == pytest.approx(epsilon / 2) and len(network) == d  # first one is free
    assert sum(conditionals) == pytest.approx(epsilon / 2) and len(conditionals) == d
    assert model.ledger_.epsilon == pytest.approx(epsilon) and model.ledger_.delta == 0


def test_privbayes_finds_the_dependency_when_epsilon_is_large():
    rng = np.random.default_rng(0)
    a = rng.choice(["x", "y", "z"], size=3000)
    frame = pd.DataFrame({"a": a, "b": a, "c": rng.choice(["u", "v"], size=3000)})
    schema = Schema(
        {"a": "categorical", "b": "categorical", "c": "categorical"},
        domain={"a": ["x", "y", "z"], "b": ["x", "y", "z"], "c": ["u", "v"]},
    )
    model = make_synthesiser("privbayes", epsilon=1e4, seed=1, degree=1).fit(frame, schema)
    net = model.network_table()
    parents = dict(zip(net.attribute, net.parents, strict=True))
    assert parents["a"] == "b" or parents["b"] == "a"
    out = model.sample(3000)
    assert (out["a"] == out["b"]).mean() > 0.95  # the copy survives sampling


def test_privbayes_marginals_approach_the_real_ones_as_epsilon_grows(table):
    frame, schema = table
    distance = {
        eps: np.mean(
            [
                marginal_distance(
                    frame,
                    make_synthesiser("privbayes", epsilon=eps, seed=s).fit_sample(frame, schema),
                    schema,
                )
                for s in range(3)
            ]
        )
        for eps in GRID
    }
    values = [distance[e] for e in GRID]
    assert all(a > b for a, b in zip(values[:-1], values[1:], strict=True)), distance


# --- PATE-GAN ------------------------------------------------------------------------------------


def test_moments_accountant_data_independent_bound_by_hand():
    # a tied vote (gap 0) gives q = 1/2, outside the data-dependent range: alpha(l) = 2 lam^2 l (l+1)
    acc = MomentsAccountant(lam=0.1, delta=1e-5, max_order=3)
    acc.answer(np.array([0.0]))
    np.testing.assert_allclose(acc.alpha, 2 * 0.01 * np.array([2, 6, 12]))
    # epsilon = min_l (alpha(l) + log(1/delta)) / l, here at l = 3
    assert acc.epsilon == pytest.approx((0.24 + np.log(1e5)) / 3)


def test_moments_accountant_charges_consensus_less_than_a_tie():
    acc = MomentsAccountant(lam=0.1, delta=1e-5)
    tie, consensus = acc.moments(np.array([0.0])), acc.moments(np.array([100.0]))
    assert (consensus <= tie).all() and consensus[10] < tie[10] / 100
    assert acc.epsilon_after(np.zeros(10)) > acc.epsilon_after(np.zeros(5)) > acc.epsilon


@pytest.fixture(scope="module")
def pategan_runs(table):
    frame, schema = table
    return {
        eps: make_synthesiser("pategan", epsilon=eps, seed=0, max_iterations=100).fit(frame, schema)
        for eps in GRID
    }


def test_pategan_never_spends_more_than_its_budget(pategan_runs):
    for eps, model in pategan_runs.items():
        assert model.epsilon_spent_ <= eps, (eps, model.epsilon_spent_)
        if model.stop_reason_ == "budget":  # stopped because one more batch would overspend
            assert model.refused_epsilon_ > eps


def test_pategan_trains_longer_with_more_budget(pategan_runs):
    iterations = [pategan_runs[e].iterations_ for e in GRID]
    assert iterations == sorted(iterations) and iterations[-1] > iterations[0], iterations
    assert pategan_runs[0.2].stop_reason_ == "budget"


def test_pategan_paper_setting_learns_from_noise_only(table, pategan_runs):
    """lam = 1e-3 with 10 teachers (synthcity's defaults, the paper's PATE-GAN): vote counts of at
    most 10 get Laplace noise of scale 1000, so every label is a coin flip whatever epsilon is;
    our defaults keep the labels informative."""
    frame, schema = table
    paper = make_synthesiser(
        "pategan", epsilon=10.0, seed=0, lam=1e-3, n_teachers=10, max_iterations=30
    ).fit(frame, schema)
    assert paper.accountant_.queries == 30 * 64
    assert abs(paper.label_agreement_ - 0.5) < 0.05  # 1,920 labels: sd of the share about 0.011
    assert pategan_runs[10.0].label_agreement_ > 0.9


def test_dp_synthesisers_reject_bad_parameters(table):
    frame, schema = table
    for name in ("privbayes", "pategan"):
        for bad in (0, -1.0, float("nan")):
            with pytest.raises(InvalidInputError, match="epsilon must be a positive"):
                make_synthesiser(name, epsilon=bad)
    from privmetrics.compendium.benchmarks.bench_synthesisers import private_techniques

    assert {"privbayes", "pategan", "mst", "aim"} <= set(private_techniques())
    for name in private_techniques():  # 1e300 once raised OverflowError in MST's and AIM's fit
        with pytest.raises(InvalidInputError, match="epsilon must be at most 10,000, got 1e"):
            make_synthesiser(name, epsilon=1e300)
        assert make_synthesiser(name, epsilon=1e4).epsilon == 1e4  # the bound itself is allowed
    with pytest.raises(
        InvalidInputError,
        match="at least 2500 rows to fit, got 100 .5 rows per teacher, 500 teachers",
    ):
        make_synthesiser("pategan", n_teachers=500).fit(frame.head(100), schema)
    with pytest.raises(InvalidInputError, match="lacks column"):
        make_synthesiser("privbayes").fit(frame.drop(columns="num1"), schema)


def test_ledger_adds_spends():
    ledger = Ledger()
    ledger.spend("a", 0.3)
    ledger.spend("b", 0.7, 1e-6)
    assert ledger.epsilon == pytest.approx(1.0) and ledger.delta == pytest.approx(1e-6)
