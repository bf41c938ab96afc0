"""The utility measures of one grid cell (:mod:`privmetrics.metrics.release_utility`), as the
rows the store's ``utility`` table holds.

The TSTR classifier is tested on a holdout of the dataset: rows of the same population that the
profile's sample leaves out (:func:`privmetrics.data.datasets.holdout_rows`, at most
:data:`HOLDOUT_ROWS`, the same for every configuration and run). A profile that trains on the whole
dataset has none, and TSTR is then tested on the training rows (the module doc of
:mod:`~privmetrics.metrics.release_utility` says what that means for Real).
"""

from __future__ import annotations

import time
from functools import lru_cache

import pandas as pd

from privmetrics.data.datasets import holdout_rows
from privmetrics.data.schema import Schema
from privmetrics.metrics.release_utility import MEASURES, marginal_utility, tstr_accuracy

HOLDOUT_ROWS = 2000


@lru_cache(maxsize=8)
def _holdout(dataset: str, rows: int | None, seed: int) -> pd.DataFrame:
    return holdout_rows(dataset, rows, seed, size=HOLDOUT_ROWS)


def cell_utility(
    dataset: str,
    rows: int | None,
    sample_seed: int,
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    seed: int,
    measures: list[str] | tuple[str, ...] = MEASURES,
) -> list[dict]:
    """One dict (measure, value, seconds) per requested measure of :data:`MEASURES`: the release
    ``synthetic`` of the ``rows``-row sample ``real`` (drawn with ``sample_seed``) of
    ``dataset``."""
    out = []
    if {"one-way TVD", "two-way TVD"} & set(measures):
        start = time.perf_counter()
        marginals = marginal_utility(real, synthetic, schema)
        seconds = (time.perf_counter() - start) / 2
        out += [
            {"measure": m, "value": v, "seconds": seconds}
            for m, v in marginals.items()
            if m in measures
        ]
    if "TSTR accuracy" in measures:
        start = time.perf_counter()
        holdout = _holdout(dataset, rows, sample_seed)
        test = real if holdout.empty else holdout[schema.names]
        value = tstr_accuracy(synthetic, test, schema, seed)
        out.append(
            {"measure": "TSTR accuracy", "value": value, "seconds": time.perf_counter() - start}
        )
    return out
