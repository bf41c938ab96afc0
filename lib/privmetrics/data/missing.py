"""Missing values: one documented treatment for the metrics, the audit and the synthesisers.

Real tables have gaps (flchain's creatinine, a survey's unanswered question), and synthesisers
such as SDV's reproduce them. The metrics compare values, so a gap needs a rule. The rules, chosen
with ``missing=``:

* ``"indicator"`` (the default): missing is information, as in SDMetrics and SynthEval.
  - A **categorical or binary** column's gap becomes the category ``"(missing)"``. A binary
    column with gaps therefore has three values and is treated as categorical.
  - A **numerical** column with a gap in any of the tables gets a companion binary column
    ``"<name> (missing)"`` (``"yes"`` / ``"no"``) with the column's role (a key's indicator is a
    key: an attacker who knows a value knows whether it is missing). The gap itself is filled with
    the median of the *real* column's present values, the same number in every table.
  - The distance rule that follows: two missing values are equal; a missing and a present value
    differ by their distance from the real median plus one mismatched category (the indicator),
    so a gap is never mistaken for a typical value.
* ``"drop-rows"``: every row with a gap is dropped from every table, and the counts are reported
  (the paper's own preprocessing of MedOnc). Never silent: the summary names each table's loss.
* ``"refuse"``: the error the library raised before, naming the columns and this option.

:func:`treat_missing` applies a rule to several tables at once (the audit's real table, release,
holdout and baselines must share one encoding); :class:`MissingSummary` says what it did.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pandas as pd

from privmetrics.data.domain import Categories
from privmetrics.data.schema import ColumnType, Schema
from privmetrics.data.validation import InvalidInputError

RULES = ("indicator", "drop-rows", "refuse")
MISSING_CATEGORY = "(missing)"
FLAG = "{} (missing)"


def flag_columns(schema) -> set[str]:
    """The columns of ``schema`` that flag another column's gaps (``FLAG`` of a column it holds)."""
    return {FLAG.format(c) for c in schema.names if FLAG.format(c) in schema.columns}


YES, NO = "yes", "no"


class MissingValuesWarning(UserWarning):
    """Missing values were measured under a rule (the message says which and how many)."""


@dataclass
class MissingSummary:
    """What :func:`treat_missing` did: gaps per table and column, the indicator columns added,
    the fill value of each numerical column, the rows dropped per table."""

    rule: str
    gaps: dict[str, dict[str, int]] = field(default_factory=dict)
    indicators: dict[str, str] = field(default_factory=dict)
    fills: dict[str, float] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def any(self) -> bool:
        return any(self.gaps.values())

    def __str__(self) -> str:
        if not self.any:
            return "no missing values"
        counts = "; ".join(
            f"{name}: " + ", ".join(f"{c} {n:,}" for c, n in cols.items())
            for name, cols in self.gaps.items()
            if cols
        )
        if self.rule == "drop-rows":
            lost = ", ".join(f"{name} {n:,} rows" for name, n in self.dropped.items())
            return (
                f"missing values ({counts}) dropped with their rows (missing='drop-rows'): {lost}"
            )
        done = [f"categorical gaps read as the category {MISSING_CATEGORY!r}"]
        if self.indicators:
            fills = ", ".join(f"{c} at {v:g}" for c, v in self.fills.items())
            done.append(f"numerical gaps flagged in {list(self.indicators.values())} and filled "
                        f"with the real median ({fills})")  # fmt: skip
        return f"missing values ({counts}): {'; '.join(done)} (missing='indicator')"


def count_gaps(frame: pd.DataFrame) -> dict[str, int]:
    """Missing cells per column, for the columns that have any."""
    counts = frame.isna().sum()
    return {str(c): int(n) for c, n in counts.items() if n}


