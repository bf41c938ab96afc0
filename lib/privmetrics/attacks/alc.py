"""The arithmetic of the Anonymity Loss Coefficient (Francis and Wagner): precision with its Wilson
interval, recall over rank-score thresholds, the Precision-Recall Coefficient, the ALC, and the
halting rule. Francis and Wagner (attribute inference with precision and recall), Sections 3-5.

An attribute-inference predictor (the attack on the anonymised data, or the baseline on the
original data without the target) yields, per target, whether its prediction was correct and a
rank score (higher = more confident), or an abstention. For a threshold tau, predictions with
rank score >= tau count; the rest are abstentions. With T true, F false and A abstentions:

* precision (Eq. 2, the *probabilistic* precision the paper prefers): the centre of the 95% Wilson
  score interval of T / (T + F), i.e. (T + z^2/2) / (T + F + z^2); 0 when T + F = 0;
* recall (Eq. 3, random target selection): (T + F) / (T + F + A);
* PRC (Eq. 6): (1 - (log10 R / log10 R_min)^alpha) * P when R > R_min, else R
  (alpha = 3, R_min = 1e-4 by default; P and R clamped to [0, 1] first);
* ALC (Eq. 8, the relative form): (PRC_atk - PRC_base) / (1 - PRC_base), from the best attack PRC
  and the best baseline PRC, each taken over the pairs whose Wilson interval is at most
  ``max_width`` wide (0.1). ALC <= 0: no anonymity loss; < 0.5 safe; < 0.75 at risk; else serious.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

Z95 = float(norm.ppf(0.975))  # 1.959964


def wilson_interval(
    true: np.ndarray, n: np.ndarray, z: float = Z95
) -> tuple[np.ndarray, np.ndarray]:
    """95% Wilson score interval of the proportion true / n; [0, 0] where n = 0."""
    true, n = np.asarray(true, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, true / n, 0.0)
        centre = p + z**2 / (2 * n)
        half = z * np.sqrt((p * (1 - p) + z**2 / (4 * n)) / n)
        low = (centre - half) / (1 + z**2 / n)
        high = (centre + half) / (1 + z**2 / n)
    return np.where(n > 0, low, 0.0), np.where(n > 0, high, 0.0)


def probabilistic_precision(true, n, z: float = Z95) -> np.ndarray:
    """The Wilson centre (T + z^2/2) / (n + z^2), Eq. 2; 0 where n = 0."""
    true, n = np.asarray(true, dtype=float), np.asarray(n, dtype=float)
    return np.where(n > 0, (true + z**2 / 2) / (n + z**2), 0.0)


def prc(precision, recall, alpha: float = 3.0, r_min: float = 1e-4) -> np.ndarray:
    """Precision-Recall Coefficient, Eq. 6."""
    p = np.clip(np.asarray(precision, dtype=float), 0, 1)
    r = np.clip(np.asarray(recall, dtype=float), 0, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = 1 - (np.log10(np.maximum(r, r_min)) / np.log10(r_min)) ** alpha
    return np.where(r > r_min, factor * p, r)


def recall_for_prc(level, precision, alpha: float = 3.0, r_min: float = 1e-4) -> np.ndarray:
    """The recall at which ``precision`` gives PRC = ``level`` (Eq. 6 inverted, for the equal-PRC
    curves): R = 10^(log10(R_min) (1 - PRC/P)^(1/alpha)); NaN where P < PRC (unreachable)."""
    level, p = np.asarray(level, dtype=float), np.asarray(precision, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(p >= level, 1 - level / p, np.nan)
        return 10 ** (np.log10(r_min) * share ** (1 / alpha))


def alc(prc_base, prc_attack) -> np.ndarray:
    """ALC_rel (Eq. 8); a baseline PRC of 1 is clamped just below 1, as the reference code does."""
    base = np.minimum(np.asarray(prc_base, dtype=float), 0.99999999)
    return (np.asarray(prc_attack, dtype=float) - base) / (1 - base)


def alc_abs(prc_base, prc_attack) -> np.ndarray:
    """ALC_abs (Eq. 7), the plain difference ("advantage")."""
    return np.asarray(prc_attack, dtype=float) - np.asarray(prc_base, dtype=float)


def risk_label(value: float) -> str:
    """The paper's decision rule (Sections 4.2, 4.4)."""
    if value < 0.5:
        return "safe"
    return "at risk" if value < 0.75 else "serious"


