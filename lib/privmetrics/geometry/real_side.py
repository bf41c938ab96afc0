"""The real table as every pair of it sees it, prepared once: plain values, checked, encoded.

A metric compares a release with the real table; an audit compares several tables with the same
real table (the release, the holdout, Random's draws, Real), and a grid cell compares one release
with it. What depends on the real table alone is the same for all of them:

* its check (:func:`~privmetrics.data.validation.validate_real`: every column the schema names,
  no gap, fitting dtypes, and its own far values),
* the encodings fitted on it (every space of :class:`~privmetrics.geometry.pair.Pair` is fitted
  on the real rows alone) with its rows' coordinates in each,
* its rows' nearest other real rows (by the target rows they were searched for),
* the entropy weights of the Identifiability Score.

A :class:`RealSide` holds them; pairs built on it (``Pair(side, release)``) check only the release
against it and take the rest from it, so that an audit validates and encodes its real table once,
however many tables it scores. Its arrays are read-only: a metric that wrote into one would change
the scores of every other pair of the real table.

The side takes the real table as it is scored: missing values already treated (the audit treats
every table together, :mod:`privmetrics.data.missing`; a standalone ``Pair(real, synthetic,
schema)`` treats its two and then builds its side).
"""

from __future__ import annotations

import hashlib
from functools import cached_property

import numpy as np
import pandas as pd

from privmetrics.data.dtypes import plain
from privmetrics.data.schema import Schema
from privmetrics.data.validation import (
    ValidationReport,
    check_release,
    plain_categories,
    validate_real,
)
from privmetrics.geometry.encoding import MixedEncoder, column_entropy
from privmetrics.geometry.projection import FAMD

SPACES = ("mixed", "entropy", "famd", "keys")


class RealSide:
    """The real table checked, with its encodings and searches shared by every pair of it
    (module doc). ``real``: the table, missing values treated; ``schema``: its schema."""

    def __init__(self, real: pd.DataFrame, schema: Schema):
        real = plain(real)[0] if isinstance(real, pd.DataFrame) else real
        self.checked: ValidationReport = validate_real(real, schema)  # raises on bad input
        self.real = plain_categories(real.reset_index(drop=True))
        self.schema = schema
        self.fitted: dict[str, tuple[object, np.ndarray]] = {}  # space: (encoding, coordinates)
        self.own: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # searches among real rows

    def check(self, table: pd.DataFrame, name: str = "synthetic", warn: bool = True):
        """The :class:`~privmetrics.data.validation.ValidationReport` of ``table`` (a release, a
        holdout) against the real table; raises on a table no score can use."""
        report = ValidationReport(real_outliers=dict(self.checked.real_outliers), name=name)
        return check_release(self.real, table, self.schema, report, warn)

    def encoding(self, space: str) -> tuple[object, np.ndarray]:
        """(the fitted encoding, the real rows' read-only coordinates) of the named space,
        fitted once."""
        if space not in self.fitted:
            model = self._fit(space)
            coords = model.transform(self.real)
            coords.flags.writeable = False
            self.fitted[space] = (model, coords)
        return self.fitted[space]

    def _fit(self, space: str):
        if space == "mixed":
            return MixedEncoder(self.schema).fit(self.real)
        if space == "entropy":
            return MixedEncoder(self.schema, weights=self.entropy_weights).fit(self.real)
        if space == "famd":
            return FAMD(self.schema, n_components=2).fit(self.real)
        if space == "keys":
            keys = list(self.schema.key)
            return MixedEncoder(self.schema.subset(keys)).fit(self.real[keys])
        raise ValueError(f"unknown space {space!r}; use {', '.join(map(repr, SPACES))}")

    @cached_property
    def entropy_weights(self) -> dict[str, float]:
        """1 / H(column) per column (numericals in 10 quantile bins); constant columns weigh 1."""
        weights = {}
        for col in self.schema.names:
            h = column_entropy(self.real[col], col in self.schema.numerical)
            weights[col] = 1.0 / h if h > 0 else 1.0
        return weights

    def own_key(self, space: str, targets: np.ndarray) -> tuple[str, str]:
        """The key of the real rows' search among themselves for ``targets`` (row positions):
        pairs with the same target rows share it, whatever their release."""
        return space, hashlib.sha1(np.ascontiguousarray(targets, np.int64).tobytes()).hexdigest()
