"""Command line: ``python -m privmetrics {list,bench}`` (also installed as ``privmetrics``)."""

from __future__ import annotations

import argparse
import sys


def _list(args) -> int:
    from .metrics import REGISTRY

    for spec in REGISTRY.values():
        print(f"{spec.name:<28} {spec.category:<18} {spec.kind}")
    return 0


def _bench(args) -> int:
    from .bench import format_table, run_benchmark

    print(format_table(run_benchmark(rows=args.rows, seed=args.seed)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="privmetrics", description="Privacy metrics for synthetic tabular data"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="one line per registered metric: name, attack category, type")
    bench = commands.add_parser("bench", help="time every metric on a Texas-sized pair")
    bench.add_argument("--rows", type=int, default=25_000)
    bench.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    return {"list": _list, "bench": _bench}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
