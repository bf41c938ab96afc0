"""Risk-of-disclosure measures of Chen, Yu and Dargahi (2021), Section 3.2: (y, p)-coverage,
y-privacy, Voronoi privacy and p-privacy, registered as metrics (none is among the paper's 21).

The notions themselves (matching, Voronoi targets, cliques) live in
:mod:`privmetrics.disclosure.notions`; this module turns each into a score in [0, 1] on a
:class:`~privmetrics.geometry.pair.Pair`, 1 = a copy, as every metric of the registry.
"""

from __future__ import annotations

import numpy as np

from privmetrics.disclosure import notions as rod
from privmetrics.geometry.neighbours import knn
from privmetrics.geometry.pair import Pair
from privmetrics.metrics.registry import Category, register

REID = Category.REIDENTIFICATION


ROD_SOURCE = "Chen, Yu and Dargahi (2021), risk of disclosure, Section 3.2"

ROD_SUPPORTS = "numerical attributes only (categorical ones are left out)"


def _scaled(pair: Pair) -> tuple[np.ndarray, np.ndarray]:
    """The numerical attributes scaled by their real range (the risk-of-disclosure space)."""
    return pair.memo(
        "numeric minmax",
        lambda: rod.numeric_arrays(pair.real, pair.synthetic, pair.schema, "minmax"),
    )


def _nearest_other(pair: Pair) -> tuple[np.ndarray, np.ndarray]:
    """(distance, position) of each real row's nearest other real row in that space, found once
    for YPrivacy's spacing and VoronoiPrivacy's targets."""
    o, _ = _scaled(pair)
    return pair.memo("numeric nearest other", lambda: knn(o, o, k=1, exclude_self=True))


def _spacing(pair: Pair) -> float:
    """The data's own length scale: the median distance from a real row to its nearest other."""
    distance = _nearest_other(pair)[0][:, 0]
    return float(np.median(distance) or distance.mean() or 1e-12)


@register(
    "YPCoverage",
    title="(y, p)-coverage",
    category=REID,
    kind="distance (optimal matching)",
    algorithm=None,
    supports=ROD_SUPPORTS,
    source=ROD_SOURCE,
    orientation="score = p', the share of matched pairs within y (higher = more risk)",
    params={"y": 0.05, "sample": 500},
)
def yp_coverage(pair: Pair, y: float = 0.05, sample: int = 500) -> float:
    """Share of synthetic rows within distance y of the real row they are matched to, under the
    minimum-weight perfect matching between the two tables (Alg. 1, Eqs. 4-7).

    p' = #{omega_i <= y} / m, omega the matched edge weights (Hungarian algorithm on at most
    ``sample`` rows per side, seeded). Distances use the numerical attributes scaled by their real
    range and divided by sqrt(n), so y = 0.05 means "5% of the ranges, root-mean-square". The
    paper's verdict "(y, p)-coverage fulfilled" is p' <= p; the score is p' itself, which orders
    releases where the verdict cannot (the paper's own objection to the notion).
    """
    o, d = _scaled(pair)
    return rod.yp_coverage(o, d, y=y, sample=sample, seed=pair.seed).p_prime


@register(
    "YPrivacy",
    title="y-privacy",
    category=REID,
    kind="distance",
    algorithm=None,
    supports=ROD_SUPPORTS,
    source=ROD_SOURCE,
    orientation="score = s / (s + y), s the real rows' median nearest-neighbour distance",
    params={"aggregate": "min"},
    min_rows=2,  # a nearest other real row
)
def y_privacy(pair: Pair, aggregate: str = "min") -> float:
    """How close the closest synthetic row comes to a real row (Alg. 2, Eq. 8), as a risk score.

    y'_i = min_j ||D_i - O_j|| (Eq. 8 prints argmin; the distance is meant) and y = min_i y'_i,
    the paper's worst case (``aggregate="median"`` is its average-case option). A distance means
    little without the data's own spacing s (the median distance from a real row to its nearest
    other real row), so the score is s / (s + y): 1 when a synthetic row copies a real one, 0.5
    at y = s, towards 0 as the synthetic data move away.
    """
    o, d = _scaled(pair)
    y = rod.y_privacy(o, d, aggregate)
    spacing = _spacing(pair)
    return spacing / (spacing + y)


@register(
    "VoronoiPrivacy",
    title="Voronoi privacy",
    category=REID,
    kind="distance (optimal matching)",
    algorithm=None,
    supports=ROD_SUPPORTS,
    source=ROD_SOURCE,
    orientation="score = d_copy / max(d, d_copy): the copy's Voronoi distance over the release's",
    params={"sample": 500},
    min_rows=2,  # a nearest other real row
)
def voronoi_privacy(pair: Pair, sample: int = 500) -> float:
    """Distance from the release to the "optimal privatised" data of Alg. 3, relative to the copy.

    D-hat_i is the point of O_i's Voronoi cell boundary nearest to O_i, which is exactly the
    midpoint between O_i and its nearest other real row (so no Voronoi diagram is built, in any
    dimension). d = mean distance of the optimal assignment between D and D-hat (= the EMD
    between them; at most ``sample`` rows per side). The paper reads a larger d as lower risk;
    the copy of the data gets d_copy (about half the rows' spacing), so the score
    d_copy / max(d, d_copy) is 1 for the copy and falls as the release moves away.
    """
    o, d = _scaled(pair)
    targets = rod.voronoi_targets(o, nearest=_nearest_other(pair)[1][:, 0])
    distance = rod.voronoi_privacy(o, d, sample=sample, seed=pair.seed, targets=targets)
    copy = rod.voronoi_privacy(o, o, sample=sample, seed=pair.seed, targets=targets)
    return copy / max(distance, copy) if distance > 0 else 1.0


@register(
    "PPrivacy",
    title="p-privacy",
    category=Category.RECONSTRUCTION,
    kind="probabilistic",
    algorithm=None,
    supports="numerical attributes only, binned (categorical ones are left out)",
    source="Chen, Yu and Dargahi (2021), risk of disclosure, Section 3.2.4",
    orientation="score = p (Eq. 9), the attack probability",
    params={"tau": 0.9, "bins": 10, "max_candidates": 10**5},
)
def p_privacy(pair: Pair, tau: float = 0.9, bins: int = 10, max_candidates: int = 10**5) -> float:
    """Probability that an attacker rebuilds whole real rows from the synthetic data's dependency
    structure (Alg. 4, Eq. 9).

    Attributes of Z whose |Pearson r| >= ``tau`` are joined (the paper names neither the measure
    nor the threshold); the connected components are the cliques C_i; F = U_1 x ... x U_k, U_i
    the distinct rows of Z on C_i; xi = #{F_j in Y}; p = (xi / |F|) (xi / |Y|). Numerical
    attributes are cut into ``bins`` equal-width bins over the real range first, so that a
    candidate can equal a real row; above ``max_candidates`` candidates, xi / |F| is estimated
    from a seeded sample of F.

    Even the copy of the data scores far below 1 unless a few cliques cover every attribute:
    |F| grows as the product of the cliques' distinct values. That is the notion, not a bug.
    """
    o, d = rod.binned(pair.real, pair.synthetic, pair.schema, bins)
    return rod.p_privacy(o, d, tau=tau, max_candidates=max_candidates, seed=pair.seed).p
