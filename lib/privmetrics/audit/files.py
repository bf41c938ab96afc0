"""Reading the user's files: tables (CSV, compressed CSV, Parquet), schema files, and the checks
that make two tables comparable (same columns, shared values, dates as days, a schema that fits).

May import ``data``; used by :mod:`.run` and the ``privmetrics audit`` command
(:mod:`privmetrics.commands.audit_release`).
"""

from __future__ import annotations

import csv
import os
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from privmetrics.data.schema import ColumnType, Schema, did_you_mean, infer_schema
from privmetrics.data.validation import InvalidInputError

COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip"}
# the first bytes of each compressed format, for a compressed file named .csv
MAGIC = {b"\x1f\x8b": ".gz", b"BZh": ".bz2", b"\xfd7zXZ\x00": ".xz", b"PK\x03\x04": ".zip"}
# separators a CSV with a single column is sniffed for (a European ";" export, a tab file)
SEPARATORS = ";\t|"


SUPPORTED = ".csv, .csv.gz, .csv.bz2, .csv.xz, .zip (one CSV inside), .parquet, .pq"


def table_format(path: str | Path) -> str | None:
    """``"csv"`` (plain, compressed or zipped) or ``"parquet"`` by the file's extension, as
    :func:`read_table` reads it; None for any other file."""
    suffixes = [x.lower() for x in Path(path).suffixes[-2:]]
    last = suffixes[-1] if suffixes else ""
    if last in (".parquet", ".pq"):
        return "parquet"
    if last in (".csv", ".zip") or (last in COMPRESSED and ".csv" in suffixes):
        return "csv"
    return None


def read_table(path: str | Path, na_values: list[str] | None = None) -> pd.DataFrame:
    """A CSV (plain or compressed, by extension) or Parquet file as a DataFrame, with a clear
    error otherwise.

    In a CSV only an empty cell is missing: "NA", "null" or "None" are values (a category called
    "NA" is not a missing value) unless ``na_values`` names them. Duplicate column names are an
    error, never silently renamed. Any other format is refused with the list of supported ones.
    """
    path = Path(path)
    if not path.is_file():
        raise InvalidInputError(f"cannot read {path}: no such file")
    last, kind = path.suffix.lower(), table_format(path)
    is_csv = kind == "csv"
    if kind is None:
        raise InvalidInputError(
            f"cannot read {path}: {''.join(path.suffixes) or 'no extension'} is not a supported "
            f"format; use one of {SUPPORTED}"
        )
    if last == ".csv":
        check_not_compressed(path)
    try:
        if kind == "parquet":
            frame = pd.read_parquet(path)
        else:
            sep = sniff_separator(path)
            header = _csv_header(path, sep)
            duplicated = sorted({c for c in header if header.count(c) > 1})
            if duplicated:
                raise InvalidInputError(f"{path} has duplicate column name(s) {duplicated}")
            frame = pd.read_csv(path, sep=sep, keep_default_na=False,
                                na_values=["", *(na_values or [])])  # fmt: skip
    except InvalidInputError:
        raise
    except Exception as exc:  # any parser error becomes one message naming the file
        raise InvalidInputError(f"cannot read {path}: {exc}") from exc
    duplicated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
    if duplicated:
        raise InvalidInputError(f"{path} has duplicate column name(s) {duplicated}")
    return frame if not is_csv else parse_dates(frame, path.name)


# distinct values of a text column tried as dates before the whole column is
DATE_PROBE = 200


def parse_dates(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """Text columns whose every value is an ISO 8601 date or time (2024-03-01, 2024-03-01T08:30)
    as datetime64, with a warning naming them: a date is then a number of days (the schema infers
    it numerical, :func:`conform` counts days since 1970-01-01), not a category of a few hundred
    values. A column with any other value stays text."""
    dates = {}
    for col in frame.select_dtypes(include="object").columns:
        values = frame[col].dropna()
        probe = values.drop_duplicates().head(DATE_PROBE).astype(str)
        if probe.empty or pd.to_numeric(probe, errors="coerce").notna().any():
            continue
        if pd.to_datetime(probe, format="ISO8601", errors="coerce").isna().any():
            continue
        parsed = pd.to_datetime(frame[col], format="ISO8601", errors="coerce", utc=True)
        if parsed[values.index].notna().all():
            dates[col] = parsed.dt.tz_convert(None)
    if dates:
        warnings.warn(
            f"{name}: column(s) {sorted(dates)} hold dates, read as days since 1970-01-01 "
            "(numerical; declare them categorical in --schema to compare them as text)",
            UserWarning,
            stacklevel=3,
        )
    return frame.assign(**dates) if dates else frame


def _csv_header(path: Path, sep: str = ",") -> list[str]:
    """The raw header row (pandas would rename duplicates), through the file's compression."""
    frame = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False,
                        encoding="utf-8-sig")  # fmt: skip
    return [] if frame.empty else list(frame.iloc[0])


