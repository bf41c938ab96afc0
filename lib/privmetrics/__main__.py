"""Command line: ``python -m privmetrics {list,bench,bench-synth,epsilon-response,run,audit}`` (also installed as ``privmetrics``)."""

from __future__ import annotations

import argparse
import sys

from privmetrics.experiments.cluster import add_cluster_arguments, cluster_client
from privmetrics.paths import CheckoutNotFoundError


def comma_list(text: str) -> list[str]:
    """An argparse type: "a, b,c" -> ["a", "b", "c"]."""
    return [x.strip() for x in text.split(",") if x.strip()]


def _list(args) -> int:
    from privmetrics.metrics import REGISTRY

    for spec in REGISTRY.values():
        print(f"{spec.name:<28} {spec.category:<18} {spec.kind}")
    paper = sum(1 for spec in REGISTRY.values() if spec.paper)
    print(f"{len(REGISTRY)} measures: the paper's {paper} and {len(REGISTRY) - paper} added "
          "(--metrics all runs them all; the final seven: --metrics selected)")  # fmt: skip
    return 0


def _bench(args) -> int:
    from privmetrics.compendium.bench import format_table, run_benchmark

    print(format_table(run_benchmark(rows=args.rows, seed=args.seed)))
    return 0


def _bench_scale(args) -> int:
    from privmetrics.compendium.bench_scale import run

    return run(args)


def _bench_audit(args) -> int:
    from privmetrics.compendium.bench_audit import run

    return run(args)


def _bench_synth(args) -> int:
    from privmetrics.compendium.bench_synthesisers import format_timing, time_synthesisers

    table = time_synthesisers(args.profile, rows=args.rows, full=args.full)
    print(format_timing(table))
    if args.widths:
        from privmetrics.compendium.bench_synthesisers import format_widths, privbayes_widths

        widths = tuple(int(w) for w in args.widths.split(","))
        print(format_widths(privbayes_widths(widths, rows=args.width_rows)))
    return 0


def _epsilon_response(args) -> int:
    from privmetrics.compendium.bench_synthesisers import epsilon_response, format_response

    print(format_response(epsilon_response(args.dataset, args.rows, args.runs, args.profile)))
    return 0


