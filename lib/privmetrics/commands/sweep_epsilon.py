"""``privmetrics epsilon-response``: how far PrivBayes's and PATE-GAN's releases move with epsilon."""

from __future__ import annotations

from privmetrics.commands import add_profile_option

HELP = "marginal distance of PrivBayes and PATE-GAN over epsilon"


def add_arguments(parser) -> None:
    parser.add_argument("--dataset", default="texas")
    parser.add_argument("--rows", type=int, default=None, help="default: all rows")
    parser.add_argument("--runs", type=int, default=3)
    add_profile_option(parser, "paper")


def run(args) -> int:
    from privmetrics.compendium.bench_synthesisers import epsilon_response, format_response

    table = epsilon_response(args.dataset, args.rows, args.runs, args.profile)
    print(format_response(table))
    return 0
