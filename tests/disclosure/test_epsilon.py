"""Choosing epsilon (Chen, Yu and Dargahi, Sections 3.2.5-3.4): the paper's Tables 1-3 from its own
"real" columns, Alg. 5, the inversion, and the advisor on a mechanism whose answer is known."""

import numpy as np
import pandas as pd
import pytest

from privmetrics.data.schema import Schema
from privmetrics.disclosure.epsilon import (
    ReciprocalCurve,
    advise_epsilon,
    epsilon_from_noise_bound,
    held_out_table,
    prediction_summary,
    select_epsilon,
    utility_error,
)

TABLE2_EPS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10]
TABLE2_REAL = [91.1924361, 9.1253869, 3.1175912, 0.6377946, 0.4102599, 0.1385792, 0.1335111]
TRAIN = [0.01, 0.5, 10]


def _train(eps, values, train):
    pick = [eps.index(e) for e in train]
    return [eps[i] for i in pick], [values[i] for i in pick]


def test_table2_degree1_least_squares():
    curve = ReciprocalCurve.fit(*_train(TABLE2_EPS, TABLE2_REAL, TRAIN), degree=1)
    assert curve.coef == pytest.approx([0.9175234, -0.5717990], rel=1e-6)
    predicted = curve.predict(TABLE2_EPS)
    assert predicted[1] == pytest.approx(17.7786689, rel=1e-7)
    assert predicted[-1] == pytest.approx(-0.4800466, rel=1e-6)  # negative: the paper's point
    assert predicted[0] == pytest.approx(91.1805406, rel=1e-7)


def test_table3_degree2_interpolation():
    curve = ReciprocalCurve.fit(*_train(TABLE2_EPS, TABLE2_REAL, TRAIN), degree=2)
    assert curve.coef == pytest.approx([0.00659274, 0.25156762, 0.10828841], rel=1e-6)
    predicted = curve.predict(TABLE2_EPS)
    expected = [91.1924361, 7.7767367, 3.2832387, 0.6377946, 0.3664488, 0.1588656, 0.1335111]
    assert predicted == pytest.approx(expected, rel=1e-6)


def test_table1_risk_distance_rounded():
    eps = [0.02, 0.05, 0.1, 0.5, 1, 5, 10]
    curve = ReciprocalCurve.fit([0.02, 0.1, 1], [37, 18, 6], degree=2)
    assert curve.coef == pytest.approx([-0.01751701, 1.52602041, 4.4914966], rel=1e-6)
    assert np.round(curve.predict(eps)).tolist() == [37, 28, 18, 7, 6, 5, 5]


def test_curves_refuse_bad_input():
    with pytest.raises(ValueError, match="degree 1 or 2"):
        ReciprocalCurve.fit([1, 2, 3], [1, 2, 3], degree=3)
    with pytest.raises(ValueError, match="needs at least 3"):
        ReciprocalCurve.fit([1, 2], [1, 2], degree=2)
    with pytest.raises(ValueError, match="positive"):
        ReciprocalCurve.fit([0, 1, 2], [1, 2, 3], degree=1)


@pytest.mark.parametrize("target", [50.0, 5.0, 0.5])
def test_invert_re_evaluates_to_the_target(target):
    curve = ReciprocalCurve.fit(*_train(TABLE2_EPS, TABLE2_REAL, TRAIN), degree=2)
    eps = curve.invert(target)
    assert curve.predict(eps)[0] == pytest.approx(target, rel=1e-9)
    with pytest.warns(UserWarning, match="does not reach"):
        assert np.isnan(curve.invert(1000.0))


def test_alg5_rules():
    assert epsilon_from_noise_bound(2 * np.sqrt(2)) == pytest.approx(1.0)
    assert epsilon_from_noise_bound(2.0, rule="paper_literal") == pytest.approx(2.0)
    assert epsilon_from_noise_bound(1.0, rule="quantile") == pytest.approx(2.995732, rel=1e-6)
    with pytest.raises(ValueError, match="rule must be"):
        epsilon_from_noise_bound(1.0, rule="other")


