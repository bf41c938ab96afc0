"""The one registry of privacy metrics: every notebook, table, benchmark, test and the CLI reads it.

A metric is a function ``f(pair, **params) -> float`` decorated with :func:`register`, which records
its metadata as a :class:`MetricSpec`. Scores follow the paper's convention (Section 3): in
[0, 1], 0 = complete privacy, 1 = no privacy.

A *variant* is the same metric with other parameters that give another paper's definition, under
its own score name ``<metric>@<tag>`` (``DCR@priveval``, ``MDCR@paper``): :func:`register_variant`
puts it in :data:`VARIANTS`, beside the registry, so that experiments record both numbers in the
same cell and no table has to be generated twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cache

import numpy as np
import yaml

from privmetrics.data.schema import did_you_mean
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.pair import Pair
from privmetrics.paths import resource

READINGS = resource("catalogue", "readings.yml")


@cache
def readings() -> dict[str, dict[str, str]]:
    """Plain-language readings per metric name: ``attack`` (what it stands for), ``high`` (what a
    high score means)."""
    return yaml.safe_load(READINGS.read_text())


class Category(StrEnum):
    RECONSTRUCTION = "reconstruction"
    REIDENTIFICATION = "re-identification"
    TRACING = "tracing"


@dataclass(frozen=True)
class MetricSpec:
    """Metadata of one metric (Tables 2-4 of the paper) plus the function that computes it."""

    name: str  # the label of the paper's figures and tables, e.g. "CGeneralizedCAP"
    title: str  # the paper's full name
    category: Category
    kind: str  # distance / statistical / probabilistic / ... (Tables 2-4)
    algorithm: int | None  # algorithm number in the paper (None: not from the paper)
    func: Callable[..., float]
    needs: tuple[str, ...] = ()  # extra inputs: "key", "sensitive", "aligned rows"
    supports: str = "any"  # attribute types, as Tables 2-4 state them
    orientation: str = ""  # footnoted reversal / normalisation, and our own
    paper_seconds: dict[str, float] = field(default_factory=dict)  # Tables 2-4: texas, medonc
    source: str = ""  # the paper's citation for the metric
    final: bool = False  # in the paper's final selection (Table 12)
    params: dict = field(default_factory=dict)  # default parameters
    # rows each table needs: 2 where a definition needs a nearest *other* row or a population to
    # normalise or vote against (one row would score two unrelated rows as a perfect match),
    # 3 for three folds
    min_rows: int = 1
    # at scale (privmetrics.metrics.sampled): "sampled" = an average or median over rows, each measured
    # against the whole other table, so target rows estimate it; "full" = every row, linear cost;
    # "" = exact pairs only
    at_scale: str = ""
    # a measure of how closely the release resembles the data as a whole (a detector, a
    # distribution test), not of any one person's exposure: the audit reads it as fidelity and
    # never calls a release high risk on it alone
    resemblance: bool = False
    base: str | None = None  # a variant: the registered metric it re-parameterises
    note: str = ""  # a variant: whose definition it is and why it differs

    @property
    def paper(self) -> bool:
        """One of the comparison paper's 21 metrics (the others are measures we added)."""
        return self.algorithm is not None and self.base is None

    @property
    def doc(self) -> str:
        return (self.func.__doc__ or "").strip()

    @property
    def summary(self) -> str:
        """The docstring's first paragraph on one line (a first sentence may wrap)."""
        return " ".join(self.doc.split("\n\n")[0].split()) if self.doc else self.title

    @property
    def reading(self) -> str:
        """One intuitive paragraph: the attack the metric stands for and what a high score means
        (from ``lib/privmetrics/resources/catalogue/readings.yml``; a variant reads as its base metric)."""
        entry = readings()[self.base or self.name]
        return f"{entry['attack']} A high score means {entry['high']}."

    @property
    def plain(self) -> str:
        """The one-line plain reading: the attack the metric stands for (``readings.yml``)."""
        return readings()[self.base or self.name]["attack"]

    def __call__(self, pair: Pair, **params) -> float:
        unknown = set(params) - set(self.params)
        if unknown:
            raise TypeError(
                f"{self.name} has no parameter(s) {sorted(unknown)}; it takes {sorted(self.params)}"
            )
        for role in ("key", "sensitive"):
            if role in self.needs and not getattr(pair.schema, role):
                raise InvalidInputError(f"{self.name} needs {role} attributes; the schema has none")
        if pair.sampled and not self.at_scale:
            raise InvalidInputError(
                f"{self.name} cannot be estimated from sampled target rows; measure it on every "
                "row (privmetrics.metrics.sampled lists the metrics that can)"
            )
        fewest = min(len(pair.real), len(pair.synthetic))
        if fewest < self.min_rows:
            raise InvalidInputError(
                f"{self.name} needs at least {self.min_rows} rows in each table; the real table "
                f"has {len(pair.real)}, the synthetic {len(pair.synthetic)}"
            )
        score = float(self.func(pair, **{**self.params, **params}))
        if not (np.isfinite(score) and -1e-9 <= score <= 1 + 1e-9):
            raise ArithmeticError(
                f"{self.name} produced {score}, outside [0, 1]: a bug, please report it"
            )
        return min(max(score, 0.0), 1.0)


