"""The ALC arithmetic against the paper's own numbers (Francis and Wagner, Sections 3-5)."""

import numpy as np
import pandas as pd
import pytest

from privmetrics.attacks import alc as A


@pytest.mark.parametrize(
    "p, r, expected",
    [
        (0.9, 1.0, 0.9),  # at recall 1 the PRC is the precision
        (0.9, 0.1, 0.885938),
        (0.9, 0.01, 0.7875),
        (0.9, 0.001, 0.520313),
        (0.95, 0.0005, 0.416061),
        (0.5, 5e-5, 5e-5),  # below R_min the precision has no effect: PRC = R
    ],
)
def test_prc_test_vectors(p, r, expected):
    assert float(A.prc(p, r)) == pytest.approx(expected, abs=1e-6)


def test_prc_r_min_branch_and_clamping():
    assert float(A.prc(0.7, 1e-4)) == pytest.approx(1e-4)  # R <= R_min: the second branch
    assert float(A.prc(0.7, 1e-3, r_min=1e-2)) == pytest.approx(1e-3)
    assert float(A.prc(1.3, 1.2)) == pytest.approx(1.0)  # clamped to [0, 1]
    assert float(A.prc(0.0, 0.5)) == 0.0


@pytest.mark.parametrize(
    "base, attack, absolute, relative",
    [(0.1, 0.3, 0.2, 0.2222), (0.75, 0.95, 0.2, 0.8), (0.99, 0.999, 0.009, 0.9)],
)
def test_alc_abs_and_rel_table(base, attack, absolute, relative):
    assert float(A.alc_abs(base, attack)) == pytest.approx(absolute, abs=1e-9)
    assert float(A.alc(base, attack)) == pytest.approx(relative, abs=1e-4)


@pytest.mark.parametrize(
    "recall, p_base, p_attack, expected",
    [
        (1.0, 0.05, 0.525, 0.5),
        (1.0, 0.5, 0.75, 0.5),
        (1.0, 0.9, 0.95, 0.5),
        (1.0, 0.99, 0.995, 0.5),
        (0.001, 0.2, 0.96, 0.497),
        (0.001, 0.1, 0.92, 0.503),
    ],
)
def test_worked_examples_at_alc_one_half(recall, p_base, p_attack, expected):
    value = A.alc(A.prc(p_base, recall), A.prc(p_attack, recall))
    assert float(value) == pytest.approx(expected, abs=1e-3)


def test_wilson_interval_35_of_35():
    low, high = A.wilson_interval(35, 35)
    assert float(low) == pytest.approx(0.9011, abs=1e-4) and float(high) == pytest.approx(1.0)
    assert float(A.probabilistic_precision(35, 35)) == pytest.approx(0.9505, abs=1e-4)
    assert float(A.probabilistic_precision(35, 35)) == pytest.approx(float((low + high) / 2))
    assert A.wilson_interval(0, 0) == (0.0, 0.0) and float(A.probabilistic_precision(0, 0)) == 0


def test_precision_recall_pairs_by_hand():
    # four targets: two right at ranks 0.9 and 0.8, one wrong at 0.8, one abstention
    pairs = A.precision_recall([True, True, False, None], [0.9, 0.8, 0.8, 0.0])
    assert pairs.threshold.tolist() == [0.9, 0.8]
    assert pairs[["true", "false", "abstentions"]].to_numpy().tolist() == [[1, 0, 3], [2, 1, 1]]
    assert pairs.recall.tolist() == [0.25, 0.75]
    z2 = A.Z95**2
    assert pairs.precision.tolist() == pytest.approx(
        [(1 + z2 / 2) / (1 + z2), (2 + z2 / 2) / (3 + z2)]
    )
    assert pairs.prc.tolist() == pytest.approx(A.prc(pairs.precision, pairs.recall).tolist())


