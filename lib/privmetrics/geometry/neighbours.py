"""Exact nearest neighbours, batched (no Python loop over rows).

Exact means: the returned distances are computed in float64 from the coordinate differences (so a
copy is at distance 0, exactly, and equal sets of differences give equal distances), and the
returned neighbours are the true k nearest, ties going to the lower index. Two routes:

* low-dimensional spaces (at most ``TREE_MAX_DIMS`` columns, e.g. the 2-D FAMD projection): a
  scikit-learn KD-tree, which computes distances from the differences;
* wider spaces (the one-hot mixed space has ~100 columns): every pair, from matrix products
  in tiles, with a *proven* candidate band. One product gives, for every (query, index) pair,
  ``L = (1 - c)(|q|^2 + |x|^2) - 2 q.x``; with ``c`` a bound on the relative rounding error of
  that product and of the coordinates' own rounding (``4 (p + 4)`` units of rounding, p the
  dimension, twice the first-order bound), ``L`` is a *lower bound* of the true squared distance
  and ``L + 2c(|q|^2 + |x|^2)`` an upper one. A first pass keeps each tile's smallest ``L`` per
  row (per strip of 256 index rows); the smallest upper bound then caps each row's k-th
  neighbour, and only the strips whose smallest ``L`` is within that cap are read again: every
  entry within it is a candidate, and the candidates' exact distances decide. No true neighbour
  can fall outside the band, however many rows sit within rounding of each other (25,000 copies
  of one row included). Because the band is proven for any precision, the products run in
  float32 (twice as fast as float64) whenever the values' spread allows (at most ``2**40``
  after centring); a row then has about four candidates on Texas. The same products serve both
  directions between two tables (:func:`nearest_both`) and, within one table, each pair once
  (:func:`nearest_other`). Blocks run on as many threads as BLAS may use. An earlier float32
  preselection with a fixed margin of 6 candidates missed the copy when more than 7 rows fell
  within rounding of it; an earlier batch of 335 rows against all 100,000 index rows wrote its
  product to memory and read it back several times, slower than tiles read while in cache.

Scale: coordinates are centred and multiplied by a power of two (exact): to bring the largest
near 1 for float32, or, in float64, below ``2**480`` so that no square overflows. The exact
distances then use a per-pair scaling (as ``hypot`` does), so values up to about 1e300 give exact
neighbours too. Non-finite input is rejected.
"""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import KDTree

from privmetrics.threads import controller, thread_budget

BATCH_BYTES = 128 * 2**20  # memory of one query batch's float64 block (farthest_distance)
TILE_ROWS = 512  # query rows per block of the nearest-neighbour scan
TILE_COLS = 2048  # index rows per tile (a multiple of TILE_ROWS): a product stays in cache
STRIP = 256  # index rows over which a query row's smallest bound is kept (divides TILE_COLS)
MINIMA_BYTES = 512 * 2**20  # memory for those minima, beyond which a tile is one strip
PAIR_CHUNK = 2**21  # candidate pairs whose exact distances are computed at once (x dims)
TREE_MAX_DIMS = 8
SAFE_MAGNITUDE = 2.0**480  # squares and their sums stay far from float64 overflow below this
FLOAT32_MAGNITUDE = 2.0**40  # spread up to which the candidate search runs in float32


def knn(
    query: np.ndarray,
    index: np.ndarray,
    k: int = 1,
    exclude_self: bool = False,
    own: np.ndarray | None = None,
):
    """Distances and indices of the ``k`` nearest rows of ``index`` for every row of ``query``.

    ``exclude_self`` is for ``query is index``: row i never counts as its own neighbour (an exact
    duplicate at another position still does, at distance 0). ``own`` is for a query made of
    some of the index's rows: ``own[i]``, the position of query row i in the index, never counts
    as its neighbour. Returns two arrays of shape (len(query), k), sorted by distance, ties by
    index.
    """
    if exclude_self:
        if len(query) != len(index):
            raise ValueError("exclude_self needs the query and the index to be the same rows")
        own = np.arange(len(query))
    query, index = _checked(query, index, k, own is not None)
    large = _large(query, index)
    if own is not None:
        own = np.asarray(own, dtype=np.int64)
        if own.shape != (len(query),) or (
            len(own) and not 0 <= own.min() <= own.max() < len(index)
        ):
            raise ValueError("own must give one position in the index for every query row")
    if _tree_route(index, large):
        dist, idx = _tree_knn(query, index, k, own)
    else:
        (dist, idx), _ = _scan(query, index, k, large, own=own)
    order = np.lexsort((idx, dist), axis=1)
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(idx, order, axis=1)


