"""One check of a (real, synthetic, schema) triple, shared by metrics, synthesisers, runner and CLI.

The contract: bad input raises :class:`InvalidInputError`, whose one-line message names the table,
the column and the problem; it never turns into a silently wrong number or a crash deep inside
numpy. Rejected:

* not a DataFrame, no rows, duplicate column names, columns missing from or unknown to the schema;
* missing values (NaN) and infinite values (+-inf) anywhere;
* a numerical column that is not numeric (or is boolean); a binary column with more than two
  values; a categorical column that mixes kinds of values (strings and numbers);
* a categorical column whose values are of another kind in the synthetic table than in the real
  one (strings "01".."26" against integers 1..26 never match, so every metric would read the pair
  as dissimilar);
* parameters that are not what they claim (:func:`check_positive`, :func:`check_count`,
  :func:`check_seed`).

Allowed but worth knowing, returned in :class:`ValidationReport` *and* issued as warnings (so a
script and the command line both see them): synthetic categories never seen in the real data
(:class:`UnseenCategoryWarning`), synthetic numerical values extremely far outside the real
range (:class:`OutlierWarning`: more than ``OUTLIER_RANGES`` real ranges beyond it), and values of
the *real* table extremely far from the bulk of their own column (the same warning: more than
``OUTLIER_RANGES`` times the spread between the column's 1st and 99th percentiles beyond them),
since a real outlier sets the scale of every range-normalised distance.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privmetrics.data.schema import ColumnType, Schema

OUTLIER_RANGES = 1e6  # a synthetic value this many real ranges outside the real range is extreme


class InvalidInputError(ValueError):
    """The data or schema handed to the library cannot be used; the message says why."""


class UnseenCategoryWarning(UserWarning):
    """The synthetic table holds categories that the real table does not."""


class OutlierWarning(UserWarning):
    """The synthetic table holds numerical values extremely far outside the real range."""


@dataclass
class ValidationReport:
    """What :func:`validate` found that is allowed: unseen categories per column (column -> values)
    and extreme synthetic values per column (column -> the most extreme value)."""

    unseen_categories: dict[str, list] = field(default_factory=dict)
    outliers: dict[str, float] = field(default_factory=dict)
    real_outliers: dict[str, float] = field(default_factory=dict)
    name: str = "synthetic"  # what the compared table is called in the remarks

    @property
    def ok(self) -> bool:
        return not (self.unseen_categories or self.outliers or self.real_outliers)

    @property
    def remarks(self) -> list[str]:
        out = []
        if self.unseen_categories:
            parts = [
                f"{c}: {v[:5]}{' ...' if len(v) > 5 else ''}"
                for c, v in self.unseen_categories.items()
            ]
            out.append(f"{self.name} categories unseen in the real data: " + "; ".join(parts))
        if self.outliers:
            parts = [f"{c}: {v:g}" for c, v in self.outliers.items()]
            out.append(
                f"{self.name} values more than {OUTLIER_RANGES:g} real ranges outside the real "
                "range (distances to them dominate every distance metric): " + "; ".join(parts)
            )
        if self.real_outliers:
            parts = [f"{c}: {v:g}" for c, v in self.real_outliers.items()]
            out.append(
                f"real values more than {OUTLIER_RANGES:g} times their column's 1-99% spread "
                "beyond it (such a value sets the scale of every range-normalised distance; "
                "check it is not an error code): " + "; ".join(parts)
            )
        return out

    def __str__(self) -> str:
        return " | ".join(self.remarks) if self.remarks else "no remarks"


# Named quantities with a largest sensible value, which check_positive refuses beyond, with why.
# epsilon: a budget beyond 10,000 promises no privacy (a likelihood ratio of e^10000) and
# overflows the conversions between budgets (zCDP's delta in MST and AIM raised OverflowError at
# 1e300). The bound lives here, where every synthesiser's check_epsilon reads it, so that no
# synthesiser's code (and so no cached table's fingerprint) changes with it.
MAXIMA = {
    "epsilon": (
        1e4,
        "such a budget protects no one and overflows the privacy conversions; for no privacy at "
        "all use a synthesiser without a budget (CTGAN, TVAE)",
    ),
}


def check_positive(name: str, value, allow_zero: bool = False) -> float:
    """A finite real number > 0 (>= 0 with ``allow_zero``), at most its bound in :data:`MAXIMA`
    if it has one; strings, booleans and NaN are refused."""
    wanted = "a finite number >= 0" if allow_zero else "a positive finite number"
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise InvalidInputError(f"{name} must be {wanted}, got {value!r} ({type(value).__name__})")
    if value < 0 or (value == 0 and not allow_zero):
        raise InvalidInputError(f"{name} must be {wanted}, got {value!r}")
    largest, why = MAXIMA.get(name, (np.inf, ""))
    if value > largest:
        raise InvalidInputError(f"{name} must be at most {largest:,.0f}, got {value:g}: {why}")
    return float(value)


def check_count(name: str, value, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (a float like 2.5, a string or a boolean is refused)."""
    wanted = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InvalidInputError(f"{name} must be {wanted}, got {value!r} ({type(value).__name__})")
    return int(value)


