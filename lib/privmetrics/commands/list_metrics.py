"""``privmetrics list``: one line per registered metric."""

from __future__ import annotations

HELP = "one line per registered metric: name, attack category, type"


def add_arguments(parser) -> None:
    """No options."""


def run(args) -> int:
    from privmetrics.metrics import REGISTRY

    for spec in REGISTRY.values():
        print(f"{spec.name:<28} {spec.category:<18} {spec.kind}")
    paper = sum(1 for spec in REGISTRY.values() if spec.paper)
    print(f"{len(REGISTRY)} measures: the paper's {paper} and {len(REGISTRY) - paper} added "
          "(--metrics all runs them all; the final seven: --metrics selected)")  # fmt: skip
    return 0
