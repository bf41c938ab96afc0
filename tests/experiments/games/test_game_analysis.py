"""Experiment 3's analysis: the predictiveness rule gives the verdict a hand computation gives,
at its boundaries, and refuses to decide on a noisy, weak or too narrow attack."""

import numpy as np
import pandas as pd
import pytest

from privmetrics.experiments.games import game_analysis as A
from privmetrics.experiments.games import game_findings as F
from privmetrics.experiments.profiles import get_profile

SMOKE = get_profile("smoke")


def attacks_and_results(
    metric_values: dict[str, list[float]], auc: list[float], width=0.05, targets=12
):
    """The first configuration is Random and the last Real; each AUC has an interval of +-width
    and comes from ``targets`` targets."""
    configs = ["Random", *(f"c{i}" for i in range(1, len(auc) - 1)), "Real"]
    attacks = pd.DataFrame(
        {"dataset": "d", "config": configs, "kind": "random", "measure": "AUC", "value": auc,
         "low": np.array(auc) - width, "high": np.array(auc) + width, "n targets": targets}
    )  # fmt: skip
    results = pd.DataFrame(
        [
            {"dataset": "d", "config": c, "metric": m, "run": r, "score": v}
            for m, values in metric_values.items()
            for c, v in zip(configs, values, strict=True)
            for r in range(2)
        ]
    )
    return attacks, results


AUC = [0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 0.52, 1.0]  # Random, c1-c6, Real


def placed(auc):
    """A metric that places each configuration as the attack sees it: Random 0, Real 1, and the
    configurations the attack breaks (an AUC of 0.6 up) in the upper two thirds."""
    return [((a - 0.5) / 0.5) ** 0.3 for a in auc]


def test_a_metric_that_ranks_like_the_attack_tracks_it_and_one_that_misses_says_where():
    attacks, results = attacks_and_results(
        {"same": placed(AUC), "linear": [2 * a for a in AUC], "flat": [0.3] * len(AUC)}, AUC
    )
    table = A.predictiveness(attacks, results).set_index("metric")
    assert table.loc["same", "rho"] == pytest.approx(1.0)
    assert table.loc["same", "verdict"] == A.TRACKS and table.loc["same", "missed risks"] == ""
    # ranks alike, but places c2 (AUC 0.6 +- 0.05: the attack finds members) at 0.2, the safe third
    assert table.loc["linear", "rho"] == pytest.approx(1.0)
    assert (
        table.loc["linear", "verdict"] == A.MISSES and table.loc["linear", "missed risks"] == "c2"
    )
    # a metric that cannot place a release (Random and Real alike) is judged on nothing
    assert np.isnan(table.loc["flat", "rho"]) and table.loc["flat", "verdict"] == A.CANNOT_TELL
    assert (table.configurations == len(AUC)).all() and table["attack works on Real"].all()
    # separated from chance: c2-c5 and Real (AUC 0.6 up, interval above 0.5); shown at chance:
    # Random alone (0.45-0.55; c6's 0.47-0.57 reaches past the band)
    assert (table["above chance"] == 5).all() and (table["at chance"] == 1).all()
    # the same scores against an attack whose interval on Real reaches chance: no verdict
    attacks, results = attacks_and_results({"same": placed(AUC)}, AUC, width=0.5)
    table = A.predictiveness(attacks, results)
    assert table.rho.iloc[0] == pytest.approx(1.0) and table.verdict.iloc[0] == A.CANNOT_TELL


def test_a_false_alarm_is_a_top_third_place_where_a_powered_attack_finds_nothing():
    auc = [0.5, 0.5, 0.5, 0.5, 1.0]  # Random, c1-c3 at chance (+-0.05), Real
    attacks, results = attacks_and_results(
        {"alarm": [0.0, 0.9, 0.1, 0.2, 1.0], "quiet": [0.0, 0.1, 0.2, 0.1, 1.0]}, auc
    )
    table = A.predictiveness(attacks, results).set_index("metric")
    assert (
        table.loc["alarm", "verdict"] == A.FALSE_ALARM
        and table.loc["alarm", "false alarms"] == "c1"
    )
    # nothing contradicted, three configurations decided (at chance) and placed: agreement
    assert table.loc["quiet", "verdict"] == A.AGREES
    # an attack too weak to say "nothing" (interval 0.4-0.6) decides no alarm
    attacks, results = attacks_and_results({"alarm": [0.0, 0.9, 0.1, 0.2, 1.0]}, auc, width=0.1)
    attacks.loc[attacks.config == "Real", ["low", "high"]] = [0.95, 1.0]
    assert A.predictiveness(attacks, results).verdict.iloc[0] == A.CANNOT_TELL


