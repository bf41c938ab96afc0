"""Pandas dtypes that users' tables carry, turned into the plain ones the library computes on, and
back.

* **Dates** (``datetime64``, with or without a time zone): a number, the days since
  1970-01-01 (UTC), fractions for times of day; ``NaT`` becomes a gap (NaN). A date column is a
  numerical attribute in the schema, so distances, bins and the synthesisers treat a day as one
  unit. :func:`restore` turns generated numbers back into dates (``datetime64[s]``: to the
  second, and wide enough for the far dates Random's noise gives; in the original time zone).
* **Categories** (pandas ``category``): their values as plain objects; unused categories are
  dropped, since only values that occur can be learnt or matched (an unused category once moved
  AttributeInference and made Random output NaN). :func:`restore` gives the original
  categories back (plus any new value a baseline invents).
* **Nullable numbers** (``Int64``, ``Float64``, ``boolean`` ...): float64 or object with NaN for
  ``pd.NA``; :func:`restore` rounds integers back to ``Int64``.

Used by :class:`~privmetrics.geometry.pair.Pair` (so every metric accepts such tables) and by
:class:`~privmetrics.synthesisers.with_missing.WithMissing` (so every synthesiser does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

EPOCH = pd.Timestamp("1970-01-01", tz="UTC")  # naive dates are read as UTC
DAY = pd.Timedelta(days=1)


@dataclass
class PlainTypes:
    """What :func:`plain` changed, per column: ``dates`` (column -> time zone or None),
    ``categories`` (column -> the original categories), ``integers`` (nullable integer columns)."""

    dates: dict[str, object] = field(default_factory=dict)
    categories: dict[str, pd.Index] = field(default_factory=dict)
    integers: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.dates or self.categories or self.integers)


def _days(values: pd.Series) -> pd.Series:
    stamps = values.dt.tz_localize("UTC") if values.dt.tz is None else values.dt.tz_convert("UTC")
    return ((stamps - EPOCH) / DAY).astype("float64")


def plain(frame: pd.DataFrame, types: PlainTypes | None = None) -> tuple[pd.DataFrame, PlainTypes]:
    """``frame`` with plain dtypes (module doc) and what was changed; ``types`` (from another
    table) is extended, so that several tables share one record."""
    types = types if types is not None else PlainTypes()
    if frame.columns.duplicated().any():  # left as it is, for the validation to name
        return frame, types
    changed = {}
    for col in frame.columns:
        values = frame[col]
        dtype = values.dtype
        if pd.api.types.is_datetime64_any_dtype(dtype):
            types.dates.setdefault(col, getattr(dtype, "tz", None))
            changed[col] = _days(values)
        elif isinstance(dtype, pd.CategoricalDtype):
            types.categories.setdefault(col, dtype.categories)
            changed[col] = values.astype(object).where(values.notna(), np.nan)
        elif pd.api.types.is_extension_array_dtype(dtype):
            if pd.api.types.is_integer_dtype(dtype) and col not in types.integers:
                types.integers.append(col)
            if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
                changed[col] = values.astype("float64")
            else:
                changed[col] = values.astype(object).where(values.notna(), np.nan)
    return (frame.assign(**changed) if changed else frame), types


def restore(frame: pd.DataFrame, types: PlainTypes) -> pd.DataFrame:
    """A generated table with the dtypes :func:`plain` took away (module doc)."""
    changed = {}
    for col, tz in types.dates.items():
        if col in frame:
            seconds = frame[col].to_numpy("float64") * 86400.0
            stamps = np.full(len(frame), np.datetime64("NaT"), dtype="datetime64[s]")
            ok = np.isfinite(seconds)  # seconds resolution: dates far outside pandas' ns range fit
            stamps[ok] = np.round(seconds[ok]).astype("int64").astype("datetime64[s]")
            stamps = pd.Series(stamps, index=frame.index)
            changed[col] = (
                stamps.dt.tz_localize("UTC").dt.tz_convert(tz) if tz is not None else stamps
            )
    for col, categories in types.categories.items():
        if col in frame:
            extra = pd.Index(pd.unique(frame[col].dropna())).difference(categories)
            changed[col] = pd.Categorical(frame[col], categories=categories.append(extra))
    for col in types.integers:
        if col in frame:
            changed[col] = frame[col].astype("float64").round().astype("Int64")
    return frame.assign(**changed) if changed else frame
