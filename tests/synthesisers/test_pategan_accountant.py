"""PATE-GAN's moments accountant checked line by line (issue 41, item 2).

The bound it implements: Papernot et al. (ICLR 2017), Theorem 3 with Lemma 4 for two classes, as
Jordon et al. (ICLR 2019) use it in Algorithm 1 with lam the inverse Laplace scale:

    q = (2 + lam g) / (4 exp(lam g)),           g = |n0 - n1| the vote gap,
    alpha(l) <= min(2 lam^2 l (l + 1),             (data-independent, a 2 lam-DP answer)
                    log((1 - q) ((1 - q) / (1 - e^{2 lam} q))^l + q e^{2 lam l}))
                                                   (only when q < (e^{2 lam} - 1) / (e^{4 lam} - 1)),
    epsilon = min_l (sum of alpha(l) + log(1 / delta)) / l.

Below, values worked by hand (to 4 significant digits) and a scalar reference written straight
from those formulas; then the bugs Ganev et al. ("The Elusive Pursuit of Reproducing PATE-GAN",
2024) report in public implementations, each as a check on ours.
"""

import math

import numpy as np
import pytest

from privmetrics.compendium.benchmarks.bench import generated_texas_like
from privmetrics.synthesisers import make_synthesiser
from privmetrics.synthesisers.accounting import MomentsAccountant


def reference_moment(lam: float, gap: float, order: int) -> float:
    """alpha(l) of one answered vote, from the formulas in the module doc, one scalar at a time."""
    independent = 2 * lam**2 * order * (order + 1)
    q = (2 + lam * gap) / (4 * math.exp(lam * gap))
    if q >= (math.exp(2 * lam) - 1) / (math.exp(4 * lam) - 1):
        return independent
    ratio = (1 - q) / (1 - math.exp(2 * lam) * q)
    dependent = math.log((1 - q) * ratio**order + q * math.exp(2 * lam * order))
    return min(independent, dependent)


def test_q_and_the_two_bounds_by_hand():
    """lam = 0.1. Gap 10: q = 3 / (4e) = 0.2759 < (e^0.2 - 1) / (e^0.4 - 1) = 0.4502, so the
    data-dependent bound applies; at l = 1 it is log(0.7241 * 0.7241 / 0.6630 + 0.2759 e^0.2)
    = log(1.1278) = 0.1203, above 2 * 0.01 * 1 * 2 = 0.04, so alpha(1) = 0.04. Gap 100:
    q = 12 / (4 e^10) = 1.362e-4 and alpha(1) = log(1.0000603) = 6.031e-5, far below 0.04."""
    acc = MomentsAccountant(lam=0.1, delta=1e-5, max_order=5)
    assert (2 + 0.1 * 10) / (4 * math.exp(1)) == pytest.approx(0.2759, abs=1e-4)
    assert reference_moment(0.1, 10, 1) == pytest.approx(0.04)
    np.testing.assert_allclose(acc.moments(np.array([10.0]))[0], 0.04)
    np.testing.assert_allclose(acc.moments(np.array([100.0]))[0], 6.031e-5, rtol=1e-3)
    # the missing-log bug (Ganev et al.): without the log, alpha(1) would be 1.00006, not 6e-5
    assert acc.moments(np.array([100.0]))[0] < 1e-4


@pytest.mark.parametrize("lam", [0.0153, 0.1, 0.5])
@pytest.mark.parametrize("gap", [0, 1, 5, 20, 100, 650])
def test_every_order_matches_the_scalar_reference(lam, gap):
    acc = MomentsAccountant(lam=lam, delta=1e-6, max_order=200)
    expected = [reference_moment(lam, gap, order) for order in range(1, 201)]
    # atol: at consensus alpha is ~1e-16, where the accountant's log-space sum is the exact one
    np.testing.assert_allclose(acc.moments(np.array([float(gap)])), expected, rtol=1e-9, atol=1e-13)


def test_the_data_dependent_bound_is_used_only_where_it_is_valid():
    """Just below the validity limit on q the data-dependent bound may be used; at or above it
    only the data-independent one. With lam = 0.1 the limit is 0.4502: gap 0 (q = 1/2) and gap 2
    (q = 2.2 / (4 e^0.2) = 0.4503) are beyond it, gap 3 (q = 0.3827) is inside."""
    lam = 0.1
    limit = (math.exp(2 * lam) - 1) / (math.exp(4 * lam) - 1)
    q = {g: (2 + lam * g) / (4 * math.exp(lam * g)) for g in (0, 2, 3)}
    assert q[0] > limit and q[2] > limit and q[3] < limit
    acc = MomentsAccountant(lam=lam, delta=1e-5, max_order=10)
    independent = 2 * lam**2 * acc.orders * (acc.orders + 1)
    for gap in (0.0, 2.0):
        np.testing.assert_allclose(acc.moments(np.array([gap])), independent)
    assert (acc.moments(np.array([3.0])) <= independent).all()


