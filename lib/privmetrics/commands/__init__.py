"""The ``privmetrics`` command's subcommands, one module each.

Every module here holds one command: ``HELP`` (its line in ``privmetrics --help``),
``add_arguments(parser)`` (its options, declared beside what runs them) and ``run(args) -> int``
(its exit code). :data:`privmetrics.__main__.COMMANDS` is the table from command names to these
modules. Heavy imports happen inside ``run``, so that ``privmetrics --help`` stays fast.

May import every other package; only the command line imports from here.
"""

from __future__ import annotations

import argparse


def comma_list(text: str) -> list[str]:
    """An argparse type: "a, b,c" -> ["a", "b", "c"]."""
    return [x.strip() for x in text.split(",") if x.strip()]


def add_profile_option(parser: argparse.ArgumentParser, default: str) -> None:
    """``--profile NAME``, read into its :class:`~privmetrics.experiments.profiles.Profile` (an
    unknown name is a usage error that lists the known ones)."""
    from privmetrics.experiments.profiles import PROFILES

    def profile(name: str):
        if name not in PROFILES:
            raise argparse.ArgumentTypeError(
                f"unknown profile {name!r}; choose one of {sorted(PROFILES)}"
            )
        return PROFILES[name]

    parser.add_argument("--profile", type=profile, default=default, help=f"default: {default}")


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (and exit code 2), like every other error."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """``--scheduler`` or ``--local-cluster`` on a command that runs the grid
    (:func:`privmetrics.experiments.cluster.cluster_client` reads them)."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786)")
    where.add_argument(
        "--local-cluster", type=int, metavar="N", help="start N local Dask worker processes"
    )