def check_seed(seed) -> int:
    """A seed: a non-negative integer."""
    return check_count("seed", seed, minimum=0)


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


def value_kind(values: pd.Series) -> str:
    """The kind of a categorical column's values: "string", "number", "boolean" or "mixed"
    (pandas' type inference, no loop over rows)."""
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred == "categorical":  # a pandas Categorical: the kind of its categories
        inferred = pd.api.types.infer_dtype(values.cat.categories, skipna=True)
    if inferred in ("string", "unicode", "bytes"):
        return "string"
    if inferred in ("integer", "floating", "decimal"):
        return "number"
    if inferred == "boolean":
        return "boolean"
    return "mixed" if inferred.startswith("mixed") else inferred


# The largest magnitude a synthesiser's input may hold: its square (variances, the networks'
# normalisation, Random's noise scale) must stay finite in float64 (about 1.8e308). The metrics'
# exact neighbour searches handle any finite value, so only synthesiser inputs are held to it.
LARGEST = 1e150


WRAP = "a synthesiser inside privmetrics.synthesisers.with_missing.WithMissing(...)"


def check_plain_types(frame: pd.DataFrame) -> None:
    """Refuse pandas ``category`` columns in a synthesiser's input, naming the wrapper that takes
    them (SDV refuses them, Random turned unused categories into NaN)."""
    categorical = [str(c) for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    if categorical:
        raise InvalidInputError(
            f"real data column(s) {categorical} have a pandas category dtype, which the "
            f"techniques do not take; fit {WRAP}, which keeps the categories, or cast with "
            ".astype(object)"
        )


def check_representable(frame: pd.DataFrame, schema: Schema, name: str = "real data") -> None:
    """Refuse a synthesiser input whose numbers square to infinity, naming the column: the
    technique would return non-finite values (Random: every one) instead of a table."""
    for col in schema.numerical:
        largest = float(np.abs(frame[col].to_numpy(float)).max())
        if largest > LARGEST:
            raise InvalidInputError(
                f"{name} column {col!r} holds {largest:.3g}, beyond +-{LARGEST:.0e}: the "
                "synthesisers' sums of squares overflow there and would return non-finite "
                "values; rescale the column (e.g. to thousands) or drop the row"
            )


def check_trainable(frame: pd.DataFrame) -> None:
    """Refuse a one-row training table: no technique learns a distribution from one record, and
    what it released would be that person's record (Random: the row plus noise)."""
    if len(frame) < 2:
        raise InvalidInputError(
            f"a synthesiser needs at least 2 rows to learn from, got {len(frame)}: its release "
            "would be that one person's record"
        )


def check_declared_coding(frame: pd.DataFrame, schema: Schema) -> None:
    """Refuse a categorical column whose values are of another kind than its declared codes
    (integers against the codes "00".."21"). The techniques read the values against the declared
    list as text and give the column back in its own dtype, so such a column came back corrupted
    without a word: ages 1-9 fell to the list's ``other`` value, and a release mixed numbers with
    text (Texas ``PAT_AGE`` as int: 155 floats and 145 strings in 300 PrivBayes rows)."""
    from privmetrics.data.domain import Categories

    for col in schema.categorical:
        entry = schema.domain.get(col)
        if not isinstance(entry, Categories):
            continue
        declared = pd.Series(entry.values, dtype=object)
        kind, declared_kind = value_kind(frame[col]), value_kind(declared)
        if kind != declared_kind:
            examples = sorted(pd.unique(frame[col]).tolist(), key=str)[:3]
            raise InvalidInputError(
                f"column {col!r} holds {kind} values (e.g. {examples}) but its declared domain "
                f"lists {declared_kind} codes (e.g. {list(entry.values[:3])}): the release would "
                "not hold your values; convert the column to the declared codes (e.g. 1 to "
                "'01', or .astype(str) where the codes read alike) or declare the codes as they "
                "are in the data"
            )


def validate_frame(frame: pd.DataFrame, schema: Schema, name: str = "data") -> None:
    """Raise unless ``frame`` fits the schema: every column once, no NaN or inf, fitting dtypes."""
    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    duplicated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
    if duplicated:
        raise InvalidInputError(f"{name} has duplicate column name(s) {duplicated}")
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
            f"{name} has missing values (NaN) in column(s) {counts}; the metrics and the audit "
            "take them with missing='indicator' (the default), a synthesiser inside "
            "privmetrics.synthesisers.with_missing.WithMissing(...)"
        )
    for col in schema.numerical:
        if pd.api.types.is_datetime64_any_dtype(frame[col]):
            raise InvalidInputError(
                f"{name} column {col!r} holds dates ({frame[col].dtype}), the techniques take "
                f"numbers: fit {WRAP}, which reads dates as days since 1970 and gives dates back"
            )
        if not pd.api.types.is_numeric_dtype(frame[col]) or pd.api.types.is_bool_dtype(frame[col]):
            raise InvalidInputError(
                f"{name} column {col!r} is declared numerical but has dtype {frame[col].dtype}"
            )
        infinite = ~np.isfinite(frame[col].to_numpy(float))
        if infinite.any():
            rows = frame.index[infinite][:3].tolist()
            raise InvalidInputError(
                f"{name} column {col!r} holds {int(infinite.sum())} infinite value(s) "
                f"(rows {rows}{' ...' if infinite.sum() > 3 else ''}); replace or drop them"
            )
    for col, kind in schema.columns.items():
        if kind is ColumnType.NUMERICAL:
            continue
        if value_kind(frame[col]) == "mixed":
            raise InvalidInputError(
                f"{name} column {col!r} mixes kinds of values (e.g. strings and numbers); "
                "give it one kind (e.g. .astype(str))"
            )
        if kind is ColumnType.BINARY and frame[col].nunique() > 2:
            raise InvalidInputError(
                f"{name} column {col!r} is declared binary but has {frame[col].nunique()} distinct values"
            )


