"""The interface every anonymisation technique follows: ``fit(frame, schema)`` then ``sample(n)``.

Like scikit-learn estimators, parameters are set in the constructor (every random choice comes
from ``seed``), ``fit`` learns from the real data and returns ``self``, and ``sample`` returns a
DataFrame with the real data's columns, dtypes and category values: whatever a technique makes
internally (SDV returns integer-coded categories as strings, for instance), a category that is the
text of a fitted value comes back as that value, and an integer column stays integer (rounded).
Techniques register themselves in :data:`SYNTHESISERS` under the name the experiments use.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from privmetrics.data.schema import Schema
from privmetrics.data.validation import (
    InvalidInputError,
    check_count,
    check_seed,
    validate,
    value_kind,
)

SYNTHESISERS: dict[str, type[Synthesiser]] = {}


class FittedTypes:
    """The dtypes and category values of a real table, to put back on a table generated from it."""

    def __init__(self, dtypes: pd.Series, values: dict, schema: Schema):
        self.dtypes, self.values, self.schema = dtypes, values, schema

    @classmethod
    def of(cls, frame: pd.DataFrame, schema: Schema) -> FittedTypes:
        columns = list(schema.names)
        values = {c: pd.unique(frame[c]) for c in schema.categorical}
        return cls(frame[columns].dtypes, values, schema)

    def restore(self, out: pd.DataFrame) -> pd.DataFrame:
        """``out`` with the fitted dtypes and category values (see the module doc); idempotent, so
        a table cached before this step gets the same result as one generated after it."""
        out = out.copy()
        for col in self.schema.categorical:
            fitted = self.values[col]
            if value_kind(out[col]) != value_kind(pd.Series(fitted)):
                by_text = pd.Series(fitted, index=[str(v) for v in fitted])
                by_text = by_text[~by_text.index.duplicated()]
                mapped = out[col].astype(str).map(by_text)
                out[col] = mapped.where(mapped.notna(), out[col])
            if not pd.api.types.is_object_dtype(self.dtypes[col]):
                try:
                    out[col] = out[col].astype(self.dtypes[col])
                except (TypeError, ValueError):
                    out[col] = out[col].astype(object)  # new categories of another kind
        for col in self.schema.numerical:
            dtype = self.dtypes[col]
            values = out[col].astype("float64")
            out[col] = (
                values.round().astype(dtype) if pd.api.types.is_integer_dtype(dtype) else values
            )
        return out


def register_synthesiser(name: str) -> Callable:
    def decorate(cls: type[Synthesiser]) -> type[Synthesiser]:
        if name in SYNTHESISERS:
            raise ValueError(f"synthesiser {name!r} is registered twice")
        cls.name = name
        SYNTHESISERS[name] = cls
        return cls

    return decorate


def make_synthesiser(name: str, **params) -> Synthesiser:
    """An unfitted synthesiser by registry name, e.g. ``make_synthesiser("random", seed=1)``."""
    if name not in SYNTHESISERS:
        raise KeyError(f"unknown synthesiser {name!r}; registered: {', '.join(SYNTHESISERS)}")
    return SYNTHESISERS[name](**params)


class Synthesiser:
    name = "base"
    min_rows = 1  # rows the technique needs to fit (an instance may need more, see PATE-GAN)
    min_rows_reason = ""  # said after the count when a table has fewer

    def __init__(self, seed: int = 0):
        self.seed = check_seed(seed)

    @property
    def params(self) -> dict:
        """Constructor parameters (what the cache key and the results store record)."""
        return {k: v for k, v in vars(self).items() if not k.endswith("_")}

    def fit(self, frame: pd.DataFrame, schema: Schema) -> Synthesiser:
        validate(frame, None, schema)
        if len(frame) < self.min_rows:
            raise InvalidInputError(
                f"{type(self).__name__} needs at least {self.min_rows} rows to fit, got "
                f"{len(frame)}{self.min_rows_reason}"
            )
        self.schema_ = schema
        self.columns_ = list(schema.names)
        self.types_ = FittedTypes.of(frame, schema)
        self._fit(frame[self.columns_].reset_index(drop=True))
        return self

    def sample(self, n: int | None = None) -> pd.DataFrame:
        if not hasattr(self, "schema_"):
            raise RuntimeError(f"{type(self).__name__} must be fitted before sampling")
        if n is not None:
            n = check_count("the number of rows to sample", n)
        return self.types_.restore(self._sample(n)[self.columns_].reset_index(drop=True))

    def fit_sample(self, frame: pd.DataFrame, schema: Schema, n: int | None = None) -> pd.DataFrame:
        return self.fit(frame, schema).sample(n if n is not None else len(frame))

    def _rng(self, salt: int = 0) -> np.random.Generator:
        return np.random.default_rng([self.seed, salt])

    def _fit(self, frame: pd.DataFrame) -> None:
        raise NotImplementedError

    def _sample(self, n: int | None) -> pd.DataFrame:
        raise NotImplementedError
