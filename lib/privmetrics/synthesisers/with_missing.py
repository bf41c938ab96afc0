"""Fitting a synthesiser on a table as users have it (missing values, dates, pandas category and
nullable dtypes), and getting them back in its samples.

>>> from privmetrics.synthesisers import make_synthesiser
>>> from privmetrics.synthesisers.with_missing import WithMissing
>>> synth = WithMissing(make_synthesiser("privbayes", epsilon=1.0)).fit(table, schema)
>>> release = synth.sample(1000)          # gaps where the technique generated them

The table is encoded by :func:`privmetrics.data.missing.treat_missing` (``"indicator"``: a gap is
the category ``"(missing)"``, or a yes/no flag beside a number filled with the median), the
wrapped technique learns the encoded table, so it learns how often and with what gaps occur, and
:func:`~privmetrics.data.missing.restore_missing` turns the flags back into NaN. A wrapper rather
than a change in every technique: the techniques' code, and so the cache keys of every stored
release (:func:`privmetrics.synthesisers.cache.code_fingerprint`), stay as they are.

Before that, :func:`privmetrics.data.dtypes.plain` turns dates into days since 1970 (a numerical
attribute), pandas categories into their values and nullable numbers into floats;
:func:`~privmetrics.data.dtypes.restore` gives the samples those dtypes back (dates to the second,
the original categories, ``Int64``). A bare technique refuses a category column and a date
column with a message that names this wrapper.
"""

from __future__ import annotations

import pandas as pd

from privmetrics.data.dtypes import plain, restore
from privmetrics.data.missing import restore_missing, treat_missing
from privmetrics.data.schema import Schema
from privmetrics.synthesisers.base import Synthesiser


class WithMissing:
    """``synthesiser`` (any :class:`~privmetrics.synthesisers.base.Synthesiser`) made to accept
    missing values, dates and pandas dtypes; ``fit`` / ``sample`` / ``fit_sample`` as usual.
    ``summary_`` says what the missing-value encoding did, ``types_`` which dtypes were plain-ed."""

    def __init__(self, synthesiser: Synthesiser):
        if not isinstance(synthesiser, Synthesiser):
            raise TypeError(f"WithMissing wraps a Synthesiser, got {type(synthesiser).__name__}")
        self.synthesiser = synthesiser

    def fit(self, frame: pd.DataFrame, schema: Schema) -> WithMissing:
        frame, self.types_ = plain(frame)
        tables, treated, self.summary_ = treat_missing({"real data": frame}, schema, "indicator")
        self.synthesiser.fit(tables["real data"], treated)
        return self

    def sample(self, n: int | None = None) -> pd.DataFrame:
        return restore(restore_missing(self.synthesiser.sample(n), self.summary_), self.types_)

    def fit_sample(self, frame: pd.DataFrame, schema: Schema, n: int | None = None) -> pd.DataFrame:
        return self.fit(frame, schema).sample(n if n is not None else len(frame))
