"""``privmetrics audit``: read the files, audit, print the verdict first, write the reports.

Exit codes: 0 done; 1 ``--fail-on`` was met (the verdict and the metrics that met it are
printed); 2 bad input or an unexpected error, in one line; 3 ``--fail-on`` was met against
Random at a level a release of new people reaches too, so that only a holdout can decide (the
sentence says so; :func:`privmetrics.audit.verdict.gate`).
"""

from __future__ import annotations

import sys
import warnings

from privmetrics.commands import comma_list

HELP = "score a synthetic table against the real one (CSV or Parquet)"
FAIL_RULES = ("near-real", "between")


def add_arguments(parser) -> None:
    parser.add_argument("real", help="the real data, .csv or .parquet")
    parser.add_argument(
        "synthetic",
        nargs="*",
        help="the synthetic data, same columns (not with --holdout-split); several files, or a "
        "folder of them, are audited in turn against references scored once",
    )
    parser.add_argument("--schema", help="YAML schema; inferred from the real data when absent")
    parser.add_argument(
        "--holdout",
        help="real rows the generator never saw (same columns): the position then runs from the "
        "holdout's scores (0) to Real (1)",
    )
    parser.add_argument(
        "--holdout-split",
        type=float,
        metavar="FRACTION",
        help="before you train: split the real table at random into <name>-train and "
        "<name>-holdout (this fraction of its rows) beside it, and print the commands that follow "
        "(train the generator on the first part only, then audit with --holdout); no release",
    )
    parser.add_argument(
        "--key", type=comma_list, help="comma-separated key attributes (default: all non-sensitive)"
    )
    parser.add_argument("--sensitive", type=comma_list, help="comma-separated sensitive attributes")
    parser.add_argument(
        "--metrics", default="selected", help="selected (the paper's final 7), all, or NAME,NAME"
    )
    parser.add_argument("--out", help="write an HTML report here")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-baselines",
        action="store_true",
        help="skip scoring Random and Real on the real table (faster; readings use fixed bands)",
    )
    parser.add_argument(
        "--random-runs",
        type=int,
        default=None,
        help="Random draws whose spread gives each position its interval (default 3; with "
        "--holdout 1, as the position then runs from the holdout)",
    )
    parser.add_argument(
        "--targets",
        type=int,
        help="for tables too large for every pair: score from this many random rows of each "
        "table, each against all rows of the other (the final seven; others are not run)",
    )
    parser.add_argument(
        "--missing",
        choices=("indicator", "drop-rows", "refuse"),
        default="indicator",
        help="missing values: indicator (a gap is a category, or a yes/no flag beside a number "
        "filled with the real median; the default), drop-rows, or refuse",
    )
    parser.add_argument("--json", help="also write the whole report as JSON here")
    parser.add_argument(
        "--evidence",
        help="write the exposed real rows (copied, closer than a non-member, "
        "sensitive value recovered) as CSV here",
    )
    parser.add_argument(
        "--fail-on",
        help="exit 1 when a metric places the release near-real, between (or nearer Real), or at "
        "a position >= a number in [0, 1]; for pipelines. Without --holdout, exit 3 when the "
        "rule is met at a level new people reach too (only a holdout can decide)",
    )
    parser.add_argument(
        "--na-values",
        type=comma_list,
        help='comma-separated CSV cells to read as missing (default: only empty cells; "NA" is a value)',
    )


def run(args) -> int:
    """``privmetrics audit``: the verdict, the table, who is exposed and the utility panel, or
    exit 2 with one line naming the problem. Warnings (unseen categories, extreme values, a
    skipped attribute, missing values) are printed. Several releases (files, or a folder) are
    audited in turn; the references (holdout, Random, Real) are scored for the first and kept for
    the others (:mod:`privmetrics.audit.references`), each release's files are written with its
    name added, and the exit code is the gate's worst (1 over 3 over 0)."""
    from privmetrics.audit.files import check_writable, load_schema, read_table
    from privmetrics.audit.verdict import parse_threshold
    from privmetrics.data.validation import InvalidInputError

    if getattr(args, "holdout_split", None) is not None:
        return _split(args)
    try:
        paths = releases(args.synthetic)
        if args.fail_on and args.fail_on not in FAIL_RULES:
            try:
                parse_threshold(args.fail_on)
            except ValueError as exc:
                raise InvalidInputError(str(exc)) from None
        outputs = {k: check_writable(v) for k in ("out", "json", "evidence")
                   if (v := getattr(args, k, None))}  # fmt: skip
        real = read_table(args.real, args.na_values)
        synthetic = {path: read_table(path, args.na_values) for path in paths}
        holdout = read_table(args.holdout, args.na_values) if args.holdout else None
        schema = load_schema(args.schema) if args.schema else None
    except InvalidInputError as exc:
        print(f"privmetrics audit: error: {exc}", file=sys.stderr)
        return 2
    codes = []
    for path, release in synthetic.items():
        if len(synthetic) > 1:
            print(f"\n===== release {path} =====")
        named = {k: named_for(v, path, len(synthetic) > 1) for k, v in outputs.items()}
        codes.append(_audit_one(args, real, path, release, holdout, schema, named))
        if codes[-1] in (2, 130):
            return codes[-1]
    return 1 if 1 in codes else max(codes)


