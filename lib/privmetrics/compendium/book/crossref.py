"""The cross-reference between the comparison paper's metrics and PrivEval's formal definitions
(``lib/privmetrics/resources/paper/priveval.yml``), joined with the registry, and how much each PrivEval option moves a
score."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import yaml

from privmetrics.geometry.pair import Pair
from privmetrics.metrics import REGISTRY, select
from privmetrics.paths import resource
from privmetrics.prose import settings

CROSSREF = resource("paper", "priveval.yml")


def load_crossref(path: Path = CROSSREF) -> dict:
    """The YAML as a dict; every key must be one of the paper's metrics in the registry, and every
    option a parameter of that metric (so the chapter cannot drift from the code)."""
    with open(path) as fh:
        entries = yaml.safe_load(fh)
    paper = {m.name for m in select("paper")}
    if set(entries) != paper:
        raise ValueError(
            f"{path.name} must cover exactly the paper's metrics; missing "
            f"{sorted(paper - set(entries))}, unknown {sorted(set(entries) - paper)}"
        )
    for name, entry in entries.items():
        unknown = set(entry.get("option") or {}) - set(REGISTRY[name].params)
        if unknown:
            raise ValueError(f"{path.name}: {name} has no parameter(s) {sorted(unknown)}")
    return entries


def crossref_table() -> pd.DataFrame:
    """One row per paper metric: its algorithm, PrivEval's counterpart and definition, the
    differences, our default and the option that gives PrivEval's definition."""
    rows = []
    for name, entry in load_crossref().items():
        spec = REGISTRY[name]
        option = entry.get("option")
        rows.append(
            {
                "metric": name,
                "comparison paper": f"Algorithm {spec.algorithm}: {spec.summary}",
                "PrivEval": entry["priveval"] or "-",
                "PrivEval definition": entry["definition"],
                "differences": "; ".join(entry["differences"]) or "-",
                "default": entry["default"],
                "PrivEval option": settings(option) if option else "-",
                "why": entry.get("why", ""),
            }
        )
    return pd.DataFrame(rows).set_index("metric")


def option_effects(real: pd.DataFrame, synthetic: pd.DataFrame, schema, seed: int = 0):
    """For every metric with a PrivEval option: the default score, the score with the option, the
    difference and the seconds both took, on one pair."""
    pair = Pair(real, synthetic, schema, seed=seed)
    rows = []
    for name, entry in load_crossref().items():
        option = entry.get("option")
        if not option:
            continue
        spec = REGISTRY[name]
        start = time.perf_counter()
        default, other = spec(pair), spec(pair, **option)
        rows.append(
            {
                "metric": name,
                "option": settings(option),
                "default": default,
                "PrivEval": other,
                "difference": other - default,
                "seconds": time.perf_counter() - start,
            }
        )
    return pd.DataFrame(rows).set_index("metric")


ERRATA = resource("paper", "errata.yml")
ERRATA_SOURCES = {
    "HS": "A Comparison of Privacy Metrics for Synthetic Data Generation (Hansen & Staer)",
    "PE": "PrivEval: formal definitions of privacy metrics (Trudslev et al.)",
}


def errata_table(path: Path = ERRATA) -> pd.DataFrame:
    """Every erratum the code resolves (``lib/privmetrics/resources/paper/errata.yml``): id, source paper, where it is
    resolved, what the paper says, what we do and why, in id order."""
    with open(path) as fh:
        entries = yaml.safe_load(fh)
    rows = [
        {"id": key, "source": ERRATA_SOURCES[key.split("-")[0]], **entry}
        for key, entry in entries.items()
    ]
    order = sorted(rows, key=lambda r: (r["id"].split("-")[0], int(r["id"].split("-")[1])))
    return pd.DataFrame(order).set_index("id")
