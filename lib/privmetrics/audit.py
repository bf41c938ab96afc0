"""Audit your own synthetic data: one call (:func:`audit`) and the ``privmetrics audit`` command.

>>> from privmetrics.audit import audit
>>> audit(real, synthetic, sensitive=["diagnosis"])          # the paper's final seven metrics
>>> audit(real, synthetic, schema=schema, metrics="all")      # every registered metric

When no schema is given it is inferred (:func:`privmetrics.data.schema.infer_schema`) and printed as
YAML, so it can be saved, corrected and passed back with ``schema=`` / ``--schema``. Key attributes
default to every column that is not sensitive (the strong attacker the datasets use). A metric
that needs sensitive attributes when none are given is not run, and its reading says why.
Categorical and binary columns are compared as strings, numerical ones as float64.
"""

from __future__ import annotations

import base64
import html
import io
import os
import platform
import sys
import time
import warnings
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from privmetrics.data.schema import Schema, did_you_mean, infer_schema
from privmetrics.data.validation import InvalidInputError, check_count, validate
from privmetrics.geometry.pair import Pair
from privmetrics.metrics import select
from privmetrics.threads import available_cores, limited

# score bands for the reading without baselines: the upper bound of each band, and what it says
BANDS = ((0.2, "low risk"), (0.5, "moderate risk"), (0.8, "high risk"), (1.01, "very high risk"))
# With baselines: where the score sits between Random (0) and Real (1) on the same real table.
# Thirds, because nothing calibrates an absolute cut-off (the ALC paper finds no evidential basis
# for anonymity thresholds): the bands only say which end of what this data allows the release
# is nearer to, and a band is named only when the whole position interval lies inside it.
POSITION_BANDS = ((1 / 3, "near Random"), (2 / 3, "between Random and Real"), (np.inf, "near Real"))
MIN_SPAN = 0.01  # Random and Real closer than this: the metric cannot place a release here
RANDOM_RUNS = 3  # Random draws per audit: their spread is the position's uncertainty


def reading(score: float) -> str:
    """A short reading of a score on the paper's scale (0 = private, 1 = no privacy), by fixed
    bands; used only when no baselines are computed."""
    for upper, words in BANDS:
        if score < upper:
            return words
    return BANDS[-1][1]


def position(score: float, random: float, real: float) -> float:
    """Where ``score`` sits between the Random (0) and Real (1) scores of the same real table;
    NaN when they are closer than ``MIN_SPAN``."""
    span = real - random
    if not np.isfinite(span) or abs(span) < MIN_SPAN:
        return np.nan
    return float((score - random) / span)


def standard_error(values) -> float:
    """SEM of the Random draws: sample SD / sqrt(n); 0 for a single draw."""
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


def position_interval(score: float, randoms, real: float) -> tuple[float, float, float]:
    """The position (:func:`position`, against the mean of the Random draws) and its interval: the
    positions against the mean Random score plus and minus its standard error over the draws.

    The release and Real are fixed tables, so their scores are fixed; the Random baseline is one
    random draw of many, and that is the uncertainty in where the release sits.
    """
    mean, sem = float(np.mean(randoms)), standard_error(randoms)
    ends = sorted(position(score, mean + d, real) for d in (-sem, sem))
    return position(score, mean, real), ends[0], ends[1]


def _band(where: float) -> str:
    return next(words for upper, words in POSITION_BANDS if where < upper)


def relative_reading(score: float, random: float, real: float, low=None, high=None) -> str:
    """The reading relative to what this data allows: thirds of the Random-to-Real distance (a
    release a third of the way towards a copy is "near Random", two thirds "near Real"). With a
    position interval (``low``, ``high``) that straddles a band boundary, both bands are named."""
    where = position(score, random, real)
    if np.isnan(where):
        return "uninformative here (Random and Real score alike on this data)"
    low, high = (where, where) if low is None or np.isnan(low) else (low, high)
    bands = list(dict.fromkeys(_band(x) for x in (low, where, high)))
    words = bands[0] if len(bands) == 1 else f"on the border: {' / '.join(bands)}"
    spread = f", {low:.0%}-{high:.0%}" if high - low >= 0.005 else ""
    return f"{words} ({where:.0%} of the way from Random to Real{spread})"


COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip"}
SUPPORTED = ".csv, .csv.gz, .csv.bz2, .csv.xz, .zip (one CSV inside), .parquet, .pq"


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
    suffixes = [x.lower() for x in path.suffixes[-2:]]
    last = suffixes[-1] if suffixes else ""
    is_csv = last == ".csv" or last == ".zip" or (last in COMPRESSED and ".csv" in suffixes)
    if last not in (".parquet", ".pq") and not is_csv:
        raise InvalidInputError(
            f"cannot read {path}: {''.join(path.suffixes) or 'no extension'} is not a supported "
            f"format; use one of {SUPPORTED}"
        )
    try:
        if last in (".parquet", ".pq"):
            frame = pd.read_parquet(path)
        else:
            header = _csv_header(path)
            duplicated = sorted({c for c in header if header.count(c) > 1})
            if duplicated:
                raise InvalidInputError(f"{path} has duplicate column name(s) {duplicated}")
            frame = pd.read_csv(path, keep_default_na=False, na_values=["", *(na_values or [])])
    except InvalidInputError:
        raise
    except Exception as exc:  # any parser error becomes one message naming the file
        raise InvalidInputError(f"cannot read {path}: {exc}") from exc
    duplicated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
    if duplicated:
        raise InvalidInputError(f"{path} has duplicate column name(s) {duplicated}")
    return frame


def _csv_header(path: Path) -> list[str]:
    """The raw header row (pandas would rename duplicates), through the file's compression."""
    frame = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False,
                        encoding="utf-8-sig")  # fmt: skip
    return [] if frame.empty else list(frame.iloc[0])


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
            out[col] = values.where(values.isna(), values.astype(str)).astype(object)
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
        real_values, synthetic_values = set(real[col]), set(synthetic[col])
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


def resolve_schema(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema | None,
    key: list[str] | None,
    sensitive: list[str] | None,
) -> tuple[Schema, bool]:
    """The schema to use and whether it was inferred; roles from the arguments override the schema's."""
    differ = sorted(set(real.columns) ^ set(synthetic.columns))
    if differ:
        raise InvalidInputError(
            f"the real and synthetic tables have different columns: {differ} are in only one of them"
        )
    inferred = schema is None
    if inferred:
        schema = infer_schema(real)
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


@dataclass
class AuditReport:
    """The audit's table plus everything the HTML report shows about how it was made."""

    table: pd.DataFrame
    schema: Schema
    schema_inferred: bool
    seconds: float
    shapes: dict[str, tuple[int, int]]
    remarks: list[str] = field(default_factory=list)

    def to_html(self, sources: dict[str, str] | None = None) -> str:
        return render_html(self, sources or {})


