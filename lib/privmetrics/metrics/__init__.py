"""The 21 privacy metrics of Hansen & Staer and the measures we added, in one registry, and the
functions that run them.

>>> from privmetrics.metrics import REGISTRY, compute, evaluate
>>> compute("DCR", real, synthetic, schema)            # one metric, a float in [0, 1]
>>> evaluate(real, synthetic, schema, metrics="all")    # a tidy DataFrame, one row per metric

Importing the family modules (:mod:`.reconstruction`, :mod:`.distances`, :mod:`.distributions`,
:mod:`.detection`, :mod:`.disclosure_risk`, :mod:`.tracing`) registers their metrics;
:func:`~.registry.arrange` then puts the registry in the explicit order of
:data:`~.registry.ORDER` (the paper's, Tables 2-4; an added measure follows the paper's metrics
of its category). :mod:`.variants` registers the other papers' definitions of the same metrics
(``DCR@priveval``, ``MDCR@paper``, ...).

May import ``threads``, ``paths``, ``data``, ``geometry``, ``attacks`` and ``disclosure``; the
experiments, the audit and the compendium import from here.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import pandas as pd
from tqdm import tqdm

from privmetrics.data.schema import Schema
from privmetrics.geometry.pair import Pair

# importing registers each family's metrics, then their variants
from privmetrics.metrics import (  # noqa: F401
    detection,
    disclosure_risk,
    distances,
    distributions,
    reconstruction,
    tracing,
    variants,
)
from privmetrics.metrics.registry import (
    REGISTRY,
    VARIANTS,
    Category,
    MetricSpec,
    arrange,
    get_metric,
    register,
)

arrange()

__all__ = [
    "REGISTRY",
    "VARIANTS",
    "Category",
    "MetricSpec",
    "compute",
    "evaluate",
    "get_metric",
    "register",
    "select",
]


def select(metrics: str | Iterable[str] = "all") -> list[MetricSpec]:
    """``"all"`` (every registered measure), ``"paper"`` (the paper's 21), ``"final"`` (the
    paper's final seven, Table 12), ``"variants"`` (other papers' definitions, ``NAME@tag``),
    ``"everything"`` (all and the variants), or names (a list or "A,B")."""
    if isinstance(metrics, str):
        if metrics == "all":
            return list(REGISTRY.values())
        if metrics == "paper":
            return [m for m in REGISTRY.values() if m.paper]
        if metrics in ("final", "selected"):
            return [m for m in REGISTRY.values() if m.final]
        if metrics == "variants":
            return list(VARIANTS.values())
        if metrics == "everything":
            return [*REGISTRY.values(), *VARIANTS.values()]
        metrics = [m.strip() for m in metrics.split(",") if m.strip()]
    return [get_metric(name) for name in metrics]


def compute(
    name: str,
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    seed: int = 0,
    missing: str = "indicator",
    **params,
) -> float:
    """Score of one metric on (real, synthetic); the inputs are validated first. ``missing``: the
    rule for missing values (:mod:`privmetrics.data.missing`; a warning says when one applied)."""
    pair = Pair(real, synthetic, schema, seed=seed, missing=missing)
    return get_metric(name)(pair, **params)


def evaluate(
    real: pd.DataFrame | Pair,
    synthetic: pd.DataFrame | None = None,
    schema: Schema | None = None,
    metrics: str | Iterable[str] = "all",
    seed: int = 0,
    progress: bool = False,
    params: dict[str, dict] | None = None,
) -> pd.DataFrame:
    """Run several metrics on one pair, sharing encodings and neighbour queries between them.

    Returns one row per metric: metric, category, score, seconds (the time of the metric alone,
    including any shared ingredient it was the first to need). ``params`` maps a metric name to
    its non-default parameters.
    """
    pair = real if isinstance(real, Pair) else Pair(real, synthetic, schema, seed=seed)
    rows = []
    for spec in tqdm(select(metrics), desc="metrics", disable=not progress, leave=False):
        start = time.perf_counter()
        score = spec(pair, **(params or {}).get(spec.name, {}))
        rows.append(
            {
                "metric": spec.name,
                "category": str(spec.category),
                "score": score,
                "seconds": time.perf_counter() - start,
            }
        )
    return pd.DataFrame(rows)


def catalogue() -> pd.DataFrame:
    """The registry as a table (one row per metric), for the book and the CLI."""
    return pd.DataFrame(
        [
            {
                "metric": m.name,
                "title": m.title,
                "algorithm": str(m.algorithm) if m.algorithm else "-",
                "category": str(m.category),
                "type": m.kind,
                "extra inputs": ", ".join(m.needs) or "-",
                "supports": m.supports,
                "orientation": m.orientation or "-",
                "final seven": "yes" if m.final else "",
                "paper time Texas (s)": m.paper_seconds.get("texas", "-"),
                "source": m.source,
            }
            for m in REGISTRY.values()
        ]
    )