def test_best_prc_needs_a_narrow_interval():
    rng = np.random.default_rng(0)
    correct = rng.random(2000) < 0.8
    pairs = A.precision_recall(correct, np.ones(2000))
    best = A.best_prc(pairs)
    assert best is not None and best.width <= 0.1 and best.recall == 1.0
    assert A.best_prc(A.precision_recall([True, False], [1.0, 1.0])) is None  # n = 2: too wide


def test_thresholds_for_keeps_both_ends():
    # indices 0, 4 (4.5 rounds to even) and 9 of the distinct scores sorted down: 9, 5, 0
    assert A.thresholds_for(np.arange(10), 3).tolist() == [9.0, 5.0, 0.0]
    assert A.thresholds_for([1, 1, 2], 5).tolist() == [2.0, 1.0]


def test_risk_labels():
    assert [A.risk_label(v) for v in (-0.3, 0.49, 0.5, 0.74, 0.75)] == [
        "safe", "safe", "at risk", "at risk", "serious",
    ]  # fmt: skip


def make_pairs(precision_of_correct: float, n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return A.precision_recall(rng.random(n) < precision_of_correct, np.ones(n))


def test_halting_rule():
    # attack no better than the baseline, intervals already tight: definitely safe
    halt, reason = A.should_halt(make_pairs(0.5, 400, 1), make_pairs(0.5, 400, 2))
    assert halt and reason.startswith("definitely safe")
    # an attack far above a weak baseline: definitely compromised
    halt, reason = A.should_halt(make_pairs(0.999, 400, 1), make_pairs(0.05, 400, 2))
    assert halt and reason.startswith("definitely compromised")
    # ten predictions: nothing is decided yet
    halt, reason = A.should_halt(make_pairs(0.7, 10, 1), make_pairs(0.6, 10, 2))
    assert not halt


# --- the measurement: best-row-match attack against the random-forest baseline --------------------

from privmetrics.attacks.inference import (  # noqa: E402
    AnonymityLoss,
    alc_score,
    best_row_match,
    select_targets,
)


def alc_of(real, release, schema, secret, seed=0, control=None, **params):
    """The ALC attack on ``release`` for ``secret`` (:class:`AnonymityLoss`), played with ``seed``."""
    return AnonymityLoss(real, release, control, schema, secret=secret, **params).evaluate(seed)


def test_best_row_match_test_vector():
    # query (30, F, 123); three rows tie at G = (5/100 + 0 + 0) / 3, two of them hold "x"
    candidates = pd.DataFrame(
        {
            "age": [35.0, 25.0, 35.0, 90.0],
            "sex": ["F", "F", "F", "M"],
            "zip": ["123", "123", "123", "999"],
        }
    )
    unknown = np.array([0, 0, 1, 1])  # codes of "x", "x", "y", "y"
    query = pd.DataFrame({"age": [30.0], "sex": ["F"], "zip": ["123"]})
    pred, rank = best_row_match(query, candidates, unknown, ["age"], {"age": 100.0})
    assert pred.tolist() == [0]
    # G = 0.01667 rounded to 0.017 (as the reference code rounds): (1 - 0.017) * 2/3
    assert rank[0] == pytest.approx((1 - 0.017) * 2 / 3)


@pytest.fixture(scope="module")
def secret_table(make_secret_table):
    """The unknown attribute is pure noise given the known ones: only a copy can reveal it."""
    return make_secret_table(3000, seed=3)


def test_alc_high_when_the_release_copies_the_data(secret_table):
    frame, schema = secret_table
    result = alc_of(frame, frame.copy(), schema, "secret", seed=0)
    # the copy gives every secret away; the baseline cannot beat 1/4
    assert result.alc > 0.8 and result.label == "serious" and alc_score(result.alc) == result.alc
    assert result.best_attack.precision > 0.9 and result.best_base.precision < 0.4
    assert len(result.attack) >= 1 and {"precision", "recall", "prc", "width"} <= set(result.attack)


def test_alc_near_zero_when_the_release_is_unrelated(secret_table):
    frame, schema = secret_table
    rng = np.random.default_rng(9)
    unrelated = pd.DataFrame({c: rng.permutation(frame[c].to_numpy()) for c in frame.columns})
    result = alc_of(frame, unrelated, schema, "secret", seed=0)
    assert result.alc < 0.2 and result.label == "safe"
    assert alc_score(-0.4) == 0.0  # no anonymity loss maps to the private end


def test_alc_is_deterministic_under_a_seed(secret_table):
    frame, schema = secret_table
    a = alc_of(frame, frame.sample(frac=1, random_state=1), schema, "secret", seed=4)
    b = alc_of(frame, frame.sample(frac=1, random_state=1), schema, "secret", seed=4)
    assert a.alc == b.alc and a.targets_used == b.targets_used and a.halt_reason == b.halt_reason


def test_classifier_attack_sees_a_copy_less_sharply_than_best_row_match(secret_table):
    """A forest trained on a copy partly memorises its rows (leaves of 5), so it reveals the
    secret, but less sharply than an exact row match; on an unrelated release it reveals none."""
    frame, schema = secret_table
    classifier = alc_of(frame, frame.copy(), schema, "secret", attack="classifier", seed=0)
    brm = alc_of(frame, frame.copy(), schema, "secret", attack="brm", seed=0)
    assert 0.5 < classifier.alc < brm.alc
    rng = np.random.default_rng(9)
    unrelated = pd.DataFrame({c: rng.permutation(frame[c].to_numpy()) for c in frame.columns})
    assert alc_of(frame, unrelated, schema, "secret", attack="classifier").alc < 0.2


def test_baseline_blocks_are_fitted_only_when_needed(secret_table):
    frame, schema = secret_table
    copy = alc_of(frame, frame.copy(), schema, "secret", baseline="paper", seed=0)  # halts
    assert copy.targets_used <= 300 and copy.baseline_fits == 1  # one block of 10% = 300 rows
    half = frame.copy()  # half the secrets kept: neither definitely safe nor compromised
    moved = np.random.default_rng(2).random(len(half)) < 0.5
    half.loc[moved, "secret"] = np.random.default_rng(3).permutation(half.loc[moved, "secret"])
    every = alc_of(frame, half, schema, "secret", baseline="paper", seed=0, max_width=0.0)
    # no pair can be 0 wide: every target is used, one forest per block of 300
    assert every.targets_used == 1000 and every.baseline_fits == 4
    assert "no pair reached" in every.halt_reason


def test_releases_of_one_real_table_share_its_baseline_blocks(make_secret_table, monkeypatch):
    """The baseline sees only real rows: a second release of the same real table (here with a
    secret and a region the real table lacks, which must not shift the real rows' codes) reuses its
    blocks instead of fitting forests again, and gives the ALC a fresh computation gives."""
    from privmetrics.attacks import forest_baseline

    frame, schema = make_secret_table(1000, seed=3)  # blocks of 100 rows
    half = frame.copy()
    moved = np.random.default_rng(2).random(len(half)) < 0.5
    half.loc[moved, "secret"] = np.random.default_rng(3).permutation(half.loc[moved, "secret"])
    other = half.sample(frac=1, random_state=5).reset_index(drop=True)
    other.loc[:9, ["secret", "region"]] = ["never seen", "z"]
    fitted = []
    forest = forest_baseline.forest_predictor
    monkeypatch.setattr(
        forest_baseline, "forest_predictor", lambda *a, **k: fitted.append(1) or forest(*a, **k)
    )
    monkeypatch.setattr(forest_baseline, "_BLOCKS", type(forest_baseline._BLOCKS)())
    first = alc_of(frame, half, schema, "secret", seed=0, max_width=0.0, targets=200)
    forests = len(fitted)
    second = alc_of(frame, other, schema, "secret", seed=0, max_width=0.0, targets=200)
    assert forests >= 4 and len(fitted) == forests  # no forest fitted for the second release
    assert second.baseline_fits == first.baseline_fits == forests
    forest_baseline._BLOCKS.clear()
    fresh = alc_of(frame, other, schema, "secret", seed=0, max_width=0.0, targets=200)
    assert fresh.alc == second.alc and len(fitted) == 2 * forests
    # another seed draws other targets: nothing is shared
    alc_of(frame, other, schema, "secret", seed=1, max_width=0.0, targets=200)
    assert len(fitted) > 2 * forests


@pytest.fixture(scope="module")
def dominant_table(make_secret_table):
    """One secret value ("p") holds 85% of the rows and nothing predicts the secret."""
    return make_secret_table(3000, seed=11, shares=(0.85, 0.05, 0.05, 0.05), sex=False)


def test_dominant_value_targets_are_down_sampled_to_about_half(dominant_table):
    frame, _ = dominant_table
    codes = pd.factorize(frame["secret"], sort=True)[0]  # "p" = 0
    picked = select_targets(codes, 1000, np.random.default_rng(0))
    assert len(np.unique(picked)) == len(picked)
    assert 0.4 < np.mean(codes[picked] == 0) < 0.6  # 85% among all rows


def test_best_baseline_repairs_the_balanced_forest(dominant_table):
    """With a dominant value the paper's balanced forest seldom predicts it, so a release that
    copies the marginal only (column-shuffled) gets ALC > 0; our "best" baseline does not."""
    frame, schema = dominant_table
    rng = np.random.default_rng(12)
    shuffled = pd.DataFrame({c: rng.permutation(frame[c].to_numpy()) for c in frame.columns})
    paper = alc_of(frame, shuffled, schema, "secret", baseline="paper", seed=0)
    best = alc_of(frame, shuffled, schema, "secret", baseline="best", seed=0)
    assert best.best_base.prc > paper.best_base.prc + 0.1
    assert best.alc < 0.05 < paper.alc
    assert set(best.baseline_models) <= {"balanced forest", "unweighted forest"}


def test_the_alc_attack_names_bad_input(secret_table):
    frame, schema = secret_table
    with pytest.raises(ValueError, match="attack must be one of"):
        alc_of(frame, frame, schema, "secret", attack="oracle")
    with pytest.raises(ValueError, match="baseline must be one of"):
        alc_of(frame, frame, schema, "secret", baseline="oracle")
    with pytest.raises(ValueError, match="'salary' is not a column"):
        alc_of(frame, frame, schema, "salary")
    with pytest.raises(ValueError, match="both the secret and a known"):
        alc_of(frame, frame, schema, "secret", known=["age", "secret"])


@pytest.mark.parametrize("level", [0.001, 0.3, 0.5, 0.9, 0.99])
@pytest.mark.parametrize("precision", [0.995, 0.999])
def test_recall_for_prc_inverts_eq6(level, precision):
    recall = A.recall_for_prc(level, precision)
    assert A.prc(precision, recall) == pytest.approx(level, rel=1e-9)
    assert np.isnan(A.recall_for_prc(0.9, 0.8))  # precision below the level: unreachable


def test_alc_figure_draws_curves_pairs_and_best(secret_table):
    import matplotlib

    matplotlib.use("Agg")
    from privmetrics.compendium.book.plots import PRC_LEVELS, plot_alc

    frame, schema = secret_table
    result = alc_of(frame, frame.copy(), schema, "secret", seed=0)
    ax = plot_alc(result).axes[0]
    assert len(ax.lines) >= len(PRC_LEVELS) and ax.get_xscale() == "log"
    labels = ax.get_legend_handles_labels()[1]
    assert "ALC 0.9" in ax.get_title() and any(x.startswith("best attack: PRC 0.9") for x in labels)


def test_best_or_recall_one_falls_back_to_every_prediction():
    pairs = A.precision_recall([True, False, True], [0.9, 0.5, 0.1])  # 3 pairs, all wide
    best, fell_back = A.best_or_recall_one(pairs)
    assert fell_back and best.recall == 1.0
    narrow = A.precision_recall([True] * 400, np.linspace(1, 0, 400), [0.5, 0.0])
    best, fell_back = A.best_or_recall_one(narrow)
    assert not fell_back and best.width <= 0.1
