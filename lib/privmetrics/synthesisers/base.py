"""The interface every anonymisation technique follows: ``fit(frame, schema)`` then ``sample(n)``.

Like scikit-learn estimators, parameters are set in the constructor (every random choice comes
from ``seed``), ``fit`` learns from the real data and returns ``self``, and ``sample`` returns a
DataFrame with the real data's columns, dtypes and schema. Techniques register themselves in
:data:`SYNTHESISERS` under the name the experiments use.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from ..schema import Schema
from ..validation import InvalidInputError, validate

SYNTHESISERS: dict[str, type[Synthesiser]] = {}


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

    def __init__(self, seed: int = 0):
        self.seed = seed

    @property
    def params(self) -> dict:
        """Constructor parameters (what the cache key and the results store record)."""
        return {k: v for k, v in vars(self).items() if not k.endswith("_")}

    def fit(self, frame: pd.DataFrame, schema: Schema) -> Synthesiser:
        validate(frame, None, schema)
        self.schema_ = schema
        self.columns_ = list(schema.names)
        self._fit(frame[self.columns_].reset_index(drop=True))
        return self

    def sample(self, n: int | None = None) -> pd.DataFrame:
        if not hasattr(self, "schema_"):
            raise RuntimeError(f"{type(self).__name__} must be fitted before sampling")
        if n is not None and n <= 0:
            raise InvalidInputError(f"the number of rows to sample must be positive, got {n}")
        return self._sample(n)[self.columns_]

    def fit_sample(self, frame: pd.DataFrame, schema: Schema, n: int | None = None) -> pd.DataFrame:
        return self.fit(frame, schema).sample(n if n is not None else len(frame))

    def _rng(self, salt: int = 0) -> np.random.Generator:
        return np.random.default_rng([self.seed, salt])

    def _fit(self, frame: pd.DataFrame) -> None:
        raise NotImplementedError

    def _sample(self, n: int | None) -> pd.DataFrame:
        raise NotImplementedError
