"""Other papers' definitions of the registered metrics, as variants with their own score names.

Read from ``lib/privmetrics/resources/paper/priveval.yml`` (the one cross-reference of definitions):

* ``<metric>@paper``: what the comparison paper itself computed, where our default repairs it
  (``paper_option``; e.g. ``MDCR@paper`` keeps SynthEval's exclusion of identical rows);
* ``<metric>@priveval``: PrivEval's formal definition, where it gives another number
  (``option``; e.g. ``DCR@priveval`` with the natural log).
"""

from __future__ import annotations

import yaml

from privmetrics.metrics.registry import register_variant
from privmetrics.paths import resource

DEFINITIONS = resource("paper", "priveval.yml")


def _register_all() -> None:
    with DEFINITIONS.open() as fh:
        entries = yaml.safe_load(fh)
    for name, entry in entries.items():
        if entry.get("paper_option"):
            register_variant(name, "paper", entry["paper_why"], **entry["paper_option"])
        if entry.get("option"):
            why = entry.get("why") or f"PrivEval's definition ({entry['priveval']})"
            register_variant(name, "priveval", why, entry.get("min_rows"), **entry["option"])


_register_all()