def _checked(query, index, k, exclude_self):
    """Both tables as contiguous float64, after checking that the request makes sense."""
    _check_k(k, len(index) - (1 if exclude_self else 0))
    query = np.ascontiguousarray(query, dtype=np.float64)
    index = np.ascontiguousarray(index, dtype=np.float64)
    if query.ndim != 2 or index.ndim != 2 or query.shape[1] != index.shape[1]:
        raise ValueError(
            f"query and index must be 2-D with the same columns, got {query.shape} and {index.shape}"
        )
    if not (np.isfinite(query).all() and np.isfinite(index).all()):
        raise ValueError("nearest neighbours need finite coordinates (found inf or NaN)")
    return query, index


def _check_k(k: int, available: int) -> None:
    if not 1 <= k <= available:
        raise ValueError(f"k={k} neighbours requested but the index has {available} candidate rows")


def _large(query, index) -> bool:
    """Whether a value is large enough for a square to overflow: the KD-tree is then avoided and
    exact distances are scaled per pair."""
    return max(_magnitude(query), _magnitude(index)) >= SAFE_MAGNITUDE


def _tree_route(index, large: bool) -> bool:
    """Low-dimensional tables whose squares cannot overflow go to the KD-tree."""
    return index.shape[1] <= TREE_MAX_DIMS and not large


def _magnitude(a: np.ndarray) -> float:
    return float(np.abs(a).max()) if a.size else 0.0


