"""``privmetrics bench-scale``: rows against seconds and memory, each measurement in a fresh
interpreter (:mod:`privmetrics.compendium.benchmarks.bench_scale`)."""

from __future__ import annotations

from privmetrics.commands import comma_list

HELP = "rows vs seconds vs memory at 10k, 25k, 50k, 100k rows (1M with --million)"


def add_arguments(parser) -> None:
    parser.add_argument(
        "--million",
        action="store_true",
        help="also one million rows (final seven from sampled target rows, with their error "
        "against exact at 100,000 rows)",
    )
    parser.add_argument("--no-peers", action="store_true", help="skip SDMetrics / SynthEval")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per measurement")
    parser.add_argument(
        "--sizes", type=comma_list, help="comma-separated row counts instead of 10k, 25k, 50k, 100k"
    )
    parser.add_argument(
        "--out", default=None, help="write the run as JSON here (default results/bench-scale.json)"
    )


def run(args) -> int:
    from privmetrics.compendium.benchmarks.bench_scale import SIZES
    from privmetrics.compendium.benchmarks.bench_scale import run as bench

    sizes = tuple(int(n) for n in args.sizes) if args.sizes else SIZES
    return bench(sizes, args.million, not args.no_peers, args.timeout, args.out)
