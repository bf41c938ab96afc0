"""Readings: every metric scored on the release and on the two baselines built from the user's own
real table (Random, Algorithm 22; Real, a copy), and where the release sits between them.

May import ``data``, ``geometry``, ``metrics``, ``synthesisers`` and the audit's :mod:`.reading`
and :mod:`.report`.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
from tqdm import tqdm

from privmetrics.audit.reading import check_shared_values, conform, resolve_schema
from privmetrics.audit.report import AuditReport
from privmetrics.data.schema import Schema
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
# With a holdout (real rows the generator never saw) the lower end is the holdout instead: what a
# generator of new people from the same population would score.
POSITION_BANDS = ((1 / 3, "near {low}"), (2 / 3, "between {low} and Real"), (np.inf, "near Real"))


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


def _band(where: float, anchor: str) -> str:
    return next(words for upper, words in POSITION_BANDS if where < upper).format(low=anchor)


def relative_reading(
    score: float, random: float, real: float, low=None, high=None, anchor: str = "Random"
) -> str:
    """The reading relative to what this data allows: thirds of the distance from the lower end
    (``random``: the Random baseline's score, or the holdout's with ``anchor="holdout"``) to Real
    (a release a third of the way towards a copy is "near Random", two thirds "near Real"). With a
    position interval (``low``, ``high``) that straddles a band boundary, both bands are named."""
    where = position(score, random, real)
    if np.isnan(where):
        return f"uninformative here ({anchor} and Real score alike on this data)"
    low, high = (where, where) if low is None or np.isnan(low) else (low, high)
    bands = list(dict.fromkeys(_band(x, anchor) for x in (low, where, high)))
    words = bands[0] if len(bands) == 1 else f"on the border: {' / '.join(bands)}"
    spread = f", {low:.0%}-{high:.0%}" if high - low >= 0.005 else ""
    return f"{words} ({where:.0%} of the way from {anchor} to Real{spread})"


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
    holdout: pd.DataFrame | None = None,
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

    ``holdout``: real rows of the same population that the generator never saw. Each metric is
    also scored with the holdout in the release's place (column ``Holdout``), and the position runs
    from the holdout (0: what a generator of new people would give) to Real (1) instead of from
    Random; Random's scores stay beside it. Without a holdout, "near Random" means only "nearer to
    noise than to a copy", not "safe". The holdout should have about as many rows as the release
    (a metric's score depends on the number of rows it searches); a warning says when it has not.
    """
    start = time.perf_counter()
    named = [("real data", real), ("synthetic data", synthetic)]
    for name, frame in named + ([("holdout data", holdout)] if holdout is not None else []):
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
    if holdout is not None:
        holdout = conform(holdout, schema, "holdout data")
        check_shared_values(real, holdout, schema)
        if abs(len(holdout) - len(synthetic)) > 0.1 * len(synthetic):
            warnings.warn(
                f"the holdout has {len(holdout):,} rows and the release {len(synthetic):,}: a "
                "metric's score depends on how many rows it searches, so the holdout's scores are "
                "a fair lower end only for a release of about its size",
                UserWarning,
                stacklevel=2,
            )
        ends["Holdout"] = pair_of(real, holdout[real.columns], schema, seed, targets, "holdout")
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
            if "Real" in ends:
                randoms = [spec(end) for end in ends["Random"]]
                row["Random"] = float(np.mean(randoms))
                row["Random SEM"] = standard_error(randoms)
                row["Real"] = spec(ends["Real"])
                where, low, high = position_interval(score, randoms, row["Real"])
                anchor = "Random"
                if "Holdout" in ends:  # a fixed table: no draws, no interval
                    row["Holdout"] = spec(ends["Holdout"])
                    where = low = high = position(score, row["Holdout"], row["Real"])
                    anchor = "holdout"
                row.update({"position": where, "position low": low, "position high": high})
                lower = row["Holdout"] if anchor == "holdout" else row["Random"]
                words = relative_reading(score, lower, row["Real"], low, high, anchor)
            elif "Holdout" in ends:
                row["Holdout"] = spec(ends["Holdout"])
                words = f"{reading(score)} (the holdout scores {row['Holdout']:.3f})"
            else:
                words = reading(score)
        rows.append({**row, "reading": f"{words}: {spec.summary}"})
    compared = ["Random", "Random SEM", "Real", "position", "position low", "position high"]
    columns = ["metric", "category", "score", *(["Holdout"] if "Holdout" in ends else []),
               *(compared if "Real" in ends else [])]  # fmt: skip
    table = pd.DataFrame(rows, columns=[*columns, "reading"])
    if not report:
        return table
    return AuditReport(
        table=table,
        schema=schema,
        schema_inferred=inferred,
        seconds=time.perf_counter() - start,
        shapes={"real": real.shape, "synthetic": synthetic.shape,
                **({"holdout": holdout.shape} if holdout is not None else {})},  # fmt: skip
        remarks=([] if checks.ok else [str(checks)])
        + ([f"scores from {targets:,} random target rows of each table"] if targets else []),
    )


def pair_of(
    real, synthetic, schema, seed: int, targets: int | None, name: str = "synthetic"
) -> Pair:
    """A :class:`Pair`, or a :class:`~privmetrics.metrics.sampled.SampledPair` when ``targets``
    is given; ``name`` is what its checks call the second table."""
    if targets:
        from privmetrics.metrics.sampled import SampledPair

        return SampledPair(real, synthetic, schema, seed=seed, targets=targets, name=name)
    return Pair(real, synthetic, schema, seed=seed, name=name)


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