def plain_categories(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every pandas ``category`` column as plain values (object dtype).

    A category dtype carries its list of categories, used or not; encoders that read it would
    give an unused category a column (which moves entropy weights and classifier features) or a
    zero-variance direction (which breaks the FAMD projection's SVD). The metrics see values only.
    """
    columns = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    if not columns:
        return frame
    return frame.assign(**{c: frame[c].astype(object) for c in columns})


def validate(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | None,
    schema: Schema,
    warn: bool = True,
    name: str = "synthetic",
) -> ValidationReport:
    """Check a (real, synthetic, schema) triple; raise :class:`InvalidInputError` on the first problem.

    ``synthetic`` may be None when only the real data and the schema are checked (synthesiser
    input). Allowed oddities are returned and, with ``warn``, issued as warnings. ``name`` is what
    messages call the compared table (e.g. ``"holdout"`` when the audit compares real rows).
    :func:`validate_real` and :func:`check_release` are its two halves (a
    :class:`~privmetrics.geometry.real_side.RealSide` runs the first once for all its tables).
    """
    report = validate_real(real, schema, name)
    if synthetic is None:  # a synthesiser's input
        check_plain_types(real)
        check_representable(real, schema)
        check_trainable(real)
        check_declared_coding(real, schema)
        _warn(report, warn)
        return report
    return check_release(real, synthetic, schema, report, warn)


def validate_real(real: pd.DataFrame, schema: Schema, name: str = "synthetic") -> ValidationReport:
    """The real table's half of :func:`validate`: the schema, the table against it, and its own
    far values (a report whose compared table is called ``name``)."""
    if not isinstance(schema, Schema):
        raise InvalidInputError(f"schema must be a privmetrics Schema, got {type(schema).__name__}")
    validate_schema(schema)
    validate_frame(real, schema, "real data")
    return ValidationReport(real_outliers=far_from_bulk(real, schema), name=name)


def check_release(
    real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema, report: ValidationReport,
    warn: bool = True,
) -> ValidationReport:  # fmt: skip
    """The compared table's half of :func:`validate`, against a real table already checked
    (:func:`validate_real`, whose ``report`` it completes)."""
    name = report.name
    validate_frame(synthetic, schema, f"{name} data")
    for col in schema.categorical:
        real_kind, synthetic_kind = value_kind(real[col]), value_kind(synthetic[col])
        if real_kind != synthetic_kind:
            raise InvalidInputError(
                f"column {col!r} holds {real_kind} values in the real data but {synthetic_kind} "
                f"values in the {name} data (e.g. {real[col].iloc[0]!r} against "
                f"{synthetic[col].iloc[0]!r}): no value can match; convert one table"
            )
        seen = pd.Index(pd.unique(real[col]))
        candidates = pd.unique(synthetic[col])
        unseen = candidates[~pd.Index(candidates).isin(seen)]
        if len(unseen):
            report.unseen_categories[col] = sorted(unseen.tolist(), key=str)
    for col in schema.numerical:
        low, high = float(real[col].min()), float(real[col].max())
        spread = max(high - low, abs(high), abs(low), 1e-300)
        extreme = farthest_outside(synthetic[col].to_numpy(float), low, high, spread)
        if extreme is not None:
            report.outliers[col] = extreme
    _warn(report, warn)
    return report


def far_from_bulk(frame: pd.DataFrame, schema: Schema) -> dict[str, float]:
    """Numerical columns with a value more than ``OUTLIER_RANGES`` times the 1st-99th percentile
    spread beyond those percentiles: column -> the most extreme such value. The spread is at
    least the percentiles' own size, and at least 1 when they are both 0 (a column of zeros with
    a few ordinary amounts is not an outlier case)."""
    out = {}
    for col in schema.numerical:
        values = frame[col].to_numpy(float)
        low, high = np.percentile(values, [1, 99])
        spread = max(high - low, abs(high), abs(low)) or 1.0
        extreme = farthest_outside(values, low, high, spread)
        if extreme is not None:
            out[col] = extreme
    return out


def farthest_outside(values: np.ndarray, low: float, high: float, spread: float) -> float | None:
    """The value farthest outside [low, high] when it lies more than ``OUTLIER_RANGES`` spreads
    beyond it, else None."""
    beyond = np.maximum(low - values, values - high) / spread
    return float(values[np.argmax(beyond)]) if beyond.max() > OUTLIER_RANGES else None


def _warn(report: ValidationReport, warn: bool) -> None:
    if not warn:
        return
    categories = (
        [UnseenCategoryWarning] * bool(report.unseen_categories)
        + [OutlierWarning] * bool(report.outliers)
        + [OutlierWarning] * bool(report.real_outliers)
    )
    for text, category in zip(report.remarks, categories, strict=True):
        warnings.warn(text, category, stacklevel=3)
