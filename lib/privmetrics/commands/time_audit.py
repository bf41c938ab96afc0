"""``privmetrics bench-audit``: the steward's audit at 50,000 rows, each case in a fresh
interpreter (:mod:`privmetrics.compendium.benchmarks.bench_audit`)."""

from __future__ import annotations

from privmetrics.commands import comma_list

HELP = "the steward's audit at 50,000 rows: default, with a holdout, sampled"


def add_arguments(parser) -> None:
    from privmetrics.compendium.benchmarks.bench_audit import CASES, ROWS

    parser.add_argument("--rows", type=int, default=ROWS, help="rows of each table")
    parser.add_argument(
        "--cases", type=comma_list, default=list(CASES),
        help="comma-separated, of " + ", ".join(CASES),
    )  # fmt: skip
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per case")


def run(args) -> int:
    from privmetrics.compendium.benchmarks.bench_audit import run as bench

    return bench(args.cases, args.rows, args.timeout)
