"""``privmetrics bench-book``: the README's commands timed in a fresh clone against their CPU
budgets (:mod:`privmetrics.compendium.benchmarks.budgets`); exit 1 when one fails or exceeds its budget by
more than the tolerance."""

from __future__ import annotations

from privmetrics.commands import comma_list

HELP = "the README's commands in a fresh clone, timed against their budgets (exit 1 if over)"


def add_arguments(parser) -> None:
    parser.add_argument(
        "--commands", type=comma_list, default=None,
        help='comma-separated, as the README gives them (default: every budgeted command)',
    )  # fmt: skip
    parser.add_argument("--keep", action="store_true", help="keep the clone (its log) afterwards")


def run(args) -> int:
    from privmetrics.compendium.benchmarks.budgets import (
        BUDGETS,
        failed,
        format_rows,
        load_line,
        measure,
        verdicts,
    )
    from privmetrics.paths import checkout_root
    from privmetrics.threads import available_cores

    commands = args.commands or [b.command for b in BUDGETS]
    before = load_line()
    measurements, setup, where = measure(checkout_root(), commands, keep=args.keep)
    machine = (f"machine: {available_cores()} cores; load average {before} before, "
               f"{load_line()} after (1, 5, 15 min)")  # fmt: skip
    rows = verdicts(measurements)
    print(format_rows(rows, setup, machine, where))
    return 1 if failed(rows) else 0
