"""A validated (real, synthetic, schema) triple that computes each shared ingredient once.

Many metrics need the same encodings and nearest-neighbour queries (real -> synthetic 1-NN is used
by eight of them). A :class:`Pair` caches them, so a full-suite run does every query once:

* ``space``: ``"mixed"`` (the distance space of :mod:`privmetrics.geometry.encoding`), ``"famd"`` (the 2-D
  FAMD projection of :mod:`privmetrics.geometry.projection`), ``"entropy"`` (the mixed space with every
  column weighted by 1/entropy, for the Identifiability Score) or ``"keys"`` (the mixed space of
  the key attributes alone, the attacker's view in Attribute Inference);
* ``neighbours(query, index, k, space)``: ``query`` and ``index`` are ``"real"`` or ``"synthetic"``;
  when they are the same frame, a row is never its own neighbour. The nearest neighbours
  (k = 1) come from scans that serve two queries each: real -> synthetic and synthetic -> real
  from the same products (in :data:`TWO_WAY_SPACES`), and a frame's own rows from the pairs
  above the diagonal;
* ``memo(key, compute)``: any other ingredient that several metrics or variants share (a
  classifier's AUC, the largest pair distance), computed once.

What depends on the real table alone (its check, the encodings fitted on it, its rows' searches
among themselves) lives in the pair's :class:`~privmetrics.geometry.real_side.RealSide`; pairs
built on one side (``Pair(side, release)``) share it, so the audit prepares its real table once.
"""

from __future__ import annotations

import warnings
from functools import cached_property

import numpy as np
import pandas as pd

from privmetrics.data.dtypes import plain
from privmetrics.data.missing import MissingValuesWarning, treat_missing
from privmetrics.data.schema import Schema
from privmetrics.data.validation import ValidationReport, plain_categories
from privmetrics.geometry.neighbours import (
    farthest_distance,
    knn,
    nearest_both,
    nearest_other,
)
from privmetrics.geometry.real_side import RealSide

SIDES = ("real", "synthetic")
# spaces in which metrics ask for the nearest row both ways (MDCR and NNAA: synthetic -> real),
# so that one scan serves both; elsewhere the second direction would be work for nothing
TWO_WAY_SPACES = ("mixed",)


def _treated(real, synthetic, schema, name: str, rule: str):
    """The pair with :func:`privmetrics.data.missing.treat_missing`'s ``rule`` applied (a warning
    says what it did); inputs that are not tables pass through, for :func:`validate` to name."""
    frames = isinstance(real, pd.DataFrame) and isinstance(synthetic, pd.DataFrame)
    if not (frames and isinstance(schema, Schema)):
        return real, synthetic, schema, None
    tables, schema, summary = treat_missing(
        {"real data": real, f"{name} data": synthetic}, schema, rule
    )
    if summary.any:
        warnings.warn(str(summary), MissingValuesWarning, stacklevel=3)
    return tables["real data"], tables[f"{name} data"], schema, summary


