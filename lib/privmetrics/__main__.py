"""Command line: ``python -m privmetrics COMMAND`` (also installed as ``privmetrics``).

:data:`COMMANDS` is the table of commands: each is a module of :mod:`privmetrics.commands` that
declares its own options (``add_arguments``) and runs them (``run``).
"""

from __future__ import annotations

import importlib
import sys

from privmetrics.commands import OneLineParser
from privmetrics.paths import CheckoutNotFoundError

# command -> its module in privmetrics.commands, in the order of ``privmetrics --help``
COMMANDS = {
    "book": "build_book",
    "check-book": "check_book",
    "list": "list_metrics",
    "bench": "time_metrics",
    "bench-scale": "time_scale",
    "bench-audit": "time_audit",
    "steward-cases": "try_steward_cases",
    "bench-synth": "time_synthesisers",
    "epsilon-response": "sweep_epsilon",
    "bench-book": "time_book",
    "run": "fill_grid",
    "games": "play_games",
    "verify": "verify_cells",
    "verify-games": "verify_games",
    "generate": "fill_cache",
    "audit": "audit_release",
}


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        prog="privmetrics", description="Privacy metrics for synthetic tabular data"
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f"privmetrics.commands.{module_name}")
        command = commands.add_parser(name, help=module.HELP)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except CheckoutNotFoundError as exc:  # a compendium command outside a checkout
        print(f"privmetrics {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's code for SIGINT
        print(f"privmetrics {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
