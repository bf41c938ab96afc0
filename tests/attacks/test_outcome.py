"""One shape for every attack's result: value, interval, baseline (attacks/outcome.py)."""

import numpy as np
import pandas as pd
import pytest

from privmetrics.attacks import alc as A
from privmetrics.attacks.attribute_game import AttributeResult, summarise_attribute
from privmetrics.attacks.empirical_epsilon import EpsilonResult
from privmetrics.attacks.inference import ALCResult
from privmetrics.attacks.membership_game import GameResult, summarise
from privmetrics.attacks.outcome import Outcome, from_summary, outcome_table
from privmetrics.attacks.risk import Rate, Risk
from privmetrics.attacks.whole_release import summarise_release


def _games(separated: bool, targets: int = 6, releases: int = 20) -> list[GameResult]:
    rng = np.random.default_rng(0)
    truth = np.tile([0, 1], releases // 2)
    games = []
    for t in range(targets):
        scores = truth * 0.8 + 0.1 if separated else rng.random(releases)
        games.append(GameResult(t, "random", scores, truth))
    return games


def test_a_membership_summary_gives_auc_advantage_and_tpr_against_their_chance():
    leaky = {o.measure: o for o in from_summary(summarise(_games(True), draws=50), "membership",
                                                ("targets",))}  # fmt: skip
    assert set(leaky) == {"AUC", "advantage", "TPR at FPR 0.1"}
    assert leaky["AUC"].value == 1.0 and leaky["AUC"].baseline == 0.5
    assert leaky["advantage"].baseline == 0.0 and leaky["TPR at FPR 0.1"].baseline == 0.1
    assert all(o.beyond_baseline and o.n == 6 for o in leaky.values())
    chance = from_summary(summarise(_games(False), draws=50), "membership", ("targets",))
    auc = next(o for o in chance if o.measure == "AUC")
    assert auc.low <= 0.5 <= auc.high and not auc.beyond_baseline
    assert auc.attack == "membership, random"


def test_the_attribute_games_accuracy_is_measured_against_the_guesser_without_the_release():
    results = [AttributeResult(t, "vulnerable", np.array([True] * 9 + [False]), t % 2 == 0)
               for t in range(8)]  # fmt: skip
    outcomes = {
        o.measure: o
        for o in from_summary(summarise_attribute(results, 50), "attribute", ("targets",))
    }
    assert set(outcomes) == {"accuracy", "advantage"}  # the baseline is no outcome of its own
    assert outcomes["accuracy"].value == pytest.approx(0.9)
    assert outcomes["accuracy"].baseline == pytest.approx(0.5)  # half the guesses were right
    assert outcomes["advantage"].effect == pytest.approx(0.4)


def test_the_whole_release_summary_names_its_configuration():
    summary = summarise_release({("Real", "density ratio"): np.full(10, 0.97),
                                 ("Uniform", "distance"): np.r_[0.45, 0.55] .repeat(5)}, draws=50)  # fmt: skip
    table = outcome_table(from_summary(summary, "whole release", ("config", "kind")))
    assert table.attack.tolist() == ["whole release, Real, density ratio",
                                     "whole release, Uniform, distance"]  # fmt: skip
    assert table["beyond baseline"].tolist() == [True, False]
    assert table.effect.iloc[0] == pytest.approx(0.47)


def test_a_risk_is_net_of_its_control_or_else_against_the_naive_attacker():
    with_control = Risk("linkability", Rate(30, 100), Rate(5, 100), Rate(10, 100)).outcome()
    assert with_control.baseline == 0.0 and with_control.n == 100
    assert with_control.low < with_control.value < with_control.high
    without = Risk("singling out", Rate(30, 100), Rate(5, 100)).outcome()
    assert without.baseline == pytest.approx(Rate(5, 100).value)
    assert without.value == pytest.approx(Rate(30, 100).value) and without.beyond_baseline


def _pair(precision: float, recall: float, width: float) -> pd.Series:
    return pd.Series({"precision": precision, "recall": recall, "low": precision - width,
                      "high": precision + width, "prc": float(A.prc(precision, recall))})  # fmt: skip


def test_the_alc_interval_comes_from_the_attacks_precision_interval():
    attack, base = _pair(0.9, 1.0, 0.05), _pair(0.5, 1.0, 0.05)
    result = ALCResult("age", ["sex"], pd.DataFrame(), pd.DataFrame(), attack, base,
                       float(A.alc(base.prc, attack.prc)), 200, "converged")  # fmt: skip
    outcome = result.outcome()
    assert outcome.value == pytest.approx(0.8)  # (0.9 - 0.5) / (1 - 0.5) at recall 1
    assert outcome.low == pytest.approx(0.7) and outcome.high == pytest.approx(0.9)
    assert outcome.baseline == 0.0 and outcome.beyond_baseline and outcome.n == 200
    empty = ALCResult("age", ["sex"], pd.DataFrame(), pd.DataFrame(), None, None, np.nan, 0, "")
    assert np.isnan(empty.outcome().value) and not empty.outcome().beyond_baseline


def test_an_audited_epsilon_is_a_one_sided_bound_up_to_what_the_releases_could_prove():
    result = EpsilonResult("privbayes", {"epsilon": 1.0}, 1.0, 1e-5, 300, 3, "TOTAL_CHARGES", 3.4,
                         "extreme", 5.2, 3.9, 6.0, pd.DataFrame(), pd.DataFrame())  # fmt: skip
    outcome = result.outcome()
    assert (outcome.value, outcome.low, outcome.high) == (3.4, 3.4, 5.2)
    assert outcome.attack == "empirical epsilon, privbayes (claims 1)" and outcome.n == 300
    assert outcome.beyond_baseline and not result.holds


def test_every_outcome_field_is_a_column_of_the_table():
    table = outcome_table([Outcome("a", "AUC", 0.6, 0.55, 0.65, 0.5, 10)])
    assert list(table.columns) == ["attack", "measure", "value", "low", "high", "baseline", "n",
                                   "effect", "beyond baseline"]  # fmt: skip
    assert table.effect.iloc[0] == pytest.approx(0.1) and table["beyond baseline"].iloc[0]


def test_a_risk_row_is_its_outcome_row_with_the_rates_behind_it():
    """The audit's criteria panel and the games share one shape: a risk's row starts with its
    outcome's columns, then the three rates and whether the attack was weak."""
    risk = Risk("linkability", Rate(30, 100), Rate(5, 100), Rate(10, 100))
    row = risk.as_dict()
    outcome = outcome_table([risk.outcome()])
    assert list(row)[: len(outcome.columns)] == list(outcome.columns)
    assert row["value"] == outcome.value.iloc[0] and row["baseline"] == 0.0
    assert row["control rate"] == pytest.approx(Rate(10, 100).value) and not row["weak attack"]
    weak = Risk("singling out", Rate(5, 100), Rate(30, 100)).as_dict()
    assert weak["weak attack"] and not weak["beyond baseline"]