def copy_neighbours(coords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The nearest row of a table's copy for each of its rows, as :func:`knn` gives it: at
    distance 0, the first row with the same coordinates (ties go to the lower index), found by
    sorting the rows instead of searching every pair."""
    _, first, inverse = np.unique(coords, axis=0, return_index=True, return_inverse=True)
    nearest = first[inverse.ravel()].astype(np.int64)[:, None]
    return np.zeros(nearest.shape), nearest


class Pair:
    """A validated (real, synthetic, schema) triple with its shared ingredients (module doc).

    ``real``: the real table, or a :class:`~privmetrics.geometry.real_side.RealSide` that pairs
    of one real table share (then ``schema`` is the side's and may be left out, and the release
    comes with its missing values treated as the side's were); only the release is checked then.
    ``missing``: the rule for missing values (:mod:`privmetrics.data.missing`): ``"indicator"``
    (a gap is a category, or a flag beside a median-filled number), ``"drop-rows"`` or
    ``"refuse"``. ``schema``, ``real`` and ``synthetic`` are the treated ones; ``missing`` then
    holds what was done. ``control``: real rows the generator never saw, for the metrics that
    compare against them (the ALC's control set); give it without gaps (the audit treats every
    table together first)."""

    def __init__(
        self,
        real: pd.DataFrame | RealSide,
        synthetic: pd.DataFrame,
        schema: Schema | None = None,
        seed: int = 0,
        name: str = "synthetic",
        missing: str = "indicator",
        control: pd.DataFrame | None = None,
    ):
        # name: what checks call the second table (the audit also pairs real rows with a holdout)
        # dates as days, categories and nullable numbers as plain values (privmetrics.data.dtypes)
        synthetic, control = (plain(t)[0] if isinstance(t, pd.DataFrame) else t
                              for t in (synthetic, control))  # fmt: skip
        if isinstance(real, RealSide):
            side, self.missing = real, None
        else:
            real = plain(real)[0] if isinstance(real, pd.DataFrame) else real
            real, synthetic, schema, self.missing = _treated(real, synthetic, schema, name, missing)
            side = RealSide(real, schema)
        if control is not None:
            side.check(control, "holdout", warn=False)
        self.report: ValidationReport = side.check(synthetic, name)
        self.side = side
        self.control = None if control is None else control.reset_index(drop=True)
        self.real = side.real
        self.synthetic = plain_categories(synthetic.reset_index(drop=True))
        self.schema = side.schema
        self.seed = seed
        self._spaces: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._knn: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._memo: dict = {}

    def memo(self, key, compute):
        """``compute()``, once per pair and ``key``."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    # --- encodings ---------------------------------------------------------------------------
    def space(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(real, synthetic) coordinates in the named space, computed once. The encoding is
        fitted on the real table alone, once for every pair of its :class:`RealSide`."""
        if name not in self._spaces:
            model, real = self.side.encoding(name)
            self._spaces[name] = (real, model.transform(self.synthetic))
        return self._spaces[name]

    @property
    def entropy_weights(self) -> dict[str, float]:
        """1 / H(column) per column (numericals in 10 quantile bins); constant columns weigh 1."""
        return self.side.entropy_weights

    # --- nearest neighbours ------------------------------------------------------------------
    def neighbours(self, query: str, index: str, k: int = 1, space: str = "mixed"):
        """(distances, indices) of the k nearest ``index`` rows of every ``query`` row, cached."""
        key = (query, index, space)
        own = None  # the real rows' search among themselves is the side's, for these targets
        if query == index == "real":
            own = self.side.own_key(space, self.target_positions("real"))
        cached = self.cached(query, index, space)
        if cached is None or cached[0].shape[1] < k:
            cached = self._search(query, index, k, space)
            if own is not None:
                self.side.own[own] = cached
        self._knn[key] = cached
        return cached[0][:, :k], cached[1][:, :k]

    def cached(self, query: str, index: str, space: str = "mixed"):
        """The (distances, indices) a search of :meth:`neighbours` already found, this pair's or
        (the real rows among themselves) its side's; None when none was made."""
        found = self._knn.get((query, index, space))
        if found is None and query == index == "real":
            found = self.side.own.get(self.side.own_key(space, self.target_positions("real")))
        return found

    def _search(self, query: str, index: str, k: int, space: str):
        coords = dict(zip(SIDES, self.space(space), strict=True))
        reverse = (index, query, space)
        if k == 1 and query == index:
            return nearest_other(coords[query])
        if k == 1 and self.is_copy:  # the release is the real table: known without a search
            found = self._knn[reverse] = copy_neighbours(coords[query])
            return found
        if k == 1 and space in TWO_WAY_SPACES and reverse not in self._knn:
            found, self._knn[reverse] = nearest_both(coords[query], coords[index])
            return found
        return knn(coords[query], coords[index], k=k, exclude_self=query == index)

    @cached_property
    def is_copy(self) -> bool:
        """Whether the second table is the real one, row for row (the audit's Real reference,
        the Real configuration of the grid)."""
        return self.real.equals(self.synthetic)

    # --- which rows a score averages over -----------------------------------------------------
    sampled = False  # True for a SampledPair (privmetrics.metrics.sampled): scores from target rows

    def target_rows(self, side: str):
        """Positions of the ``side`` rows that a score averages over: every row here; a random
        sample of them in :class:`~privmetrics.metrics.sampled.SampledPair`, where the neighbour queries
        also answer for those rows only (against every row of the other table)."""
        return slice(None)

    def target_positions(self, side: str) -> np.ndarray:
        """:meth:`target_rows` of ``side`` as an array of row positions."""
        return np.arange(len(getattr(self, side)))[self.target_rows(side)]

    def nearest_distance(self, query: str, index: str, space: str = "mixed") -> np.ndarray:
        """Distance from every ``query`` row to its nearest ``index`` row (one value per row)."""
        return self.neighbours(query, index, 1, space)[0][:, 0]

    def farthest(
        self, query: str = "real", index: str = "synthetic", space: str = "mixed"
    ) -> float:
        """The largest distance between any ``query`` row and any ``index`` row, cached."""
        coords = dict(zip(SIDES, self.space(space), strict=True))
        return self.memo(
            ("farthest", query, index, space),
            lambda: farthest_distance(coords[query], coords[index]),
        )