def check_not_compressed(path: Path) -> None:
    """Refuse a compressed file named ``.csv`` (its bytes would be read as text, and fail with a
    codec message that does not say why), naming its format and the name to give it."""
    with open(path, "rb") as handle:
        start = handle.read(8)
    for magic, suffix in MAGIC.items():
        if start.startswith(magic):
            raise InvalidInputError(
                f"cannot read {path}: it is a compressed file ({COMPRESSED[suffix]}) named .csv; "
                f"rename it {path.name}{suffix} and it is read as one"
            )


def sniff_separator(path: Path) -> str:
    """The CSV's separator: ``","`` unless the header holds no comma and one of
    :data:`SEPARATORS` (a ``;``-separated export read with commas is one column of text that would
    be scored as a table); a warning says which separator was used."""
    try:
        with pd.io.common.get_handle(
            path, "r", compression="infer", encoding="utf-8-sig"
        ) as handle:
            sample = handle.handle.read(64 * 1024)
    except UnicodeDecodeError:  # not text: the reader's own error names the file, nothing to sniff
        return ","
    lines = sample.splitlines()
    header = lines[0] if lines else ""
    if "," in header or not any(s in header for s in SEPARATORS):
        return ","
    try:
        sep = csv.Sniffer().sniff("\n".join(lines[:50]), delimiters=SEPARATORS).delimiter
    except csv.Error:  # a header alone, or ragged lines: the separator the header holds most of
        sep = max(SEPARATORS, key=header.count)
    warnings.warn(f"{path.name} has no comma in its header: read with the separator {sep!r}",
                  UserWarning, stacklevel=3)  # fmt: skip
    return sep


def check_writable(path: str | Path) -> Path:
    """``path``'s folder exists and can be written, checked before any work is done."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InvalidInputError(f"cannot write the report to {path}: no folder {folder}")
    if path.is_dir():
        raise InvalidInputError(f"cannot write the report to {path}: it is a folder")
    if not os.access(folder, os.W_OK):
        raise InvalidInputError(f"cannot write the report to {path}: {folder} is not writable")
    return path


def load_schema(path: str | Path) -> Schema:
    """A schema YAML file (as :meth:`Schema.to_yaml` writes it), with a clear error otherwise."""
    try:
        return Schema.from_yaml(path)
    except Exception as exc:  # missing file, bad YAML, unknown type: one message naming the file
        raise InvalidInputError(f"cannot read the schema {path}: {exc}") from exc


def conform(frame: pd.DataFrame, schema: Schema, name: str) -> pd.DataFrame:
    """Categorical/binary columns as strings and numerical ones as float64, as the metrics expect.

    A categorical column of whole numbers read as floats (a CSV reader does so as soon as one cell
    is empty) is written as the integers ("1", not "1.0"), so that a file with a gap and one
    without share their codes.

    Dates: a datetime column (Parquet datetime64, or a CSV column the schema declares numerical
    whose cells are dates) becomes days since 1970-01-01 (fractional), so that a distance between
    two dates is their difference in days; a datetime column declared categorical becomes its
    ISO text.
    """
    out = frame.copy()
    for col in schema.categorical:
        if col in out:
            values = out[col]
            if pd.api.types.is_datetime64_any_dtype(values):
                values = values.dt.strftime("%Y-%m-%dT%H:%M:%S")
            elif pd.api.types.is_float_dtype(values):
                # codes 1, 2 read as 1.0, 2.0 beside a gap: whole numbers as integers, value by
                # value, so that a few stray values (2001.01) do not recode the others
                values = values.astype(object).map(
                    lambda v: str(int(v)) if float(v).is_integer() else str(v), na_action="ignore"
                )
            text = values.astype(object).map(str, na_action="ignore")
            out[col] = text.where(values.notna(), np.nan).astype(object)
    for col in schema.numerical:
        if col in out:
            out[col] = as_days(out[col])
            try:
                out[col] = pd.to_numeric(out[col]).astype("float64")
            except (ValueError, TypeError) as exc:
                raise InvalidInputError(
                    f"{name} column {col!r} is numerical in the schema but holds non-numbers ({exc})"
                ) from None
    return out


def check_shared_values(real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema) -> None:
    """Refuse a categorical column whose synthetic values include none of the real ones while
    both files have at least two: the files code it differently (1/2 against F/M), and every
    score that compares values would stand as if the release shared nothing with anyone. (A
    release whose column holds one new value throughout is a release, not a coding: allowed,
    with the unseen-category warning.)"""
    for col in schema.categorical:
        real_values, synthetic_values = set(real[col].dropna()), set(synthetic[col].dropna())
        if min(len(real_values), len(synthetic_values)) >= 2 and not real_values & synthetic_values:
            raise InvalidInputError(
                f"column {col!r} shares no value between the files (real: "
                f"{sorted(real_values, key=str)[:4]}, synthetic: {sorted(synthetic_values, key=str)[:4]}): "
                "they code it differently; recode one file"
            )


def as_days(values: pd.Series) -> pd.Series:
    """Dates as fractional days since 1970-01-01 (datetime64 columns, and text columns whose every
    cell parses as a date); any other column unchanged."""
    if pd.api.types.is_datetime64_any_dtype(values):
        dates = values
    elif values.dtype == object and pd.to_numeric(values, errors="coerce").isna().all():
        dates = pd.to_datetime(values, errors="coerce", format="mixed")
        if dates.isna().any():
            return values
    else:
        return values
    if getattr(dates.dt, "tz", None) is not None:
        dates = dates.dt.tz_convert(None)
    return (dates - pd.Timestamp("1970-01-01")) / pd.Timedelta(days=1)


# fewer real rows than this cannot show a column's type: two rows make every column "binary"
MIN_INFER_ROWS = 10


def widen_binaries(schema: Schema, tables: dict[str, pd.DataFrame]) -> Schema:
    """An inferred binary column (two values in the real table) that another table holds more
    values of is read as categorical, with a warning naming it: a DP synthesiser can release a
    value of the declared domain that a sample lacks (Texas ``SEX_CODE``: F, M and U)."""
    binary = [c for c, kind in schema.columns.items() if kind is ColumnType.BINARY]
    wider = sorted(
        c for c in binary
        if any(t[c].dropna().astype(str).nunique() > 2 for t in tables.values() if c in t)
    )  # fmt: skip
    if not wider:
        return schema
    warnings.warn(
        f"column(s) {wider} have two values in the real table and more in another: read as "
        "categorical (pass --schema to say otherwise)",
        UserWarning,
        stacklevel=3,
    )
    return replace(schema, columns={**schema.columns, **{c: ColumnType.CATEGORICAL for c in wider}})


def resolve_schema(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema | None,
    key: list[str] | None,
    sensitive: list[str] | None,
    holdout: pd.DataFrame | None = None,
) -> tuple[Schema, bool]:
    """The schema to use and whether it was inferred; roles from the arguments override the schema's."""
    differ = sorted(set(real.columns) ^ set(synthetic.columns))
    if differ:
        raise InvalidInputError(
            f"the real and synthetic tables have different columns: {differ} are in only one of them"
        )
    inferred = schema is None
    if inferred:
        if len(real) < MIN_INFER_ROWS:
            raise InvalidInputError(
                f"the real table has {len(real)} row(s), too few to tell a column's type (at least "
                f"{MIN_INFER_ROWS}); pass a schema (--schema) or give more rows"
            )
        others = {
            "synthetic data": synthetic,
            **({"holdout": holdout} if holdout is not None else {}),
        }
        schema = widen_binaries(infer_schema(real), others)
    for role, names in (("key", key), ("sensitive", sensitive)):
        absent = [c for c in names or () if c not in real.columns]
        if absent:
            hints = "".join(did_you_mean(c, real.columns) for c in absent)
            raise InvalidInputError(
                f"{role} attribute(s) {absent} are not columns of the data{hints}"
            )
    sensitive = list(sensitive) if sensitive is not None else list(schema.sensitive)
    if key is None and schema.key:
        key = list(schema.key)
        given = "the schema file's key"
    else:
        given = "--key"
    if key is None:  # the default: every column that is not sensitive
        key = [c for c in schema.names if c not in sensitive] if sensitive else []
    both = sorted(set(key) & set(sensitive))
    if both:
        raise InvalidInputError(
            f"attribute(s) {both} are both key ({given}) and sensitive: an attacker who knows a "
            "value has nothing to infer; remove them from one of the two"
        )
    return schema.with_roles(key=key, sensitive=sensitive), inferred


