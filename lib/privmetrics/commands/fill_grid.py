"""``privmetrics run``: fill a profile's results database with its experiment grid (resumable,
locally or on a Dask cluster)."""

from __future__ import annotations

from privmetrics.commands import add_cluster_options, add_profile_option, comma_list

HELP = "fill the results database with a profile's experiment grid (resumable)"


def add_arguments(parser) -> None:
    add_profile_option(parser, "quick")
    parser.add_argument(
        "--datasets", type=comma_list, help="comma-separated; default: the profile's"
    )
    parser.add_argument(
        "--techniques", type=comma_list, help="comma-separated; default: all twelve configurations"
    )
    parser.add_argument(
        "--metrics",
        help="everything, all, final, or comma-separated names; default: the profile's (every "
        "measure and the definition variants it names)",
    )
    parser.add_argument("--rows", type=int, help="rows per dataset; default: the profile's")
    parser.add_argument("--store", help="SQLite file; default: results/<profile>.sqlite")
    parser.add_argument(
        "--cache", help="synthetic-table cache folder; default: data/cache/synthetic"
    )
    parser.add_argument("--jobs", type=int, help="parallel cells; default: the profile's")
    parser.add_argument(
        "--refresh-stale",
        action="store_true",
        help="also recompute (from freshly generated tables) the cells made by other code or "
        "with other settings than the profile's",
    )
    parser.add_argument(
        "--utility",
        action="store_true",
        help="measure the utility of every cell computed, whatever the profile's grid_utility "
        "(a refresh of the techniques whose shipped cells lack it); with --metrics, the utility "
        "measures named there are the ones measured",
    )
    add_cluster_options(parser)


def run(args) -> int:
    from dataclasses import replace

    from privmetrics.experiments.cluster import cluster_client
    from privmetrics.experiments.grid.runner import run_grid
    from privmetrics.experiments.grid.store import ResultsStore

    profile = replace(args.profile, grid_utility=True) if args.utility else args.profile
    with cluster_client(args.scheduler, args.local_cluster) as client:
        store = run_grid(
            profile,
            datasets=args.datasets,
            techniques=tuple(args.techniques) if args.techniques else None,
            metrics=args.metrics,
            rows=args.rows,
            store=ResultsStore(args.store) if args.store else None,
            cache_root=args.cache,
            n_jobs=args.jobs,
            refresh_stale=args.refresh_stale,
            client=client,
        )
    print(f"{store.count('cells')} cells, {store.count('scores')} scores in {store.path}")
    return 0
