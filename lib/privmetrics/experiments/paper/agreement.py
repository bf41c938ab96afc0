"""One verdict per paper result: does a results store agree with each of the paper's Figures 5-14
and Tables 7-12?

Each result (named as :data:`privmetrics.compendium.book.sources.RESULTS` names it) is measured
by a share *s* in [0, 1] of what can be matched between the paper and us:

* **Tables 7 and 8**: the share of the paper's 21 metrics that fall in the paper's class.
* **Tables 9 and 10**: the adjusted Rand index of our OPTICS clustering against the paper's,
  clipped at 0 (1: the same clustering; 0: no more alike than chance; the plain Rand index counts
  the many pairs both put apart and sits near 0.7 by chance alone).
* **Tables 11 and 12**: the Jaccard overlap |both| / |either| of our selection and the paper's,
  after each round, averaged (keeping every metric does not agree with keeping seven).
* **Figures 5-10, 13 and 14**: the paper prints no cell value (its figures are images), only counts
  about them (``statements.yml``: "13 out of 21 metrics behave as expected"). A count *d* away
  from the paper's scores 1 - 2 *d* / 21, so that a count within 2 of the paper's (a tenth of the
  metrics) agrees and one within 5 (a quarter) agrees partly; the figure scores the mean over its
  statements.
* **Figures 11 and 12** (Experiment 2.1): the share of the paper's claims about the matrix that
  hold on ours (:data:`CORRELATION_CLAIMS`): almost every pair correlates positively (at least
  :data:`MOST` of the pairs); metrics of one attack category correlate no more than across
  categories (the mean rho within minus across below :data:`CLEAR`); on Texas,
  DistantValueProb and IdentifiabilityScore correlate at rho 0.64 (within :data:`NEAR`).

The verdict (:func:`verdict_of`): **agrees** when *s* >= :data:`AGREES`, **partly** when
*s* >= :data:`PARTLY`, **differs** below, compared with a tolerance (a share that is 0.8 on paper
may compute as 0.7999999999999999). "Tables 7-12" (the comparison chapter) is the mean of the
table rows' shares.

May import ``metrics`` and ``experiments``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privmetrics.experiments.paper import analysis
from privmetrics.experiments.paper import published as paper
from privmetrics.metrics import REGISTRY

AGREES, PARTLY = 0.8, 0.5
VERDICTS = ("agrees", "partly", "differs")
TOLERANCE = 1e-9
N_METRICS = 21  # the paper's metrics, the denominator of its counts

MOST = 0.8  # "almost all pairs correlate positively": at least this share of pairs
CLEAR = 0.1  # a within-category mean rho this much above the across-category mean is "clear"
NEAR = 0.15  # a quoted rho is matched within this distance
QUOTED_RHO = ("texas", "DistantValueProb", "IdentifiabilityScore", 0.64)


@dataclass(frozen=True)
class Agreement:
    """One paper result on one store: the share matched and what was measured, in words."""

    item: str  # the paper's figure or table, as sources.RESULTS names it
    share: float
    measured: str

    @property
    def verdict(self) -> str:
        return verdict_of(self.share)

    def line(self) -> str:
        """``"agrees: 18 of 21 metrics in the paper's class (share 0.86)"``."""
        return f"{self.verdict}: {self.measured} (share {self.share:.2f})"


def verdict_of(share: float) -> str:
    """agrees / partly / differs by :data:`AGREES` and :data:`PARTLY`, up to :data:`TOLERANCE`."""
    if share >= AGREES - TOLERANCE:
        return "agrees"
    return "partly" if share >= PARTLY - TOLERANCE else "differs"


def count_share(ours: int | None, stated: int) -> float:
    """A count statement's score: 1 - 2 |ours - stated| / 21, at least 0 (0 when ours is not
    measured)."""
    if ours is None:
        return 0.0
    return max(0.0, 1 - 2 * abs(ours - stated) / N_METRICS)


def figure_statements(summary: pd.DataFrame, item: str) -> Agreement | None:
    """A figure measured by the paper's count statements about it (``results`` in
    ``statements.yml``); None when none of them is about a dataset of ``summary``."""
    present = set(summary.index.unique("dataset"))
    shares, said = [], []
    for s in paper.paper_statements():
        if item not in s.get("results", []) or s["dataset"] not in present:
            continue
        ours = paper.STATEMENT_MEASURES[s["measure"]](summary, s["dataset"])
        shares.append(count_share(ours, s["value"]))
        said.append(f"{s['about']} {ours} (the paper: {s['value']})")
    if not shares:
        return None
    return Agreement(item, float(np.mean(shares)), "; ".join(said))


def category_correlation(rho: pd.DataFrame) -> tuple[float, float]:
    """(mean rho of metric pairs in one attack category, mean rho of pairs across categories)."""
    categories = np.array([str(REGISTRY[m].category) for m in rho.index])
    same = categories[:, None] == categories[None, :]
    off = ~np.eye(len(categories), dtype=bool)
    values = rho.to_numpy()
    return float(np.nanmean(values[same & off])), float(np.nanmean(values[~same]))


def correlation_claims(summary: pd.DataFrame, dataset: str) -> dict[str, bool]:
    """The paper's claims about its Figure 11 / 12, each held or not on ``dataset``'s matrix."""
    rho = analysis.spearman_matrix(summary, dataset)
    pairs = rho.to_numpy()[np.triu_indices(len(rho), 1)]
    pairs = pairs[np.isfinite(pairs)]
    within, across = category_correlation(rho)
    positive = float(np.mean(pairs > 0)) if len(pairs) else 0.0
    claims = {
        f"{positive:.0%} of pairs correlate positively": positive >= MOST - TOLERANCE,
        f"same-category pairs {within:.2f} against {across:.2f} across": within - across < CLEAR,
    }
    name, a, b, quoted = QUOTED_RHO
    if dataset == name and {a, b} <= set(rho.index):
        found = float(rho.loc[a, b])
        claims[f"{a}-{b} rho {found:.2f} (the paper: {quoted})"] = abs(found - quoted) <= NEAR
    return claims


def figure_correlation(summary: pd.DataFrame, item: str, dataset: str) -> Agreement:
    claims = correlation_claims(summary, dataset)
    held = [
        c + (" holds" if ok else " does not hold as the paper says") for c, ok in claims.items()
    ]
    share = sum(claims.values()) / len(claims)
    return Agreement(
        item, share, f"{sum(claims.values())} of {len(claims)} claims: " + "; ".join(held)
    )


def table_classes(ours: pd.Series, table: str, item: str) -> Agreement:
    """Table 7 or 8: the share of the paper's metrics that ``ours`` (metric -> class) puts in
    the paper's class."""
    found = paper.compare_classes(ours, table)
    same = int(found.agree.sum())
    return Agreement(
        item, same / len(found), f"{same} of {len(found)} metrics in the paper's class"
    )


