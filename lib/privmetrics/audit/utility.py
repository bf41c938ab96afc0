"""Utility beside privacy: a release that scores "private" because it resembles nothing should say so.

Three fidelity measures of the release against the real table, each also for the references the
audit has (the holdout: what new people of the same population give; Random: noise):

* **one-way marginals**: mean total variation distance of each column's distribution
  (0 identical, 1 disjoint);
* **two-way marginals**: the same over pairs of columns, which sees dependencies (both from
  :func:`privmetrics.metrics.release_utility.marginal_utility`, the code the grid's utility per
  cell uses);
* **detection AUC**: how well DetectionMLP's classifier tells release rows from real ones (0.5: it
  cannot; 1: always). The audit's DetectionMLP score reuses the same fit when it ran.

:data:`USELESS_AUC`: from this detection AUC on, the release is flagged as easy to tell from the
real data, and the verdict says that its low risk may come from not resembling the data at all.
"""

from __future__ import annotations

import pandas as pd

from privmetrics.geometry.pair import Pair
from privmetrics.metrics import get_metric
from privmetrics.metrics.release_utility import marginal_utility

MEASURES = ("one-way marginals (TVD)", "two-way marginals (TVD)", "detection AUC")
USELESS_AUC = 0.9
# A holdout that a classifier tells from the real table this well is not a random split of the
# same population (rows of another period, site or sort order): positions measured from it mislead.
SPLIT_AUC = 0.65


def fidelity(pair: Pair) -> dict[str, float]:
    """The three measures of :data:`MEASURES` for one (real, compared table) pair."""
    marginals = marginal_utility(pair.real, pair.synthetic, pair.schema)
    return {
        MEASURES[0]: marginals["one-way TVD"],
        MEASURES[1]: marginals["two-way TVD"],
        MEASURES[2]: get_metric("DetectionMLP")(pair, scale="auc"),
    }


def utility_panel(pairs: dict[str, Pair]) -> pd.DataFrame:
    """One row per measure, one column per table (``"release"``, ``"Holdout"``, ``"Random"`` ...)."""
    return pd.DataFrame({name: fidelity(pair) for name, pair in pairs.items()}).rename_axis(
        "fidelity measure"
    )


def looks_useless(panel: pd.DataFrame) -> bool:
    """Whether the release is easy to tell from the real data (detection AUC >= :data:`USELESS_AUC`)."""
    return bool(panel.loc["detection AUC", "release"] >= USELESS_AUC)


def holdout_problem(panel: pd.DataFrame) -> str:
    """A warning when the holdout is easy to tell from the real table (detection AUC >=
    :data:`SPLIT_AUC`), else ""."""
    if "Holdout" not in panel:
        return ""
    auc = float(panel.loc["detection AUC", "Holdout"])
    if auc < SPLIT_AUC:
        return ""
    return (
        f"the holdout is easy to tell from the real table (detection AUC {auc:.2f}): it does not "
        "look like a random split of the same population (another period, site or sort order?), "
        "so positions measured from it mislead; split the holdout off at random"
    )
