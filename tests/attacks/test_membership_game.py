"""The shadow-model membership game, played for many targets on shared releases: sanity checks
that can fail (Real is caught, data-independent releases are not, DP respects its bound), and a
leaky evaluation that fails them."""

import numpy as np
import pandas as pd
import pytest

from privmetrics.attacks.empirical_epsilon import clopper_pearson
from privmetrics.attacks.membership_game import summarise, tpr_at, vulnerable_targets
from privmetrics.attacks.one_run import TargetGames, choose_targets
from privmetrics.data.datasets import load_dataset

SIZES = {"train_rows": 200, "shadow": 40, "releases": 20}


@pytest.fixture(scope="module")
def population():
    frame, schema = load_dataset("texas", n=1000, seed=0)
    targets = {
        "random": np.random.default_rng(0).choice(len(frame), 2, replace=False),
        "vulnerable": vulnerable_targets(frame, schema, 2),
    }
    return frame, schema, targets


def games(population, technique, params, kinds=("random", "vulnerable"), **kw):
    """One play for the targets of ``kinds``: their membership games."""
    frame, schema, targets = population
    chosen = {kind: [int(t) for t in targets[kind]] for kind in kinds}
    seed = kw.pop("seed", 0)
    return (
        TargetGames(frame, schema, technique, params, chosen, **SIZES, **kw)
        .evaluate(seed)
        .membership
    )


def play(frame, schema, technique, params, target, kind="random", seed=0, **sizes):
    """The membership game of one target."""
    return (
        TargetGames(frame, schema, technique, params, {kind: [target]}, **sizes)
        .evaluate(seed)
        .membership[0]
    )


def measure(summary, kind, name="AUC"):
    return summary.set_index(["targets", "measure"]).loc[(kind, name)]


def test_vulnerable_targets_are_the_most_isolated_rows(population):
    frame, schema, targets = population
    first = vulnerable_targets(frame, schema, 1)[0]
    assert first == targets["vulnerable"][0]
    assert frame.TOTAL_CHARGES.iloc[targets["vulnerable"]].min() > frame.TOTAL_CHARGES.median()


def test_tpr_at_a_low_false_positive_rate_by_hand():
    scores = np.array([0.9, 0.8, 0.7, 0.2, 0.85, 0.1])
    truth = np.array([1, 1, 1, 1, 0, 0])
    # threshold 0.9: TPR 1/4 with FPR 0; 0.85 lets the negative through (FPR 1/2)
    assert tpr_at(scores, truth, 0.1) == 0.25


@pytest.mark.slow
def test_releasing_the_training_data_is_caught(population):
    summary = summarise(games(population, "real", {}), draws=200)
    for kind in ("random", "vulnerable"):
        assert measure(summary, kind).value >= 0.9 and measure(summary, kind).low >= 0.8


@pytest.mark.slow
def test_a_data_independent_release_gives_the_attacker_nothing(population):
    """Uniform draws over the declared public domain: the release ignores the training rows."""
    frame, schema, _ = population
    domains = {c: (d.low, d.high) if c in schema.numerical else list(d.values)
               for c, d in schema.domain.items()}  # fmt: skip
    summary = summarise(games(population, "uniform", {"domains": domains}), draws=200)
    for kind in ("random", "vulnerable"):
        row = measure(summary, kind)
        assert row.low <= 0.5 <= row.high, summary


@pytest.mark.slow
def test_algorithm_22_gives_away_a_member_whose_category_is_its_own(population):
    """The paper's Random is no data-independent floor: it draws each categorical value from the
    training table's own category set (plus invented ones), so a target whose value no other row
    has shows up by that value. (A release that ignores the rows, Uniform, stays at chance above;
    the forest, weighing every feature, also finds weaker traces of typical rows.)"""
    frame, schema, targets = population
    frame = frame.copy()
    target = int(targets["random"][0])
    frame.loc[frame.index[target], "PAT_STATE"] = "only the target"
    results = [play(frame, schema, "random", {}, target, "random", **SIZES)]
    row = measure(summarise(results, draws=200), "random")
    assert row.value >= 0.8 and row.low > 0.5, row