def test_a_configuration_that_did_not_train_is_left_out_of_every_verdict():
    """Issue 59: PATE-GAN's releases at the games' size are the untrained generator's; an alarm
    raised on one says nothing of the technique, so such configurations are left out."""
    auc = [0.5, 0.5, 0.5, 0.5, 1.0]
    attacks, results = attacks_and_results({"alarm": [0.0, 0.9, 0.1, 0.2, 1.0]}, auc)
    table = A.predictiveness(attacks, results, untrained={("d", "c1"): 0}).set_index("metric")
    assert table.loc["alarm", "false alarms"] == "" and table.loc["alarm", "verdict"] == A.AGREES
    assert table.loc["alarm", "configurations"] == len(auc) - 1
    # another dataset's configuration of the same name stays
    kept = A.predictiveness(attacks, results, untrained={("e", "c1"): 0}).set_index("metric")
    assert kept.loc["alarm", "false alarms"] == "c1"


def test_the_alarms_at_their_boundaries():
    chance = 0.5
    row = pd.Series({"value": 0.5, "low": 0.45, "high": 0.55})
    assert A.at_chance(row, chance) and not A.at_chance(row.replace({0.55: 0.5501}), chance)
    bounds = pd.DataFrame(
        [{"value": 0.5, "low": 0.45, "high": 0.55}, {"value": 0.8, "low": 0.7, "high": 0.9},
         {"value": 0.8, "low": 0.7, "high": 0.9}],
        index=["c1", "c2", "Real"],
    )  # fmt: skip
    # exactly 2/3 is the top third, exactly 1/3 is not the safe third; Real is never judged
    assert A.alarms(pd.Series({"c1": 2 / 3, "c2": 1 / 3, "Real": 0.0}), bounds, chance, 0.05) == (
        [],
        ["c1"],
    )
    assert A.alarms(pd.Series({"c1": 0.66, "c2": 0.33}), bounds, chance, 0.05) == (["c2"], [])
    # the permutation test must pass at the level given (Bonferroni over the configurations)
    assert A.alarms(pd.Series({"c2": 0.1}), bounds.assign(p=0.02), chance, 0.01) == ([], [])
    means = pd.DataFrame(
        {"m": [0.2, 0.5, 1.0], "flat": [0.3, 0.32, 0.34]}, index=["Random", "c", "Real"]
    )
    where = A.positions(means)
    assert where.loc["c", "m"] == pytest.approx(0.375) and where.flat.isna().all()


def test_an_attack_that_is_mostly_noise_gives_no_rank_verdict():
    """The same point values, once with the attack's bootstrap draws tight around them and once
    spread over most of [0, 1] as few releases per target leave them. Against the precise attack a
    metric that ranks the configurations as it does tracks it; against the noisy one (Real still
    caught in every draw) the rank is not read, since two bootstrap draws of the attack disagree
    on the order: the metric contradicts no configuration, so it only agrees with the attack."""
    rng = np.random.default_rng(0)
    tables = {}
    for spread in (0.01, 0.4):
        attacks, results = attacks_and_results({"same": placed(AUC)}, AUC)
        attacks["draws"] = [np.clip(a + rng.normal(0, spread, 500), 0, 1) for a in AUC]
        attacks.at[len(AUC) - 1, "draws"] = np.ones(500)  # Real: its games separate in every draw
        tables[spread] = A.predictiveness(attacks, results).set_index("metric")
        assert tables[spread].loc["same", "rho"] == pytest.approx(1.0)
        assert tables[spread]["attack works on Real"].all()
    assert tables[0.01]["attack reliability"].min() > 0.95
    assert tables[0.01].verdict.to_dict() == {"same": A.TRACKS}
    assert tables[0.4]["attack reliability"].max() < 0.8
    assert tables[0.4].verdict.to_dict() == {"same": A.AGREES}


def test_the_reliability_of_pure_noise_is_about_one_half():
    """The docstring's calibration: bootstrap draws around values that are themselves noise."""
    rng = np.random.default_rng(1)
    observed = rng.uniform(0.3, 0.7, 12)
    draws = observed + rng.normal(0, observed.std(), (1000, 12))
    assert 0.35 < A.reliability(draws) < 0.65


