"""Scores of tables too large to measure on every row: the final seven at a million rows.

Six of the paper's final seven metrics average (a share, a mean or a median) a quantity that each
row of one table gets from the *whole* other table: a real row's nearest synthetic row
(Authenticity, DCR, MemInf), its nearest other real row (Authenticity, MDCR), a synthetic row's
nearest real row (MDCR), a real row's best-matching synthetic key tuples (CGeneralizedCAP), whether
some synthetic row hits it (HittingRate). Exact all-pairs work grows with the square of the rows:
at a million rows, about an hour and tens of GB on two cores. Measuring that quantity *exactly*
for a random sample of ``targets`` rows of each table (drawn with the seed, the same for every
metric) and averaging over the sample estimates the score at a cost of targets x rows:

* shares and means: the sample mean is unbiased, with a standard error of sd / sqrt(targets)
  (a share p: at most 0.5 / sqrt(targets), 0.0035 at 20,000), whatever the number of rows;
* DCR's sigmoid of a mean: consistent, with errors of the same order;
* medians (MDCR): consistent, but not smooth where the distances have a jump at the median: when
  about half the synthetic rows copy real ones, half the distances are 0 and a sample's median
  falls on either side, so MDCR can move between the copy's sigmoid(3) and the exact score (the
  case ``make bench-scale MILLION=1`` measures shows it).

The neighbours stay exact (:func:`~privmetrics.geometry.neighbours.knn` with ``own``: a target row is
never its own neighbour); only the average is a sample. DetectionMLP, a classifier, is trained
and tested on the target rows of both tables (on every row its cost, linear in the rows, was most
of a sampled audit's time; a smaller training set can only weaken the detector, so the estimate
errs towards risk). Which metric can be sampled is the registry's ``at_scale`` field; a metric
without it is refused on a :class:`SampledPair`.

The error against the exact score is measured, not assumed: :func:`sampling_error` computes both
on a pair small enough for the exact route (``make bench-scale`` prints it beside the million-row
figure). With ``targets`` at least the rows, every target is a row and the scores are the exact
ones, bit for bit (a test checks it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privmetrics.data.schema import Schema
from privmetrics.geometry.neighbours import knn
from privmetrics.geometry.pair import SIDES, Pair
from privmetrics.geometry.real_side import RealSide
from privmetrics.metrics import evaluate, select

TARGETS = 20_000  # target rows per table


class SampledPair(Pair):
    """A :class:`Pair` whose neighbour queries and row averages cover ``targets`` random rows of
    each table (all of them when a table has no more), measured against every row of the other.
    ``draw`` numbers the sample: the same ``seed`` (the metrics' own randomness) with another
    draw gives other target rows."""

    sampled = True

    def __init__(
        self,
        real: pd.DataFrame | RealSide,
        synthetic: pd.DataFrame,
        schema: Schema | None = None,
        seed: int = 0,
        targets: int = TARGETS,
        draw: int = 0,
        name: str = "synthetic",
        missing: str = "indicator",
        control: pd.DataFrame | None = None,
    ):
        super().__init__(
            real, synthetic, schema, seed=seed, name=name, missing=missing, control=control
        )
        if targets < 1:
            raise ValueError(f"targets must be at least 1, got {targets}")
        rng = np.random.default_rng((seed, draw))
        self.targets = {
            side: _draw(len(frame), targets, rng)
            for side, frame in zip(SIDES, (self.real, self.synthetic), strict=True)
        }

    def target_rows(self, side: str) -> np.ndarray:
        return self.targets[side]

    def _search(self, query: str, index: str, k: int, space: str):
        coords = dict(zip(SIDES, self.space(space), strict=True))
        rows = self.targets[query]
        return knn(coords[query][rows], coords[index], k=k, own=rows if query == index else None)


def _draw(rows: int, targets: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted positions of ``targets`` rows out of ``rows`` (every row when there are no more)."""
    if targets >= rows:
        return np.arange(rows)
    return np.sort(rng.choice(rows, targets, replace=False))


def estimable(metrics="final") -> list[str]:
    """The names among ``metrics`` (as :func:`~privmetrics.metrics.select` reads it) that a
    :class:`SampledPair` can score."""
    return [spec.name for spec in select(metrics) if spec.at_scale]


def estimate(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    targets: int = TARGETS,
    seed: int = 0,
    metrics="final",
    progress: bool = False,
    draw: int = 0,
) -> pd.DataFrame:
    """Scores of ``metrics`` (default: the final seven) from ``targets`` rows of each table, as
    :func:`~privmetrics.metrics.evaluate` returns them, with a column ``at_scale`` saying how
    each was computed ("sampled" or "full")."""
    pair = SampledPair(real, synthetic, schema, seed=seed, targets=targets, draw=draw)
    scores = evaluate(pair, metrics=metrics, progress=progress)
    return scores.assign(at_scale=[spec.at_scale for spec in select(list(scores["metric"]))])


def sampling_error(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    targets: int = TARGETS,
    draws: int = 3,
    metrics="final",
) -> pd.DataFrame:
    """The exact scores against ``draws`` sampled estimates (target draws 0, 1, ...; the metrics'
    own seed stays 0): one row per metric with the exact score, the estimates' mean and the
    largest absolute error. A "full" metric is exact in every draw (error 0)."""
    names = estimable(metrics)
    exact = evaluate(real, synthetic, schema, metrics=names).set_index("metric")["score"]
    found = pd.DataFrame(
        {
            draw: estimate(real, synthetic, schema, targets, metrics=names, draw=draw).set_index(
                "metric"
            )["score"]
            for draw in range(draws)
        }
    )
    return pd.DataFrame(
        {
            "metric": names,
            "at_scale": [spec.at_scale for spec in select(names)],
            "exact": exact[names].to_numpy(),
            "estimate (mean)": found.loc[names].mean(axis=1).to_numpy(),
            "largest error": found.loc[names]
            .sub(exact[names], axis=0)
            .abs()
            .max(axis=1)
            .to_numpy(),
        }
    )
