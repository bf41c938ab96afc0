"""``privmetrics book``: the main job, what ``make reproduce`` runs (the grid and the games of a
profile, every notebook executed, the book built and checked offline;
:func:`privmetrics.compendium.book.reproduce.make_book`)."""

from __future__ import annotations

from privmetrics.commands import add_cluster_options, add_profile_option

HELP = "the main job: fill the grid and games, execute the notebooks, build the book"


def add_arguments(parser) -> None:
    add_profile_option(parser, "quick")
    parser.add_argument("--skip-notebooks", action="store_true", help="only rebuild the book")
    parser.add_argument(
        "--edition",
        choices=("full", "student"),
        default="full",
        help="student: the same book without the exercises' solutions, in _build/student/html",
    )
    add_cluster_options(parser)


def run(args) -> int:
    from privmetrics.compendium.book.reproduce import make_book

    make_book(args.profile, args.skip_notebooks, args.edition, args.scheduler, args.local_cluster)
    return 0
