"""``privmetrics bench-synth``: fit and sample time of every synthesiser, and PrivBayes's width
sweep."""

from __future__ import annotations

from privmetrics.commands import add_profile_option

HELP = "fit and sample time of every synthesiser on Texas-sized data"


def add_arguments(parser) -> None:
    add_profile_option(parser, "paper")
    parser.add_argument("--rows", type=int, default=25_000)
    parser.add_argument("--full", action="store_true", help="train CTGAN/TVAE for every epoch")
    parser.add_argument(
        "--widths", default="10,50,100,200", help="PrivBayes width sweep, columns (empty: skip)"
    )
    parser.add_argument("--width-rows", type=int, default=2000, help="rows of the sweep's tables")


def run(args) -> int:
    from privmetrics.compendium.benchmarks.bench_synthesisers import (
        format_timing,
        format_widths,
        privbayes_widths,
        time_synthesisers,
    )

    print(format_timing(time_synthesisers(args.profile, rows=args.rows, full=args.full)))
    if args.widths:
        widths = tuple(int(w) for w in args.widths.split(","))
        print(format_widths(privbayes_widths(widths, rows=args.width_rows)))
    return 0
