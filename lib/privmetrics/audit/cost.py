"""What an audit will cost, said before it starts.

The metrics that average a per-row quantity over the real rows (the registry's ``at_scale``:
a nearest neighbour, the best-matching key tuples, a classifier's verdict) are timed on a
:class:`~privmetrics.metrics.sampled.SampledPair` of target rows searched against the *whole*
release, at the two sizes of :data:`PROBES`: the same work per row as the full audit, so the
difference gives the cost of one more real row scored (scaled with the rows searched), and the
rest is the metrics' fixed cost. The searches among the real rows alone are timed apart and
counted once for the tables that share them (the holdout and Real take the release's; a sampled
Random draw searches its own target rows). The others are timed on samples of
both tables at the two sizes of :data:`SAMPLES`, which give their growth exponent (seconds ~
rows^b, b kept within 1 and 2). The estimate is said as a range, and the progress bar's own
estimate takes over once scoring starts.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privmetrics.geometry.pair import Pair
from privmetrics.geometry.real_side import RealSide

PROBES = (250, 2000)  # target rows of the two probes for the per-row metrics
# target rows of a first probe whose time is thrown away: it pays what a fresh process pays once
# (imports, first calls), which otherwise lands in the first probe, can make it slower than the
# second and leave a per-row cost of 0 (the default audit at 50,000 rows was then estimated at
# 12 s for 68 s of scoring)
WARM_UP = 50
SAMPLES = (400, 1600)  # rows of each table of the two samples for the others


def _timed(pair, specs) -> dict[str, float]:
    timed = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for spec in specs:
            start = time.perf_counter()
            spec(pair)
            timed[spec.name] = time.perf_counter() - start
    return timed


@dataclass
class Costs:
    """What the probes measured (seconds), and the audit's cost from it (:meth:`seconds`)."""

    rows: tuple[int, int] = (0, 0)  # (real, synthetic) rows of the audit
    fixed: float = 0.0  # per table: encoding both tables, and the per-row metrics' fixed cost
    per_row: float = 0.0  # per real row scored, searched against every synthetic row
    own_per_row: float = 0.0  # per real row, the searches among real rows alone
    sample: tuple[int, float, float] = (0, 0.0, 1.0)  # the others: (rows, seconds, growth b)

    def seconds(self, tables: list[tuple[int, int, bool]]) -> float:
        """Seconds for every table, each given as (real rows scored, rows each is searched
        against, whether it takes the real rows' own searches from an earlier table of the same
        :class:`~privmetrics.geometry.real_side.RealSide`)."""
        total = 0.0
        small, timed, growth = self.sample
        for scored, searched, shares in tables:
            total += self.fixed + self.per_row * scored * searched / max(self.rows[1], 1)
            total += 0.0 if shares else self.own_per_row * scored
            if small:
                total += timed * (scored * searched / small**2) ** (growth / 2)
        return total


def probe(side: RealSide, synthetic: pd.DataFrame, specs, seed: int) -> Costs:
    """Time the metrics of ``specs`` on probes of the pair (module doc), built on the audit's
    real ``side`` (whose encodings the audit then reuses)."""
    from privmetrics.metrics.sampled import SampledPair

    real, schema = side.real, side.schema

    per_row = [s for s in specs if s.at_scale]
    others = [s for s in specs if not s.at_scale]
    costs = Costs(rows=(len(real), len(synthetic)))
    if per_row:  # two probes: each metric's fixed cost and its cost per real row scored
        warm = SampledPair(side, synthetic, seed=seed, targets=WARM_UP)
        _timed(warm, per_row)
        # the searches among real rows alone, which a table sharing the real side does not repeat
        own = [key for key in warm._knn if key[0] == key[1] == "real"]
        timed, searched_own = [], []
        for size in PROBES:
            sample = SampledPair(side, synthetic, seed=seed, targets=size)
            start = time.perf_counter()
            sample.space("mixed")  # encoding the release (the real side's is shared)
            fixed = time.perf_counter() - start
            for *_, space in own:
                sample.space(space)
            start = time.perf_counter()
            for query, index, space in own:
                sample.neighbours(query, index, 1, space)
            searched_own.append(time.perf_counter() - start)
            timed.append(_timed(sample, per_row))
        # per metric, so that one metric's noise (DCR's fixed search of the farthest pair varies
        # by a tenth of a second either way) cannot make another's cost negative
        for name in timed[0]:
            small, large = timed[0][name], timed[1][name]
            slope = max(0.0, (large - small) / (PROBES[1] - PROBES[0]))
            costs.per_row += slope
            costs.fixed += max(0.0, small - slope * PROBES[0])
        costs.fixed += fixed
        costs.own_per_row = searched_own[1] / PROBES[1] if own else 0.0  # against every real row
    if others:  # two samples: the growth exponent b of seconds ~ rows^b, kept within [1, 2]
        timed = []
        for size in SAMPLES:
            small = min(size, len(real), len(synthetic))
            pair = Pair(real.sample(small, random_state=seed),
                        synthetic.sample(small, random_state=seed), schema, seed=seed)  # fmt: skip
            timed.append(sum(_timed(pair, others).values()))
        growth = np.log(max(timed[1], 1e-9) / max(timed[0], 1e-9)) / np.log(SAMPLES[1] / SAMPLES[0])
        costs.sample = (small, timed[1], float(np.clip(growth, 1.0, 2.0)))
    return costs


def estimate(side: RealSide, synthetic: pd.DataFrame, specs, seed: int,
             tables: list[tuple[int, int, bool]]) -> float:  # fmt: skip
    """Seconds the audit should take: every metric of ``specs`` on every table of ``tables``
    (:meth:`Costs.seconds`), against the real ``side``."""
    return probe(side, synthetic, specs, seed).seconds(tables)


def say(seconds: float) -> str:
    """A range a user can plan by: from half to twice the estimate."""

    def words(s: float) -> str:
        return f"{s:.0f} s" if s < 90 else f"{s / 60:.0f} min"

    return f"about {words(seconds)} ({words(seconds / 2)} to {words(2 * seconds)})"
