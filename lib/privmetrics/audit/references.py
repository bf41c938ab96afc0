"""The references an audit scores a release against, kept by content so that several releases of
one real table pay for them once.

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
from dataclasses import dataclass, field

import pandas as pd

from privmetrics.data.schema import Schema


@dataclass
class Kept:
    """References of one real table: ``pairs`` ({name: Reference}), the ``scores`` taken on them
    ({name: {metric: score}}) and the ``seconds`` each table's scoring took when it was done."""

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

    def keep(self, key: tuple, pairs: dict) -> Kept:
        while len(self._kept) >= self.SIZE:
            self._kept.pop(next(iter(self._kept)))
        self._kept[key] = Kept(pairs)
        return self._kept[key]

    def clear(self) -> None:
        self._kept.clear()


KEPT = ReferenceStore()
