"""Exact nearest neighbours, batched (no Python loop over rows).

Exact means: the returned distances are computed in float64 from the coordinate differences (so a
copy is at distance 0, exactly, and equal sets of differences give equal distances), and the
returned neighbours are the true k nearest, ties going to the lower index. Two routes:

* low-dimensional spaces (at most ``TREE_MAX_DIMS`` columns, e.g. the 2-D FAMD projection): a
  scikit-learn KD-tree, which computes distances from the differences;
* wider spaces (the one-hot mixed space has ~100 columns): brute force in batches, with a
  *proven* candidate band. One matrix product gives, for every (query, index) pair,
  ``m = (1 - c)|x|^2 - 2 q.x``; with ``c`` a bound on the relative rounding error of that product
  and of the coordinates' own rounding (``4 (p + 4)`` units of rounding, p the dimension),
  ``m + (1 - c)|q|^2`` is a *lower bound* of the true squared distance. The k smallest ``m`` give
  k rows whose exact distances bound the k-th neighbour's distance from above; every row whose
  lower bound is below that is a candidate, and the candidates' exact distances decide. No true
  neighbour can fall outside the band, however many rows sit within rounding of each other
  (25,000 copies of one row included). Because the band is proven for any precision, the
  product runs in float32 (twice as fast as float64) whenever the values' spread allows
  (at most ``2**40`` after centring); the band then holds about three candidates per row on
  Texas. Batches run on as many threads as BLAS may use. An earlier float32 preselection with a
  fixed margin of 6 candidates missed the copy when more than 7 rows fell within rounding of it.

Scale: coordinates are centred and multiplied by a power of two (exact): to bring the largest
near 1 for float32, or, in float64, below ``2**480`` so that no square overflows. The exact
distances then use a per-pair scaling (as ``hypot`` does), so values up to about 1e300 give exact
neighbours too. Non-finite input is rejected.
"""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import KDTree

BATCH_BYTES = 128 * 2**20  # memory of one query batch's float64 block
PAIR_CHUNK = 2**21  # candidate pairs whose exact distances are computed at once (x dims)
TREE_MAX_DIMS = 8
SAFE_MAGNITUDE = 2.0**480  # squares and their sums stay far from float64 overflow below this
FLOAT32_MAGNITUDE = 2.0**40  # spread up to which the candidate search runs in float32


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


