"""The two baselines of Section 6.3 (Real, Random = Algorithm 22) and the simpler Uniform baseline."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privmetrics.data.schema import ColumnType
from privmetrics.data.validation import InvalidInputError, value_kind
from privmetrics.synthesisers.base import Synthesiser, register_synthesiser


@register_synthesiser("real")
class Real(Synthesiser):
    """The identity Z = Y: the worst case, on which every metric should score about 1.

    ``sample(n)`` returns the first n rows in their order (row alignment matters for the Hidden
    Rate); asking for more rows than were fitted is an error, since the identity cannot invent any.
    """

    def _fit(self, frame):
        self.frame_ = frame.copy()

    def _sample(self, n):
        n = len(self.frame_) if n is None else n
        if n > len(self.frame_):
            raise InvalidInputError(
                f"Real can return at most the {len(self.frame_)} fitted rows, not {n}"
            )
        return self.frame_.iloc[:n].copy()


@register_synthesiser("random")
class Random(Synthesiser):
    """Algorithm 22: every attribute drawn independently, with heavy noise and altered category sets.

    * Numerical a: interval = max - min over Y; ``scale, loc = interval, 0``, then 100 times
      ``scale += max(1, L1)`` and ``loc += max(1, L2)`` with L ~ Laplace(interval, 10 interval);
      each z[a] = a uniformly drawn observed value + Laplace(loc, scale) noise: values far outside
      the real range, as intended ("extremely high noise").
    * Categorical a: nCatsNew = ceil(max(2, max(100, nCats) + Laplace(0, max(10, nCats/10))));
      a random subset of the observed values when fewer, else the observed values plus new unseen
      ones (named ``<column>~new<i>``); each z[a] drawn uniformly from that set.
    * Binary a: the paper's algorithm distinguishes only numerical and categorical. Line 22 adds
      values "of the domain of a" that Y lacks; a binary domain has no third value, so a binary
      attribute keeps its two values and is drawn uniformly from them (it can shrink to one
      value only if Y has one).

    The printed LAPLACE is a density used as a sampler; we sample (``rng.laplace``). The output
    depends on Y only through each column's set of observed values and its range.
    """

    def _fit(self, frame):
        self.values_ = {c: np.sort(frame[c].unique()) for c in frame.columns}

    def _sample(self, n):
        n = n if n is not None else 100
        out = {}
        for i, (col, kind) in enumerate(self.schema_.columns.items()):
            rng = self._rng(i)
            values = self.values_[col]
            if kind is ColumnType.NUMERICAL:
                interval = float(values.max() - values.min())
                draws = (
                    rng.laplace(interval, 10 * interval, size=(100, 2))
                    if interval > 0
                    else np.zeros((100, 2))
                )
                scale = interval + np.maximum(1, draws[:, 0]).sum()
                loc = np.maximum(1, draws[:, 1]).sum()
                out[col] = rng.choice(values, size=n) + rng.laplace(loc, scale, size=n)
            elif kind is ColumnType.CATEGORICAL:
                n_cats = len(values)
                n_new = int(
                    np.ceil(max(2.0, max(100, n_cats) + rng.laplace(0, max(10, n_cats / 10))))
                )
                if n_new < n_cats:
                    domain = rng.choice(values, size=n_new, replace=False)
                else:
                    domain = np.concatenate([values, new_categories(values, col, n_new - n_cats)])
                out[col] = rng.choice(domain, size=n).astype(object)
            else:
                out[col] = rng.choice(values, size=n).astype(object)
        return pd.DataFrame(out)


def new_categories(values: np.ndarray, column: str, count: int) -> list:
    """``count`` values that ``values`` lacks, of the same kind: integers above the largest when
    the categories are numbers, else the strings ``<column>~new<i>``."""
    if count <= 0:
        return []
    if value_kind(pd.Series(values)) == "number":
        top = int(np.floor(np.max(values)))
        return [top + 1 + j for j in range(count)]
    return [f"{column}~new{j}" for j in range(count)]


@register_synthesiser("uniform")
class Uniform(Synthesiser):
    """Each attribute drawn independently and uniformly from its public domain (Section 8.3's proposal).

    The domain is taken as the real data's range for numerical attributes and its set of values
    for categorical and binary ones, i.e. the metadata an expert would publish; no value outside
    the domain is produced, unlike Algorithm 22. ``domains`` can override the range or the values of
    any column with public knowledge (``{"age": (0, 120), "sex": ["F", "M"]}``).
    """

    def __init__(self, seed: int = 0, domains: dict | None = None):
        super().__init__(seed)
        self.domains = domains or {}

    def _fit(self, frame):
        self.domain_ = {}
        for col in frame.columns:
            if col in self.domains:
                self.domain_[col] = self.domains[col]
            elif col in self.schema_.numerical:
                self.domain_[col] = (float(frame[col].min()), float(frame[col].max()))
            else:
                self.domain_[col] = np.sort(frame[col].unique())

    def _sample(self, n):
        n = n if n is not None else 100
        out = {}
        for i, col in enumerate(self.columns_):
            rng = self._rng(i)
            if col in self.schema_.numerical:
                low, high = self.domain_[col]
                out[col] = rng.uniform(low, high, size=n)
            else:
                out[col] = rng.choice(np.asarray(self.domain_[col], dtype=object), size=n)
        return pd.DataFrame(out)
