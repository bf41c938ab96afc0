"""Integer codes for every column, and back: the discrete view that PrivBayes works on.

Numerical columns are cut into ``bins`` equal-width bins over the public range [min, max] (as
DataSynthesizer does); categorical and binary columns get one code per observed value, in sorted
order. Decoding draws a numerical value uniformly inside its bin, so no real value is copied.
The ranges and value sets are treated as public metadata, the same assumption the paper makes for
its Random baseline (Algorithm 22) and the original PrivBayes implementation makes for domains.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..schema import ColumnType, Schema


@dataclass
class Discretiser:
    schema: Schema
    bins: int = 20

    def fit(self, frame: pd.DataFrame) -> Discretiser:
        self.levels_: dict[str, np.ndarray] = {}
        self.edges_: dict[str, np.ndarray] = {}
        for col, kind in self.schema.columns.items():
            if kind is ColumnType.NUMERICAL:
                low, high = float(frame[col].min()), float(frame[col].max())
                self.edges_[col] = np.linspace(
                    low, high if high > low else low + 1.0, self.bins + 1
                )
            else:
                self.levels_[col] = np.sort(frame[col].unique())
        return self

    @property
    def cardinalities(self) -> np.ndarray:
        return np.array(
            [self.bins if c in self.edges_ else len(self.levels_[c]) for c in self.schema.columns]
        )

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        """An (n, d) int64 matrix of codes in schema column order."""
        codes = np.empty((len(frame), len(self.schema.columns)), dtype=np.int64)
        for j, col in enumerate(self.schema.columns):
            values = frame[col].to_numpy()
            if col in self.edges_:
                inner = self.edges_[col][1:-1]
                codes[:, j] = np.searchsorted(inner, values, side="right")
            else:
                codes[:, j] = np.searchsorted(self.levels_[col], values)
        return codes

    def decode(self, codes: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
        out = {}
        for j, col in enumerate(self.schema.columns):
            if col in self.edges_:
                edges = self.edges_[col]
                low, high = edges[codes[:, j]], edges[codes[:, j] + 1]
                out[col] = low + (high - low) * rng.random(len(codes))
            else:
                out[col] = self.levels_[col][codes[:, j]].astype(object)
        return pd.DataFrame(out)