def test_the_verdict_rule_at_its_boundaries():
    # one adjacent swap in four points: rho is exactly 0.8, which scipy returns as 0.7999999999999999
    rho = float(A._spearman_rows(np.array([[1.0, 2, 4, 3]]), np.array([[1.0, 2, 3, 4]]))[0])
    assert rho == pytest.approx(0.8)
    rho = np.nextafter(0.8, 0)
    assert A.verdict(rho, 0.1, 1.0) == A.TRACKS
    assert A.verdict(rho, -0.2, 1.0) == A.CANNOT_TELL  # the interval reaches below 0
    assert A.verdict(0.3, -0.5, 0.7) == A.DOES_NOT
    assert A.verdict(0.3, -0.5, 0.9) == A.CANNOT_TELL  # the interval still allows tracking
    assert A.verdict(0.5, 0.1, 0.9) == A.CANNOT_TELL


def stored_game(config, target, scores, truth, distance, hit=None, klass=None):
    import json

    n = len(truth)
    return {"dataset": "d", "config": config, "kind": "random", "target": target,
            "scores": json.dumps(scores), "truth": json.dumps(truth),
            "ingredients": json.dumps({"distance": distance, "hit": hit or [0.0] * n,
                                       "class": klass or [0.0] * n})}  # fmt: skip


def test_per_record_ranks_exposure_against_the_attack_by_hand():
    """Four games: the closer a target sits to the releases that hold it, the better the attack
    does on it (rho 1 for the distance); copies and classes are constant (no rho)."""
    truth = [0, 1, 0, 1]
    rows = [
        stored_game("Real", 1, [0.1, 0.9, 0.2, 0.8], truth, [5, 0.0, 5, 0.0]),  # AUC 1
        stored_game("A", 2, [0.1, 0.9, 0.85, 0.8], truth, [5, 0.5, 5, 0.5]),  # AUC 0.75
        stored_game("B", 3, [0.9, 0.1, 0.8, 0.2], truth, [5, 3.0, 5, 5.0]),  # AUC 0
        stored_game("C", 4, [0.1, 0.9, 0.9, 0.8], truth, [5, 1.0, 5, 1.0]),  # AUC 0.625
    ]
    games = pd.DataFrame(rows)
    attacks = pd.DataFrame([{"dataset": "d", "config": "Real", "kind": "random", "measure": "AUC",
                             "value": 1.0, "low": 0.9, "high": 1.0, "n targets": 1}])  # fmt: skip
    table = A.per_record(games, attacks, draws=200).set_index("ingredient")
    assert table.loc["closest distance", "rho"] == pytest.approx(1.0)
    assert table.loc["closest distance", "games"] == 4
    assert np.isnan(table.loc["copy released", "rho"])
    assert table.loc["copy released", "verdict"] == A.CANNOT_TELL
    assert "DCR" in table.loc["closest distance", "measures"]
    # the exposure by hand: minus the mean distance over the releases that hold the target
    assert A._exposure("distance", np.array([3.0, 5.0])) == -4.0
    assert A._exposure("class", np.array([0.0, 4.0])) == pytest.approx(0.125)


def test_the_selection_re_read_and_the_no_loss_check_say_what_the_numbers_say():
    table = pd.DataFrame([
        {"dataset": "d", "kind": "random", "metric": "DCR", "verdict": A.TRACKS},
        {"dataset": "d", "kind": "random", "metric": "ALC", "verdict": A.DOES_NOT},
    ])  # fmt: skip
    shown = F.reread(table, {"paper": ["DCR", "NNDR"], "ours": ["DCR", "ALC"]})
    assert shown.loc["DCR", "selected by"] == "paper, ours"
    assert shown.loc["NNDR", "d, random targets"] == "not measured"
    assert shown.loc["ALC", "d, random targets"] == A.DOES_NOT
    results = pd.DataFrame(
        {"dataset": "d", "config": "CTGAN", "metric": "ALC", "score": [0.0, 0.02]}
    )
    attack = {"dataset": "d", "config": "CTGAN", "kind": "random", "measure": "AUC", "value": 0.8}
    found = F.no_loss_check(results, pd.DataFrame([{**attack, "low": 0.7, "high": 0.9}]))
    assert "ALC scores CTGAN 0.010" in found and "understates this risk" in found
    chance = F.no_loss_check(results, pd.DataFrame([{**attack, "low": 0.4, "high": 0.9}]))
    assert "the two agree at this scale" in chance


def test_a_games_bootstrap_auc_is_sklearns_auc_of_the_drawn_releases():
    from sklearn.metrics import roc_auc_score

    scores = np.array([0.1, 0.9, 0.5, 0.5, 0.3, 0.8])
    truth = np.array([0, 1, 0, 1, 1, 0])
    got = A._auc_draws(scores, truth, 200, np.random.default_rng(3))
    pick = np.random.default_rng(3).integers(len(truth), size=(200, len(truth)))
    for row, p in zip(got, pick, strict=True):
        if 0 < truth[p].mean() < 1:
            assert row == pytest.approx(roc_auc_score(truth[p], scores[p]))
        else:
            assert np.isnan(row)


