"""``privmetrics epsilon-response``: how far the DP synthesisers' releases move with epsilon
(PrivBayes and PATE-GAN by default; ``--techniques aim,mst`` for the marginal-based ones)."""

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
    add_profile_option(parser, "paper")


def run(args) -> int:
    from privmetrics.compendium.bench_synthesisers import (
        DP_TECHNIQUES,
        EPSILONS,
        epsilon_response,
        format_response,
    )

    techniques = tuple(args.techniques or DP_TECHNIQUES)
    epsilons = tuple(float(e) for e in args.epsilons) if args.epsilons else EPSILONS
    table = epsilon_response(args.dataset, args.rows, args.runs, args.profile, techniques, epsilons)
    print(format_response(table))
    return 0
