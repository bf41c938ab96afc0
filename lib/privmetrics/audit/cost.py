"""What an audit will cost, said before it starts.

The metrics that average a per-row quantity over the real rows (the registry's ``at_scale``:
a nearest neighbour, the best-matching key tuples, a classifier's verdict) are timed on a
:class:`~privmetrics.metrics.sampled.SampledPair` of target rows searched against the *whole*
release, at the two sizes of :data:`PROBES`. Their time is split in two:

* the **searches** (a nearest-neighbour query between the two tables, or among the real rows),
  whose cost grows with the query rows times the rows searched. They are timed one by one in the
  larger probe, giving seconds per (query row x searched row);
* the **rest** (a classifier's fit, matching key tuples, the averages), from the two probes:
  the difference gives the cost of one more real row scored, and the remainder is fixed.

The full tables do not search as the probes do, and the estimate follows how they search
(:class:`Table`): a sampled pair searches each direction apart (its target rows against every
row of the other table), a full pair answers both directions from one pass over every pair of rows,
the real rows' search among themselves visits each pair once and is shared by every table of
the same :class:`~privmetrics.geometry.real_side.RealSide` and target rows, and the audit's Real
reference (a copy) needs no search. The metrics that are not averages over rows are timed on
samples of both tables at the two sizes of :data:`SAMPLES`, which give their growth exponent
(seconds ~ rows^b, b kept within 1 and 2). The estimate is said as a range, and the progress
bar's own estimate takes over once scoring starts.

An earlier estimate scaled each table's time from the probes as if it searched like them: the
holdout audit at 50,000 rows was estimated at 76-100 s for 50 s of scoring (Real, a copy that
costs 4 s, was estimated at 23 s; a full pair's two directions at twice their cost).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from privmetrics.geometry.pair import Pair
from privmetrics.geometry.real_side import RealSide
from privmetrics.metrics.sampled import SampledPair

PROBES = (250, 2000)  # target rows of the two probes for the per-row metrics
# target rows of a first probe whose time is thrown away: it pays what a fresh process pays once
# (imports, first calls), which otherwise lands in the first probe, can make it slower than the
# second and leave a per-row cost of 0 (the default audit at 50,000 rows was then estimated at
# 12 s for 68 s of scoring)
WARM_UP = 50
SAMPLES = (400, 1600)  # rows of each table of the two samples for the others


class Table(NamedTuple):
    """How one table of the audit is scored, as far as its cost goes."""

    scored: int  # real rows whose quantities are averaged (every row, or the target rows)
    searched: int  # rows of the other table each is searched against
    sampled: bool = False  # target rows searched each way apart (a SampledPair)
    own_search: bool = True  # pays the real rows' search among themselves (the first to need it)
    copy: bool = False  # the real table itself on every row: its neighbours are known


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
    fixed: float = 0.0  # per table: encoding it, and the per-row metrics' fixed cost
    per_row: float = 0.0  # per real row scored, besides its searches
    cross: float = 0.0  # per (query row x searched row) of one search between the tables
    directions: int = 0  # the directions searched between the tables (real to release, back)
    own: float = 0.0  # per (query row x real row) of the real rows' search among themselves
    sample: tuple[int, float, float] = field(default=(0, 0.0, 1.0))  # the others: (rows, s, b)

    def seconds(self, tables: list[Table]) -> float:
        """Seconds for every table of ``tables``."""
        total = 0.0
        small, timed, growth = self.sample
        real_rows = self.rows[0]
        for table in map(Table._make, tables):
            pairs = table.scored * table.searched
            total += self.fixed + self.per_row * table.scored
            if not table.copy:  # one pass serves both directions of a full pair
                total += self.cross * pairs * (self.directions if table.sampled else 1)
            if table.own_search:  # a full table's pass visits each pair of real rows once
                total += self.own * table.scored * real_rows / (1 if table.sampled else 2)
            if small:
                total += timed * (pairs / small**2) ** (growth / 2)
        return total


class _TimedPair(SampledPair):
    """A sampled pair that records, per (query, index) direction between the tables, the
    seconds its searches took and the (query row x searched row) pairs they covered."""

    def __init__(self, side: RealSide, synthetic: pd.DataFrame, seed: int, targets: int):
        super().__init__(side, synthetic, seed=seed, targets=targets)
        self.searched: dict[tuple[str, str], tuple[float, int]] = {}

    def _search(self, query, index, k, space):
        start = time.perf_counter()
        found = super()._search(query, index, k, space)
        if query != index:
            seconds, pairs = self.searched.get((query, index), (0.0, 0))
            rows = len(self.targets[query]) * len(getattr(self, index))
            self.searched[(query, index)] = (seconds + time.perf_counter() - start, pairs + rows)
        return found


def probe(side: RealSide, synthetic: pd.DataFrame, specs, seed: int) -> Costs:
    """Time the metrics of ``specs`` on probes of the pair (module doc), built on the audit's
    real ``side`` (whose encodings the audit then reuses)."""
    real, schema = side.real, side.schema
    per_row = [s for s in specs if s.at_scale]
    others = [s for s in specs if not s.at_scale]
    costs = Costs(rows=(len(real), len(synthetic)))
    if per_row:
        warm = _TimedPair(side, synthetic, seed, WARM_UP)
        _timed(warm, per_row)
        # the searches among real rows alone, timed apart (a later table may share them)
        own = [key for key in warm._knn if key[0] == key[1] == "real"]
        rest = []
        for size in PROBES:
            sample = _TimedPair(side, synthetic, seed, size)
            start = time.perf_counter()
            sample.space("mixed")  # encoding the release (the real side's is shared)
            fixed = time.perf_counter() - start
            for *_, space in own:
                sample.space(space)
            start = time.perf_counter()
            for query, index, space in own:
                sample.neighbours(query, index, 1, space)
            own_seconds = time.perf_counter() - start
            timed = _timed(sample, per_row)
            seconds = sum(spent for spent, _ in sample.searched.values())
            rest.append(sum(timed.values()) - seconds)
        slope = max(0.0, (rest[1] - rest[0]) / (PROBES[1] - PROBES[0]))
        costs.per_row = slope
        costs.fixed = fixed + max(0.0, rest[0] - slope * PROBES[0])
        costs.directions = len(sample.searched)
        pairs = sum(rows for _, rows in sample.searched.values())
        if pairs:  # seconds per pair of rows, over the directions searched
            costs.cross = seconds / pairs
        costs.own = own_seconds / (PROBES[1] * len(real)) if own else 0.0
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
             tables: list[Table]) -> float:  # fmt: skip
    """Seconds the audit should take: every metric of ``specs`` on every table of ``tables``
    (:meth:`Costs.seconds`), against the real ``side``."""
    return probe(side, synthetic, specs, seed).seconds(tables)


def say(seconds: float) -> str:
    """A range a user can plan by: from half to twice the estimate."""

    def words(s: float) -> str:
        return f"{s:.0f} s" if s < 90 else f"{s / 60:.0f} min"

    return f"about {words(seconds)} ({words(seconds / 2)} to {words(2 * seconds)})"
