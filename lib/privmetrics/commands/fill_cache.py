"""``privmetrics generate``: fill the synthetic-table cache of a profile's grid without scoring."""

from __future__ import annotations

from privmetrics.commands import add_profile_option, comma_list

HELP = "fill the synthetic-table cache of a profile's grid without scoring"


def add_arguments(parser) -> None:
    add_profile_option(parser, "paper")
    parser.add_argument("--datasets", type=comma_list, help="default: the profile's")
    parser.add_argument("--techniques", type=comma_list, help="default: every technique")
    parser.add_argument("--runs", type=int, help="runs per configuration; default: min_runs")
    parser.add_argument("--cache", help="cache folder; default: data/cache/synthetic")
    parser.add_argument("--jobs", type=int, help="parallel fits; default: the profile's")


def run(args) -> int:
    from privmetrics.experiments.grid.runner import generate_tables

    made = generate_tables(
        args.profile,
        datasets=args.datasets,
        techniques=tuple(args.techniques) if args.techniques else None,
        runs=args.runs,
        cache_root=args.cache,
        n_jobs=args.jobs,
    )
    print(f"{made} tables in the cache")
    return 0
