"""Exact nearest neighbours, batched (no Python loop over rows).

Exact means: the returned distances are computed in float64 from the coordinate differences (so a
copy is at distance 0, exactly), and the returned neighbours are the true k nearest, ties going to
the lower index. Two routes:

* low-dimensional spaces (at most ``TREE_MAX_DIMS`` columns, e.g. the 2-D FAMD projection): a
  scikit-learn KD-tree, which computes distances from the differences;
* wider spaces (the one-hot mixed space has ~100 columns): brute force in batches, with a
  *proven* candidate band. One float64 matrix product gives, for every (query, index) pair,
  ``m = (1 - c)|x|^2 - 2 q.x``; with ``c`` a bound on the relative rounding error of that product
  (``4 (p + 4)`` units of float64 rounding, p the dimension), ``m + (1 - c)|q|^2`` is a *lower
  bound* of the true squared distance. The k smallest ``m`` give k rows whose exact distances
  bound the k-th neighbour's distance from above (``upper``); every row whose lower bound is
  below ``upper`` is a candidate, and the candidates' exact distances decide. No true neighbour
  can fall outside the band, however many rows sit within rounding of each other (25,000 copies
  of one row included). The earlier float32 preselection with a fixed margin of 6 candidates
  missed the copy when more than 7 rows fell within float32 rounding of it.

Scale: coordinates are centred and, when any exceeds ``2**480``, multiplied by a power of two
(exact) so that no square overflows; the exact distances use a per-pair scaling (as ``hypot``
does) in that case, so values up to about 1e300 give exact neighbours too. Non-finite input is
rejected.
"""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import KDTree

BATCH_BYTES = 128 * 2**20  # memory of one query batch's float64 block
PAIR_CHUNK = 2**21  # candidate pairs whose exact distances are computed at once (x dims)
TREE_MAX_DIMS = 8
SAFE_MAGNITUDE = 2.0**480  # squares and their sums stay far from float64 overflow below this
UNIT = np.finfo(np.float64).eps / 2  # unit roundoff u = 2^-53
TINY = 2.0**-1074  # the smallest subnormal: the absolute rounding error below the normal range


def knn(query: np.ndarray, index: np.ndarray, k: int = 1, exclude_self: bool = False):
    """Distances and indices of the ``k`` nearest rows of ``index`` for every row of ``query``.

    ``exclude_self`` is for ``query is index``: row i never counts as its own neighbour (an exact
    duplicate at another position still does, at distance 0). Returns two arrays of shape
    (len(query), k), sorted by distance, ties by index.
    """
    if exclude_self and len(query) != len(index):
        raise ValueError("exclude_self needs the query and the index to be the same rows")
    available = len(index) - (1 if exclude_self else 0)
    if not 1 <= k <= available:
        raise ValueError(f"k={k} neighbours requested but the index has {available} candidate rows")
    query = np.ascontiguousarray(query, dtype=np.float64)
    index = np.ascontiguousarray(index, dtype=np.float64)
    if query.ndim != 2 or index.ndim != 2 or query.shape[1] != index.shape[1]:
        raise ValueError(
            f"query and index must be 2-D with the same columns, got {query.shape} and {index.shape}"
        )
    if not (np.isfinite(query).all() and np.isfinite(index).all()):
        raise ValueError("nearest neighbours need finite coordinates (found inf or NaN)")
    safe = max(_magnitude(query), _magnitude(index)) < SAFE_MAGNITUDE
    if index.shape[1] <= TREE_MAX_DIMS and safe:
        dist, idx = _tree_knn(query, index, k, exclude_self)
    else:
        dist, idx = _brute_knn(query, index, k, exclude_self)
    order = np.lexsort((idx, dist), axis=1)
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(idx, order, axis=1)


def _magnitude(a: np.ndarray) -> float:
    return float(np.abs(a).max()) if a.size else 0.0


def _tree_knn(query, index, k, exclude_self):
    n = min(k + 1 if exclude_self else k, len(index))
    dist, idx = KDTree(index).query(query, k=n)
    if not exclude_self:
        return dist, idx
    # drop each row's own position; rows whose self fell outside (duplicates) drop the last column
    is_self = idx == np.arange(len(query))[:, None]
    drop = np.where(is_self.any(axis=1), is_self.argmax(axis=1), n - 1)
    keep = np.ones_like(idx, dtype=bool)
    keep[np.arange(len(idx)), drop] = False
    return dist[keep].reshape(len(idx), n - 1)[:, :k], idx[keep].reshape(len(idx), n - 1)[:, :k]


