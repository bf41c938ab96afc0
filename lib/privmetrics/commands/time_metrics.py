"""``privmetrics bench``: every registered metric timed on a Texas-sized pair."""

from __future__ import annotations

HELP = "time every metric on a Texas-sized pair"


def add_arguments(parser) -> None:
    parser.add_argument("--rows", type=int, default=25_000)
    parser.add_argument("--seed", type=int, default=0)


def run(args) -> int:
    from privmetrics.compendium.benchmarks.bench import format_table, run_benchmark

    print(format_table(run_benchmark(rows=args.rows, seed=args.seed)))
    return 0