def precision_recall(
    correct: np.ndarray,
    rank: np.ndarray,
    thresholds: np.ndarray | None = None,
    alpha: float = 3.0,
    r_min: float = 1e-4,
) -> pd.DataFrame:
    """Every (precision, recall) pair over rank-score thresholds, with its Wilson interval and PRC.

    ``correct`` is True/False per prediction and NaN (or None) for an abstention; ``rank`` the rank
    score. Default thresholds: every distinct rank score (predictions at or above it count).
    Vectorised: predictions are sorted by rank once and counted cumulatively.
    """
    correct = pd.array(correct, dtype="boolean")
    rank = np.asarray(rank, dtype=float)
    answered = ~np.asarray(correct.isna())
    hits = np.asarray(correct.fillna(False), dtype=bool)
    total = len(rank)
    if thresholds is None:
        thresholds = np.unique(rank[answered])[::-1]
    thresholds = np.asarray(thresholds, dtype=float)
    order = np.argsort(-rank[answered], kind="stable")
    sorted_rank, sorted_hits = rank[answered][order], hits[answered][order]
    # number of answered predictions with rank >= tau, and how many of them are correct
    counted = np.searchsorted(-sorted_rank, -thresholds, side="right")
    true = np.concatenate([[0], np.cumsum(sorted_hits)])[counted]
    precision = probabilistic_precision(true, counted)
    recall = counted / total if total else np.zeros(len(thresholds))
    low, high = wilson_interval(true, counted)
    return pd.DataFrame(
        {
            "threshold": thresholds,
            "true": true,
            "false": counted - true,
            "abstentions": total - counted,
            "precision": precision,
            "measured precision": np.where(counted > 0, true / np.maximum(counted, 1), 0.0),
            "recall": recall,
            "low": low,
            "high": high,
            "width": high - low,
            "prc": prc(precision, recall, alpha, r_min),
        }
    )


def best_prc(pairs: pd.DataFrame, max_width: float = 0.1) -> pd.Series | None:
    """The pair with the highest PRC among those whose Wilson interval is at most ``max_width``
    wide (None when no pair is that precise yet)."""
    eligible = pairs[pairs["width"] <= max_width]
    if eligible.empty:
        return None
    return eligible.loc[eligible["prc"].idxmax()]


def best_or_recall_one(pairs: pd.DataFrame, max_width: float = 0.1) -> tuple[pd.Series, bool]:
    """:func:`best_prc`, or the recall-1 pair (the lowest threshold: every prediction counts) when
    no pair is precise enough yet; the flag says whether that fallback was taken."""
    best = best_prc(pairs, max_width)
    return (pairs.iloc[-1], True) if best is None else (best, False)


def thresholds_for(rank: np.ndarray, count: int) -> np.ndarray:
    """``count`` thresholds from the distinct rank scores, spaced evenly by index, always including
    the highest and the lowest (the reference code's construction, Section 3.6)."""
    distinct = np.unique(np.asarray(rank, dtype=float))[::-1]
    if len(distinct) <= count:
        return distinct
    return distinct[np.unique(np.linspace(0, len(distinct) - 1, count).round().astype(int))]


def should_halt(
    attack: pd.DataFrame, base: pd.DataFrame, max_width: float = 0.1
) -> tuple[bool, str]:
    """The halting rule of Section 5.1 for the current attack and baseline pairs.

    Pairs whose interval is 0.5 wide or more say nothing and are dropped (as the reference code
    does). Of the rest: stop early when even the optimistic ALC (attack upper bound against
    baseline lower bound, best pairs) is below 0.4, or the pessimistic ALC (attack lower bound
    against baseline upper bound) above 0.9; otherwise stop when every pair is significant (width
    <= ``max_width``) and the PRC no longer improves by at least 0.01 from one of the three
    lowest-recall measures to the next. Returns (halt, reason).
    """
    attack, base = attack[attack.width < 0.5], base[base.width < 0.5]  # too wide to say anything
    if attack.empty or base.empty:
        return False, "no precision/recall pair narrower than 0.5 yet"
    a, b = attack.loc[attack.prc.idxmax()], base.loc[base.prc.idxmax()]
    optimistic = alc(prc(b.low, b.recall), prc(a.high, a.recall))
    pessimistic = alc(prc(b.high, b.recall), prc(a.low, a.recall))
    if optimistic < 0.4:
        return True, f"definitely safe (optimistic ALC {float(optimistic):.3f} < 0.4)"
    if pessimistic > 0.9:
        return True, f"definitely compromised (pessimistic ALC {float(pessimistic):.3f} > 0.9)"
    if not ((attack.width <= max_width).all() and (base.width <= max_width).all()):
        return False, "some intervals are still wider than the target width"
    if len(attack) < 3:
        return True, "all measures significant (fewer than three distinct rank scores)"
    low_recall = attack.sort_values("recall").prc.to_numpy()[:3]
    if (np.diff(low_recall[::-1]) >= 0.01).all():
        return False, "PRC still improving at low recall: add a threshold"
    return True, "all measures significant"