def exact_distances(query: np.ndarray, index: np.ndarray, rows, cols) -> np.ndarray:
    """Euclidean distances between ``query[rows]`` and ``index[cols]`` (pairwise), from the
    differences in float64, in chunks; scaled per pair (as ``hypot``) when a square could overflow."""
    rows, cols = np.asarray(rows), np.asarray(cols)
    out = np.empty(len(rows))
    scaled = max(_magnitude(query), _magnitude(index)) >= SAFE_MAGNITUDE
    step = max(1, PAIR_CHUNK // max(1, query.shape[1]))
    for start in range(0, len(rows), step):
        part = slice(start, start + step)
        diff = query[rows[part]] - index[cols[part]]
        if scaled:
            big = np.abs(diff).max(axis=1)
            big[big == 0] = 1.0
            out[part] = big * np.sqrt(
                np.einsum("ij,ij->i", diff / big[:, None], diff / big[:, None])
            )
        else:
            out[part] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return out


def _brute_knn(query, index, k, exclude_self):
    centre = index.mean(axis=0)  # centring shrinks the norms, and so the rounding band
    q, x = query - centre, index - centre
    largest = max(_magnitude(q), _magnitude(x))
    scale = 2.0 ** -max(0, int(np.ceil(np.log2(largest))) - 480) if largest > 0 else 1.0
    q, x = q * scale, x * scale  # a power of two: exact
    dims = q.shape[1]
    c = 4 * (dims + 4) * UNIT  # relative rounding bound of m and of the centring
    slack = 8 * (dims + 4) * TINY  # absolute bound of subnormal rounding
    q_norm, x_norm = np.einsum("ij,ij->i", q, q), np.einsum("ij,ij->i", x, x)
    q_aug = np.hstack([q, np.ones((len(q), 1))])
    x_aug = np.ascontiguousarray(np.hstack([-2 * x, ((1 - c) * x_norm)[:, None]]).T)
    batch = max(1, BATCH_BYTES // (8 * len(index)))
    dist = np.empty((len(query), k))
    idx = np.empty((len(query), k), dtype=np.int64)
    for start in range(0, len(query), batch):
        rows = np.arange(start, min(start + batch, len(query)))
        m = q_aug[rows] @ x_aug  # (1 - c)|x|^2 - 2 q.x; + (1 - c)|q|^2 is a lower bound of d^2
        if exclude_self:
            m[np.arange(len(rows)), rows] = np.inf
        first = m.argmin(axis=1)[:, None] if k == 1 else np.argpartition(m, k - 1, axis=1)[:, :k]
        first_d = exact_distances(query, index, np.repeat(rows, k), first.ravel())
        upper = (first_d.reshape(len(rows), k).max(axis=1) * scale) ** 2
        limit = upper - (1 - c) * q_norm[rows] + c * upper + slack
        band = m <= limit[:, None]
        band[np.arange(len(rows))[:, None], first] = True  # in the band by construction
        cand_row, cand_col = np.nonzero(band)
        cand_d = exact_distances(query, index, rows[cand_row], cand_col)
        order = np.lexsort((cand_col, cand_d, cand_row))
        cand_row, cand_col, cand_d = cand_row[order], cand_col[order], cand_d[order]
        rank = np.arange(len(cand_row)) - np.searchsorted(cand_row, cand_row)
        best = rank < k
        dist[rows[cand_row[best]], rank[best]] = cand_d[best]
        idx[rows[cand_row[best]], rank[best]] = cand_col[best]
    return dist, idx


def farthest_distance(query: np.ndarray, index: np.ndarray) -> float:
    """The largest distance between any query row and any index row (one matrix product per
    batch: max_j |x_j|^2 - 2 q.x_j, plus |q|^2; rounding relative to the squared norms, which is
    what a normaliser needs)."""
    query = np.ascontiguousarray(query, dtype=np.float64)
    index = np.ascontiguousarray(index, dtype=np.float64)
    centre = index.mean(axis=0)
    q, x = query - centre, index - centre
    x_norm = np.einsum("ij,ij->i", x, x)
    batch = max(1, BATCH_BYTES // (8 * len(index)))
    largest = 0.0
    for start in range(0, len(q), batch):
        block = q[start : start + batch]
        sq = (x_norm - 2 * block @ x.T).max(axis=1) + np.einsum("ij,ij->i", block, block)
        largest = max(largest, float(sq.max()))
    return float(np.sqrt(max(largest, 0.0)))