def _run(args) -> int:
    from privmetrics.experiments.runner import run_grid
    from privmetrics.experiments.store import ResultsStore

    with cluster_client(args) as client:
        store = run_grid(
            args.profile,
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


def _verify(args) -> int:
    import time

    from privmetrics.experiments.store import ResultsStore
    from privmetrics.experiments.verify import format_report, record, verify

    start = time.perf_counter()
    report = verify(
        args.profile,
        store=ResultsStore(args.store) if args.store else None,
        cells=args.cells,
        sample=args.sample,
        seed=args.seed,
        tolerance=args.tolerance,
        budget_minutes=args.budget_minutes,
        adopt=args.adopt,
        threads=args.threads,
    )
    print(format_report(report, args.tolerance))
    if args.out:
        record(report, args.out, args.profile, args.tolerance, time.perf_counter() - start)
    return 1 if (report.verdict == "DIFFERENT").any() else 0


def _verify_games(args) -> int:
    import time

    from privmetrics.experiments.replay import replay_games
    from privmetrics.experiments.verify import format_report, record

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
        record(report, args.out, args.profile, args.tolerance, wall, what="games")
    return 1 if (report.verdict == "DIFFERENT").any() else 0


def _generate(args) -> int:
    from privmetrics.experiments.runner import generate_tables

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


def _audit(args) -> int:
    from privmetrics.audit.cli import main as audit_main

    return audit_main(args)


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (and exit code 2), like every other error."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        prog="privmetrics", description="Privacy metrics for synthetic tabular data"
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    commands.add_parser("list", help="one line per registered metric: name, attack category, type")
    bench = commands.add_parser("bench", help="time every metric on a Texas-sized pair")
    bench.add_argument("--rows", type=int, default=25_000)
    bench.add_argument("--seed", type=int, default=0)
    scale = commands.add_parser(
        "bench-scale", help="rows vs seconds vs memory at 10k, 25k, 100k rows (1M with --million)"
    )
    from privmetrics.compendium.bench_scale import add_arguments

    add_arguments(scale)
    audit_bench = commands.add_parser(
        "bench-audit", help="the steward's audit at 50,000 rows: default, with a holdout, sampled"
    )
    from privmetrics.compendium.bench_audit import add_arguments as audit_bench_arguments

    audit_bench_arguments(audit_bench)
    synth = commands.add_parser(
        "bench-synth", help="fit and sample time of every synthesiser on Texas-sized data"
    )
    synth.add_argument("--profile", default="paper")
    synth.add_argument("--rows", type=int, default=25_000)
    synth.add_argument("--full", action="store_true", help="train CTGAN/TVAE for every epoch")
    synth.add_argument("--widths", default="10,50,100,200",
                       help="PrivBayes width sweep, columns (empty: skip)")  # fmt: skip
    synth.add_argument("--width-rows", type=int, default=2000, help="rows of the sweep's tables")
    response = commands.add_parser(
        "epsilon-response", help="marginal distance of PrivBayes and PATE-GAN over epsilon"
    )
    response.add_argument("--dataset", default="texas")
    response.add_argument("--rows", type=int, default=None, help="default: all rows")
    response.add_argument("--runs", type=int, default=3)
    response.add_argument("--profile", default="paper")
    run = commands.add_parser(
        "run", help="fill the results database with a profile's experiment grid (resumable)"
    )
    run.add_argument("--profile", default="quick")
    run.add_argument("--datasets", type=comma_list, help="comma-separated; default: the profile's")
    run.add_argument(
        "--techniques", type=comma_list, help="comma-separated; default: all twelve configurations"
    )
    run.add_argument(
        "--metrics", default="everything", help="everything, all, final, or comma-separated names"
    )
    run.add_argument("--rows", type=int, help="rows per dataset; default: the profile's")
    run.add_argument("--store", help="SQLite file; default: results/<profile>.sqlite")
    run.add_argument("--cache", help="synthetic-table cache folder; default: data/cache/synthetic")
    run.add_argument("--jobs", type=int, help="parallel cells; default: the profile's")
    run.add_argument(
        "--refresh-stale",
        action="store_true",
        help="also recompute (from freshly generated tables) the cells made by other code",
    )
    add_cluster_arguments(run)
    check = commands.add_parser(
        "verify", help="regenerate cells of a results store from scratch and compare every score"
    )
    check.add_argument("--profile", default="paper")
    check.add_argument("--store", help="SQLite file; default: results/<profile>.sqlite")
    check.add_argument(
        "--cells", type=comma_list, help="dataset/config/run,...; default: a seeded sample"
    )
    check.add_argument("--sample", type=int, default=12, help="cells to draw (default 12)")
    check.add_argument("--seed", type=int, default=0, help="seed of the draw")
    check.add_argument("--tolerance", type=float, default=1e-9, help="largest accepted difference")
    check.add_argument(
        "--budget-minutes", type=float, help="draw only cells whose expected cost fits in this"
    )
    check.add_argument("--out", help="also record the report (JSON, with date and commit) here")
    check.add_argument(
        "--threads", type=int, help="threads for cells that record none (default: the grid's)"
    )
    check.add_argument(
        "--adopt",
        action="store_true",
        help="write the provenance of cells that record no code and regenerate identically, or "
        "that record other code and regenerate the stored table (same checksum and scores)",
    )
    games = commands.add_parser(
        "verify-games", help="replay a sample of a store's attack games from scratch and compare"
    )
    games.add_argument("--profile", default="paper")
    games.add_argument("--store", help="SQLite file; default: results/<profile>.sqlite")
    games.add_argument(
        "--games", type=comma_list, default=["membership", "attribute"],
        help="membership,attribute (default: both)",
    )  # fmt: skip
    games.add_argument("--sample", type=int, default=6, help="games to draw (default 6)")
    games.add_argument("--seed", type=int, default=0, help="seed of the draw")
    games.add_argument("--tolerance", type=float, default=1e-9, help="largest accepted difference")
    games.add_argument(
        "--budget-minutes", type=float, help="draw only games whose stored play time fits in this"
    )
    games.add_argument("--jobs", type=int, default=2, help="parallel games (default 2)")
    games.add_argument("--out", help="also record the report (JSON, with date and commit) here")
    generate = commands.add_parser(
        "generate", help="fill the synthetic-table cache of a profile's grid without scoring"
    )
    generate.add_argument("--profile", default="paper")
    generate.add_argument("--datasets", type=comma_list, help="default: the profile's")
    generate.add_argument("--techniques", type=comma_list, help="default: every technique")
    generate.add_argument("--runs", type=int, help="runs per configuration; default: min_runs")
    generate.add_argument("--cache", help="cache folder; default: data/cache/synthetic")
    generate.add_argument("--jobs", type=int, help="parallel fits; default: the profile's")
    audit = commands.add_parser(
        "audit", help="score a synthetic table against the real one (CSV or Parquet)"
    )
    audit.add_argument("real", help="the real data, .csv or .parquet")
    audit.add_argument("synthetic", help="the synthetic data, same columns")
    audit.add_argument("--schema", help="YAML schema; inferred from the real data when absent")
    audit.add_argument(
        "--holdout",
        help="real rows the generator never saw (same columns): the position then runs from the "
        "holdout's scores (0) to Real (1)",
    )
    audit.add_argument(
        "--key", type=comma_list, help="comma-separated key attributes (default: all non-sensitive)"
    )
    audit.add_argument("--sensitive", type=comma_list, help="comma-separated sensitive attributes")
    audit.add_argument(
        "--metrics", default="selected", help="selected (the paper's final 7), all, or NAME,NAME"
    )
    audit.add_argument("--out", help="write an HTML report here")
    audit.add_argument("--seed", type=int, default=0)
    audit.add_argument(
        "--no-baselines",
        action="store_true",
        help="skip scoring Random and Real on the real table (faster; readings use fixed bands)",
    )
    audit.add_argument(
        "--random-runs",
        type=int,
        default=3,
        help="Random draws whose spread gives each position its interval (default 3)",
    )
    audit.add_argument(
        "--targets",
        type=int,
        help="for tables too large for every pair: score from this many random rows of each "
        "table, each against all rows of the other (the final seven; others are not run)",
    )
    audit.add_argument(
        "--missing",
        choices=("indicator", "drop-rows", "refuse"),
        default="indicator",
        help="missing values: indicator (a gap is a category, or a yes/no flag beside a number "
        "filled with the real median; the default), drop-rows, or refuse",
    )
    audit.add_argument("--json", help="also write the whole report as JSON here")
    audit.add_argument(
        "--evidence",
        help="write the exposed real rows (copied, closer than a neighbour, "
        "sensitive value recovered) as CSV here",
    )
    audit.add_argument(
        "--fail-on",
        help="exit 1 when a metric places the release near-real, between (or nearer Real), or at "
        "a position >= a number in [0, 1]; for pipelines",
    )
    audit.add_argument(
        "--na-values",
        type=comma_list,
        help='comma-separated CSV cells to read as missing (default: only empty cells; "NA" is a value)',
    )
    args = parser.parse_args(argv)
    handlers = {
        "audit": _audit,
        "run": _run,
        "generate": _generate,
        "verify": _verify,
        "verify-games": _verify_games,
        "list": _list,
        "bench": _bench,
        "bench-scale": _bench_scale,
        "bench-audit": _bench_audit,
        "bench-synth": _bench_synth,
        "epsilon-response": _epsilon_response,
    }
    try:
        return handlers[args.command](args)
    except CheckoutNotFoundError as exc:  # a compendium command outside a checkout
        print(f"privmetrics {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's code for SIGINT
        print(f"privmetrics {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