@pytest.mark.slow
def test_a_leaky_evaluation_fails_the_chance_check(population):
    """Judged on its own shadow releases the forest 'wins' even against Uniform, which ignores
    the rows: the chance check above would fail, which is what makes it a check."""
    frame, schema, _ = population
    domains = {c: (d.low, d.high) if c in schema.numerical else list(d.values)
               for c, d in schema.domain.items()}  # fmt: skip
    leaky = summarise(games(population, "uniform", {"domains": domains}, kinds=("random",),
                            leaky=True), draws=200)  # fmt: skip
    assert not measure(leaky, "random").low <= 0.5


@pytest.mark.slow
def test_privbayes_at_a_small_epsilon_respects_the_dp_bound(population):
    epsilon = 0.2
    results = games(population, "privbayes", {"epsilon": epsilon})
    scores = np.concatenate([r.scores for r in results]) >= 0.5
    truth = np.concatenate([r.truth for r in results])
    tp, fp = int(scores[truth == 1].sum()), int(scores[truth == 0].sum())
    tpr_low, _ = clopper_pearson(tp, int((truth == 1).sum()), 0.95)
    _, fpr_high = clopper_pearson(fp, int((truth == 0).sum()), 0.95)
    assert tpr_low <= np.exp(epsilon) * fpr_high, (tp, fp)


def test_the_per_record_ingredients_by_hand(population):
    """A release that holds the target once, a row two attributes off it, and a far row: closest
    distance 0, a copy, and an equivalence class of one (the near row differs on a key)."""
    from privmetrics.attacks.membership_game import FeatureMaker

    frame, schema, targets = population
    target = frame.iloc[int(targets["random"][0])]
    features = FeatureMaker(schema, frame.drop(index=frame.index[int(targets["random"][0])]))
    far = frame.iloc[[int(targets["vulnerable"][0])]]
    near = frame.iloc[[int(targets["random"][0])]].copy()
    key = schema.key[0]
    near[key] = frame[key][frame[key] != target[key]].iloc[0]
    copy = frame.iloc[[int(targets["random"][0])]]
    release = pd.concat([far, near, copy], ignore_index=True)
    got = features.ingredients(release, target)
    assert got == {"distance": 0.0, "hit": 1.0, "class": 1.0}
    got = features.ingredients(release.iloc[:2], target)  # without the copy
    assert got["hit"] == 0.0 and got["class"] == 0.0 and got["distance"] > 0


@pytest.mark.slow
def test_a_game_keeps_the_ingredients_of_every_evaluation_release(population):
    frame, schema, targets = population
    result = play(frame, schema, "real", {}, int(targets["random"][0]), train_rows=100, shadow=4,
                  releases=6)  # fmt: skip
    assert set(result.ingredients) == {"distance", "hit", "class"}
    inside = result.truth == 1
    # Real releases its training table: the target is copied exactly when it is a member
    np.testing.assert_array_equal(result.ingredients["hit"], inside.astype(float))
    assert (result.ingredients["distance"][inside] == 0).all()
    assert (result.ingredients["distance"][~inside] > 0).all()


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["quick", "paper"])
@pytest.mark.parametrize("dataset", ["texas", "flchain", "randhie"])
def test_real_is_caught_at_the_profiles_own_game_scale(profile, dataset):
    """The games of each profile (its population, training rows, shadow and evaluation releases
    and all its targets in one play) must catch Real, the release that is its training table:
    every target scores an AUC of at least 0.75 and every vulnerable one 1. No target has an
    exact twin in the population (choose_targets), so a release without it cannot hold its copy.
    Version 2 of the attack (every column's whole histogram among the features, bootstrapped
    trees) failed this on Texas and flchain: it followed histogram bins that separated the shadow
    releases by chance."""
    from privmetrics.experiments.games.game_store import game_settings
    from privmetrics.experiments.profiles import get_profile

    sizes = get_profile(profile)
    settings = game_settings(sizes, "real")
    frame, schema = load_dataset(dataset, n=settings["population"], seed=0)
    targets = choose_targets(frame, schema, sizes.game_targets, seed=0)
    played = TargetGames(frame, schema, "real", {}, targets, train_rows=settings["train_rows"],
                         shadow=settings["shadow"], releases=settings["releases"],
                         attacks=("membership",)).evaluate()  # fmt: skip
    results = played.membership
    assert not played.attribute and not any(played.release.values())  # only what was asked
    aucs = {(r.kind, r.target): r.auc for r in results}
    assert min(aucs.values()) >= 0.75, aucs
    assert all(auc == 1.0 for (kind, _), auc in aucs.items() if kind == "vulnerable"), aucs
    summary = summarise(results, draws=200)
    assert measure(summary, "vulnerable").low > 0.5 and measure(summary, "random").low > 0.5


