"""``privmetrics verify-games``: play a sample of a store's attack games again from scratch and
compare them outcome by outcome (:mod:`privmetrics.experiments.games.replay`)."""

from __future__ import annotations

from privmetrics.commands import add_profile_option, comma_list

HELP = "replay a sample of a store's attack games from scratch and compare"


def add_arguments(parser) -> None:
    add_profile_option(parser, "paper")
    parser.add_argument("--store", help="SQLite file; default: results/<profile>.sqlite")
    parser.add_argument(
        "--games", type=comma_list, default=["membership", "attribute"],
        help="membership,attribute (default: both)",
    )  # fmt: skip
    parser.add_argument("--sample", type=int, default=6, help="games to draw (default 6)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the draw")
    parser.add_argument("--tolerance", type=float, default=1e-9, help="largest accepted difference")
    parser.add_argument(
        "--budget-minutes", type=float, help="draw only games whose stored play time fits in this"
    )
    parser.add_argument("--jobs", type=int, default=2, help="parallel games (default 2)")
    parser.add_argument("--out", help="also record the report (JSON, with date and commit) here")
    parser.add_argument(
        "--readings", type=int, default=2,
        help="also read this many stored releases at the games' scale again, and one release of "
        "the leakage ladder (default 2; 0: none)",
    )  # fmt: skip


def run(args) -> int:
    import time

    from privmetrics.experiments.games.replay import replay_games
    from privmetrics.experiments.grid.verify import format_report, record

    start = time.perf_counter()
    report = replay_games(
        args.profile,
        path=args.store,
        games=tuple(args.games),
        sample=args.sample,
        seed=args.seed,
        tolerance=args.tolerance,
        budget_minutes=args.budget_minutes,
        n_jobs=args.jobs,
    )
    print(format_report(report, args.tolerance, what="games"))
    if args.out:
        wall = time.perf_counter() - start
        record(report, args.out, args.profile.name, args.tolerance, wall, what="games")
    different = (report.verdict == "DIFFERENT").any()
    if args.readings and args.profile.game_ladder_doses:  # the calibration's other side
        from privmetrics.experiments.games.scale_readings import verify_readings

        readings = verify_readings(args.profile, path=args.store, sample=args.readings,
                                   seed=args.seed, tolerance=args.tolerance, n_jobs=args.jobs)  # fmt: skip
        print("\nreadings at the games' scale (configurations and leakage ladder), read again "
              "from scratch:")  # fmt: skip
        print(readings.to_string(index=False))
        different = different or (readings.verdict == "DIFFERENT").any()
    return 1 if different else 0