def split_holdout(
    path: str | Path, fraction: float, seed: int = 0, na_values: list[str] | None = None
) -> tuple[Path, Path]:
    """Split the real table at ``path`` at random into a training part and a holdout of
    ``fraction`` of its rows, written beside it in the same format as ``<name>-train`` and
    ``<name>-holdout``; returns their paths. The holdout is what ``--holdout`` wants only if the
    generator is then trained on the training part alone: rows it has seen are members, not a
    baseline. Neither file may exist yet (a user's data is never overwritten)."""
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction < 1:
        raise InvalidInputError(f"--holdout-split must be a fraction in (0, 1), got {fraction!r}")
    path = Path(path)
    frame = read_table(path, na_values)
    n_holdout = int(round(fraction * len(frame)))
    if not 0 < n_holdout < len(frame):
        raise InvalidInputError(
            f"--holdout-split {fraction:g} of {len(frame)} row(s) leaves one part empty: give a "
            "larger table or another fraction"
        )
    compressed = len(path.suffixes) >= 2 and path.suffixes[-1].lower() in COMPRESSED
    extension = "".join(path.suffixes[-2:]) if compressed else path.suffix
    base = path.name[: len(path.name) - len(extension)]
    out = tuple(path.with_name(f"{base}-{part}{extension}") for part in ("train", "holdout"))
    existing = [str(p) for p in out if p.exists()]
    if existing:
        raise InvalidInputError(
            f"--holdout-split would overwrite {', '.join(existing)}: move it first"
        )
    order = np.random.default_rng(seed).permutation(len(frame))
    parts = (frame.iloc[np.sort(order[n_holdout:])], frame.iloc[np.sort(order[:n_holdout])])
    for target, part in zip(out, parts, strict=True):
        if target.suffix.lower() in (".parquet", ".pq"):
            part.to_parquet(target, index=False)
        else:
            part.to_csv(target, index=False)
    return out
