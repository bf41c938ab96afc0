"""How close synthetic marginals are to the real ones: the diagnostic behind the epsilon-response checks.

``marginal_distance`` is the mean, over columns (``order=1``) or over pairs of columns
(``order=2``), of the total variation distance between the real and synthetic marginal
(0 = identical, 1 = disjoint). Numerical columns are compared on ``bins`` quantile bins of the real
column; synthetic values outside the real range fall into the end bins. Two-way marginals see the
dependencies a synthesiser keeps (PrivBayes's network, a GAN's joint structure), which one-way
marginals cannot.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from privmetrics.data.schema import Schema


def shared_codes(
    real: pd.Series, synthetic: pd.Series, numerical: bool, bins: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Integer codes of both columns on one discretisation, and the number of codes."""
    if numerical:
        inner = np.unique(np.quantile(real.to_numpy(float), np.linspace(0, 1, bins + 1)[1:-1]))
        cut = lambda s: np.searchsorted(inner, s.to_numpy(float), side="right")  # noqa: E731
        return cut(real), cut(synthetic), len(inner) + 1
    levels = pd.Index(pd.unique(pd.concat([real, synthetic], ignore_index=True)))
    return levels.get_indexer(real), levels.get_indexer(synthetic), len(levels)


def _tvd(p_codes: np.ndarray, q_codes: np.ndarray, size: int) -> float:
    p = np.bincount(p_codes, minlength=size)
    q = np.bincount(q_codes, minlength=size)
    return float(0.5 * np.abs(p / p.sum() - q / q.sum()).sum())


def column_tvd(real: pd.Series, synthetic: pd.Series, numerical: bool, bins: int = 20) -> float:
    return _tvd(*shared_codes(real, synthetic, numerical, bins))


def marginal_distance(
    real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema, bins: int = 20, order: int = 1
) -> float:
    """Mean total variation distance between real and synthetic one- or two-way marginals, in [0, 1]."""
    if order not in (1, 2):
        raise ValueError(f"order must be 1 or 2, got {order!r}")
    numerical = set(schema.numerical)
    bins = bins if order == 1 else max(2, bins // 2)
    codes = {c: shared_codes(real[c], synthetic[c], c in numerical, bins) for c in schema.names}
    if order == 1:
        return float(np.mean([_tvd(*codes[c]) for c in schema.names]))
    distances = []
    for a, b in combinations(schema.names, 2):
        (pa, qa, ka), (pb, qb, kb) = codes[a], codes[b]
        distances.append(_tvd(pa * kb + pb, qa * kb + qb, ka * kb))
    return float(np.mean(distances))
