"""Nearest-neighbour comparisons in a reweighted space, decided from the mixed space's neighbours
where bounds allow: the Identifiability Score's question without two full searches.

A reweighted space (the Identifiability Score's entropy space) is the mixed space of
:mod:`privmetrics.geometry.encoding` with every column's block multiplied by a weight w_c > 0, so
for any two rows the squared distance is a sum of the mixed space's per-column terms, each
multiplied by w_c^2, and ``w_min d_M <= d_W`` (w_min the smallest weight). The question, per real
row y: is its nearest release row strictly nearer than its nearest other real row,
``d_W(y, Z) < d_W(y, Y - y)``? The mixed space's nearest rows, which the distance metrics search
anyway (:class:`~privmetrics.geometry.pair.Pair` shares them), bound both sides:

* from above: the reweighted distance from y to its mixed-nearest release row, U_Z >= d_W(y, Z),
  and to its mixed-nearest other real row, U_Y >= d_W(y, Y - y);
* from below: L_Z = w_min d_M(y, Z) <= d_W(y, Z), and L_Y likewise;

so the answer is yes where U_Z < L_Y and no where U_Y <= L_Z. Only the rows neither decides are
searched in the reweighted space: first their nearest other real row (the exact r_y, or all of
them at once when an earlier pair of the same real table searched them), which decides most of
the rest (yes where U_Z < r_y, no where r_y <= L_Z), then the nearest release row of those left.

The answer is the full searches' row for row (a test, ties and twins included): an upper bound is
a distance :func:`~privmetrics.geometry.neighbours.exact_distances` computes as the search itself
would, and a lower bound is shrunk by a relative :data:`RELATIVE_SLACK` and an absolute
:data:`ABSOLUTE_SLACK` for the rounding of the two spaces' coordinates.
"""

from __future__ import annotations

import numpy as np

from privmetrics.geometry.neighbours import exact_distances, knn

RELATIVE_SLACK = 1e-9
ABSOLUTE_SLACK = 1e-12


def _lower(weight: float, mixed: np.ndarray) -> np.ndarray:
    """A lower bound of the reweighted distance from the mixed one (module doc)."""
    return np.maximum(weight * mixed * (1 - RELATIVE_SLACK) - ABSOLUTE_SLACK, 0.0)


def nearer_release(pair, space: str, weights: dict[str, float]) -> np.ndarray:
    """For each real target row of ``pair`` (every row, or a sampled pair's targets), whether
    its nearest release row in ``space`` (the mixed space reweighted by ``weights``, per column)
    is strictly nearer than its nearest other real row (module doc)."""
    real, release = pair.space(space)
    rows = pair.target_positions("real")
    mixed_y, near_y = pair.neighbours("real", "real", 1, "mixed")
    mixed_z, near_z = pair.neighbours("real", "synthetic", 1, "mixed")
    smallest = min(weights.values(), default=1.0)
    up_z = exact_distances(real, release, rows, near_z[:, 0])
    low_z = _lower(smallest, mixed_z[:, 0])
    own = pair.cached("real", "real", space)  # exact r_y, where another pair searched them
    if own is not None:
        r_y = own[0][:, 0]
        nearer = up_z < r_y
        todo = np.arange(len(rows))
    else:
        up_y = exact_distances(real, real, rows, near_y[:, 0])
        nearer = up_z < _lower(smallest, mixed_y[:, 0])
        todo = np.flatnonzero(~nearer & ~(up_y <= low_z))
        r_y = np.full(len(rows), np.nan)
        if todo.size:
            r_y[todo] = knn(real[rows[todo]], real, own=rows[todo])[0][:, 0]
        nearer[todo] = up_z[todo] < r_y[todo]
    left = todo[~nearer[todo] & ~(r_y[todo] <= low_z[todo])]
    if left.size:
        nearer[left] = knn(real[rows[left]], release)[0][:, 0] < r_y[left]
    return nearer
