"""``privmetrics steward-cases``: the audit on releases whose answer is known, over three public
tables, with holdouts of 20%, 50% and 100% and without one
(:mod:`privmetrics.compendium.benchmarks.steward_cases`), as one table."""

from __future__ import annotations

HELP = "the audit on known releases of three public tables (copies must fail, fresh rows pass)"


def add_arguments(parser) -> None:
    from privmetrics.compendium.benchmarks.steward_cases import TABLES

    parser.add_argument(
        "--tables", default=",".join(TABLES), help="comma-separated, of " + ", ".join(TABLES)
    )
    parser.add_argument("--seed", type=int, default=0, help="the draws' and the audits' seed")


def run(args) -> int:
    from privmetrics.compendium.benchmarks.steward_cases import case_table, verdict_grid

    names = [name.strip() for name in args.tables.split(",") if name.strip()]
    print(verdict_grid(case_table(names, args.seed)))
    return 0