def test_epsilon_is_the_tail_bound_over_the_orders_and_moments_add_up():
    """Composition: alpha adds over answered votes; epsilon = min_l (alpha(l) + log 1/delta) / l."""
    gaps = np.array([0.0, 4.0, 30.0, 30.0])
    acc = MomentsAccountant(lam=0.2, delta=1e-6, max_order=50)
    for g in gaps:
        acc.answer(np.array([g]))
    alpha = [sum(reference_moment(0.2, g, order) for g in gaps) for order in range(1, 51)]
    expected = min((a + math.log(1e6)) / order for order, a in enumerate(alpha, 1))
    assert acc.queries == 4
    assert acc.epsilon == pytest.approx(expected, rel=1e-9)
    # one query of gap 0 costs more than one of gap 30: consensus is cheap
    assert acc.epsilon_after(np.array([0.0])) > acc.epsilon_after(np.array([30.0])) > acc.epsilon


@pytest.fixture(scope="module")
def fitted():
    frame, schema = generated_texas_like(rows=600, seed=5)
    return frame, make_synthesiser("pategan", epsilon=10.0, seed=0, max_iterations=20).fit(
        frame, schema
    )


def test_the_bugs_ganev_et_al_list_are_absent(fitted):
    """Each a property a buggy implementation would fail:

    * the accountant's lam is the inverse scale of the vote noise (a mismatch charges less noise
      than is added, or more);
    * every answered vote is charged: queries = iterations x batch size, and the spent epsilon
      is the accountant's (no vote answered off the books, none after the budget);
    * delta = 1 / (n sqrt n) is below 1 / n, so it does not allow publishing a record;
    * the teachers' partitions are disjoint, n // n_teachers rows each (one record moves one
      teacher's vote): the teacher count and the rows per teacher say so.

    The bounds read from the data are the discretiser's: see
    ``test_pategan_bins_come_from_the_declared_domain``."""
    frame, model = fitted
    n = len(frame)
    assert model.accountant_.lam == model.lam_
    assert model.accountant_.queries == model.iterations_ * model.batch_size
    assert model.epsilon_spent_ == pytest.approx(model.accountant_.epsilon)
    assert model.epsilon_spent_ <= 10.0
    assert model.delta_ == pytest.approx(1 / (n * math.sqrt(n))) and model.delta_ < 1 / n
    assert model.n_teachers_ == max(10, n // 10)


def test_pategan_bins_come_from_the_declared_domain():
    """Two tables that differ only in one numerical value inside the declared domain get the
    same bins: no bound is read from the data (a record at the edge would move them)."""
    frame, schema = generated_texas_like(rows=300, seed=7)
    column = schema.numerical[0]
    moved = frame.copy()
    moved.loc[0, column] = frame[column].max() * 1.5
    low, high = schema.domain[column].low, schema.domain[column].high
    if not low <= moved.loc[0, column] <= high:
        moved.loc[0, column] = high
    fits = [
        make_synthesiser("pategan", epsilon=1.0, seed=0, max_iterations=0).fit(t, schema)
        for t in (frame, moved)
    ]
    edges = [f.discretiser_.edges_[column] for f in fits]
    np.testing.assert_array_equal(edges[0], edges[1])
    assert edges[0][0] == low and edges[0][-1] == pytest.approx(high)  # log scale: rounding


def test_what_a_budget_buys_by_hand_and_against_a_fit(fitted):
    """2,000 rows: 200 teachers, lam = 0.05, log(1/delta) = log(2000^1.5) = 11.40. At a tie every
    vote costs 2 lam^2 l (l+1), 64 votes an iteration: epsilon(T) = min_l 0.32 T (l+1) + 11.40 / l,
    which is 8.92 at T = 4 (l = 3) and 10.2 at T = 5: epsilon 10 allows 4 tied iterations."""
    from privmetrics.experiments.studies.pategan_study import defaults_for, iterations_allowed

    assert defaults_for(2000) == pytest.approx({"teachers": 200, "lam": 0.05, "delta": 2000**-1.5})
    assert iterations_allowed(2000, 10.0, 0.0) == 4
    # more agreement or more budget never buys fewer iterations
    allowed = [[iterations_allowed(2000, e, c) for c in (0.0, 0.5, 0.9, 1.0)] for e in (1, 2, 10)]
    assert all(row == sorted(row) for row in allowed)
    assert all(a <= b for a, b in zip(allowed[0], allowed[-1], strict=True))
    # a real fit trains between the tie's allowance (every vote costs at most a tie) and unanimity's
    frame, model = fitted
    settings = defaults_for(len(frame))
    assert (model.n_teachers_, model.lam_, model.delta_) == pytest.approx(
        (settings["teachers"], settings["lam"], settings["delta"])
    )
    n = len(frame)
    assert iterations_allowed(n, 10.0, 0.0) <= model.iterations_ <= iterations_allowed(n, 10.0, 1.0)
