"""Nearest neighbours in the Gower-like L1 distance of the anonymeter framework (Giomi et al.,
PoPETs 2023), for its linkability and inference attacks.

The distance between two rows over a set of columns is

    d(x, y) = sum over numerical columns of |x_c - y_c| / range_c
            + the number of categorical columns where x_c != y_c,

with each numerical column's range taken over *both* tables (the attacker's targets and the
release), so that any two values are at most 1 apart, as far as a categorical mismatch. Unlike
the mixed space of :mod:`.encoding` (squared differences, the real data's range), the
differences add up unsquared, as in Gower's coefficient without its division by the number of
columns.

Missing values: a missing value equals another missing value in the same column (distance 0)
and is 1 from any present value. (anonymeter counts two missing values as distance 1 and lets a
missing against a present number make the distance undefined; we read "missing" as a value of
its own, like the rest of the library.)

Ties go to the lower row of the release. The search runs in blocks of query rows against the
whole release, column by column (no Python loop over rows): ``BLOCK_CELLS`` distances at a time,
the blocks on as many threads as BLAS may use.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privmetrics.data.schema import Schema
from privmetrics.geometry.neighbours import in_parallel

# (query rows x release rows) distances held at once: 8 MB, so that a block's passes over its
# columns stay in cache (2**22 cells took half as long again on 500 x 50,000)
BLOCK_CELLS = 2**20


def gower_coordinates(
    query: pd.DataFrame, index: pd.DataFrame, columns: list[str], schema: Schema
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """``(numbers, codes)`` of both tables over ``columns``: numbers divided by their range over
    both tables (NaN kept), categories as shared integer codes (missing is its own code)."""
    numerical = [c for c in columns if c in schema.numerical]
    categorical = [c for c in columns if c not in numerical]
    q_num, i_num = (t[numerical].to_numpy(float) for t in (query, index))
    both = np.vstack([q_num, i_num])
    with np.errstate(invalid="ignore"):
        spread = np.nanmax(both, 0) - np.nanmin(both, 0) if both.size else np.zeros(0)
    spread = np.where(np.isfinite(spread) & (spread > 0), spread, 1.0)
    q_codes, i_codes = [], []
    for col in categorical:
        values = pd.concat([query[col], index[col]], ignore_index=True).astype(object)
        codes, _ = pd.factorize(values.where(values.notna(), "\0missing"))
        q_codes.append(codes[: len(query)])
        i_codes.append(codes[len(query) :])

    def stack(codes, n):
        return np.stack(codes, 1) if codes else np.zeros((n, 0), dtype=np.int64)

    return (q_num / spread, stack(q_codes, len(query))), (
        i_num / spread,
        stack(i_codes, len(index)),
    )


def gower_distances(query: tuple[np.ndarray, np.ndarray], index: tuple[np.ndarray, np.ndarray]):
    """The (len(query) x len(index)) matrix of distances, column by column (a block of
    :func:`gower_knn`). The columns add in their order into one matrix, through one buffer
    (no temporary per column), and the missing-value rule is applied only to the columns
    that hold a gap."""
    (q_num, q_cat), (i_num, i_cat) = query, index
    distances = np.zeros((len(q_num), len(i_num)))
    step = np.empty_like(distances)
    gaps = np.isnan(q_num).any(0) | np.isnan(i_num).any(0)
    for j in range(q_num.shape[1]):
        q, x = q_num[:, j, None], i_num[None, :, j]
        np.subtract(q, x, out=step)
        np.abs(step, out=step)
        if gaps[j]:  # missing: 0 from missing, 1 from a value
            q_missing, x_missing = np.isnan(q), np.isnan(x)
            step = np.where(q_missing | x_missing, (q_missing != x_missing).astype(float), step)
        distances += step
    mismatch = np.empty(distances.shape, dtype=bool)
    for j in range(q_cat.shape[1]):
        np.not_equal(q_cat[:, j, None], i_cat[None, :, j], out=mismatch)
        distances += mismatch
    return distances


def gower_knn(
    query: tuple[np.ndarray, np.ndarray], index: tuple[np.ndarray, np.ndarray], k: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Distances and positions of the ``k`` nearest index rows of every query row (from
    :func:`gower_coordinates`), sorted by distance, ties to the lower position."""
    n_index = len(index[0])
    if not 1 <= k <= n_index:
        raise ValueError(f"k must lie between 1 and the {n_index} rows searched, got {k}")
    block = max(1, BLOCK_CELLS // n_index)
    n_query = len(query[0])
    found_d, found_i = np.zeros((n_query, k)), np.zeros((n_query, k), dtype=np.int64)

    def one_block(start: int) -> None:
        part = tuple(a[start : start + block] for a in query)
        d = gower_distances(part, index)
        if k == 1:  # argmin returns the first of equal minima: the lower position
            nearest = d.argmin(1)[:, None]
        else:  # a stable sort keeps equal distances in position order
            nearest = np.argsort(d, axis=1, kind="stable")[:, :k]
        found_i[start : start + block] = nearest
        found_d[start : start + block] = np.take_along_axis(d, nearest, 1)

    in_parallel(one_block, range(0, n_query, block))  # numpy releases the GIL in the passes
    return found_d, found_i


def tied_link_share(
    a: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    b: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
) -> np.ndarray:
    """For each query row, the chance that its nearest index row on ``a`` and its nearest index
    row on ``b`` (each a ``(query, index)`` pair of :func:`gower_coordinates` over one set of
    columns) are one row when each is drawn uniformly among its ties: |T_a & T_b| / (|T_a| |T_b|),
    T the index rows at the least distance. It does not depend on the index's row order (the
    first of the ties would: on coarse columns the first rows are the nearest of many queries)."""
    (qa, ia), (qb, ib) = a, b
    n_index, n_query = len(ia[0]), len(qa[0])
    block = max(1, BLOCK_CELLS // max(n_index, 1))
    share = np.zeros(n_query)

    def ties(query, index) -> np.ndarray:
        d = gower_distances(query, index)
        least = d.min(1, keepdims=True)
        return d <= least + 1e-12 * np.maximum(least, 1.0)

    def one_block(start: int) -> None:
        rows = slice(start, start + block)
        ta = ties(tuple(x[rows] for x in qa), ia)
        tb = ties(tuple(x[rows] for x in qb), ib)
        share[rows] = (ta & tb).sum(1) / (ta.sum(1) * tb.sum(1))

    in_parallel(one_block, range(0, n_query, block))
    return share
