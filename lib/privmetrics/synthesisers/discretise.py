"""Integer codes for every column, and back: the discrete view that PrivBayes and PATE-GAN work on.

The bins and category codes come from the columns' **public domain** (:mod:`privmetrics.data.domain`),
never silently from the training rows, because a range read from the data is a function of the
private records outside the privacy accounting (the cause of the leak measured in
:mod:`privmetrics.attacks.empirical_epsilon`). :func:`resolve_domain` decides where each column's domain
comes from, by the synthesiser's ``domain`` option:

* ``"declared"`` (default): every column must have a declared domain (the shipped manifests
  declare one; a user passes ``Schema(domain=...)`` or a ``domain:`` section in the schema file);
  otherwise the fit is refused with a message naming the columns and the other options;
* ``"dp"``: columns without a declared domain get differentially private bounds
  (:func:`privmetrics.data.domain.dp_bounds`), paid from a stated share of epsilon; categories cannot
  be learnt this way and must be declared;
* ``"data"``: columns without a declared domain take their range and values from the training
  table, with a :class:`DataDomainWarning` that the epsilon guarantee then does not hold (kept to
  show the leak, as in the book's audit, never used by the experiments).

Numerical columns are cut into ``bins`` bins of equal width on the declared scale (linear, or
logarithmic for skewed amounts); values outside [low, high] are clipped into the first or last bin.
Categorical and binary columns get one code per declared value; a value outside the list goes to
the declared "other" value or is refused. Decoding draws a number uniformly inside its bin, so no
real value is copied, and a category as the declared value.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privmetrics.data.domain import Bounds, Categories, DomainError, dp_bounds
from privmetrics.data.schema import ColumnType, Schema
from privmetrics.data.validation import InvalidInputError

DOMAIN_SOURCES = ("declared", "dp", "data")


class DataDomainWarning(UserWarning):
    """A DP synthesiser read a column's domain from the training data: epsilon does not hold."""


def check_domain_source(domain: str) -> str:
    if domain not in DOMAIN_SOURCES:
        raise InvalidInputError(f"domain must be one of {DOMAIN_SOURCES}, got {domain!r}")
    return domain


def resolve_domain(
    schema: Schema,
    frame: pd.DataFrame,
    source: str,
    epsilon: float,
    rng: np.random.Generator,
    technique: str,
) -> tuple[dict[str, Bounds | Categories], float]:
    """Every column's domain and the epsilon spent on finding it (0 unless ``source="dp"``)."""
    domain = dict(schema.domain)
    missing = [c for c in schema.names if c not in domain]
    if not missing:
        return domain, 0.0
    numerical = [c for c in missing if schema.columns[c] is ColumnType.NUMERICAL]
    categorical = [c for c in missing if c not in numerical]
    if source == "declared" or (source == "dp" and categorical):
        named = categorical if source == "dp" else missing
        raise InvalidInputError(
            f"{technique} needs a public domain for column(s) {named}: declare it in the schema "
            "(Schema(domain=...) or a 'domain:' section of the schema file: {low, high, scale} for "
            "numbers, a list of values for categories)"
            + (
                ""
                if source == "dp"
                else "; or pass domain='dp' to spend a share of epsilon on the numerical bounds"
            )
            + ". Reading the domain from the data would void the epsilon guarantee."
        )
    if source == "data":
        warnings.warn(
            f"{technique} reads the domain of {missing} from the training data: the range and "
            "categories are functions of the private rows outside the accounting, so the "
            "epsilon guarantee does not hold (an outlier's presence shows in the release)",
            DataDomainWarning,
            stacklevel=4,
        )
        for col in numerical:
            low, high = float(frame[col].min()), float(frame[col].max())
            domain[col] = Bounds(low, high if high > low else low + 1.0)
        for col in categorical:
            domain[col] = Categories(tuple(np.sort(frame[col].unique())))
        return domain, 0.0
    each = epsilon / len(numerical)
    for col in numerical:
        bounds = dp_bounds(frame[col].to_numpy(), each, rng)
        if bounds is None:
            raise InvalidInputError(
                f"{technique}: too few rows for differentially private bounds of column {col!r} "
                f"at epsilon {each:.3g}; declare its domain, or give more rows or budget"
            )
        domain[col] = bounds
    return domain, epsilon


@dataclass
class Discretiser:
    schema: Schema
    domain: dict
    bins: int = 20

    def __post_init__(self):
        self.edges_: dict[str, np.ndarray] = {}
        self.levels_: dict[str, Categories] = {}
        for col in self.schema.names:
            entry = self.domain[col]
            if isinstance(entry, Bounds):
                self.edges_[col] = entry.edges(self.bins)
            else:
                self.levels_[col] = entry

    @property
    def cardinalities(self) -> np.ndarray:
        return np.array(
            [
                self.bins if c in self.edges_ else len(self.levels_[c].values)
                for c in self.schema.names
            ]
        )

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        """An (n, d) int64 matrix of codes in schema column order (numbers clipped into range)."""
        codes = np.empty((len(frame), len(self.schema.columns)), dtype=np.int64)
        for j, col in enumerate(self.schema.names):
            values = frame[col].to_numpy()
            if col in self.edges_:
                inner = self.edges_[col][1:-1]
                codes[:, j] = np.searchsorted(inner, values.astype(float), side="right")
            else:
                try:
                    codes[:, j] = self.levels_[col].codes(values, col)
                except DomainError as exc:
                    raise InvalidInputError(str(exc)) from exc
        return codes

    def decode(self, codes: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
        out = {}
        for j, col in enumerate(self.schema.names):
            if col in self.edges_:
                edges = self.edges_[col]
                low, high = edges[codes[:, j]], edges[codes[:, j] + 1]
                out[col] = low + (high - low) * rng.random(len(codes))
            else:
                levels = np.asarray(self.levels_[col].values, dtype=object)
                out[col] = levels[codes[:, j]]
        return pd.DataFrame(out)
