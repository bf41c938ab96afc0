"""One check of a (real, synthetic, schema) triple, shared by metrics, synthesisers, runner and CLI.

Bad input raises :class:`InvalidInputError` whose message names the problem and the columns involved;
it never turns into a silently wrong number. Anything that is allowed but worth knowing (synthetic
categories never seen in the real data) is returned in :class:`ValidationReport`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .schema import ColumnType, Schema


class InvalidInputError(ValueError):
    """The data or schema handed to the library cannot be used; the message says why."""


@dataclass
class ValidationReport:
    """What :func:`validate` found that is allowed: unseen categories per column (column -> values)."""

    unseen_categories: dict[str, list] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.unseen_categories

    def __str__(self) -> str:
        if self.ok:
            return "no remarks"
        parts = [
            f"{c}: {v[:5]}{' ...' if len(v) > 5 else ''}" for c, v in self.unseen_categories.items()
        ]
        return "synthetic categories unseen in the real data: " + "; ".join(parts)


def validate_schema(schema: Schema) -> None:
    """Raise when the key/sensitive roles do not fit the schema's own columns."""
    if not schema.columns:
        raise InvalidInputError("the schema has no columns")
    for role in ("key", "sensitive"):
        absent = [c for c in getattr(schema, role) if c not in schema.columns]
        if absent:
            raise InvalidInputError(f"{role} attribute(s) {absent} are not columns of the schema")
    both = sorted(set(schema.key) & set(schema.sensitive))
    if both:
        raise InvalidInputError(
            f"attribute(s) {both} are both key and sensitive; A_K and A_S must be disjoint"
        )


def validate_frame(frame: pd.DataFrame, schema: Schema, name: str = "data") -> None:
    """Raise unless ``frame`` has exactly the schema's columns, no NaN, at least one row, fitting dtypes."""
    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    if len(frame) == 0:
        raise InvalidInputError(f"{name} is empty (0 rows)")
    missing = [c for c in schema.columns if c not in frame.columns]
    if missing:
        raise InvalidInputError(f"{name} lacks column(s) {missing} named in the schema")
    extra = [c for c in frame.columns if c not in schema.columns]
    if extra:
        raise InvalidInputError(f"{name} has column(s) {extra} that the schema does not describe")
    nan_cols = frame.columns[frame.isna().any()].tolist()
    if nan_cols:
        counts = {c: int(frame[c].isna().sum()) for c in nan_cols}
        raise InvalidInputError(
            f"{name} has missing values (NaN) in column(s) {counts}; impute or drop them first"
        )
    for col in schema.numerical:
        if not pd.api.types.is_numeric_dtype(frame[col]) or pd.api.types.is_bool_dtype(frame[col]):
            raise InvalidInputError(
                f"{name} column {col!r} is declared numerical but has dtype {frame[col].dtype}"
            )
    for col, kind in schema.columns.items():
        if kind is ColumnType.BINARY and frame[col].nunique() > 2:
            raise InvalidInputError(
                f"{name} column {col!r} is declared binary but has {frame[col].nunique()} distinct values"
            )


def validate(
    real: pd.DataFrame, synthetic: pd.DataFrame | None, schema: Schema
) -> ValidationReport:
    """Check a (real, synthetic, schema) triple; raise :class:`InvalidInputError` on the first problem.

    ``synthetic`` may be None when only the real data and the schema are checked (synthesiser input).
    """
    if not isinstance(schema, Schema):
        raise InvalidInputError(f"schema must be a privmetrics Schema, got {type(schema).__name__}")
    validate_schema(schema)
    validate_frame(real, schema, "real data")
    report = ValidationReport()
    if synthetic is None:
        return report
    validate_frame(synthetic, schema, "synthetic data")
    for col in schema.categorical:
        seen = set(real[col].unique())
        unseen = [v for v in pd.unique(synthetic[col]) if v not in seen]
        if unseen:
            report.unseen_categories[col] = sorted(unseen, key=str)
    return report