def releases(given: list[str] | None) -> list[str]:
    """The release files named: each file as given, a folder as its tables (sorted by name)."""
    from pathlib import Path

    from privmetrics.audit.files import table_format
    from privmetrics.data.validation import InvalidInputError

    if not given:
        raise InvalidInputError(
            "give the release to audit after the real table (or --holdout-split FRACTION to "
            "make a holdout before you train)"
        )
    found = []
    for name in given:
        path = Path(name)
        if path.is_dir():
            inside = sorted(str(p) for p in path.iterdir() if p.is_file() and table_format(p))
            if not inside:
                raise InvalidInputError(f"the folder {path} holds no table (CSV or Parquet)")
            found += inside
        else:
            found.append(name)
    return found


def named_for(path, release: str, several: bool):
    """An output file for one of several releases: the release's name before the suffix
    (``report.html`` for ``a.csv`` becomes ``report-a.html``)."""
    from pathlib import Path

    if not several:
        return path
    stem = Path(release).name.split(".")[0]
    return path.with_name(f"{path.stem}-{stem}{path.suffix}")


def _audit_one(args, real, path: str, synthetic, holdout, schema, outputs) -> int:
    """One release: audit, print and write; the exit code (0, 1 or 3 by ``--fail-on``, 2 on
    bad input, 130 when interrupted)."""
    import pandas as pd

    from privmetrics.audit.run import audit
    from privmetrics.audit.verdict import gate
    from privmetrics.data.validation import InvalidInputError

    try:
        # first, which file is which: a swap of the two files shows here at a glance
        read = [("real", args.real, real), ("release", path, synthetic)]
        read += [("holdout", args.holdout, holdout)] if holdout is not None else []
        print("; ".join(f"{role}: {name} ({len(t):,} rows x {t.shape[1]} columns)"
                        for role, name, t in read))  # fmt: skip
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = audit(
                real, synthetic, schema=schema, key=args.key, sensitive=args.sensitive,
                metrics=args.metrics, seed=args.seed, progress=announce, report=True,
                baselines=not args.no_baselines, random_runs=args.random_runs,
                targets=args.targets, holdout=holdout, missing=getattr(args, "missing", "indicator"),
            )  # fmt: skip
    except InvalidInputError as exc:
        print(f"privmetrics audit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("privmetrics audit: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # anything else still ends in one line and exit 2
        print(
            f"privmetrics audit: error: {type(exc).__name__}: {exc} (unexpected: please report it)",
            file=sys.stderr,
        )
        return 2
    for message in dict.fromkeys(str(w.message) for w in caught):
        print(f"warning: {message}")
    print()
    for line in result.verdict.lines():
        print(line)
    print()
    with pd.option_context("display.max_colwidth", 70, "display.width", 160):
        shown = result.table.drop(columns=["position low", "position high"], errors="ignore")
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.3f}", na_rep="-"))
    print("\nwho is exposed:")
    for line in result.evidence_lines:
        print(f"  {line}")
    print("\nsingling out, linkability and inference:")
    for line in result.criteria_lines:
        print(f"  {line}")
    if len(result.utility):
        print("\nutility beside privacy:")
        print(result.utility.to_string(float_format=lambda v: f"{v:.3f}"))
    print(f"\n{len(result.table)} metrics in {result.seconds:.1f} s")
    sources = {"real": str(args.real), "synthetic": str(path)}
    if args.holdout:
        sources["holdout"] = str(args.holdout)
    if "out" in outputs:
        outputs["out"].write_text(result.to_html(sources))
        print(f"report written to {outputs['out']}")
    if "json" in outputs:
        outputs["json"].write_text(result.to_json(sources))
        print(f"JSON written to {outputs['json']}")
    if "evidence" in outputs:
        result.evidence.to_csv(outputs["evidence"], index=False)
        print(f"{len(result.evidence):,} exposed rows written to {outputs['evidence']}")
    if args.fail_on:
        code, said = gate(result.judged, args.fail_on, result.anchor, result.verdict.level)
        if code:
            print(said)
            return code
    return 0


def _split(args) -> int:
    """``--holdout-split``: write the training part and the holdout, then say what comes next."""
    from privmetrics.audit.files import split_holdout
    from privmetrics.data.validation import InvalidInputError

    try:
        if args.synthetic or args.holdout:
            raise InvalidInputError(
                "--holdout-split splits the real table before a generator is trained: give no "
                "release and no --holdout with it"
            )
        train, holdout = split_holdout(args.real, args.holdout_split, args.seed, args.na_values)
    except InvalidInputError as exc:
        print(f"privmetrics audit: error: {exc}", file=sys.stderr)
        return 2
    print(f"training part: {train}\nholdout: {holdout}")
    print(f"next: train your generator on {train} only (the holdout must stay unseen), then")
    print(f"  privmetrics audit {train} RELEASE --holdout {holdout}")
    return 0


def announce(line: str) -> None:
    """The audit's lines before its work (what it scores, its estimate, an inferred schema)."""
    print(line, flush=True)
