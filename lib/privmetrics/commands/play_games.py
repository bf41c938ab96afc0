"""``privmetrics games``: play Experiment 3's missing attack games of a profile and read the
metrics on its leakage ladder and on the configurations at the games' scale (resumable, locally or on a Dask cluster, like ``privmetrics run``
for the grid)."""

from __future__ import annotations

from privmetrics.commands import add_cluster_options, add_profile_option, comma_list

HELP = "play a profile's missing attack games and read the metrics on its ladder (resumable)"


def add_arguments(parser) -> None:
    add_profile_option(parser, "quick")
    parser.add_argument(
        "--datasets", type=comma_list, help="comma-separated; default: the profile's"
    )
    parser.add_argument(
        "--techniques",
        type=comma_list,
        help="comma-separated; default: the profile's game techniques",
    )
    parser.add_argument("--store", help="SQLite file; default: results/<profile>.sqlite")
    parser.add_argument("--jobs", type=int, help="parallel plays; default: the profile's")
    add_cluster_options(parser)


def run(args) -> int:
    from privmetrics.experiments.cluster import cluster_client
    from privmetrics.experiments.games.game_store import GameStore
    from privmetrics.experiments.games.play import run_games
    from privmetrics.experiments.games.scale_readings import scale_readings
    from privmetrics.experiments.games.sensitivity import ladder_readings
    from privmetrics.experiments.games.sizes import play_sizes
    from privmetrics.experiments.grid.runner import results_path

    store = GameStore(args.store or results_path(args.profile))
    with cluster_client(args.scheduler, args.local_cluster) as client:
        games = run_games(
            args.profile,
            datasets=args.datasets,
            techniques=tuple(args.techniques) if args.techniques else None,
            store=store,
            n_jobs=args.jobs,
            client=client,
        )
        readings = ladder_readings(args.profile, datasets=args.datasets, path=store.path,
                                   n_jobs=args.jobs, client=client)  # fmt: skip
        scaled = scale_readings(args.profile, datasets=args.datasets, path=store.path,
                                n_jobs=args.jobs, client=client)  # fmt: skip
        play_sizes(args.profile, path=store.path, n_jobs=args.jobs, client=client)
    print(f"{len(games)} membership games, and their attribute games, in {store.path}")
    print(f"{len(readings)} readings of the metrics on the leakage ladder in {store.path}")
    print(f"{len(scaled)} readings of the configurations at the games' scale in {store.path}")
    return 0