def treat_missing(
    tables: dict[str, pd.DataFrame], schema: Schema, rule: str = "indicator"
) -> tuple[dict[str, pd.DataFrame], Schema, MissingSummary]:
    """Apply ``rule`` (:data:`RULES`) to every table in ``tables`` (name -> frame; the first is the
    real table, whose medians fill numerical gaps). Returns the tables, the schema they now fit and
    a :class:`MissingSummary`. Tables without a gap come back unchanged (the same objects)."""
    if rule not in RULES:
        raise InvalidInputError(f"missing must be one of {RULES}, got {rule!r}")
    columns = [c for c in schema.names if all(c in t for t in tables.values())]
    summary = MissingSummary(rule, {name: count_gaps(t[columns]) for name, t in tables.items()})
    if not summary.any:
        return tables, schema, summary
    if rule == "refuse":
        name, gaps = next((n, g) for n, g in summary.gaps.items() if g)
        raise InvalidInputError(
            f"{name} has missing values (NaN) in column(s) {gaps}; pass missing='indicator' "
            "(--missing indicator: a gap is a category, or a flag beside a number) or "
            "missing='drop-rows' to measure such a table"
        )
    if rule == "drop-rows":
        out = {name: t.dropna(subset=columns).reset_index(drop=True) for name, t in tables.items()}
        summary.dropped = {name: len(tables[name]) - len(out[name]) for name in tables}
        empty = [name for name, t in out.items() if len(t) == 0]
        if empty:
            raise InvalidInputError(
                f"missing='drop-rows' leaves no row in {empty}: use missing='indicator'"
            )
        return out, schema, summary
    return _indicate(tables, schema, columns, summary)


def _indicate(tables, schema: Schema, columns: list[str], summary: MissingSummary):
    gappy = {c for gaps in summary.gaps.values() for c in gaps}
    real = next(iter(tables.values()))
    types = dict(schema.columns)
    key, sensitive = list(schema.key), list(schema.sensitive)
    fills: dict[str, float] = {}
    for col in columns:
        if col not in gappy:
            continue
        if types[col] is not ColumnType.NUMERICAL:
            types[col] = ColumnType.CATEGORICAL  # a binary column with gaps has three values
            continue
        present = pd.to_numeric(real[col], errors="coerce").dropna()
        if present.empty:
            raise InvalidInputError(
                f"real data column {col!r} is missing in every row: nothing to compare; drop it"
            )
        fills[col] = float(present.median())
        flag = FLAG.format(col)
        if flag in types:
            raise InvalidInputError(f"cannot flag the gaps of {col!r}: a column {flag!r} exists")
        summary.indicators[col] = flag
        types[flag] = ColumnType.BINARY
        for role in (key, sensitive):
            if col in role:
                role.append(flag)
    summary.fills = fills
    out = {}
    for name, frame in tables.items():
        frame = frame.copy()
        for col in gappy:
            if col in fills:
                frame[FLAG.format(col)] = (
                    frame[col].isna().map({True: YES, False: NO}).astype(object)
                )
                frame[col] = frame[col].fillna(fills[col])
            elif types[col] is ColumnType.CATEGORICAL and frame[col].isna().any():
                values = frame[col].astype(object)
                if (values == MISSING_CATEGORY).any():
                    raise InvalidInputError(
                        f"{name} column {col!r} already holds the value {MISSING_CATEGORY!r}: "
                        "rename it to tell it from a gap"
                    )
                frame[col] = values.where(values.notna(), MISSING_CATEGORY)
        out[name] = frame
    order = [*schema.names, *summary.indicators.values()]
    treated = Schema(
        columns={c: types[c] for c in order},
        key=key,
        sensitive=sensitive,
        description=schema.description,
        notes=schema.notes,
        domain=_domain(schema, gappy, summary),
    )
    return out, treated, summary


def _domain(schema: Schema, gappy: set[str], summary: MissingSummary) -> dict:
    """The declared domain with the gaps in it: ``"(missing)"`` joins a gappy column's category
    list, and each flag's domain is yes/no (the DP synthesisers encode by the declared domain)."""
    domain = dict(schema.domain)
    for col in gappy:
        entry = domain.get(col)
        if isinstance(entry, Categories) and MISSING_CATEGORY not in entry.values:
            domain[col] = replace(entry, values=(*entry.values, MISSING_CATEGORY))
    if domain:
        domain.update({flag: Categories((NO, YES)) for flag in summary.indicators.values()})
    return domain


def restore_missing(frame: pd.DataFrame, summary: MissingSummary) -> pd.DataFrame:
    """Undo the ``"indicator"`` encoding on a generated table: ``"(missing)"`` and flagged numbers
    become NaN again, and the indicator columns are dropped."""
    out = frame.copy()
    for col, flag in summary.indicators.items():
        if flag in out:
            out.loc[out[flag] == YES, col] = float("nan")
            out = out.drop(columns=flag)
    for col in out.columns:
        if out[col].dtype == object:
            out[col] = out[col].where(out[col] != MISSING_CATEGORY)
    return out
