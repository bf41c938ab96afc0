"""Exact nearest neighbours, batched (no Python loop over rows).

Two routes, both exact, both breaking ties by the lower index among the neighbours returned:

* low-dimensional spaces (at most ``TREE_MAX_DIMS`` columns, e.g. the 2-D FAMD projection): a
  scikit-learn KD-tree, which computes distances from the differences;
* wider spaces (the one-hot mixed space has ~100 columns): brute force in batches. A float32
  matrix product ``|y|^2 - 2 x.y`` *selects* ``k + MARGIN`` candidates per query row, then the
  candidates' distances are recomputed in float64 from the differences. The expansion alone
  leaves rounding noise where the true distance is 0 (a synthetic row that copies a real one);
  the recomputation makes ``d == 0`` exact, and the margin keeps a true neighbour that rounding
  pushed a few places down.
"""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import KDTree

BATCH_BYTES = 128 * 2**20  # memory of one query batch's float32 distance block
TREE_MAX_DIMS = 8
MARGIN = 6


def knn(query: np.ndarray, index: np.ndarray, k: int = 1, exclude_self: bool = False):
    """Distances and indices of the ``k`` nearest rows of ``index`` for every row of ``query``.

    ``exclude_self`` is for ``query is index``: row i never counts as its own neighbour (an exact
    duplicate at another position still does, at distance 0). Returns two arrays of shape
    (len(query), k), sorted by distance.
    """
    if exclude_self and len(query) != len(index):
        raise ValueError("exclude_self needs the query and the index to be the same rows")
    available = len(index) - (1 if exclude_self else 0)
    if not 1 <= k <= available:
        raise ValueError(f"k={k} neighbours requested but the index has {available} candidate rows")
    query = np.ascontiguousarray(query, dtype=np.float64)
    index = np.ascontiguousarray(index, dtype=np.float64)
    if index.shape[1] <= TREE_MAX_DIMS:
        dist, idx = _tree_knn(query, index, k, exclude_self)
    else:
        dist, idx = _brute_knn(query, index, k, exclude_self)
    order = np.lexsort((idx, dist), axis=1)
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(idx, order, axis=1)


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


def _brute_knn(query, index, k, exclude_self):
    centre = index.mean(axis=0)  # centring shrinks the norms and so the float32 rounding
    q32 = (query - centre).astype(np.float32)
    i32 = (index - centre).astype(np.float32)
    index_sq = np.einsum("ij,ij->i", i32, i32)
    available = len(index) - (1 if exclude_self else 0)
    n_candidates = min(k + MARGIN, available)
    batch = max(1, BATCH_BYTES // (4 * len(index)))
    dist = np.empty((len(query), k))
    idx = np.empty((len(query), k), dtype=np.int64)
    for start in range(0, len(query), batch):
        rows = slice(start, start + batch)
        approx = q32[rows] @ i32.T
        approx *= -2
        approx += index_sq
        if exclude_self:
            approx[np.arange(len(approx)), np.arange(start, start + len(approx))] = np.inf
        cand = np.argpartition(approx, n_candidates - 1, axis=1)[:, :n_candidates]
        exact = np.sqrt(((query[rows, None, :] - index[cand]) ** 2).sum(axis=2))
        order = np.lexsort((cand, exact), axis=1)[:, :k]
        dist[rows] = np.take_along_axis(exact, order, axis=1)
        idx[rows] = np.take_along_axis(cand, order, axis=1)
    return dist, idx