def test_every_target_is_in_half_of_the_tables_independently_of_the_others():
    from privmetrics.attacks.one_run import membership_design

    design = membership_design(20, 500, np.random.default_rng(0))
    assert (design.sum(0) == 10).all()  # balanced: each target in exactly half
    # independent: two targets share a table as often as chance says (10 of 20 and 10 of 20)
    together = (design[:, :, None] & design[:, None, :]).sum(0)[np.triu_indices(500, 1)]
    assert abs(together.mean() - 5) < 0.1 and together.std() > 1  # hypergeometric: 5, 1.15


def test_a_target_is_never_a_row_with_an_exact_twin(population):
    frame, schema, _ = population
    frame = frame.copy()
    first = vulnerable_targets(frame, schema, 1)[0]
    twin = frame.iloc[[first]].copy()
    with_twin = pd.concat([frame, twin], ignore_index=True)
    chosen = choose_targets(with_twin, schema, 5, seed=0)
    assert first not in chosen["vulnerable"] and first not in chosen["random"]
    assert chosen["vulnerable"][0] == vulnerable_targets(frame, schema, 2)[1]


def test_the_permutation_test_is_exact_for_a_perfect_ordering():
    """Six releases of one target, ordered perfectly: 1 of the C(6, 3) = 20 labellings does as
    well, so p = 1/20; two such targets pooled: 1/400. The bootstrap interval of the same six
    values lies wholly above chance, which is why the decisions use the test."""
    from privmetrics.attacks.membership_game import GameResult, permutation_p

    game = GameResult(
        0, "random", np.array([0.1, 0.9, 0.2, 0.8, 0.3, 0.7]), np.array([0, 1, 0, 1, 0, 1])
    )
    assert permutation_p([game]) == pytest.approx(1 / 20, abs=0.006)
    assert permutation_p([game, game]) == pytest.approx(1 / 400, abs=0.0015)
    assert measure(summarise([game], draws=200), "random").low > 0.5
    # no ordering at all: every labelling does at least as well as a reversed one
    reverse = GameResult(0, "random", game.scores, 1 - game.truth)
    assert permutation_p([reverse]) == 1.0


def test_the_rank_sum_auc_is_roc_auc_score_with_ties():
    """summarise's bootstrap uses rank_auc for speed; it must be sklearn's AUC, ties counted half."""
    from scipy.stats import rankdata
    from sklearn.metrics import roc_auc_score

    from privmetrics.attacks.membership_game import rank_auc

    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(2, 60))
        scores = rng.integers(0, 5, n) / 4  # many ties, as the classifier's scores have
        truth = rng.integers(0, 2, n)
        if 0 < truth.mean() < 1:
            expected = roc_auc_score(truth, scores)
            assert abs(float(rank_auc(rankdata(scores), truth.astype(float))) - expected) < 1e-12
    assert rank_auc(rankdata([0.1, 0.9, 0.5]), np.array([0.0, 1.0, 0.0])) == 1.0  # by hand


def test_an_unknown_attack_is_named_before_any_release_is_made(population):
    frame, schema, targets = population
    with pytest.raises(ValueError, match=r"unknown attacks \['shadow'\]"):
        TargetGames(frame, schema, "real", {}, {"random": targets["random"][:1]},
                    attacks=("membership", "shadow")).evaluate()  # fmt: skip


def test_the_measures_of_many_draws_at_once_are_those_of_each_draw():
    """Bootstrap draws measured together (summarise's fast path) give each draw's AUC, advantage
    and TPR at FPR 0.1 to the bit, with tied scores, and NaN on a draw of one class."""
    from scipy.stats import rankdata

    from privmetrics.attacks.membership_game import measure_rows, rank_auc

    rng = np.random.default_rng(3)
    scores = rng.integers(0, 6, (40, 30)) / 5  # many ties, some exactly 0.5
    truth = rng.random((40, 30)) < 0.4
    truth[7] = True  # one class only
    rows = measure_rows(scores, truth)
    for s, t, got in zip(scores, truth, rows, strict=True):
        if t.all():
            assert np.isnan(got).all()
            continue
        guess = s >= 0.5
        expected = [rank_auc(rankdata(s), t.astype(float)),
                    guess[t].mean() - guess[~t].mean(), tpr_at(s, t.astype(int))]  # fmt: skip
        assert got.tolist() == expected
