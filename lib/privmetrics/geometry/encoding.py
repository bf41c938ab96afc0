"""Shared encodings of mixed-type tables: one place decides how a row becomes a vector or a bin.

Distance space (``MixedEncoder``), used by every distance metric unless it says otherwise:

* a numerical column ``x`` becomes ``(x - min_Y) / (max_Y - min_Y)``, scaled by the *real* data's
  range (a constant column becomes 0), so one range apart counts as 1;
* a categorical or binary column becomes a one-hot block over the real data's categories, each
  indicator multiplied by ``1/sqrt(2)``: two rows that differ in the column are then exactly 1
  apart in squared Euclidean distance, the same weight as a full-range numerical difference. A
  category unseen in the real data encodes as all zeros (distance 1/2 from every real category).

Squared Euclidean distance in this space is therefore ``sum_num ((x-x')/range)^2 + #categorical
mismatches``: a Euclidean cousin of the Gower distance that SynthEval uses (Gower sums absolute
differences and divides by the number of columns). It is fitted on the real data only, so the
encoding of the synthetic data never depends on itself.

Optional per-column ``weights`` multiply each column's block (the Identifiability Score uses
1/entropy weights, Yoon et al. 2020).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privmetrics.data.schema import Schema

ONE_HOT_SCALE = 1 / np.sqrt(2)


@dataclass
class MixedEncoder:
    """Fit on the real frame, then ``transform`` any frame of the same schema into float64 rows."""

    schema: Schema
    weights: dict[str, float] | None = None

    def fit(self, real: pd.DataFrame) -> MixedEncoder:
        num = real[self.schema.numerical].to_numpy(float)
        self.minimum_ = num.min(axis=0) if num.size else np.zeros(0)
        spread = (num.max(axis=0) - self.minimum_) if num.size else np.zeros(0)
        self.range_ = np.where(spread > 0, spread, 1.0)
        self.categories_ = {c: np.sort(real[c].unique()) for c in self.schema.categorical}
        return self

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        weights = self.weights or {}
        num = (frame[self.schema.numerical].to_numpy(float) - self.minimum_) / self.range_
        num *= np.array([weights.get(c, 1.0) for c in self.schema.numerical])
        blocks = [num]
        for col, cats in self.categories_.items():
            blocks.append(one_hot(frame[col], cats) * (ONE_HOT_SCALE * weights.get(col, 1.0)))
        return np.hstack(blocks) if blocks else np.zeros((len(frame), 0))

    def fit_transform(self, real: pd.DataFrame) -> np.ndarray:
        return self.fit(real).transform(real)


def one_hot(values: pd.Series, categories: np.ndarray) -> np.ndarray:
    """Indicator matrix (rows x categories); values outside ``categories`` give an all-zero row."""
    codes = pd.Categorical(values, categories=categories).codes
    out = np.zeros((len(values), len(categories)))
    known = codes >= 0
    out[np.flatnonzero(known), codes[known]] = 1.0
    return out


def quantile_bins(
    real: pd.Series, synthetic: pd.Series, n_bins: int = 10
) -> tuple[np.ndarray, np.ndarray]:
    """Bin a numerical column into at most ``n_bins`` quantile bins fitted on the real data.

    Returns integer bin codes for both frames (synthetic values outside the real range fall into the
    first or last bin). Used where an algorithm needs categories (CAP keys and sensitive values,
    entropy weights).
    """
    edges = np.unique(np.quantile(real.to_numpy(float), np.linspace(0, 1, n_bins + 1))[1:-1])
    return np.searchsorted(edges, real.to_numpy(float), "right"), np.searchsorted(
        edges, synthetic.to_numpy(float), "right"
    )


def discretise(
    real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema, columns, n_bins: int | None = 10
):
    """Integer codes of ``columns`` for both frames: categories via one shared factorisation,
    numericals via :func:`quantile_bins` (or, with ``n_bins=None``, factorised like categories,
    so that only equal values share a code). Returns two int arrays of shape (rows, len(columns))."""
    real_codes, synth_codes = [], []
    for col in columns:
        if col in schema.numerical and n_bins is not None:
            r, s = quantile_bins(real[col], synthetic[col], n_bins)
        else:
            codes, _ = pd.factorize(pd.concat([real[col], synthetic[col]], ignore_index=True))
            r, s = codes[: len(real)], codes[len(real) :]
        real_codes.append(r)
        synth_codes.append(s)
    if not columns:
        return np.zeros((len(real), 0), int), np.zeros((len(synthetic), 0), int)
    return np.column_stack(real_codes), np.column_stack(synth_codes)


def entropy(values: pd.Series) -> float:
    """Shannon entropy (bits) of a column's empirical distribution."""
    p = values.value_counts(normalize=True).to_numpy()
    return float(-(p * np.log2(p)).sum())


def column_entropy(values: pd.Series, numerical: bool, n_bins: int = 10) -> float:
    """Entropy (bits) of a real column; a numerical one is first cut into ``n_bins`` quantile bins."""
    if numerical:
        values = pd.Series(quantile_bins(values, values, n_bins)[0])
    return entropy(values)


def column_frequencies(real: pd.Series, synthetic: pd.Series, numerical: bool, n_bins: int = 10):
    """Aligned relative frequencies of one column in both frames (the synthcity ``get_frequency`` recipe).

    Categorical columns, and numerical ones with fewer than 5 distinct values, use value
    proportions over the union of values; other numerical columns use ``min(n_bins, distinct)``
    equal-width bins spanning the real data (synthetic values outside it are not counted).
    """
    if numerical and real.nunique() >= 5:
        edges = np.histogram_bin_edges(real.to_numpy(float), bins=min(n_bins, real.nunique()))
        r = np.histogram(real.to_numpy(float), bins=edges)[0] / len(real)
        s = np.histogram(synthetic.to_numpy(float), bins=edges)[0] / len(synthetic)
        return r, s
    support = pd.Index(pd.unique(pd.concat([real, synthetic], ignore_index=True)))
    r = real.value_counts(normalize=True).reindex(support, fill_value=0.0).to_numpy()
    s = synthetic.value_counts(normalize=True).reindex(support, fill_value=0.0).to_numpy()
    return r, s
