"""``privmetrics verify``: regenerate cells of a results store from scratch and compare every score
(:mod:`privmetrics.experiments.grid.verify`)."""

from __future__ import annotations

from privmetrics.commands import add_profile_option, comma_list

HELP = "regenerate cells of a results store from scratch and compare every score"


def add_arguments(parser) -> None:
    add_profile_option(parser, "paper")
    parser.add_argument("--store", help="SQLite file; default: results/<profile>.sqlite")
    parser.add_argument(
        "--cells", type=comma_list,
        help="dataset/config/run,...; with a larger --sample, completed by a seeded draw",
    )  # fmt: skip
    parser.add_argument(
        "--sample", type=int,
        help="cells in all: the named ones, then drawn ones (default: 12 drawn, or only the named)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="seed of the draw")
    parser.add_argument("--tolerance", type=float, default=1e-9, help="largest accepted difference")
    parser.add_argument(
        "--budget-minutes", type=float, help="draw only cells whose expected cost fits in this"
    )
    parser.add_argument(
        "--ladder", type=int, default=0,
        help="also read this many stored releases of the leakage ladder again (drawn by --seed)",
    )  # fmt: skip
    parser.add_argument("--out", help="also record the report (JSON, with date and commit) here")
    parser.add_argument(
        "--threads", type=int, help="threads for cells that record none (default: the grid's)"
    )
    parser.add_argument(
        "--adopt",
        action="store_true",
        help="write the provenance of cells that record no code and regenerate identically, or "
        "that record other code and regenerate the stored table (same checksum and scores)",
    )


def run(args) -> int:
    import time

    from privmetrics.experiments.grid.provenance import format_provenance, provenance
    from privmetrics.experiments.grid.runner import results_path
    from privmetrics.experiments.grid.store import ResultsStore
    from privmetrics.experiments.grid.verify import format_report, record, verify

    start = time.perf_counter()
    store = ResultsStore(args.store or results_path(args.profile))
    print(format_provenance(provenance(store, args.profile)), end="\n\n")
    report = verify(
        args.profile,
        store=store,
        cells=args.cells,
        sample=args.sample,
        seed=args.seed,
        tolerance=args.tolerance,
        budget_minutes=args.budget_minutes,
        adopt=args.adopt,
        threads=args.threads,
    )
    if args.ladder:  # the leakage ladder's cells: the metrics' readings of planted releases
        import pandas as pd

        from privmetrics.experiments.games.scale_readings import as_verified_cells, verify_readings

        ladder = verify_readings(args.profile, path=store.path, sample=0, ladder=args.ladder,
                                 seed=args.seed, tolerance=args.tolerance)  # fmt: skip
        report = pd.concat([report, as_verified_cells(ladder)], ignore_index=True)
    print(format_report(report, args.tolerance))
    if args.out:
        record(report, args.out, args.profile.name, args.tolerance, time.perf_counter() - start)
    return 1 if (report.verdict == "DIFFERENT").any() else 0