def audit(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema | None = None,
    key: list[str] | None = None,
    sensitive: list[str] | None = None,
    metrics: str | list[str] = "selected",
    seed: int = 0,
    progress: bool = False,
    report: bool = False,
    baselines: bool = True,
    random_runs: int = RANDOM_RUNS,
    targets: int | None = None,
) -> pd.DataFrame | AuditReport:
    """Score ``synthetic`` against ``real`` with the chosen metrics.

    Returns a tidy DataFrame (metric, category, score, reading; with ``baselines`` also the
    scores of the two baselines on the same real table, Random (the paper's Algorithm 22: the mean
    of ``random_runs`` seeded draws, and its SEM) and Real (the table itself), and the score's
    position between them with its interval (:func:`position_interval`)), or the full
    :class:`AuditReport` with ``report=True``. With baselines the reading is relative (see
    :func:`relative_reading`): a score means little until it is set against what the data allows;
    without them it falls back to fixed bands of the raw score. ``metrics``: ``"selected"`` (the paper's final seven, Table 12), ``"all"``,
    or names. Bad input raises :class:`~privmetrics.data.validation.InvalidInputError` naming the problem.
    ``targets``: for tables too large for every pair, score from that many random target rows
    of each table (:mod:`privmetrics.metrics.sampled`; the baselines too); a metric that is not an
    average over rows is then not run, and says so.
    """
    start = time.perf_counter()
    for name, frame in (("real data", real), ("synthetic data", synthetic)):
        if not isinstance(frame, pd.DataFrame):
            raise InvalidInputError(
                f"{name} must be a pandas DataFrame, got {type(frame).__name__}"
            )
    try:
        specs = select(metrics)
    except KeyError as exc:
        raise InvalidInputError(str(exc.args[0])) from None
    schema, inferred = resolve_schema(real, synthetic, schema, key, sensitive)
    if inferred:
        print("inferred schema (save it, correct it and pass it back with --schema / schema=):")
        print(schema.to_yaml(), end="")
    real, synthetic = (
        conform(real, schema, "real data"),
        conform(synthetic, schema, "synthetic data"),
    )
    checks = validate(real, synthetic[real.columns], schema)
    check_shared_values(real, synthetic, schema)
    if targets is not None:
        check_count("targets", targets)
    pair = pair_of(real, synthetic[real.columns], schema, seed, targets)
    check_count("random_runs", random_runs)
    ends = baseline_pairs(real, schema, seed, random_runs, targets) if baselines else {}
    rows = []
    for spec in tqdm(specs, desc="metrics", disable=not progress):
        missing = [
            role
            for role in ("key", "sensitive")
            if role in spec.needs and not getattr(schema, role)
        ]
        why = f"needs {' and '.join(missing)} attributes (--sensitive)" if missing else ""
        if targets and not spec.at_scale:
            why = "not an average over rows, it needs every pair (leave out --targets)"
        if why:
            rows.append(
                {"metric": spec.name, "category": str(spec.category), "score": np.nan,
                 "reading": f"not run: {why}"}
            )  # fmt: skip
            continue
        with limited(available_cores()):  # the cores this process may use, not the machine's
            score = spec(pair)
            row = {"metric": spec.name, "category": str(spec.category), "score": score}
            if ends:
                randoms = [spec(end) for end in ends["Random"]]
                row["Random"] = float(np.mean(randoms))
                row["Random SEM"] = standard_error(randoms)
                row["Real"] = spec(ends["Real"])
                where, low, high = position_interval(score, randoms, row["Real"])
                row.update({"position": where, "position low": low, "position high": high})
                words = relative_reading(score, row["Random"], row["Real"], low, high)
            else:
                words = reading(score)
        rows.append({**row, "reading": f"{words}: {spec.summary}"})
    compared = ["Random", "Random SEM", "Real", "position", "position low", "position high"]
    columns = ["metric", "category", "score", *(compared if ends else [])]
    table = pd.DataFrame(rows, columns=[*columns, "reading"])
    if not report:
        return table
    return AuditReport(
        table=table,
        schema=schema,
        schema_inferred=inferred,
        seconds=time.perf_counter() - start,
        shapes={"real": real.shape, "synthetic": synthetic.shape},
        remarks=([] if checks.ok else [str(checks)])
        + ([f"scores from {targets:,} random target rows of each table"] if targets else []),
    )


def pair_of(real, synthetic, schema, seed: int, targets: int | None) -> Pair:
    """A :class:`Pair`, or a :class:`~privmetrics.metrics.sampled.SampledPair` when ``targets`` is given."""
    if targets:
        from privmetrics.metrics.sampled import SampledPair

        return SampledPair(real, synthetic, schema, seed=seed, targets=targets)
    return Pair(real, synthetic, schema, seed=seed)


def baseline_pairs(
    real: pd.DataFrame, schema: Schema, seed: int, random_runs: int = 1, targets: int | None = None
) -> dict:
    """The two baselines on the user's own real table: ``"Random"``, a list of ``random_runs``
    pairs with seeds ``seed``, ``seed + 1``, ...; ``"Real"``, one pair with a copy (pairs of
    ``targets`` sampled rows when given)."""
    from privmetrics.data.validation import OutlierWarning, UnseenCategoryWarning
    from privmetrics.synthesisers import make_synthesiser

    randoms = [
        make_synthesiser("random", seed=seed + k).fit_sample(real, schema)
        for k in range(random_runs)
    ]
    with warnings.catch_warnings():  # Random's new categories and far values are by design
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        warnings.simplefilter("ignore", OutlierWarning)
        return {
            "Random": [pair_of(real, r[real.columns], schema, seed, targets) for r in randoms],
            "Real": pair_of(real, real.copy(), schema, seed, targets),
        }