def _tree_knn(query, index, k, own):
    n = min(k + 1 if own is not None else k, len(index))
    tree = KDTree(index)
    dist, idx = np.empty((len(query), n)), np.empty((len(query), n), dtype=np.intp)
    step = max(1, -(-len(query) // thread_budget()))

    def part(start: int) -> None:  # the query releases the GIL for much of its work
        rows = slice(start, start + step)
        dist[rows], idx[rows] = tree.query(query[rows], k=n)

    in_parallel(part, range(0, len(query), step))
    if own is None:
        return dist, idx
    # drop each row's own position; rows whose self fell outside (duplicates) drop the last column
    is_self = idx == own[:, None]
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
        scaled = _large(query, index)
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


def nearest_both(a: np.ndarray, b: np.ndarray):
    """The nearest row of ``b`` for every row of ``a`` and the nearest row of ``a`` for every row
    of ``b``, from one scan of the pairs: ``((dist, idx), (dist, idx))``, each as
    ``knn(a, b)`` and ``knn(b, a)`` return them (one column, exact, ties to the lower index)."""
    _check_k(1, len(a))  # b's rows need a neighbour in a as well
    a, b = _checked(a, b, 1, False)
    large = _large(a, b)
    if _tree_route(b, large):
        return knn(a, b), knn(b, a)
    return _scan(a, b, 1, large, both=True)


def nearest_other(a: np.ndarray):
    """``knn(a, a, k=1, exclude_self=True)`` from one scan of the pairs above the diagonal: the
    distance from i to j is the distance from j to i, so each pair is measured once for both."""
    a = _checked(a, a, 1, True)[0]
    large = _large(a, a)
    if _tree_route(a, large):
        return knn(a, a, k=1, exclude_self=True)
    return _scan(a, a, 1, large, symmetric=True)[0]


def _scan(query, index, k, large, own=None, both=False, symmetric=False):
    """Exact k nearest ``index`` rows of every ``query`` row, from tiled matrix products.

    For every pair, one product gives ``L = (1 - c) N - 2 q.x`` with ``N = |q|^2 + |x|^2``: with
    ``c`` the rounding bound of the module docstring (twice the first-order bound e of the
    product's error), the squared distance lies in ``[L + eN, L + 3eN]``, so ``L`` bounds it from
    below and ``L + 2cN`` from above. Two phases:

    1. A block of ``TILE_ROWS`` query rows meets the index ``TILE_COLS`` rows at a time, so that
       each product stays in cache while it is read; of each tile only the smallest ``L`` per
       row in each strip of ``STRIP`` index rows is kept (and, for k > 1, the tile's k-th). A
       row's bound is then the smallest over the strips (tiles) of that ``L`` plus the margin:
       an upper bound of its k-th neighbour's squared distance.
    2. Only the strips whose smallest ``L`` is within a row's bound can hold one of its k nearest
       (their ``L`` is a lower bound); those products are computed again for those rows, every
       entry within the bound is a candidate, and the candidates are measured exactly and ranked.
       A few percent of the pairs are computed again.

    ``large``: whether values are large enough to need per-pair scaling (:func:`_large`).

    ``both``: the same products serve the index rows' nearest query row (each tile's column
    minima, kept per block): returns ``(query result, index result)``. ``symmetric`` (``query is
    index``, k = 1, a row not its own neighbour): only the tiles on and above the diagonal are
    computed, each pair (i < j) once, for i's row and for j's column.
    """
    q, x, dtype = _approximate_coordinates(query, index)
    dims = q.shape[1]
    c = 4 * (dims + 4) * np.finfo(dtype).eps / 2  # relative bound: product, rounding, centring
    slack = 8 * (dims + 4) * float(np.finfo(dtype).smallest_subnormal)  # below the normal range
    q_norm = np.einsum("ij,ij->i", q, q, dtype=np.float64)
    x_norm = np.einsum("ij,ij->i", x, x, dtype=np.float64)
    q_aug = np.hstack([q, ((1 - c) * q_norm)[:, None].astype(dtype), np.ones((len(q), 1), dtype)])
    x_rows = np.hstack(
        [-2 * x, np.ones((len(x), 1), dtype), ((1 - c) * x_norm)[:, None].astype(dtype)]
    )  # a row per index row: gathered by phase 2; its transpose is read by phase 1's tiles
    x_aug = np.ascontiguousarray(x_rows.T)
    width = TILE_COLS * -(-(k + 1) // TILE_COLS)  # a multiple of TILE_ROWS with room for k others
    tiles, blocks = np.arange(0, len(x), width), np.arange(0, len(q), TILE_ROWS)
    # a row's minima are kept per strip of a tile, so that phase 2 reads back a strip, not a tile
    strip = STRIP if len(q) * len(x) / STRIP * 4 <= MINIMA_BYTES else width
    strips = np.arange(0, len(x), strip)

    def products(rows, cols) -> np.ndarray:
        """L for query rows ``rows`` and index rows ``cols`` (slices or sorted positions); a row's
        own pair (and, symmetric, every pair below the diagonal) set to infinity."""
        m = q_aug[rows] @ (x_aug[:, cols] if isinstance(cols, slice) else x_rows[cols].T)
        if symmetric:
            i, j = _positions(rows)[:, None], _positions(cols)[None, :]
            if i[0, 0] <= j[0, -1] and j[0, 0] <= i[-1, 0]:
                m[j <= i] = np.inf
        elif own is not None:
            mine, j = own[rows], _positions(cols)
            at = np.minimum(np.searchsorted(j, mine), len(j) - 1)
            inside = np.flatnonzero(j[at] == mine)
            m[inside, at[inside]] = np.inf
        return m

    def span(starts, position: int, size: int, total: int) -> slice:
        return slice(starts[position], min(starts[position] + size, total))

    # phase 1: each tile's smallest (and k-th) L per query row, and per index row when asked
    row_low = np.full((len(strips), len(q)), np.inf, dtype)
    row_kth = np.full((len(tiles), len(q)), np.inf, dtype) if k > 1 else None
    col_low = np.full((len(blocks), len(x)), np.inf, dtype) if both or symmetric else None

    def scan_block(b: int) -> None:
        rows = span(blocks, b, TILE_ROWS, len(q))
        for t in range(rows.start // width if symmetric else 0, len(tiles)):
            cols = span(tiles, t, width, len(x))
            m = products(rows, cols)
            first = cols.start // strip
            row_low[first : first + -(-m.shape[1] // strip), rows] = _strip_minima(m, strip)
            if k > 1:
                row_kth[t, rows] = _kth_smallest(m, k)
            if col_low is not None:
                col_low[b, cols] = m.min(axis=0)

    in_parallel(scan_block, range(len(blocks)))
    bound_from, parts = (row_low, strips) if k == 1 else (row_kth, tiles)
    x_part_max = np.maximum.reduceat(x_norm, parts) if len(x) else x_norm
    row_bound = _upper_bounds(bound_from, q_norm, x_part_max, 2 * c, slack)
    if col_low is not None:
        q_block_max = np.maximum.reduceat(q_norm, blocks) if len(q) else q_norm
        col_bound = _upper_bounds(col_low, x_norm, q_block_max, 2 * c, slack)
        if symmetric:
            row_bound = col_bound = np.minimum(row_bound, col_bound)

    # phase 2: the tiles that can hold a neighbour, computed again for the rows concerned
    def reread(low, bound, starts, size, total, columns: bool) -> list:
        """(row, candidate) pairs within ``bound``, from the parts (tiles, or blocks when
        ``columns``) whose smallest L is within it."""
        part, who = np.nonzero(low <= bound)
        edges = np.searchsorted(part, np.arange(len(starts) + 1))
        found: list = [None] * len(starts)

        def one_part(p: int) -> None:
            these = who[edges[p] : edges[p + 1]]
            if len(these):
                other = span(starts, p, size, total)
                m = products(other, these).T if columns else products(these, other)
                a, b = np.nonzero(m <= bound[these, None])
                found[p] = (these[a], other.start + b)

        in_parallel(one_part, range(len(starts)))
        return [f for f in found if f is not None]

    by_rows = reread(row_low, row_bound, strips, strip, len(x), columns=False)
    if col_low is None:
        return _closest(query, index, by_rows, k, large), None
    by_cols = reread(col_low, col_bound, blocks, TILE_ROWS, len(q), columns=True)
    if symmetric:
        return _closest(query, index, by_rows + by_cols, 1, large), None
    return _closest(query, index, by_rows, k, large), _closest(index, query, by_cols, 1, large)


def _upper_bounds(low, norms, part_max, margin, slack) -> np.ndarray:
    """Per row, the smallest over the parts (strips, tiles or blocks) of the part's kept L plus
    ``margin (|row|^2 + the part's largest |other|^2) + slack``: an upper bound of the squared
    distance to the row's k-th neighbour. In float64, one part at a time."""
    bound = np.full(low.shape[1], np.inf)
    for part in range(len(low)):
        np.minimum(bound, low[part] + (margin * (norms + part_max[part]) + slack), out=bound)
    return bound


def _positions(part) -> np.ndarray:
    return np.arange(part.start, part.stop) if isinstance(part, slice) else part


def _strip_minima(m: np.ndarray, strip: int) -> np.ndarray:
    """Each row's smallest value in every ``strip`` columns of ``m``: (strips, rows)."""
    return np.minimum.reduceat(m, np.arange(0, m.shape[1], strip), axis=1).T


def _kth_smallest(m: np.ndarray, k: int) -> np.ndarray:
    """Each row's k-th smallest value (infinite when the tile has fewer than k columns)."""
    if m.shape[1] < k:
        return np.full(len(m), np.inf, m.dtype)
    return np.partition(m, k - 1, axis=1)[:, k - 1]


def _closest(query, index, found, k, scaled):
    """The k nearest of each query row among its candidates ``found`` (a list of (rows,
    candidates) arrays), measured exactly; ``(dist, idx)`` sorted by distance, ties to the lower
    index."""
    who, nbr = (np.concatenate(parts) for parts in zip(*found, strict=True)) if found else ([], [])
    who, nbr = np.asarray(who, dtype=np.int64), np.asarray(nbr, dtype=np.int64)
    d = exact_distances(query, index, who, nbr, scaled)
    order = np.lexsort((nbr, d, who))
    who, nbr, d = who[order], nbr[order], d[order]
    rank = np.arange(len(who)) - np.searchsorted(who, who)
    best = rank < k
    dist = np.empty((len(query), k))
    idx = np.empty((len(query), k), dtype=np.int64)
    dist[who[best], rank[best]] = d[best]
    idx[who[best], rank[best]] = nbr[best]
    return dist, idx


def _approximate_coordinates(query, index):
    """Centred coordinates for the candidate search, scaled by a power of two (exact): float32
    with the largest coordinate near 1 when the values' spread allows it (twice as fast, and
    the band is proven for float32 as well), else float64 with no square able to overflow.
    Returns (query, index, dtype); the bounds are relative, so the scale itself is not needed."""
    centre = index.mean(axis=0)  # centring shrinks the norms, and so the rounding band
    q, x = query - centre, index - centre
    largest = max(_magnitude(q), _magnitude(x))
    if largest == 0:
        return q, x, np.float64
    if largest <= FLOAT32_MAGNITUDE:
        scale = 2.0 ** -int(np.ceil(np.log2(largest)))
        return (q * scale).astype(np.float32), (x * scale).astype(np.float32), np.float32
    scale = 2.0 ** -max(0, int(np.ceil(np.log2(largest))) - 480)
    return q * scale, x * scale, np.float64


def in_parallel(work, starts, threads: int | None = None) -> None:
    """Run ``work(start)`` for every start on as many threads as BLAS may use (numpy releases the
    GIL in the matrix product and the row scans), each with a one-thread BLAS; serially when
    BLAS has one thread. The caller's thread budget (:mod:`privmetrics.threads`) is respected;
    ``threads`` gives it instead, for a caller that caps the pools itself around the call."""
    from concurrent.futures import ThreadPoolExecutor

    starts = list(starts)
    workers = min(thread_budget() if threads is None else threads, len(starts))
    if workers <= 1:
        for start in starts:
            work(start)
        return
    with controller().limit(limits=1, user_api="blas"), ThreadPoolExecutor(workers) as pool:
        list(pool.map(work, starts))


def farthest_distance(query: np.ndarray, index: np.ndarray) -> float:
    """The largest distance between any query row and any index row, to float32 rounding (a
    normaliser, not a neighbour): one matrix product per batch, max_j |x_j|^2 - 2 q.x_j plus
    |q|^2, then the winning pair of each batch measured exactly in float64."""
    query = np.ascontiguousarray(query, dtype=np.float64)
    index = np.ascontiguousarray(index, dtype=np.float64)
    q, x, dtype = _approximate_coordinates(query, index)
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