# A metric's lower end (Random, or a holdout) and Real closer than this on the [0, 1] scale: it
# cannot place a release between them on this data. An effect size, not a rounding guard:
# PPrivacy's references 0.000 and 0.017 on penguins put every release "near Real (100%)" at 0.01;
# five points of the scale is the least span on which a third (a reading's unit) is still a
# visible difference. The audit's positions and Experiment 3's alarms both use it.
MIN_SPAN = 0.05

REGISTRY: dict[str, MetricSpec] = {}
VARIANTS: dict[str, MetricSpec] = {}

# The registry's order, which every table and figure follows: per attack category the paper's
# metrics in its order (Algorithms 1-21, Tables 2-4), then the measures we added. A new metric is
# its function in its family's module (reconstruction, distances, distributions, detection,
# disclosure_risk, tracing) plus its name here.
ORDER = (
    # reconstruction: Algorithms 1-3, then Francis and Wagner's ALC and Chen et al.'s p-privacy
    *("AttributeInference", "CZeroCAP", "CGeneralizedCAP", "ALC", "PPrivacy"),
    # re-identification: Algorithms 4-17, then Chen et al.'s distance notions
    *("Authenticity", "ChiSquaredTest", "CloseValueProb", "DistantValueProb", "DetectionMLP"),
    *("InvKullbackLieb", "JensenShannonDist", "KSTest", "CommonRowsProportion"),
    *("IdentifiabilityScore", "NNDR", "NearestSynNeighborDistance", "DCR", "MDCR"),
    *("YPCoverage", "YPrivacy", "VoronoiPrivacy"),
    # tracing: Algorithms 18-21
    *("NNAA", "MemInf", "HiddenRate", "HittingRate"),
)


def register(name: str, **meta) -> Callable:
    """Decorator: add the function to :data:`REGISTRY` under ``name`` with the given metadata."""

    def decorate(func: Callable) -> Callable:
        if name in REGISTRY:
            raise ValueError(f"metric {name!r} is registered twice")
        REGISTRY[name] = MetricSpec(name=name, func=func, **meta)
        return func

    return decorate


def arrange() -> None:
    """Put :data:`REGISTRY` in :data:`ORDER`, in place; a metric registered but not listed there,
    or listed but not registered, is an error that names it."""
    unlisted, missing = set(REGISTRY) - set(ORDER), set(ORDER) - set(REGISTRY)
    if unlisted or missing:
        raise RuntimeError(
            f"registry.ORDER and the registered metrics differ: not in ORDER {sorted(unlisted)}, "
            f"not registered {sorted(missing)}"
        )
    specs = dict(REGISTRY)
    REGISTRY.clear()
    REGISTRY.update((name, specs[name]) for name in ORDER)


def register_variant(
    base: str, tag: str, note: str, min_rows: int | None = None, **params
) -> MetricSpec:
    """Register ``<base>@<tag>``: metric ``base`` with ``params`` (which must be its parameters),
    needing ``min_rows`` rows per table when its definition needs more than the base's."""
    spec = REGISTRY[base]
    unknown = set(params) - set(spec.params)
    if unknown:
        raise TypeError(
            f"{base} has no parameter(s) {sorted(unknown)}; it takes {sorted(spec.params)}"
        )
    name = f"{base}@{tag}"
    if name in VARIANTS:
        raise ValueError(f"variant {name!r} is registered twice")
    VARIANTS[name] = replace(
        spec,
        name=name,
        params={**spec.params, **params},
        base=base,
        note=note,
        final=False,
        min_rows=max(spec.min_rows, min_rows or 0),
    )
    return VARIANTS[name]


def get_metric(name: str) -> MetricSpec:
    """Look a metric or a variant up by name (case-insensitive)."""
    known = {**REGISTRY, **VARIANTS}
    lowered = {k.lower(): k for k in known}
    if name.lower() not in lowered:
        raise KeyError(
            f"unknown metric {name!r}{did_you_mean(name, known)}; registered metrics: "
            f"{', '.join(REGISTRY)}; "
            f"variants: {', '.join(VARIANTS)}"
        )
    return known[lowered[name.lower()]]