def score_chart(table: pd.DataFrame) -> str:
    """A horizontal bar chart of the scores, coloured by attack category, as a base64 PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = table.dropna(subset=["score"])
    colours = {
        "reconstruction": "tab:purple",
        "re-identification": "tab:blue",
        "tracing": "tab:green",
    }
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(shown) + 1.2))
    ax.barh(shown.metric, shown.score, color=[colours.get(c, "grey") for c in shown.category])
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("score (0 = private, 1 = no privacy)")
    for category, colour in colours.items():
        if category in set(shown.category):
            ax.bar(0, 0, color=colour, label=category)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def render_html(report: AuditReport, sources: dict[str, str]) -> str:
    from privmetrics.metrics import get_metric

    versions = {
        "privmetrics": version("privmetrics"),
        "python": platform.python_version(),
        **{p: version(p) for p in ("numpy", "pandas", "scikit-learn", "scipy")},
    }
    explained = "".join(
        f"<dt>{html.escape(m)}</dt><dd>{html.escape(get_metric(m).doc.split(chr(10) + chr(10))[0])}</dd>"
        for m in report.table.metric
    )
    inputs = {
        **{f"{k} file": v for k, v in sources.items()},
        **{f"{k} rows x columns": f"{r} x {c}" for k, (r, c) in report.shapes.items()},
        "schema": "inferred from the real data" if report.schema_inferred else "given",
        "key attributes": ", ".join(report.schema.key) or "none",
        "sensitive attributes": ", ".join(report.schema.sensitive) or "none",
        "time taken": f"{report.seconds:.1f} s",
        **{f"version of {k}": v for k, v in versions.items()},
    }
    rows = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
        for k, v in inputs.items()
    )
    remarks = "".join(f"<p><em>{html.escape(r)}</em></p>" for r in report.remarks)
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>privmetrics audit</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left}}dt{{font-weight:bold;margin-top:.6em}}</style>
</head><body>
<h1>Privacy audit of a synthetic table</h1>
<p>Scores follow Hansen &amp; Stær's convention: 0 means private, 1 means no privacy (the synthetic
table leaks as much as the real one would).</p>
<h2>Scores</h2>
{report.table.to_html(index=False, float_format=lambda v: f"{v:.3f}", na_rep="not run")}
<h2>Scores by attack category</h2>
<img alt="bar chart of the scores by attack category" src="data:image/png;base64,{score_chart(report.table)}">
{remarks}
<h2>What each metric measures</h2><dl>{explained}</dl>
<h2>Inputs and environment</h2><table>{rows}</table>
<h2>Schema</h2><pre>{html.escape(report.schema.to_yaml())}</pre>
</body></html>
"""


def main(args) -> int:
    """``privmetrics audit``: exit 0 with a table (and a report), or 2 with one line naming the
    problem. Warnings (unseen categories, extreme values, a skipped attribute) are printed."""
    try:
        out = check_writable(args.out) if args.out else None
        real = read_table(args.real, args.na_values)
        synthetic = read_table(args.synthetic, args.na_values)
        schema = load_schema(args.schema) if args.schema else None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = audit(
                real, synthetic, schema=schema, key=args.key, sensitive=args.sensitive,
                metrics=args.metrics, seed=args.seed, progress=True, report=True,
                baselines=not args.no_baselines, random_runs=args.random_runs,
                targets=args.targets,
            )  # fmt: skip
    except InvalidInputError as exc:
        print(f"privmetrics audit: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # anything else still ends in one line and exit 2
        print(
            f"privmetrics audit: error: {type(exc).__name__}: {exc} (unexpected: please report it)",
            file=sys.stderr,
        )
        return 2
    for message in dict.fromkeys(str(w.message) for w in caught):
        print(f"warning: {message}")
    with pd.option_context("display.max_colwidth", 70, "display.width", 160):
        print(result.table.to_string(index=False, float_format=lambda v: f"{v:.3f}", na_rep="-"))
    print(f"{len(result.table)} metrics in {result.seconds:.1f} s")
    if out:
        out.write_text(result.to_html({"real": str(args.real), "synthetic": str(args.synthetic)}))
        print(f"report written to {out}")
    return 0