def test_utility_error_by_hand():
    real = pd.DataFrame({"a": [1.0, 3.0], "b": [0.0, 4.0], "c": list("xy")})
    synth = pd.DataFrame({"a": [0.0, 4.0], "b": [1.0, 3.0], "c": list("xx")})
    schema = Schema({"a": "numerical", "b": "numerical", "c": "categorical"})
    # var a: 1 -> 4 (300%), var b: 4 -> 1 (75%); mean a: 2 -> 2, mean b: 2 -> 2
    assert utility_error(real, synth, schema, "var") == pytest.approx(187.5)
    assert utility_error(real, synth, schema, "mean") == pytest.approx(0.0)
    assert utility_error(real, synth, schema, "std") == pytest.approx((100 + 50) / 2)


def test_select_epsilon_reports_both_bounds_and_conflicts():
    error = ReciprocalCurve(2, np.array([200.0, 0.0, 0.0]))  # 200 / eps^2 percent
    distance = ReciprocalCurve(2, np.array([0.0, 1.0, 0.0]))  # 1 / eps
    ok = select_epsilon(error, 2.0, distance, 0.05)
    # the grid has 800 points per decade: bounds are found within 0.3%
    assert ok.epsilon_utility == pytest.approx(10, rel=3e-3)
    assert ok.epsilon_risk == pytest.approx(20, rel=3e-3) and ok.epsilon == ok.epsilon_risk
    assert select_epsilon(error, 2.0, distance, 0.05, prefer="min").epsilon == pytest.approx(
        10, rel=3e-3
    )
    conflict = select_epsilon(error, 0.1, distance, 0.5)  # needs >= 44.7, allows <= 2
    assert np.isnan(conflict.epsilon) and "no epsilon" in conflict.reason


def _laplace_release(real: pd.DataFrame):
    """A mechanism with known curves: every value plus Laplace noise of scale std / eps, rows kept
    aligned. Variance error = 200 / eps^2 percent; mean |noise| in std units = 1 / eps."""
    std = real.std(ddof=0)

    def synthesise(eps, seed):
        rng = np.random.default_rng(seed)
        return real + rng.laplace(0, 1, real.shape) * (std / eps).to_numpy()

    return synthesise


def test_advisor_finds_the_known_epsilon():
    rng = np.random.default_rng(0)
    real = pd.DataFrame(rng.normal(size=(40_000, 2)), columns=["x", "y"])
    schema = Schema({"x": "numerical", "y": "numerical"})
    std = real.std(ddof=0).to_numpy()

    def displacement(o, z, sc):  # a risk distance with a known curve: 1 / eps
        return float(np.mean(np.abs(z.to_numpy() - o.to_numpy()) / std))

    advice = advise_epsilon(
        real, schema, _laplace_release(real), max_error=2.0, risk_limit=0.05,
        risk=displacement, trial_epsilons=(2.0, 8.0, 40.0), seeds=(0,),
    )  # fmt: skip
    # utility needs eps >= sqrt(200 / 2) = 10; risk allows eps <= 1 / 0.05 = 20
    assert advice.selection.epsilon_utility == pytest.approx(10, rel=0.05)
    assert advice.epsilon == pytest.approx(20, rel=0.05)
    assert advice.selection.predicted_error == pytest.approx(0.5, rel=0.1)
    assert set(advice.points.measure) == {"utility", "risk"} and len(advice.points) == 6
    # verified by measuring at the recommendation: error 200 / 20^2 = 0.5%, distance 1 / 20
    assert advice.meets_targets is not None
    assert advice.measured_error == pytest.approx(0.5, rel=0.1)
    assert advice.measured_risk == pytest.approx(0.05, rel=0.05)


def test_held_out_tables_and_summary():
    points = pd.DataFrame(
        {"epsilon": TABLE2_EPS, "seed": 0, "measure": "var error (%)", "value": TABLE2_REAL}
    )
    one, two = held_out_table(points, TRAIN, 1), held_out_table(points, TRAIN, 2)
    summary = prediction_summary(pd.concat([one, two]))
    # held out: eps 5 (eps 10, also negative, is a training point)
    assert summary.loc[("var error (%)", 1), "negative_predictions"] == 1
    assert summary.loc[("var error (%)", 2), "negative_predictions"] == 0
    assert (
        summary.loc[("var error (%)", 2), "median_relative_error"]
        < summary.loc[("var error (%)", 1), "median_relative_error"]
    )
    assert two[~two.held_out].error.abs().max() < 1e-9  # degree 2 interpolates the training points
