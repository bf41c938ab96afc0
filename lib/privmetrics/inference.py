"""Attribute inference measured with precision *and* recall (Francis and Wagner): the best-row-match
attack on the anonymised data, the baseline on the original data without the targets, and the
Anonymity Loss Coefficient between them (:mod:`privmetrics.alc` holds the arithmetic).

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
  (:func:`privmetrics.alc.thresholds_for`), one more while the PRC keeps improving at low recall;
  predictions are considered 20 at a time from 50 targets on, and the measurement stops at the
  first prefix where :func:`privmetrics.alc.should_halt` says so. All targets are predicted in one
  vectorised pass; the halting rule decides how many of them the measure uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

from . import alc as A
from .fidelity import shared_codes
from .schema import Schema


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

    @property
    def label(self) -> str:
        return A.risk_label(self.alc)


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
    chunk: int = 256,
) -> tuple[np.ndarray, np.ndarray]:
    """Prediction (a code of ``candidate_unknown``) and rank score per target row (Eq. 9)."""
    known = list(targets.columns)
    classes = int(candidate_unknown.max()) + 1
    predictions = np.empty(len(targets), dtype=np.int64)
    ranks = np.empty(len(targets))
    cand = {c: candidates[c].to_numpy() for c in known}
    for start in range(0, len(targets), chunk):
        block = targets.iloc[start : start + chunk]
        g = np.zeros((len(block), len(candidates)))
        for c in known:
            q = block[c].to_numpy()
            if c in numerical:
                g += np.abs(q[:, None].astype(float) - cand[c][None, :].astype(float)) / ranges[c]
            else:
                g += q[:, None] != cand[c][None, :]
        g = np.round(g / len(known), 3)
        g_min = g.min(axis=1)
        match = g == g_min[:, None]
        counts = np.stack([(match & (candidate_unknown == k)).sum(1) for k in range(classes)], 1)
        predictions[start : start + len(block)] = counts.argmax(1)
        ranks[start : start + len(block)] = (1 - g_min) * counts.max(1) / match.sum(1)
    return predictions, ranks


def _features(
    frame: pd.DataFrame, known: list[str], numerical: list[str], levels: dict
) -> np.ndarray:
    cols = [
        frame[c].to_numpy(float) if c in numerical else pd.Index(levels[c]).get_indexer(frame[c])
        for c in known
    ]
    return np.column_stack(cols) if cols else np.zeros((len(frame), 1))


def measure_alc(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    unknown: str,
    known: list[str] | None = None,
    max_targets: int = 1000,
    seed: int = 0,
    max_width: float = 0.1,
    alpha: float = 3.0,
    r_min: float = 1e-4,
) -> ALCResult:
    """The ALC of the best-row-match attack on ``synthetic`` for one unknown attribute."""
    known = list(known if known is not None else [c for c in schema.names if c != unknown])
    numerical = [c for c in schema.numerical if c in known]
    rng = np.random.default_rng(seed)
    n_targets = max(1, min(max_targets, len(real) // 10))
    order = rng.permutation(len(real))
    targets, rest = real.iloc[order[:n_targets]], real.iloc[order[n_targets:]]
    truth, synth_codes = unknown_codes(
        real[unknown], synthetic[unknown], unknown in schema.numerical
    )
    target_truth, rest_truth = truth[order[:n_targets]], truth[order[n_targets:]]

    ranges = {
        c: float(max(real[c].max(), synthetic[c].max()) - min(real[c].min(), synthetic[c].min()))
        or 1.0
        for c in numerical
    }
    attack_pred, attack_rank = best_row_match(
        targets[known], synthetic[known], synth_codes, numerical, ranges
    )

    levels = {
        c: pd.unique(pd.concat([real[c], synthetic[c]], ignore_index=True))
        for c in known
        if c not in numerical
    }
    forest = RandomForestClassifier(
        n_estimators=100, max_depth=10, max_features="sqrt", min_samples_split=10,
        min_samples_leaf=5, class_weight="balanced", random_state=seed, n_jobs=1,
    )  # fmt: skip
    forest.fit(_features(rest, known, numerical, levels), rest_truth)
    proba = forest.predict_proba(_features(targets, known, numerical, levels))
    base_pred, base_rank = forest.classes_[proba.argmax(1)], proba.max(1)

    attack_ok, base_ok = attack_pred == target_truth, base_pred == target_truth

    def pairs(ok, rank, size, count):
        return A.precision_recall(
            ok[:size], rank[:size], A.thresholds_for(rank[:size], count), alpha, r_min
        )

    # Section 5.1: start with three thresholds per predictor, check every 20 targets from 50 on,
    # add a threshold while the PRC keeps improving at low recall
    halt_reason, used, count = "all targets used", n_targets, 3
    for size in range(min(50, n_targets), n_targets + 1, 20):
        while True:
            attack, base = (
                pairs(attack_ok, attack_rank, size, count),
                pairs(base_ok, base_rank, size, count),
            )
            halt, reason = A.should_halt(attack, base, max_width)
            if reason.startswith("PRC still improving") and count < len(
                np.unique(attack_rank[:size])
            ):
                count += 1
                continue
            break
        if halt:
            halt_reason, used = reason, size
            break
    attack, base = (
        pairs(attack_ok, attack_rank, used, count),
        pairs(base_ok, base_rank, used, count),
    )
    best_attack, best_base = A.best_prc(attack, max_width), A.best_prc(base, max_width)
    # with no pair precise enough, fall back to recall 1 (all predictions), flagged in the reason
    if best_attack is None or best_base is None:
        halt_reason += "; no pair reached the target width, recall-1 pairs used"
        best_attack = best_attack if best_attack is not None else attack.iloc[-1]
        best_base = best_base if best_base is not None else base.iloc[-1]
    value = float(A.alc(best_base.prc, best_attack.prc))
    predictions = pd.DataFrame(
        {
            "attack correct": attack_ok,
            "attack rank": attack_rank,
            "base correct": base_ok,
            "base rank": base_rank,
        }
    )
    return ALCResult(
        unknown=unknown, known=known, attack=attack, base=base, best_attack=best_attack,
        best_base=best_base, alc=value, targets_used=used, halt_reason=halt_reason,
        predictions=predictions,
    )  # fmt: skip


def alc_score(value: float) -> float:
    """The project's [0, 1] scale (0 private, 1 no privacy): max(0, ALC). ALC <= 0 means the attack
    does no better than the baseline, i.e. no anonymity loss; the raw ALC stays in the result."""
    return float(min(1.0, max(0.0, value)))
