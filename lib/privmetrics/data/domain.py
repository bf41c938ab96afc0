"""Public domains of columns: what a differentially private synthesiser may know without paying.

A DP guarantee covers only what is computed from the private rows inside the privacy accounting.
The value range of a numerical column and the set of values of a categorical one are *not* free:
read from the training table, the maximum of a column is the value of its largest record, and a
release whose bins end there tells whether that record was in the training data (Annamalai, Ganev
and De Cristofaro 2024; Stadler et al. 2022). So the DP synthesisers take them from a declared
public domain (a dataset manifest's ``domain:`` section, or ``Schema(domain=...)`` for a user's
table), which is stated before any data is seen:

* a numerical column: :class:`Bounds` ``low``, ``high`` and a binning ``scale`` (``"linear"``
  equal-width bins, or ``"log"``: equal width in ``log(1 + x - low)``, for skewed amounts such as
  charges); values outside ``[low, high]`` are clipped to it;
* a categorical or binary column: :class:`Categories`, the list of values (a code list) and,
  optionally, the listed value that stands for "other": a value outside the list maps to it, and
  without one such a value is refused with an error naming the column.

:func:`dp_bounds` estimates the bounds of a column that has no declared domain, inside the
accounting: a histogram over fixed, data-independent bins on a signed powers-of-two scale gets
Laplace noise (a substitution changes two counts by one each: L1 sensitivity 2), and the outermost
bins whose noisy count clears a threshold give the bounds. It is pure epsilon-DP. A category set
cannot be learnt under pure epsilon-DP without a public list of candidates, so categories must be
declared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

SCALES = ("linear", "log")


class DomainError(ValueError):
    """A declared domain is malformed, or the data cannot be mapped into it."""


@dataclass(frozen=True)
class Bounds:
    """The public range [low, high] of a numerical column and the scale its bins are cut on."""

    low: float
    high: float
    scale: str = "linear"

    def __post_init__(self):
        low, high = float(self.low), float(self.high)
        if not (np.isfinite(low) and np.isfinite(high) and low < high):
            raise DomainError(f"bounds need finite low < high, got [{self.low}, {self.high}]")
        if self.scale not in SCALES:
            raise DomainError(f"scale must be one of {SCALES}, got {self.scale!r}")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    def edges(self, bins: int) -> np.ndarray:
        """``bins + 1`` bin edges from low to high (equal width on the declared scale)."""
        if self.scale == "linear":
            return np.linspace(self.low, self.high, bins + 1)
        return self.low + np.expm1(np.linspace(0.0, np.log1p(self.high - self.low), bins + 1))

    def to_dict(self) -> dict:
        return {"low": self.low, "high": self.high, "scale": self.scale}


@dataclass(frozen=True)
class Categories:
    """The public list of a categorical column's values; ``other`` (one of them, optional) is where
    a value outside the list goes."""

    values: tuple
    other: object = None

    def __post_init__(self):
        values = tuple(self.values)
        if not values:
            raise DomainError("a category list needs at least one value")
        if len({str(v) for v in values}) < len(values):
            raise DomainError(f"a category list repeats a value: {list(values)}")
        if self.other is not None and str(self.other) not in {str(v) for v in values}:
            raise DomainError(f"other={self.other!r} is not one of the listed values")
        object.__setattr__(self, "values", values)

    def codes(self, values: np.ndarray, column: str) -> np.ndarray:
        """The position of each value in the list (compared as text, so 1 matches "1"); a value
        outside it goes to ``other`` or raises :class:`DomainError` naming the column."""
        position = {str(v): i for i, v in enumerate(self.values)}
        text = np.asarray([str(v) for v in values], dtype=object)
        codes = np.fromiter((position.get(t, -1) for t in text), dtype=np.int64, count=len(text))
        outside = codes < 0
        if outside.any():
            if self.other is None:
                examples = sorted({str(t) for t in text[outside]})[:5]
                raise DomainError(
                    f"column {column!r} has {int(outside.sum())} value(s) outside its declared "
                    f"categories (e.g. {examples}): add them to the domain, or declare which "
                    "listed value stands for 'other'"
                )
            codes[outside] = position[str(self.other)]
        return codes

    def to_dict(self) -> dict:
        out: dict = {"values": list(self.values)}
        if self.other is not None:
            out["other"] = self.other
        return out


Domain = Mapping[str, "Bounds | Categories"]


def parse_domain(raw: Mapping | None) -> dict[str, Bounds | Categories]:
    """A domain from its YAML/JSON form: ``{col: {low, high, scale}}`` for numbers, ``{col: [values]}``
    or ``{col: {values: [...], other: v}}`` for categories (already parsed entries pass through)."""
    out: dict[str, Bounds | Categories] = {}
    for col, entry in (raw or {}).items():
        try:
            if isinstance(entry, Bounds | Categories):
                out[col] = entry
            elif isinstance(entry, list | tuple):
                out[col] = Categories(tuple(entry))
            elif isinstance(entry, Mapping) and "values" in entry:
                unknown = set(entry) - {"values", "other"}
                if unknown:
                    raise DomainError(f"unknown field(s) {sorted(unknown)}; use values, other")
                out[col] = Categories(tuple(entry["values"]), entry.get("other"))
            elif isinstance(entry, Mapping):
                unknown = set(entry) - {"low", "high", "scale"}
                if unknown or not {"low", "high"} <= set(entry):
                    raise DomainError("a numerical domain has low, high and optionally scale")
                out[col] = Bounds(entry["low"], entry["high"], entry.get("scale", "linear"))
            else:
                raise DomainError("expected a list of categories or {low, high, scale}")
        except (DomainError, TypeError, ValueError) as exc:
            raise DomainError(f"domain of column {col!r}: {exc}") from exc
    return out


def domain_to_dict(domain: Domain) -> dict:
    return {col: entry.to_dict() for col, entry in domain.items()}


# --- differentially private bounds ----------------------------------------------------------------
# bins of |x| on powers of two from 2^-20 to 2^60, for each sign, plus one bin around zero
_POWERS = 2.0 ** np.arange(-20, 61)
DP_BOUNDS_EDGES = np.concatenate([-_POWERS[::-1], _POWERS])


def dp_bounds(values: np.ndarray, epsilon: float, rng: np.random.Generator, beta: float = 0.05):
    """epsilon-DP bounds of a numerical column (see the module doc), or None when no bin clears
    the threshold (too few rows for this epsilon).

    Counts over the fixed bins of :data:`DP_BOUNDS_EDGES` (values beyond 2^60 fall in the outer
    bins) get Laplace(2 / epsilon) noise; a bin is "occupied" when its noisy count exceeds
    ``(2 / epsilon) log(bins / beta)``, which an empty bin does with probability at most ``beta``
    over all bins. The bounds are the outer edges of the lowest and the highest occupied bin.
    Values outside them are later clipped, which is what lets a single outlier go unnoticed.
    """
    counts = np.bincount(
        np.searchsorted(DP_BOUNDS_EDGES, np.asarray(values, dtype=float), side="right"),
        minlength=len(DP_BOUNDS_EDGES) + 1,
    )
    scale = 2.0 / epsilon
    noisy = counts + rng.laplace(0.0, scale, size=counts.shape)
    occupied = np.flatnonzero(noisy > scale * np.log(len(counts) / beta))
    if not len(occupied):
        return None
    edges = np.concatenate([[-(2.0**61)], DP_BOUNDS_EDGES, [2.0**61]])
    edges[len(_POWERS)] = 0.0  # the bin around zero starts at 0, so non-negative data stays so
    low, high = float(edges[occupied[0]]), float(edges[occupied[-1] + 1])
    return Bounds(low, high, "log" if low >= 0 else "linear")
