"""Editions of one results table: the same cells read with our definitions or another paper's.

Every cell of the grid holds our score of each metric *and* its variants (``MDCR@paper``,
``DCR@priveval``, see :mod:`privmetrics.metrics.variants`), and the grid holds our PATE-GAN *and*
PATE-GAN with the paper's settings. An edition picks one reading and renames it to the plain
names, so that every analysis of :mod:`privmetrics.experiments.paper.analysis` runs on it unchanged:

* ``"ours"``: our (repaired) definitions and our PATE-GAN;
* ``"paper"``: the paper's definitions where ours differ (``<metric>@paper``) and the paper's
  PATE-GAN settings: the paper's experiment as well as we can run it;
* ``"priveval"``: PrivEval's definitions where they differ (``<metric>@priveval``), our PATE-GAN.

Every edition leaves out the grid's control configurations (:data:`privmetrics.experiments.grid.configurations.CONTROLS`, the Uniform
baseline) unless ``controls=True``, and the DP synthesisers the paper did not run
(:data:`privmetrics.experiments.grid.configurations.EXTRA_TECHNIQUES`) unless ``extras=True``: the paper's analyses know two baselines,
Real and Random, and four synthesisers.
"""

from __future__ import annotations

import pandas as pd

from privmetrics.experiments.grid.configurations import CONTROLS, EXTRA_TECHNIQUES

EDITIONS = ("ours", "paper", "priveval")
PAPER_SETTING = " (paper)"  # in a configuration label: a technique run with the paper's settings


def edition(
    results: pd.DataFrame, way: str = "ours", controls: bool = False, extras: bool = False
) -> pd.DataFrame:
    """``results`` (the tidy store table) as edition ``way``, with plain metric and config names;
    the control configurations (Uniform) only when ``controls``, the DP synthesisers beyond the
    paper's (MST, AIM) only when ``extras``."""
    if way not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, got {way!r}")
    if not controls:
        results = results[~results.config.isin(CONTROLS)]
    if not extras and "technique" in results:
        results = results[~results.technique.isin(EXTRA_TECHNIQUES)]
    paper_setting = results.config.str.contains(PAPER_SETTING, regex=False)
    tagged = results.metric.str.contains("@", regex=False)
    base = results.metric.str.split("@").str[0]
    tag = results.metric.str.split("@").str[1].fillna("")
    if way == "paper":
        # the paper's PATE-GAN replaces ours wherever it was computed
        replaced = set(results.loc[paper_setting, "technique"])
        keep_config = paper_setting | ~results.technique.isin(replaced)
    else:
        keep_config = ~paper_setting
    out = results[keep_config].copy()
    out["config"] = out.config.str.replace(PAPER_SETTING, "", regex=False)
    if way == "ours":
        return out[~tagged[keep_config]].reset_index(drop=True)
    own = tag[keep_config] == way
    redefined = set(base[keep_config][own])
    plain = ~tagged[keep_config] & ~out.metric.isin(redefined)
    out = out[plain | own]
    out["metric"] = out.metric.str.split("@").str[0]
    return out.reset_index(drop=True)


def redefined_metrics(results: pd.DataFrame, way: str) -> list[str]:
    """The metrics whose definition edition ``way`` replaces (those with a ``@way`` score)."""
    tagged = results.metric[results.metric.str.endswith(f"@{way}")]
    return sorted(set(tagged.str.split("@").str[0]))