def table_clusters(labels: pd.Series, table: str, item: str) -> Agreement:
    ari = float(paper.compare_clusters(labels, table)["adjusted rand index"])
    return Agreement(
        item, max(0.0, ari), f"adjusted Rand index {ari:.2f} against the paper's clusters"
    )


def selection(kept: dict[str, list[str]]) -> Agreement:
    """Tables 11 and 12: Jaccard overlap after each round, averaged."""
    shares, said = [], []
    for table, ours in kept.items():
        theirs = set(paper.paper_tables()[table])
        both, either = len(theirs & set(ours)), len(theirs | set(ours))
        shares.append(both / either if either else 1.0)
        said.append(
            f"{table.replace('table', 'Table ')}: {len(ours)} kept, {both} of the paper's {len(theirs)}"
        )
    return Agreement("Tables 11, 12", float(np.mean(shares)), "; ".join(said))


def agreements(summary: pd.DataFrame) -> dict[str, Agreement]:
    """Every paper result that ``summary`` (:func:`analysis.summarise` of the paper's 21 metrics on
    a store) can be set beside, keyed by the result's name: a figure of a dataset the summary lacks
    is left out."""
    datasets = set(summary.index.unique("dataset"))
    out = {}
    for item in ("Figure 5", "Figure 6", "Figures 7, 8", "Figures 9, 10", "Figures 13, 14"):
        found = figure_statements(summary, item)
        if found is not None:
            out[item] = found
    for item, dataset in (("Figure 11", "texas"), ("Figure 12", "flchain")):
        if dataset in datasets:
            out[item] = figure_correlation(summary, item, dataset)
    t7, t8 = analysis.table7(summary), analysis.table8(summary)
    out["Table 7"] = table_classes(t7, "table7", "Table 7")
    out["Table 8"] = table_classes(t8, "table8", "Table 8")
    clusters = {d: analysis.optics_clusters(summary, d) for d in sorted(datasets)}
    for table, item in (("table9", "Table 9"), ("table10", "Table 10")):
        dataset = paper.paper_tables()[table]["dataset"]
        if dataset in clusters:
            out[item] = table_clusters(clusters[dataset], table, item)
    first, second, _ = analysis.select_metrics(t7, t8, clusters)
    out["Tables 11, 12"] = selection({"table11": first, "table12": second})
    tables = [
        out[k] for k in ("Table 7", "Table 8", "Table 9", "Table 10", "Tables 11, 12") if k in out
    ]
    out["Tables 7-12"] = Agreement(
        "Tables 7-12",
        float(np.mean([t.share for t in tables])),
        ", ".join(f"{t.item} {t.verdict}" for t in tables),
    )
    return out
