"""The references an audit scores a release against (:func:`reference_pairs`: the holdout, the
Random draws, Real, each a :class:`Reference`), kept by content so that several releases of one
real table pay for them once.

The references (the holdout, the Random draws, Real) depend on the real table, the holdout, the
schema and the audit's settings, never on the release. :data:`KEPT` holds the last set built, with
its pairs (their encodings, neighbour searches and classifier fits) and the scores already taken
on them; an audit whose real table, holdout, schema and settings hash to the same key takes them
from there and scores only the release (and any metric not scored before). The key is taken
after the missing-value treatment, which looks at every table at once: a release whose gaps
change how the real table is treated gets references of its own.

``privmetrics audit real.csv a.csv b.csv`` audits three releases in one process; a notebook that
calls :func:`~privmetrics.audit.audit` again on the same real table gains the same way.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass, field

import pandas as pd

from privmetrics.data.schema import Schema
from privmetrics.geometry.pair import Pair
from privmetrics.geometry.real_side import RealSide


@dataclass
class Kept:
    """References of one real table: its ``side`` (:class:`RealSide`, which the release's pair
    is built on too), ``pairs`` ({name: Reference}), the ``scores`` taken on them ({name: {metric:
    score}}) and the ``seconds`` each table's scoring took when it was done."""

    side: RealSide
    pairs: dict
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def table_digest(frame: pd.DataFrame | None) -> str:
    """A digest of a table's content: its columns, dtypes and every cell (row order counts:
    the references' target rows and searches are by position)."""
    if frame is None:
        return "none"
    digest = hashlib.sha256()
    digest.update(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
    digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return digest.hexdigest()


def content_key(
    real: pd.DataFrame, holdout: pd.DataFrame | None, schema: Schema, **settings
) -> tuple:
    """What the references depend on: the tables' content, the schema and the settings."""
    return (
        table_digest(real),
        table_digest(holdout),
        schema.to_yaml(),
        tuple(sorted((k, repr(v)) for k, v in settings.items())),
    )


class ReferenceStore:
    """The last :data:`SIZE` reference sets built, by :func:`content_key` (a set of pairs at
    50,000 rows holds a few hundred MB of encodings, so only the latest are kept)."""

    SIZE = 1

    def __init__(self):
        self._kept: dict[tuple, Kept] = {}

    def get(self, key: tuple) -> Kept | None:
        return self._kept.get(key)

    def keep(self, key: tuple, side: RealSide, pairs: dict) -> Kept:
        while len(self._kept) >= self.SIZE:
            self._kept.pop(next(iter(self._kept)))
        self._kept[key] = Kept(side, pairs)
        return self._kept[key]

    def clear(self) -> None:
        self._kept.clear()


KEPT = ReferenceStore()


def pair_of(
    side: RealSide, synthetic, seed: int, targets: int | None, name: str = "synthetic",
    control=None,
) -> Pair:  # fmt: skip
    """A :class:`Pair` on the real ``side``, or a
    :class:`~privmetrics.metrics.sampled.SampledPair` when ``targets`` is given; ``name`` is what
    its checks call the second table."""
    if targets:
        from privmetrics.metrics.sampled import SampledPair

        return SampledPair(side, synthetic, seed=seed, targets=targets, name=name, control=control)
    return Pair(side, synthetic, seed=seed, name=name, control=control)


# From this many real rows on, each Random draw is scored from RANDOM_TARGETS target rows of its
# own (metrics that are averages over rows; the others on every row), unless --targets is given.
# Random is noise: at such sizes its score barely moves between draws, and exact all-pairs
# searches for three of them would cost most of the audit. Each draw samples other rows, so the
# spread of the draws, which makes the position's interval, includes that sampling error.
SAMPLED_RANDOM_ROWS = 20_000
# Random draws of an audit with a holdout, unless random_runs says otherwise: one shows where
# noise lies; more would only narrow an interval that the holdout's position does not use
HOLDOUT_RANDOM_RUNS = 1
RANDOM_TARGETS = 10_000


@dataclass
class Reference:
    """A table the audit scores against the real one: its pair and, for a Random draw of a large
    table, a sampled pair that the metrics averaging over rows use instead."""

    pair: Pair
    sampled: Pair | None = None

    def for_metric(self, spec) -> Pair:
        return self.sampled if self.sampled is not None and spec.at_scale else self.pair

    @property
    def scored(self) -> Pair:
        """The pair whose target rows the searches cover (and whose DetectionMLP fit is kept)."""
        return self.sampled if self.sampled is not None else self.pair


def reference_pairs(
    side: RealSide, holdout, seed: int, targets, random_runs: int, with_real: bool,
    equal: int | None = None,
) -> dict[str, Reference]:  # fmt: skip
    """The references to score a release against, in order: ``"Holdout"`` (when given),
    ``"Random 1"`` ... (``random_runs`` draws with seeds ``seed``, ``seed + 1``, ...), ``"Real"``
    (a copy; when ``with_real``), every pair on the real ``side``. Every pair uses the holdout as
    the ALC's control set. A Random draw of a table with :data:`SAMPLED_RANDOM_ROWS` rows or more
    also gets a sampled pair (:class:`Reference`). They depend on the real table alone, not on the
    release: the audit keeps them by content (:mod:`.references`). Random is fitted once (its
    fit reads each column's observed values, no randomness) and sampled with each draw's seed,
    the same tables as a fit per seed. ``equal``: rows the holdout and Real are scored on (random
    rows of each, drawn with ``seed``), to match a release of that size; None: every row."""
    from privmetrics.data.validation import OutlierWarning, UnseenCategoryWarning
    from privmetrics.synthesisers import make_synthesiser

    real = side.real
    pairs = {}
    if holdout is not None:
        held = _rows(holdout, equal, seed)
        pairs["Holdout"] = Reference(pair_of(side, held, seed, targets, "holdout", holdout))
    with warnings.catch_warnings():  # Random's new categories and far values are by design
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        warnings.simplefilter("ignore", OutlierWarning)
        random = (
            make_synthesiser("random", seed=seed).fit(real, side.schema) if random_runs else None
        )
        for k in range(random_runs):
            random.seed = seed + k
            noise = random.sample(len(real))[real.columns]
            draw = Reference(pair_of(side, noise, seed, targets, control=holdout))
            if targets is None and len(real) >= SAMPLED_RANDOM_ROWS:
                from privmetrics.metrics.sampled import SampledPair

                draw.sampled = SampledPair(side, noise, seed=seed, targets=RANDOM_TARGETS,
                                           draw=k + 1, control=holdout)  # fmt: skip
            pairs[f"Random {k + 1}"] = draw
        if with_real:
            copy = _rows(real, equal, seed).copy()
            pairs["Real"] = Reference(pair_of(side, copy, seed, targets, control=holdout))
    return pairs


def _rows(table: pd.DataFrame, rows: int | None, seed: int) -> pd.DataFrame:
    """``rows`` random rows of ``table`` (all of them when it has no more, or ``rows`` is None)."""
    if rows is None or rows >= len(table):
        return table
    return table.sample(rows, random_state=seed).reset_index(drop=True)


def equal_rows(real: int, release: int, holdout) -> int | None:
    """With a holdout whose size differs from the release's by more than a tenth (or a release and
    holdout both well under the real table's size), the rows each of the release, the holdout and
    Real are scored on: the smaller of the release's and the holdout's, so that the position
    compares tables of one size (a metric's score depends on how many rows it searches: a fifth-size
    holdout put a release of new people at "some risk"). None: every table as it is."""
    if holdout is None:
        return None
    rows = min(release, len(holdout))
    differ = any(abs(n - rows) > 0.1 * rows for n in (release, len(holdout), real))
    return rows if differ else None


def equal_remark(rows: int, release: int, holdout: int, real: int) -> str:
    """What scoring at equal sizes (:func:`equal_rows`) did, in words."""
    return (f"scored at equal sizes: the release, the holdout and Real on {rows:,} random rows "
            f"each (the release has {release:,} rows, the holdout {holdout:,}, the real table "
            f"{real:,}): a metric's score depends on how many rows it searches, so the holdout "
            "is a fair lower end only at the release's size")  # fmt: skip


def unscored(kept: Kept, name: str, runnable) -> bool:
    """Whether table ``name`` has a metric of ``runnable`` still to score (the release always)."""
    done = kept.scores.get(name, {})
    return any(spec.name not in done for spec in runnable)


def work_line(pairs: dict, todo: list[str], runnable, rows: int) -> str:
    """What the audit is about to score (``todo``, the tables of ``pairs`` with a metric to
    score), in words (the cost estimate follows it)."""
    line = (f"scoring {len(runnable)} metrics on {len(todo)} table{'s' * (len(todo) != 1)} "
            f"({', '.join(todo)}) of {rows:,} real rows")  # fmt: skip
    reused = [name for name in pairs if name not in todo]
    if reused:
        line += f"; {', '.join(reused)} already scored on this real table, kept"
    return line


def table_size(reference: Reference, first: bool):
    """How ``reference`` will be scored, for the cost estimate
    (:class:`~privmetrics.audit.cost.Table`): its real rows scored, the rows each is searched
    against, whether its pair is sampled, whether it pays the real rows' own search (the first
    table does; a sampled Random draw has target rows of its own), and whether it is a copy."""
    from privmetrics.audit.cost import Table

    pair = reference.scored
    return Table(
        scored=len(pair.target_positions("real")),
        searched=len(pair.synthetic),
        sampled=pair.sampled,
        own_search=first or reference.sampled is not None,
        copy=not pair.sampled and pair.is_copy,
    )
