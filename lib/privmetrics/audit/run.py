"""The audit itself: every chosen metric scored on the release and on the references built from
the user's own real table, then the verdict, the row-level evidence, singling out, linkability
and inference with the holdout as control (:mod:`.criteria`) and the utility panel.

The references: Random (the paper's Algorithm 22, ``random_runs`` seeded draws), Real (a copy)
and, when given, the holdout (real rows the generator never saw). Every table goes through one
missing-value treatment (:mod:`privmetrics.data.missing`) before any is scored, so that all of
them share one encoding.

May import ``data``, ``geometry``, ``metrics``, ``synthesisers`` and the audit's other modules.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm import tqdm

from privmetrics.audit import references as kept_references
from privmetrics.audit.cost import estimate, say
from privmetrics.audit.criteria import criteria_panel
from privmetrics.audit.evidence import excess_copies, excess_nearness, row_evidence
from privmetrics.audit.files import check_shared_values, conform, resolve_schema
from privmetrics.audit.positions import (
    RANDOM_RUNS,
    position,
    position_interval,
    reading,
    relative_reading,
    standard_error,
)
from privmetrics.audit.references import (
    HOLDOUT_RANDOM_RUNS,
    KEPT,
    Kept,
    Reference,
    content_key,
    equal_remark,
    equal_rows,
    pair_of,
    reference_pairs,
    table_size,
    unscored,
    work_line,
)
from privmetrics.audit.report import AuditReport
from privmetrics.audit.utility import holdout_problem, looks_useless, utility_panel
from privmetrics.audit.verdict import decide
from privmetrics.data.missing import MissingValuesWarning, treat_missing
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError, check_count
from privmetrics.geometry.neighbours import knn
from privmetrics.geometry.real_side import RealSide
from privmetrics.metrics import select
from privmetrics.threads import available_cores, limited


def audit(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema | None = None,
    key: list[str] | None = None,
    sensitive: list[str] | None = None,
    metrics: str | list[str] = "selected",
    seed: int = 0,
    progress: bool | Callable[[str], None] = False,
    report: bool = False,
    baselines: bool = True,
    random_runs: int | None = None,
    targets: int | None = None,
    holdout: pd.DataFrame | None = None,
    missing: str = "indicator",
) -> pd.DataFrame | AuditReport:
    """Score ``synthetic`` against ``real`` with the chosen metrics.

    Returns a tidy DataFrame (metric, category, score, reading; with ``baselines`` also the
    scores of the references on the same real table: Random (the paper's Algorithm 22: the mean
    of ``random_runs`` seeded draws, and its SEM) and Real (the table itself), and the score's
    position between them with its interval (:func:`~privmetrics.audit.positions.position_interval`)),
    or with ``report=True`` the full :class:`AuditReport`: the table plus the verdict
    (:mod:`.verdict`), the exposed rows (:mod:`.evidence`) and the utility panel (:mod:`.utility`).
    With baselines the reading is relative (:func:`~privmetrics.audit.positions.relative_reading`):
    a score means little until it is set against what the data allows; without them it falls back
    to fixed bands of the raw score. ``metrics``: ``"selected"`` (the paper's final seven, Table
    12), ``"all"``, or names. Bad input raises
    :class:`~privmetrics.data.validation.InvalidInputError` naming the problem.

    ``targets``: for tables too large for every pair, score from that many random target rows
    of each table (:mod:`privmetrics.metrics.sampled`; the references too); a metric that is not
    an average over rows is then not run, and says so.

    ``random_runs``: Random draws; by default :data:`~privmetrics.audit.positions.RANDOM_RUNS`
    without a holdout (their spread is the position's interval) and :data:`HOLDOUT_RANDOM_RUNS`
    with one (the position then runs from the holdout, a fixed table without an interval, and
    Random is only shown beside it).

    ``holdout``: real rows of the same population that the generator never saw. Each metric is
    also scored with the holdout in the release's place (column ``Holdout``), the position runs
    from the holdout (0: what a generator of new people would give) to Real (1) instead of from
    Random, and the ALC uses the holdout as its control set. Without a holdout, "near Random" means
    only "nearer to noise than to a copy", not "safe". The holdout should have about as many rows
    as the release (a metric's score depends on the number of rows it searches); a warning says
    when it has not.

    ``progress``: a bar over the scorings and, before them, what will be scored (and for a large
    table its estimated time) and an inferred schema, written to stderr beside the bar; a
    callable receives these lines instead (the command prints them).

    ``missing``: the rule for missing values (:mod:`privmetrics.data.missing`): ``"indicator"``
    (a gap is a category, or a flag beside a median-filled number), ``"drop-rows"`` or
    ``"refuse"``; the report says what was done.
    """
    start = time.perf_counter()
    tell = progress if callable(progress) else (lambda line: tqdm.write(line, file=sys.stderr))
    specs, random_runs = _checked(real, synthetic, holdout, metrics, random_runs, targets)
    given = prepare(real, synthetic, holdout, schema, key, sensitive, missing)
    real, synthetic, holdout, schema = given.real, given.synthetic, given.holdout, given.schema
    kept, pairs = tables_to_score(given, seed, targets, random_runs if baselines else 0, baselines)
    if given.inferred and progress:  # said after every check, before the work
        tell("inferred schema (save it, correct it and pass it back with --schema / schema=):\n"
             + given.user_schema.to_yaml().rstrip("\n"))  # fmt: skip
    reasons = {spec.name: not_run(spec, schema, targets) for spec in specs}
    runnable = [spec for spec in specs if not reasons[spec.name]]
    anchor = "holdout" if holdout is not None else "Random"
    estimated = None
    if progress:  # the work, and for a large table its cost, said before the work starts
        todo = [name for name in pairs if unscored(kept, name, runnable)]
        line = work_line(pairs, todo, runnable, len(real))
        if len(real) >= ESTIMATE_ROWS:
            shared = bool(kept.scores)  # the release takes the real side from a kept pair
            sizes = [table_size(pairs[name], first=k == 0 and not shared)
                     for k, name in enumerate(todo)]  # fmt: skip
            estimated = estimate(kept.side, synthetic, runnable, seed, sizes)
            line += f": {say(estimated)}"
        tell(line)
    scores, seconds = score_all(pairs, runnable, bool(progress), kept)
    table = assemble(scores, specs, reasons, anchor)
    if not report:
        return table
    result = full_report(given, table, pairs, seconds, estimated, anchor, seed, targets)
    result.seconds = time.perf_counter() - start
    return result


def tables_to_score(given: Prepared, seed: int, targets, runs: int, with_real: bool):
    """(the references kept for this real table, {table: Reference} with the release first): every
    pair on one :class:`RealSide`, so that the real table is checked and encoded once however
    many tables are scored against it, and once for several releases of it (:mod:`.references`).
    The release is checked here (``given.checks``; its whole pair is ``given.release``), and the
    inputs' likely mistakes are said. With a holdout of another size than the release, the
    release, the holdout and Real are scored on :func:`~privmetrics.audit.references.equal_rows` random rows each."""
    real, holdout, schema, synthetic = given.real, given.holdout, given.schema, given.synthetic
    given.equal = equal = equal_rows(len(real), len(synthetic), holdout)
    key = content_key(real, holdout, schema, seed=seed, targets=targets, runs=runs,
                      with_real=with_real, equal=equal,
                      sampled=(kept_references.SAMPLED_RANDOM_ROWS, kept_references.RANDOM_TARGETS))  # fmt: skip
    kept = KEPT.get(key)
    if kept is None:
        side = RealSide(real, schema)
        references = reference_pairs(side, holdout, seed, targets, runs, with_real, equal)
        kept = KEPT.keep(key, side, references)
    given.release = pair_of(kept.side, synthetic, seed, targets, control=holdout)
    given.checks = given.release.report
    check_inputs(given, kept.side)
    release = given.release
    if equal is not None and equal < len(synthetic):
        scored = synthetic.sample(equal, random_state=seed).reset_index(drop=True)
        release = pair_of(kept.side, scored, seed, targets, control=holdout)
    return kept, {"release": Reference(release), **kept.pairs}


def _checked(real, synthetic, holdout, metrics, random_runs, targets):
    """The arguments checked: (the metrics' specs, the Random draws to score)."""
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
    if random_runs is None:  # with a holdout the position runs from it: one draw shows noise
        random_runs = RANDOM_RUNS if holdout is None else HOLDOUT_RANDOM_RUNS
    check_count("random_runs", random_runs)
    if targets is not None:
        check_count("targets", targets)
    return specs, random_runs


@dataclass
class Prepared:
    """The audit's tables as every scoring sees them: conformed to one schema, missing values
    treated, checked; ``shapes`` and ``real_rows`` (the real rows' numbers in the user's file)
    as the user's files have them, ``user_schema`` before the missing-value flags."""

    real: pd.DataFrame
    synthetic: pd.DataFrame
    holdout: pd.DataFrame | None
    schema: Schema
    user_schema: Schema
    inferred: bool
    shapes: dict
    real_rows: np.ndarray
    checks: object  # the release's ValidationReport, once its pair is built
    gaps: object
    release: object = None  # the release's pair, every row (tables_to_score)
    equal: int | None = None  # rows each table is scored on at equal sizes (equal_rows)


def prepare(real, synthetic, holdout, schema, key, sensitive, missing) -> Prepared:
    """Validate and treat the tables once (:class:`Prepared`); a mistake that makes every score
    meaningless is refused, one that only weakens them is a warning."""
    shapes = {"real": real.shape, "synthetic": synthetic.shape,
              **({"holdout": holdout.shape} if holdout is not None else {})}  # fmt: skip
    schema, inferred = resolve_schema(real, synthetic, schema, key, sensitive, holdout)
    user_schema = schema
    tables = {"real data": conform(real, schema, "real data"),
              "synthetic data": conform(synthetic, schema, "synthetic data")[real.columns]}  # fmt: skip
    if holdout is not None:
        absent = [c for c in real.columns if c not in holdout.columns]
        extra = [c for c in holdout.columns if c not in real.columns]
        if absent or extra:
            which = (f"lacks column(s) {absent} of the real table" if absent
                     else f"has column(s) {extra} that the real table lacks")  # fmt: skip
            raise InvalidInputError(
                f"the holdout {which}: it must have the same columns (real rows the generator "
                "never saw)"
            )
        tables["holdout data"] = conform(holdout, schema, "holdout data")[real.columns]
    for name in list(tables)[1:]:
        check_shared_values(tables["real data"], tables[name], schema)
    tables, schema, gaps = treat_missing(tables, schema, missing)
    if gaps.any:
        warnings.warn(str(gaps), MissingValuesWarning, stacklevel=3)
    real_rows = tables["real data"].index.to_numpy()
    real, synthetic = (tables[n].reset_index(drop=True) for n in ("real data", "synthetic data"))
    holdout = tables["holdout data"].reset_index(drop=True) if holdout is not None else None
    return Prepared(real, synthetic, holdout, schema, user_schema, inferred, shapes, real_rows,
                    None, gaps)  # fmt: skip


def check_inputs(given: Prepared, side: RealSide) -> None:
    """Refuse swapped files against a holdout; warn of what else looks like a mistake
    (:func:`mistakes`). A holdout of another size than the release is no mistake: the tables are
    then scored at equal sizes (:func:`~privmetrics.audit.references.equal_rows`), and the report says so."""
    synthetic, holdout = given.synthetic, given.holdout
    for problem in mistakes(side, synthetic, holdout):
        if holdout is not None and problem.startswith(SWAPPED_WORDS):
            raise InvalidInputError(
                f"{problem}. Refused: every score would read the real data as the release. If "
                "the files are in order, the release was made from the holdout, which then is "
                "no holdout"
            )
        warnings.warn(problem, UserWarning, stacklevel=4)


def full_report(given: Prepared, table, pairs, seconds, estimated, anchor, seed, targets):
    """The :class:`AuditReport` around the scores' ``table``: the verdict, the exposed rows, the
    three criteria and the utility panel."""
    real, synthetic, holdout, schema = given.real, given.synthetic, given.holdout, given.schema
    release = given.release  # every row of it, whatever the scoring's sizes
    # the panel's pairs: a sampled pair holds every row too (only its searches are sampled)
    named = {"Holdout": "Holdout", "Random": "Random 1"}
    references = {"release": release,
                  **{label: pairs[key].scored for label, key in named.items() if key in pairs}}  # fmt: skip
    with limited(available_cores()):
        panel = utility_panel(references)
        whole = "Holdout" in pairs and len(pairs["Holdout"].pair.synthetic) == len(holdout)
        held = pairs["Holdout"].pair if whole else None  # its searches, when on every row
        evidence, evidence_lines = row_evidence(release, holdout, given.real_rows, held)
        criteria, criteria_lines = criteria_panel(real, synthetic, holdout, schema, seed)
    split = holdout_problem(panel)
    if split:
        warnings.warn(split, UserWarning, stacklevel=3)
    result = AuditReport(
        table=table,
        schema=schema,
        schema_inferred=given.inferred,
        seconds=0.0,
        shapes=given.shapes,
        remarks=([] if given.checks.ok else [str(given.checks)])
        + ([str(given.gaps)] if given.gaps.any else [])
        + ([split] if split else [])
        + ([f"scores from {targets:,} random target rows of each table"] if targets else [])
        + (
            [equal_remark(given.equal, len(synthetic), len(holdout), len(real))]
            if given.equal is not None
            else []
        ),
        evidence=evidence,
        evidence_lines=evidence_lines,
        criteria=criteria,
        criteria_lines=criteria_lines,
        utility=panel,
        costs=seconds,
        estimated=estimated,
        anchor=anchor,
    )
    # with a holdout, the three criteria are attack measures of the verdict too
    # against Random only: copies beyond the twins, or real rows nearer to it than to each other
    copies = excess_copies(real, synthetic) if holdout is None else None
    nearer = excess_nearness(release) if holdout is None else None
    result.verdict = decide(result.judged, anchor, looks_useless(panel), copies, nearer)
    if split:
        result.verdict.headline += f" Caution: {split}."
    return result


# From this many real rows on, the command estimates the audit's time before it starts (the
# probes cost a few seconds; a smaller audit is over before an estimate would help).
ESTIMATE_ROWS = 5_000


def not_run(spec, schema: Schema, targets) -> str:
    """Why ``spec`` cannot run on this audit ("" when it can)."""
    missing = [r for r in ("key", "sensitive") if r in spec.needs and not getattr(schema, r)]
    if missing:
        return f"needs {' and '.join(missing)} attributes (--sensitive)"
    if targets and not spec.at_scale:
        return "not an average over rows, it needs every pair (leave out --targets)"
    return ""


def score_all(pairs: dict[str, Reference], runnable, progress: bool, kept: Kept | None = None):
    """Every ``runnable`` metric on every table: ({table: {metric: score}}, {table: seconds}).

    One progress bar over all scorings. The real table is the same in every pair, so what
    depends on it alone (its rows' nearest other real row) is computed once and shared. ``kept``:
    the references' scores so far (:mod:`.references`), read and added to; a table it already
    holds every metric of is not scored again, and its seconds are those it took then."""
    kept = kept if kept is not None else Kept(None, {})
    scores, seconds = {}, {}
    todo = {name: [s for s in runnable if s.name not in kept.scores.get(name, {})]
            for name in pairs}  # fmt: skip
    bar = tqdm(total=sum(map(len, todo.values())), desc="scoring", disable=not progress)
    # a reference scored before has searched the real side already
    first = next((pairs[name].pair for name in pairs if kept.scores.get(name)), None)
    # every pair is on one RealSide: its encodings and the real rows' own searches are shared
    with limited(available_cores()), bar:  # the cores this process may use, not the machine's
        for name, reference in pairs.items():
            pair = reference.pair
            began = time.perf_counter()
            scores[name] = dict(kept.scores.get(name, {}))
            for spec in todo[name]:
                bar.set_postfix_str(f"{name}: {spec.name}")
                scores[name][spec.name] = spec(reference.for_metric(spec))
                bar.update()
            spent = time.perf_counter() - began if todo[name] else 0.0
            seconds[name] = kept.seconds.get(name, 0.0) + spent
            if name != "release":
                kept.scores[name], kept.seconds[name] = scores[name], seconds[name]
            if first is None:
                first = pair
                left = sum(1 for n in pairs if n != name and todo[n])
                if progress and left:
                    bar.write(f"release scored in {seconds[name]:.0f} s; {left} reference "
                              f"table(s) to go, about {left * seconds[name]:.0f} s more")  # fmt: skip
    return scores, seconds


# a release with fewer rows than this share of the real table's says little about it
SMALL_RELEASE = 0.1
# a "release" this much nearer to the holdout than to the "real" table looks like the real data
SWAPPED = 0.5
# release rows whose nearest distances give the swap check's medians (a median of this many is
# within a few per cent of the whole table's; all rows would cost two full searches at 50,000)
SWAP_SAMPLE = 2_000


# how mistakes() begins a swap; against a holdout the audit refuses it (a confident reading: a
# release twice as near to unseen people as to its own training table is the real data)
SWAPPED_WORDS = ("the files look swapped: check that the first file is the real data and the "
                 "second the release")  # fmt: skip


def mistakes(side: RealSide, synthetic: pd.DataFrame, holdout) -> list[str]:
    """What looks like a mistake in the inputs, in words (each a warning, never a refusal): a
    release under a tenth of the real table's rows; and files that look swapped: the "release"
    at most half as far from the holdout as from the "real" table (median nearest distances of
    :data:`SWAP_SAMPLE` release rows: a real table resembles another sample of its population
    more than a synthetic one does), or, without a holdout, a "release" larger
    than the "real" table that holds at least half of its rows exactly."""
    real = side.real
    said = []
    if len(synthetic) < SMALL_RELEASE * len(real):
        said.append(f"the release has {len(synthetic):,} rows, under a tenth of the real table's "
                    f"{len(real):,}: its scores say little about a release of the usual size")  # fmt: skip
    swapped = SWAPPED_WORDS
    if holdout is not None:
        encoder, coords = side.encoding("mixed")
        sample = synthetic.sample(min(SWAP_SAMPLE, len(synthetic)), random_state=0)
        z = encoder.transform(sample)
        to_real = np.median(knn(z, coords)[0][:, 0])
        to_holdout = np.median(knn(z, encoder.transform(holdout))[0][:, 0])
        if to_holdout < SWAPPED * to_real:
            said.append(f"{swapped} (the release's rows lie nearer to the holdout, median "
                        f"{to_holdout:.3g}, than to the real table, {to_real:.3g})")  # fmt: skip
    elif len(synthetic) > len(real):
        held = real.drop_duplicates().merge(synthetic.drop_duplicates(), how="inner")
        if len(held) >= 0.5 * len(real.drop_duplicates()):
            said.append(f"{swapped} (the release is larger than the real table and holds "
                        f"{len(held):,} of its rows exactly)")  # fmt: skip
    return said


def assemble(scores: dict, specs, reasons: dict[str, str], anchor: str) -> pd.DataFrame:
    """The audit's table: one row per metric, references and positions beside the score;
    ``reasons``: why a metric was not run (:func:`not_run`)."""
    randoms = [k for k in scores if k.startswith("Random ")]
    rows = []
    for spec in specs:
        row = {"metric": spec.name, "category": str(spec.category)}
        if reasons[spec.name]:
            rows.append({**row, "score": np.nan, "reading": f"not run: {reasons[spec.name]}"})
            continue
        score = row["score"] = scores["release"][spec.name]
        if "Holdout" in scores:
            row["Holdout"] = scores["Holdout"][spec.name]
        if "Real" in scores:
            draws = [scores[k][spec.name] for k in randoms]
            row["Random"], row["Random SEM"] = float(np.mean(draws)), standard_error(draws)
            row["Real"] = scores["Real"][spec.name]
            where, low, high = position_interval(score, draws, row["Real"])
            lower = row["Random"]
            if anchor == "holdout":  # a fixed table: no draws, no interval
                lower = row["Holdout"]
                where = low = high = position(score, lower, row["Real"])
            row.update({"position": where, "position low": low, "position high": high})
            words = relative_reading(score, lower, row["Real"], low, high, anchor)
        elif "Holdout" in scores:
            words = f"{reading(score)} (the holdout scores {row['Holdout']:.3f})"
        else:
            words = reading(score)
        rows.append({**row, "reading": f"{words}: {spec.plain}"})
    compared = ["Random", "Random SEM", "Real", "position", "position low", "position high"]
    columns = ["metric", "category", "score", *(["Holdout"] if "Holdout" in scores else []),
               *(compared if "Real" in scores else [])]  # fmt: skip
    return pd.DataFrame(rows, columns=[*columns, "reading"])
