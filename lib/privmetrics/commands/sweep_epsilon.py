"""``privmetrics epsilon-response``: how far the DP synthesisers' releases move with epsilon
(PrivBayes and PATE-GAN by default; ``--techniques aim,mst`` for the marginal-based ones;
``--set max_model_size=20`` overrides a synthesiser setting, to see what a size parameter buys)."""

from __future__ import annotations

from privmetrics.commands import add_profile_option, comma_list

HELP = "marginal distance of the DP synthesisers' releases over epsilon"


def add_arguments(parser) -> None:
    parser.add_argument("--dataset", default="texas")
    parser.add_argument("--rows", type=int, default=None, help="default: all rows")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--techniques", type=comma_list, default=None, help="default: privbayes,pategan"
    )
    parser.add_argument(
        "--epsilons", type=comma_list, default=None, help="default: the grid's 0.2,1,2,10"
    )
    parser.add_argument(
        "--set",
        dest="settings",
        metavar="KEY=VALUE",
        type=setting,
        action="append",
        default=[],
        help="a synthesiser setting over the profile's, e.g. max_model_size=20 (repeatable)",
    )
    add_profile_option(parser, "paper")


def setting(text: str) -> tuple[str, int | float | str]:
    """An argparse type: "max_model_size=20" -> ("max_model_size", 20); numbers become numbers."""
    import argparse

    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    for kind in (int, float):
        try:
            return key.strip(), kind(value)
        except ValueError:
            pass
    return key.strip(), value.strip()


def run(args) -> int:
    from privmetrics.compendium.benchmarks.bench_synthesisers import (
        DP_TECHNIQUES,
        EPSILONS,
        epsilon_response,
        format_response,
    )

    techniques = tuple(args.techniques or DP_TECHNIQUES)
    epsilons = tuple(float(e) for e in args.epsilons) if args.epsilons else EPSILONS
    table = epsilon_response(args.dataset, args.rows, args.runs, args.profile, techniques, epsilons,
                             dict(args.settings))  # fmt: skip
    print(format_response(table))
    return 0