def test_an_attack_barely_above_chance_on_real_is_not_shown_to_work():
    """Effect size, not only the interval: Real at an AUC of 0.55 with a tight interval above 0.5
    counts as not working; at 0.6 it works (MIN_EFFECT 0.1)."""
    for real, works in ((0.55, False), (0.6, True)):
        auc = [0.5, 0.51, 0.52, 0.53, real]
        attacks, results = attacks_and_results({"same": auc}, auc, width=0.02)
        table = A.predictiveness(attacks, results)
        assert bool(table["attack works on Real"].iloc[0]) is works
        assert (table.verdict.iloc[0] == A.TRACKS) is works


def test_found_members_names_the_configurations_the_attack_breaks_beside_the_metrics_scores():
    auc = [0.95, 0.55, 0.52, 0.5, 1.0]  # Random caught; c1 barely above chance: no effect
    attacks, results = attacks_and_results(
        {"m": [0.1, 0.5, 0.4, 0.3, 1.0], "other": [9] * 5}, auc, width=0.04
    )
    said = F.found_members(attacks, results, final=["m"])
    assert said.startswith(
        "- **d, random targets**: beyond Real, the attack finds members in Random (AUC 0.95 [0.91, 0.99]; the final metrics' mean score 0.10)"
    )
    assert "c1" not in said and "Real's mean score: 1.00" in said
    attacks, results = attacks_and_results(
        {"m": [0.1, 0.5, 0.4, 0.3, 1.0]}, [0.5, 0.5, 0.5, 0.5, 1.0]
    )
    assert "in no configuration" in F.found_members(attacks, results, final=["m"])


def test_the_chapter_states_the_effect_the_code_requires():
    from pathlib import Path

    text = (Path(__file__).parents[3] / "notebooks" / "attacks.ipynb").read_text()
    assert f"its value at least {A.MIN_EFFECT} above it" in text
    assert f"or the kind has fewer than {A.MIN_TARGETS} targets" in text
    assert f"within chance plus or minus {A.CHANCE_BAND}" in text


def test_found_members_needs_the_permutation_test_bonferroni_corrected():
    auc = [0.94, 0.9, 0.5, 1.0]
    attacks, results = attacks_and_results({"m": [0.1, 0.2, 0.3, 1.0]}, auc, width=0.04)
    # Random's p survives 0.05 / 3 configurations; c1's (0.03) would pass alone, not corrected
    attacks["p"] = [0.001, 0.03, 0.5, 0.0001]
    said = F.found_members(attacks, results, final=["m"])
    assert "Random (AUC 0.94" in said and "c1" not in said


def test_too_few_targets_give_no_verdict():
    """The same precise attack and metric as above: with 12 targets a verdict, with 4 none (a
    bootstrap over four targets cannot bound anything), and the findings say why in one line."""
    for targets, verdict in ((12, A.TRACKS), (4, A.CANNOT_TELL)):
        attacks, results = attacks_and_results({"same": placed(AUC)}, AUC, targets=targets)
        table = A.predictiveness(attacks, results)
        assert table.verdict.iloc[0] == verdict and table.targets.iloc[0] == targets
    said = F.findings(table, final=[])
    assert said == ("- No measure can be judged on d, random targets (4 targets, fewer than 10): an "
                    "attack that does not work on the release that is its training table, or an "
                    "interval over too few targets, decides nothing.\n")  # fmt: skip
    said = F.findings(table, final=[], kinds="scoring", units="releases")  # the whole release
    assert "d, random scoring (4 releases, fewer than 10)" in said and "too few releases" in said


def test_the_findings_count_the_verdicts_and_name_the_missed_configurations():
    attacks, results = attacks_and_results(
        {"same": placed(AUC), "linear": [2 * a for a in AUC]}, AUC
    )
    said = F.findings(A.predictiveness(attacks, results), final=["linear"], named=())
    assert "of 2 measures, 1 misses a risk, 1 tracks the attack" in said
    assert "8 configurations; the attack separates 5 of them from chance and shows 1 at" in said
    assert "of the paper's final seven, 1 misses a risk" in said
    # counts read as sentences, the verb agreeing with its number (issue 63)
    assert F.counted(1, "misses a risk") == "1 misses a risk"
    assert F.counted(24, "misses a risk") == "24 miss a risk"
    assert F.counted(12, "raises a false alarm") == "12 raise a false alarm"
    assert set(F.PLURAL) == set(F.VERDICTS)
    assert "these miss the risk in the configurations named: linear (c2)" in said
