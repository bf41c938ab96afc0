"""What an audit will cost, said before it starts: the chosen metrics timed on a small sample of
the two tables, scaled up to the full sizes and to every table the audit scores.

Scaling: a metric that averages a per-row search over the whole other table (the registry's
``at_scale``: nearest neighbours, best-matching key tuples) grows with the product of the two
tables' rows; every other one is taken to grow with their sum (a classifier, per-column
distributions). The all-pairs searches of the remaining distance metrics also grow with the
product, so the ``product`` set errs on the cheap side for them; the estimate is a guide, said
as a range, and the progress bar's own estimate takes over once scoring starts.
"""

from __future__ import annotations

import time
import warnings

import pandas as pd

from privmetrics.geometry.pair import Pair

SAMPLE = 800  # rows of each table timed


def seconds_per_metric(real: pd.DataFrame, synthetic: pd.DataFrame, schema, specs, seed: int):
    """Each metric's seconds on ``SAMPLE`` rows of each table, and the rows timed."""
    small = min(SAMPLE, len(real), len(synthetic))
    pair = Pair(real.sample(small, random_state=seed), synthetic.sample(small, random_state=seed),
                schema, seed=seed)  # fmt: skip
    timed = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for spec in specs:
            start = time.perf_counter()
            spec(pair)
            timed[spec.name] = time.perf_counter() - start
    return timed, small


def scaled(seconds: float, spec, rows: tuple[int, int], small: int) -> float:
    """``seconds`` on ``small`` rows each, at ``rows`` = (real, compared)."""
    if spec.at_scale:
        return seconds * rows[0] * rows[1] / small**2
    return seconds * (rows[0] + rows[1]) / (2 * small)


def estimate(real, synthetic, schema, specs, seed: int, tables: list[tuple[int, int]]) -> float:
    """Seconds the audit should take: every metric on every table, each table given as the
    (real rows, rows searched per real row) it is scored with."""
    timed, small = seconds_per_metric(real, synthetic, schema, specs, seed)
    return sum(scaled(timed[s.name], s, rows, small) for rows in tables for s in specs)


def say(seconds: float) -> str:
    """A range a user can plan by: from half to twice the estimate."""

    def words(s: float) -> str:
        return f"{s:.0f} s" if s < 90 else f"{s / 60:.0f} min"

    return f"about {words(seconds)} ({words(seconds / 2)} to {words(2 * seconds)})"