def exact_distances(
    query: np.ndarray, index: np.ndarray, rows, cols, scaled: bool | None = None
) -> np.ndarray:
    """Euclidean distances between ``query[rows]`` and ``index[cols]`` (pairwise), from the
    differences in float64, in chunks; scaled per pair (as ``hypot``) when a square could overflow.

    Each pair's squared differences are sorted before they are summed, so two pairs with the same
    terms in other columns get the same float: a row differing from the query in categories A, B, C
    is exactly as far as one differing in D, E, F. (Summed in place, SIMD lanes grouped the terms by
    position, and 3 mismatches came out as 2.9999999999999996 or ...87, breaking the ties that NNAA
    and the Identifiability Score compare.) ``scaled``: whether values are large enough to need the
    per-pair scaling; found from the tables when not given (a pass over both, which batched
    callers make once)."""
    rows, cols = np.asarray(rows), np.asarray(cols)
    out = np.empty(len(rows))
    if scaled is None:
        scaled = max(_magnitude(query), _magnitude(index)) >= SAFE_MAGNITUDE
    step = max(1, PAIR_CHUNK // max(1, query.shape[1]))
    for start in range(0, len(rows), step):
        part = slice(start, start + step)
        diff = query[rows[part]] - index[cols[part]]
        big = np.abs(diff).max(axis=1) if scaled else np.ones(len(diff))
        big[big == 0] = 1.0
        terms = np.square(diff / big[:, None])
        terms.sort(axis=1)  # the sum then depends on the terms only, not on where they sit
        out[part] = big * np.sqrt(terms.sum(axis=1))
    return out


def _brute_knn(query, index, k, exclude_self):
    q, x, scale, dtype = _approximate_coordinates(query, index)
    scaled = max(_magnitude(query), _magnitude(index)) >= SAFE_MAGNITUDE
    dims = q.shape[1]
    unit = np.finfo(dtype).eps / 2
    c = 4 * (dims + 4) * unit  # relative bound: product, coordinate rounding, centring
    slack = 8 * (dims + 4) * float(np.finfo(dtype).smallest_subnormal)  # below the normal range
    q_norm = np.einsum("ij,ij->i", q, q, dtype=np.float64)
    x_norm = np.einsum("ij,ij->i", x, x, dtype=np.float64)
    q_aug = np.hstack([q, np.ones((len(q), 1), dtype)])
    x_aug = np.ascontiguousarray(np.hstack([-2 * x, ((1 - c) * x_norm)[:, None].astype(dtype)]).T)
    batch = max(1, BATCH_BYTES // (np.dtype(dtype).itemsize * len(index)))
    dist = np.empty((len(query), k))
    idx = np.empty((len(query), k), dtype=np.int64)

    def one_batch(start: int) -> None:
        rows = np.arange(start, min(start + batch, len(query)))
        m = q_aug[rows] @ x_aug  # (1 - c)|x|^2 - 2 q.x; + (1 - c)|q|^2 is a lower bound of d^2
        if exclude_self:
            m[np.arange(len(rows)), rows] = np.inf
        first = m.argmin(axis=1)[:, None] if k == 1 else np.argpartition(m, k - 1, axis=1)[:, :k]
        first_d = exact_distances(query, index, np.repeat(rows, k), first.ravel(), scaled)
        upper = (first_d.reshape(len(rows), k).max(axis=1) * scale) ** 2
        limit = upper * (1 + 2 * c) - (1 - 2 * c) * q_norm[rows] + slack
        band = m <= limit[:, None].astype(dtype)
        band[np.arange(len(rows))[:, None], first] = True  # in the band by construction
        cand_row, cand_col = np.divmod(np.flatnonzero(band), band.shape[1])
        cand_d = exact_distances(query, index, rows[cand_row], cand_col, scaled)
        order = np.lexsort((cand_col, cand_d, cand_row))
        cand_row, cand_col, cand_d = cand_row[order], cand_col[order], cand_d[order]
        rank = np.arange(len(cand_row)) - np.searchsorted(cand_row, cand_row)
        best = rank < k
        dist[rows[cand_row[best]], rank[best]] = cand_d[best]
        idx[rows[cand_row[best]], rank[best]] = cand_col[best]

    in_parallel(one_batch, range(0, len(query), batch))
    return dist, idx


def _approximate_coordinates(query, index):
    """Centred coordinates for the candidate search, scaled by a power of two (exact): float32
    with the largest coordinate near 1 when the values' spread allows it (twice as fast, and
    the band is proven for float32 as well), else float64 with no square able to overflow.
    Returns (query, index, scale, dtype)."""
    centre = index.mean(axis=0)  # centring shrinks the norms, and so the rounding band
    q, x = query - centre, index - centre
    largest = max(_magnitude(q), _magnitude(x))
    if largest == 0:
        return q, x, 1.0, np.float64
    if largest <= FLOAT32_MAGNITUDE:
        scale = 2.0 ** -int(np.ceil(np.log2(largest)))
        return (q * scale).astype(np.float32), (x * scale).astype(np.float32), scale, np.float32
    scale = 2.0 ** -max(0, int(np.ceil(np.log2(largest))) - 480)
    return q * scale, x * scale, scale, np.float64


def in_parallel(work, starts) -> None:
    """Run ``work(start)`` for every start on as many threads as BLAS may use (numpy releases the
    GIL in the matrix product and the row scans), each with a one-thread BLAS; serially when
    BLAS has one thread. The caller's thread budget (:mod:`privmetrics.threads`) is respected."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    from .threads import thread_budget

    starts = list(starts)
    workers = min(thread_budget(), len(starts))
    if workers <= 1:
        for start in starts:
            work(start)
        return
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(workers) as pool:
        list(pool.map(work, starts))


def farthest_distance(query: np.ndarray, index: np.ndarray) -> float:
    """The largest distance between any query row and any index row, to float32 rounding (a
    normaliser, not a neighbour): one matrix product per batch, max_j |x_j|^2 - 2 q.x_j plus
    |q|^2, then the winning pair of each batch measured exactly in float64."""
    query = np.ascontiguousarray(query, dtype=np.float64)
    index = np.ascontiguousarray(index, dtype=np.float64)
    q, x, _, dtype = _approximate_coordinates(query, index)
    x_norm = np.einsum("ij,ij->i", x, x)
    batch = max(1, BATCH_BYTES // (np.dtype(dtype).itemsize * len(index)))
    found = []

    def one_batch(start: int) -> None:
        block = q[start : start + batch]
        sq = (x_norm - 2 * block @ x.T) + np.einsum("ij,ij->i", block, block)[:, None]
        row, col = np.unravel_index(np.argmax(sq), sq.shape)
        found.append(exact_distances(query, index, [start + row], [col])[0])

    in_parallel(one_batch, range(0, len(q), batch))
    return float(max(found))
