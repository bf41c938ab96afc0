"""Attribute inference measured with precision *and* recall (Francis and Wagner): the best-row-match
attack on the anonymised data, the baseline on the original data without the targets, and the
Anonymity Loss Coefficient between them (:mod:`privmetrics.attacks.alc` holds the arithmetic).

Design (Sections 3 and 5 of the paper):

* **targets**: a control block of ``min(max_targets, 10% of rows)`` real rows, drawn with the seed;
* **attack** (best row match, Eq. 9): for each target, the Gower distance on the known attributes
  to every anonymised row (numerical: |x - y| / range, categorical: 0 if equal else 1, averaged);
  the matches are the rows at the minimum distance G_min (rounded to 3 decimals); the prediction is
  the most frequent unknown value among them (ties: the smallest code) and its rank score is
  (1 - G_min) * M / C, M the matches holding that value and C all matches;
* **baseline**: a random forest (the paper's settings: 100 trees, depth 10, min_samples_split 10,
  min_samples_leaf 5, balanced classes) trained on the real data *without the target block*,
  predicting the unknown attribute from the known ones; rank score = predicted class probability;
* a numerical unknown attribute is compared in 20 equal-width bins over the real range;
* **thresholds and halting** (Sections 3.6, 5.1): three rank-score thresholds per predictor
  (:func:`privmetrics.attacks.alc.thresholds_for`), one more while the PRC keeps improving at low recall;
  predictions are considered 20 at a time from 50 targets on, and the measurement stops at the
  first prefix where :func:`privmetrics.attacks.alc.should_halt` says so. All targets are predicted in one
  vectorised pass; the halting rule decides how many of them the measure uses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privmetrics.attacks import alc as A
from privmetrics.attacks.forest_baseline import (
    BlockBaseline,
    encoded_features,
    forest_predictions,
    forest_predictor,
    select_targets,
)
from privmetrics.attacks.outcome import Outcome
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.fidelity import shared_codes
from privmetrics.geometry.neighbours import in_parallel


@dataclass
class ALCResult:
    """Everything one measurement produced, not only the final number."""

    unknown: str
    known: list[str]
    attack: pd.DataFrame  # every (precision, recall) pair of the attack, with PRC and interval
    base: pd.DataFrame  # the same for the baseline
    best_attack: pd.Series | None
    best_base: pd.Series | None
    alc: float
    targets_used: int
    halt_reason: str
    predictions: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    baseline_fits: int = 0  # random forests the baseline rests on (fitted here or kept from before)
    baseline_models: list[str] = field(default_factory=list)  # the baseline chosen per block

    @property
    def label(self) -> str:
        return A.risk_label(self.alc)

    def outcome(self) -> Outcome:
        """The ALC as an :class:`~.outcome.Outcome`, baseline 0 (the ALC is the attack's PRC beyond
        the baseline attacker's); its interval from the Wilson interval of the chosen pair's
        precision at its recall (the baseline's PRC taken as measured)."""
        attack, base = self.best_attack, self.best_base
        if attack is None or base is None:
            nan = float("nan")
            return Outcome(f"ALC, {self.unknown}", "ALC", nan, nan, nan, 0.0, self.targets_used)
        low, high = (
            float(A.alc(base.prc, A.prc(p, attack.recall))) for p in (attack.low, attack.high)
        )
        return Outcome(f"ALC, {self.unknown}", "ALC", self.alc, min(low, self.alc),
                       max(high, self.alc), 0.0, self.targets_used)  # fmt: skip


CHUNK_BYTES = 8 * 2**20  # one chunk of the best-row-match distances (float64)


def unknown_codes(real: pd.Series, synthetic: pd.Series, numerical: bool, bins: int = 20):
    """Codes of the unknown attribute on one scale for both tables (20 bins when numerical)."""
    if numerical:
        low, high = float(real.min()), float(real.max())
        edges = np.linspace(low, high if high > low else low + 1, bins + 1)[1:-1]
        return (
            np.searchsorted(edges, real, side="right"),
            np.searchsorted(edges, synthetic, side="right"),
        )
    real_codes, synthetic_codes, _ = shared_codes(real, synthetic, numerical=False, bins=bins)
    return real_codes, synthetic_codes


def best_row_match(
    targets: pd.DataFrame,
    candidates: pd.DataFrame,
    candidate_unknown: np.ndarray,
    numerical: list[str],
    ranges: dict[str, float],
    chunk: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Prediction (a code of ``candidate_unknown``) and rank score per target row (Eq. 9).

    Targets are taken ``chunk`` at a time; by default as many as keep one chunk's distances
    within ``CHUNK_BYTES``, so that the sixteen or so passes over them run in cache (three
    times faster at 100,000 candidates than 256 targets at a time)."""
    known = list(targets.columns)
    if chunk is None:
        chunk = int(np.clip(CHUNK_BYTES // (8 * max(1, len(candidates))), 1, 256))
    classes = int(candidate_unknown.max()) + 1
    predictions = np.empty(len(targets), dtype=np.int64)
    ranks = np.empty(len(targets))
    # categories as shared integer codes and numbers as floats, once: comparing object arrays
    # of strings chunk after chunk cost most of the attack's time
    query, cand = {}, {}
    for c in known:
        if c in numerical:
            query[c], cand[c] = targets[c].to_numpy(float), candidates[c].to_numpy(float)
        else:
            codes, _ = pd.factorize(pd.concat([targets[c], candidates[c]], ignore_index=True))
            query[c], cand[c] = codes[: len(targets)], codes[len(targets) :]
    one_hot = np.eye(classes, dtype=np.float32)[candidate_unknown]  # candidates x classes

    def one_chunk(start: int) -> None:
        stop = min(start + chunk, len(targets))
        g = np.zeros((stop - start, len(candidates)))
        for c in known:  # the same order of summation as the definition: identical rounding
            q = query[c][start:stop]
            if c in numerical:
                g += np.abs(q[:, None] - cand[c][None, :]) / ranges[c]
            else:
                g += q[:, None] != cand[c][None, :]
        g = np.round(g / len(known), 3)
        g_min = g.min(axis=1)
        match = g == g_min[:, None]
        counts = match.astype(np.float32) @ one_hot  # matches per class
        predictions[start:stop] = counts.argmax(1)
        ranks[start:stop] = (1 - g_min) * counts.max(1) / match.sum(1)

    in_parallel(one_chunk, range(0, len(targets), chunk))  # numpy releases the GIL in each step
    return predictions, ranks


def halted_measurement(
    attack_ok: np.ndarray,
    attack_rank: np.ndarray,
    base: Callable[[int], tuple[np.ndarray, np.ndarray]],
    max_width: float = 0.1,
    alpha: float = 3.0,
    r_min: float = 1e-4,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series, pd.Series, int, str]:
    """Thresholds, halting and best pairs over the targets, in their (shuffled) order.

    ``base(size)`` gives the baseline's (correct, rank) arrays for the first ``size`` targets, so
    that baseline blocks are only fitted when needed. Section 5.1: three rank-score thresholds per
    predictor to start with, one more while the PRC keeps improving at low recall; the rule is
    checked every 20 targets from 50 on, and the measurement uses the first prefix where
    :func:`privmetrics.attacks.alc.should_halt` says stop.
    Returns (attack pairs, base pairs, best attack pair, best base pair, targets used, reason).
    """
    n_targets = len(attack_ok)

    def pairs(ok, rank, count):
        return A.precision_recall(ok, rank, A.thresholds_for(rank, count), alpha, r_min)

    halt_reason, used, count = "all targets used", n_targets, 3
    sizes = list(range(min(50, n_targets), n_targets + 1, 20))
    if sizes[-1] != n_targets:
        sizes.append(n_targets)
    for size in sizes:
        base_ok, base_rank = base(size)
        while True:
            attack = pairs(attack_ok[:size], attack_rank[:size], count)
            baseline = pairs(base_ok, base_rank, count)
            halt, reason = A.should_halt(attack, baseline, max_width)
            distinct = len(np.unique(attack_rank[:size]))
            if reason.startswith("PRC still improving") and count < distinct:
                count += 1
                continue
            break
        if halt:
            halt_reason, used = reason, size
            break
    (best_attack, fell_back), (best_base, base_fell_back) = (
        A.best_or_recall_one(attack, max_width),
        A.best_or_recall_one(baseline, max_width),
    )
    if fell_back or base_fell_back:
        halt_reason += "; no pair reached the target width, recall-1 pairs used"
    return attack, baseline, best_attack, best_base, used, halt_reason


ATTACKS = ("brm", "classifier")
BASELINES = ("paper", "best")


def measure_alc(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    unknown: str,
    known: list[str] | None = None,
    attack: str = "brm",
    baseline: str = "best",
    max_targets: int = 1000,
    seed: int = 0,
    max_width: float = 0.1,
    alpha: float = 3.0,
    r_min: float = 1e-4,
    control: pd.DataFrame | None = None,
) -> ALCResult:
    """The ALC of an attribute-inference attack on ``synthetic`` for one unknown attribute.

    The defaults model the same attacker as the registered ``ALC`` metric: it knows the schema's
    key attributes (``known=None``; every other column only when the schema names no key) and
    is measured against the ``"best"`` baseline.

    ``attack="brm"`` is the best-row-match attack (Eq. 9); ``attack="classifier"`` trains the
    paper's random forest on the synthetic rows and predicts each target with it (the ML attack
    of Stadler et al. that the paper discusses), rank score = predicted class probability.
    ``baseline`` is ``"best"`` (our repair, see :class:`BlockBaseline`) or ``"paper"`` (the
    balanced forest on the real rows outside the target's block). Up to ``max_targets`` targets,
    in blocks of 10% of the rows, fewer when the halting rule stops earlier.

    ``control``: real rows of the same population that the generator never saw (the ALC paper's
    control set, Section 4.1). The baseline is then the *same attack on the same release* aimed at
    control rows: what the release tells about anyone, member or not. ``baseline`` is ignored.

    An unknown attribute with a single value in the real data (or whose dominant value leaves no
    target) raises :class:`~privmetrics.data.validation.InvalidInputError`: there is nothing to infer,
    and the ALC, a gain over a perfect baseline, is undefined.
    """
    if attack not in ATTACKS:
        raise InvalidInputError(f"attack must be one of {ATTACKS}, got {attack!r}")
    if baseline not in BASELINES:
        raise InvalidInputError(f"baseline must be one of {BASELINES}, got {baseline!r}")
    if unknown not in real.columns:
        raise InvalidInputError(f"unknown attribute {unknown!r} is not a column of the real data")
    if known is None:
        known = list(schema.key) or [c for c in schema.names if c != unknown]
    known = list(known)
    if unknown in known:
        raise InvalidInputError(f"{unknown!r} cannot be both the unknown and a known attribute")
    if real[unknown].nunique() < 2:
        raise InvalidInputError(
            f"the unknown attribute {unknown!r} has a single value in the real data: nothing to "
            "infer, the ALC is undefined"
        )
    numerical = [c for c in schema.numerical if c in known]
    rng = np.random.default_rng(seed)
    if control is not None:  # one code scale for members and controls
        joint, synth_codes = unknown_codes(
            pd.concat([real[unknown], control[unknown]], ignore_index=True),
            synthetic[unknown],
            unknown in schema.numerical,
        )
        truth, control_truth = joint[: len(real)], joint[len(real) :]
    else:
        truth, synth_codes = unknown_codes(
            real[unknown], synthetic[unknown], unknown in schema.numerical
        )
    targets_at = select_targets(truth, max_targets, rng)
    if len(targets_at) == 0:
        raise InvalidInputError(
            f"no target row for the unknown attribute {unknown!r}: its dominant value left none "
            f"of the {len(real)} rows (too few rows to measure)"
        )
    targets, target_truth = real.iloc[targets_at], truth[targets_at]

    levels = {
        c: pd.unique(pd.concat([real[c], synthetic[c]], ignore_index=True))
        for c in known
        if c not in numerical
    }
    real_features = encoded_features(real, known, numerical, levels)
    if attack == "brm":
        ranges = {
            c: float(
                max(real[c].max(), synthetic[c].max()) - min(real[c].min(), synthetic[c].min())
            )
            or 1.0
            for c in numerical
        }
        attack_pred, attack_rank = best_row_match(
            targets[known], synthetic[known], synth_codes, numerical, ranges
        )
    else:
        synth_forest = forest_predictor(
            encoded_features(synthetic, known, numerical, levels), synth_codes, seed
        )
        attack_pred, attack_rank = forest_predictions(synth_forest, real_features[targets_at])
    if control is not None:
        control_at = select_targets(control_truth, max_targets, rng)
        control_rows = control.iloc[control_at]
        if attack == "brm":
            control_pred, control_rank = best_row_match(
                control_rows[known], synthetic[known], synth_codes, numerical, ranges
            )
        else:
            control_pred, control_rank = forest_predictions(
                synth_forest, encoded_features(control_rows, known, numerical, levels)
            )
        control_ok = control_pred == control_truth[control_at]
        blocks = None

        def base(size):
            return control_ok[:size], control_rank[:size]
    else:
        blocks = BlockBaseline(
            real_features, truth, targets_at, max(1, len(real) // 10), baseline, seed, alpha, r_min
        )

        def base(size):
            pred, rank = blocks.upto(size)
            return pred == target_truth[:size], rank

    attack_ok = attack_pred == target_truth
    pairs_attack, pairs_base, best_attack, best_base, used, reason = halted_measurement(
        attack_ok, attack_rank, base, max_width, alpha, r_min
    )
    base_ok, base_rank = base(used)
    predictions = pd.concat(
        [
            pd.DataFrame({"attack correct": attack_ok[:used], "attack rank": attack_rank[:used]}),
            pd.DataFrame({"base correct": base_ok, "base rank": base_rank}),
        ],
        axis=1,
    )
    return ALCResult(
        unknown=unknown, known=known, attack=pairs_attack, base=pairs_base,
        best_attack=best_attack, best_base=best_base,
        alc=float(A.alc(best_base.prc, best_attack.prc)), targets_used=used, halt_reason=reason,
        predictions=predictions, baseline_fits=blocks.fits if blocks else 0,
        baseline_models=blocks.chosen if blocks else ["control set"],
    )  # fmt: skip


def alc_score(value: float) -> float:
    """The project's [0, 1] scale (0 private, 1 no privacy): max(0, ALC). ALC <= 0 means the attack
    does no better than the baseline, i.e. no anonymity loss; the raw ALC stays in the result."""
    return float(min(1.0, max(0.0, value)))
