"""The paper's Tables 7-12, stored as data (``lib/privmetrics/resources/paper/tables.yml``), and their comparison with ours.

Agreement is counted per table: Tables 7 and 8 metric by metric (same class); Tables 9 and 10 by
the pairs of metrics (both clusterings put the pair together, or both apart: the Rand index) and the
adjusted Rand index; Tables 11 and 12 by the metrics in both lists.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np
import pandas as pd
import yaml
from sklearn.metrics import adjusted_rand_score

from privmetrics.experiments.paper.analysis import at_least, metric_order
from privmetrics.paths import resource


@cache
def paper_tables() -> dict:
    with resource("paper", "tables.yml").open() as fh:
        return yaml.safe_load(fh)


def paper_classes(table: str) -> pd.Series:
    """Table 7 or 8 of the paper as metric -> class."""
    classes = {m: c for c, members in paper_tables()[table].items() for m in members}
    return pd.Series(classes).loc[metric_order(classes)]


def paper_clusters(table: str) -> pd.Series:
    """Table 9 or 10 of the paper as metric -> cluster label (-1: outlier)."""
    groups = paper_tables()[table]["groups"]
    labels = {m: int(label) for label, members in groups.items() for m in members}
    return pd.Series(labels).loc[metric_order(labels)]


def compare_classes(ours: pd.Series, table: str, reasons: pd.Series | None = None) -> pd.DataFrame:
    """Metric by metric: the paper's class, ours, whether they agree, and why ours is what it is."""
    paper = paper_classes(table)
    out = pd.DataFrame({"paper": paper, "ours": ours.reindex(paper.index)})
    out["agree"] = out["paper"] == out["ours"]
    if reasons is not None:
        out["our reason"] = reasons.reindex(out.index).fillna("")
    return out


def compare_clusters(ours: pd.Series, table: str) -> dict:
    """Rand index (share of metric pairs on which both clusterings agree) and adjusted Rand index.

    Outliers count as singletons, as a clustering of the 21 metrics would treat them.
    """
    paper = paper_clusters(table)
    ours = ours.reindex(paper.index)

    def singletons(labels: pd.Series) -> pd.Series:
        out, nxt = labels.copy(), labels.max() + 1
        for m in labels.index[labels == -1]:
            out[m], nxt = nxt, nxt + 1
        return out

    p, o = singletons(paper), singletons(ours)
    pairs = list(combinations(paper.index, 2))
    agree = sum((p[a] == p[b]) == (o[a] == o[b]) for a, b in pairs)
    return {
        "pairs agreeing": agree,
        "pairs": len(pairs),
        "rand index": agree / len(pairs),
        "adjusted rand index": adjusted_rand_score(p, o),
    }


def compare_lists(ours: list[str], table: str) -> pd.DataFrame:
    """Tables 11 and 12: every metric in either list, and which list holds it."""
    paper = paper_tables()[table]
    names = metric_order(set(paper) | set(ours))
    return pd.DataFrame(
        {"paper": [m in paper for m in names], "ours": [m in ours for m in names]}, index=names
    )


EFFECT_GRID = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2)


def sensitivity(
    summary: pd.DataFrame,
    clusterings: dict[str, pd.Series],
    effects: tuple[float, ...] = EFFECT_GRID,
    paper_metrics: list[str] | None = None,
) -> pd.DataFrame:
    """How Tables 7, 8, 11 and 12 move with the rules' minimum effect size: per ``min_effect``,
    the class counts of Tables 7 and 8, their agreement with the paper (on ``paper_metrics``, by
    default the paper's 21), and the size of the selection after each round with its overlap with
    the paper's Tables 11 and 12. The clusterings do not depend on the rule and are passed in."""
    from privmetrics.experiments.paper.analysis import CLASSES, select_metrics, table7, table8

    paper_metrics = paper_metrics or list(paper_classes("table7").index)
    rows = []
    for effect in effects:
        t7, t8 = table7(summary, effect), table8(summary, min_effect=effect)
        first, second, _ = select_metrics(
            t7.reindex(paper_metrics).dropna(), t8.reindex(paper_metrics).dropna(), clusterings
        )
        row = {"min_effect": effect}
        for name, table in (("Table 7", t7), ("Table 8", t8)):
            for c in CLASSES:
                row[f"{name}: {c}"] = int((table.reindex(paper_metrics) == c).sum())
            row[f"{name}: agree with paper"] = int(
                compare_classes(table, name.lower().replace(" ", "")).agree.sum()
            )
        for name, chosen, key in (("Table 11", first, "table11"), ("Table 12", second, "table12")):
            row[f"{name}: kept"] = len(chosen)
            row[f"{name}: also in paper"] = len(set(chosen) & set(paper_tables()[key]))
        rows.append(row)
    return pd.DataFrame(rows).set_index("min_effect")


# --- Three ways, and the cause of each difference ---------------------------------------------------

WAYS = {
    "ours with the paper's definitions": ("paper", "paper"),
    "ours repaired": ("ours", "ours"),
}


def reading(raw: pd.DataFrame, definitions: str, pategan: str) -> pd.DataFrame:
    """The store's ``raw`` results read with the paper's or our metric definitions and the paper's
    or our PATE-GAN settings, independently (plain metric and configuration names)."""
    from privmetrics.experiments.grid.ways import PAPER_SETTING, edition

    r = raw
    if pategan == "ours":
        r = r[~r.config.str.contains(PAPER_SETTING, regex=False)]
    if definitions == "ours":
        r = r[~r.metric.str.contains("@", regex=False)]
    return edition(r, "paper")  # swaps in whatever paper-side readings remain


def _tables(summary: pd.DataFrame, datasets: list[str], min_effect: float) -> dict:
    from privmetrics.experiments.paper.analysis import (
        optics_clusters,
        select_metrics,
        table7,
        table8,
    )

    t7, t8 = table7(summary, min_effect), table8(summary, min_effect=min_effect)
    clusterings = {d: optics_clusters(summary, d) for d in datasets}
    first, second, _ = select_metrics(t7, t8, clusterings)
    return {"t7": t7, "t8": t8, "clusterings": clusterings, "t11": first, "t12": second}


def three_ways(
    raw: pd.DataFrame, metrics: list[str], min_effect: float | None = None
) -> pd.DataFrame:
    """Agreement with the paper's Tables 7-12 for each way of reading our results (``WAYS``): the
    metrics in the same class (7, 8), the metric pairs clustered alike (9, 10, where the dataset
    is present) and the metrics on both lists or on neither (11, 12). ``metrics``: the paper's."""
    from privmetrics.experiments.paper.analysis import MIN_EFFECT, summarise

    effect = MIN_EFFECT if min_effect is None else min_effect
    rows = {}
    for label, (definitions, pategan) in WAYS.items():
        results = reading(raw, definitions, pategan)
        summary = summarise(results[results.metric.isin(metrics)])
        datasets = list(summary.index.unique("dataset"))
        t = _tables(summary, datasets, effect)
        row = {}
        for key, table in (("t7", "table7"), ("t8", "table8")):
            cmp = compare_classes(t[key], table)
            row[table] = f"{int(cmp.agree.sum())} of {len(cmp)}"
        for table in ("table9", "table10"):
            name = paper_tables()[table]["dataset"]
            if name in t["clusterings"]:
                stats = compare_clusters(t["clusterings"][name], table)
                row[table] = f"ARI {stats['adjusted rand index']:.2f}"
        for key, table in (("t11", "table11"), ("t12", "table12")):
            cmp = compare_lists(t[key], table)
            row[table] = f"{int((cmp.paper & cmp.ours).sum())} shared; ours {len(t[key])}"
        rows[label] = row
    paper_row = {
        "table7": "-", "table8": "-", "table9": "-", "table10": "-",
        "table11": f"{len(paper_tables()['table11'])} listed",
        "table12": f"{len(paper_tables()['table12'])} listed",
    }  # fmt: skip
    return pd.DataFrame({"the paper": paper_row, **rows}).T


# the cause of a difference that no measured change explains (not "the data": nothing measured it)
UNEXPLAINED = "unexplained (no measured change gives the paper's class)"
# the change that puts the Uniform control in Random's place
RANDOM_BASELINE = "Random baseline (Uniform in its place)"


def holds_uniform(raw: pd.DataFrame) -> bool:
    """Whether the store's ``raw`` results hold the Uniform control, so the Random baseline can be
    tested."""
    return bool((raw.config == "Uniform").any())


def uniform_as_random(raw: pd.DataFrame) -> pd.DataFrame | None:
    """``raw`` with the Uniform control's cells in Random's place (labelled Random), or None when
    the store holds no Uniform cell: the lower baseline changed, everything else as it was."""
    if not holds_uniform(raw):
        return None
    out = raw[raw.config != "Random"].copy()
    out.loc[out.config == "Uniform", ["config", "technique"]] = ["Random", "random"]
    return out


def causes(raw: pd.DataFrame, metrics: list[str], min_effect: float | None = None) -> pd.DataFrame:
    """For Tables 7 and 8, every metric whose class (ours repaired) differs from the paper's, with
    the cause *measured*: the class is recomputed with one change at a time, and a change that
    gives the paper's class is a cause. Changes: the paper's definition of the metric, the paper's
    PATE-GAN settings, both, the rule without an effect size, and (when the store holds the Uniform
    control) :data:`RANDOM_BASELINE`: Uniform in place of our Random, whose Algorithm 22 noise is
    scaled by the data's range. When none gives the paper's class, the difference is
    :data:`UNEXPLAINED`: it may lie in the data (dataset, sample size or seeds), which these
    results cannot separate, but nothing here measured that."""
    from privmetrics.experiments.paper.analysis import MIN_EFFECT, summarise, table7, table8

    effect = MIN_EFFECT if min_effect is None else min_effect
    # name -> (raw results, definitions, PATE-GAN settings, minimum effect)
    variants = {
        "definition": ("raw", "paper", "ours", effect),
        "PATE-GAN settings": ("raw", "ours", "paper", effect),
        "definition and PATE-GAN together": ("raw", "paper", "paper", effect),
        "rule (no effect size)": ("raw", "ours", "ours", 0.0),
    }
    sources = {"raw": raw}
    control = uniform_as_random(raw)
    if control is not None:
        sources["uniform"] = control
        variants[RANDOM_BASELINE] = ("uniform", "ours", "ours", effect)
    summaries = {}
    for key in {v[:3] for v in variants.values()} | {("raw", "ours", "ours")}:
        results = reading(sources[key[0]], *key[1:])
        summaries[key] = summarise(results[results.metric.isin(metrics)])
    rows = []
    for table, classify in (("table7", table7), ("table8", lambda s, e: table8(s, min_effect=e))):
        paper = paper_classes(table)
        ours = classify(summaries["raw", "ours", "ours"], effect)
        changed = {name: classify(summaries[v[:3]], v[3]) for name, v in variants.items()}
        for metric in paper.index:
            if metric not in ours.index or ours[metric] == paper[metric]:
                continue
            found = [
                name for name, classes in changed.items() if classes.get(metric) == paper[metric]
            ]
            rows.append(
                {"table": table, "metric": metric, "paper": paper[metric], "ours": ours[metric],
                 "cause": "; ".join(found) if found else UNEXPLAINED}
            )  # fmt: skip
    return pd.DataFrame(rows, columns=["table", "metric", "paper", "ours", "cause"])


def rising(curve: pd.DataFrame, x, threshold: float = 0.8) -> int:
    """How many rows of ``curve`` (metric x points, means) rise with ``x``: Spearman rho >= threshold
    (a row that does not move has no rho and does not rise)."""
    from scipy.stats import spearmanr

    rho = curve.apply(
        lambda row: spearmanr(x, row).statistic if np.ptp(row) > 0 else np.nan, axis=1
    )
    return int(at_least(rho, threshold).sum())


def _pategan_grid(mean: pd.Series, dataset: str) -> pd.DataFrame | None:
    from privmetrics.experiments.grid.configurations import EPSILONS

    configs = [f"PATE-GAN ε={e:g}" for e in EPSILONS]
    if dataset not in mean.index.unique("dataset"):
        return None
    part = mean.loc[dataset].unstack("config")
    return part[configs] if set(configs) <= set(part.columns) else None


def pategan_response(raw: pd.DataFrame, metrics: list[str], threshold: float = 0.8) -> pd.DataFrame:
    """Per dataset, how many of ``metrics`` rise with epsilon for PATE-GAN: Spearman rho between
    epsilon (the grid 0.2, 1, 2, 10) and the mean score >= ``threshold``, for our PATE-GAN and for
    the one with the paper's settings."""
    from privmetrics.experiments.grid.configurations import EPSILONS
    from privmetrics.experiments.paper.analysis import summarise

    out = {}
    for label, pategan in (("ours", "ours"), ("paper settings", "paper")):
        results = reading(raw, "ours", pategan)
        mean = summarise(results[results.metric.isin(metrics)])["mean"]
        for dataset in mean.index.unique("dataset"):
            curve = _pategan_grid(mean, dataset)
            if curve is not None:
                out[dataset, label] = rising(curve, EPSILONS, threshold)
    table = pd.Series(out, dtype=int).unstack()
    table.columns.name = f"metrics rising (rho >= {threshold:g}) of {len(metrics)}"
    return table


# --- The paper's statements beside ours --------------------------------------------------------------


def _printed(table: pd.DataFrame) -> pd.DataFrame:
    from privmetrics.experiments.paper.figures import DIGITS

    return table.round(DIGITS)


def _passing_sanity(summary, dataset):
    from privmetrics.experiments.paper.analysis import sanity_exp11

    checks = sanity_exp11(summary)
    return int(checks[checks.dataset == dataset].passes.sum())


def _random_lowest(summary, dataset):
    from privmetrics.experiments.paper.analysis import score_table

    table = _printed(score_table(summary, dataset))
    return int((table["Random"] == table.min(axis=1)).sum())


def _real_highest(summary, dataset):
    from privmetrics.experiments.paper.analysis import score_table

    table = _printed(score_table(summary, dataset))
    return int((table["Real"] == table.max(axis=1)).sum())


def _adequate(which):
    def count(summary, dataset):
        from privmetrics.experiments.paper.analysis import ADEQUATE, table7, table8

        table = table7(summary) if which == 7 else table8(summary)
        return int((table == ADEQUATE).sum())

    return count


def _privbayes_rising(summary, dataset):
    from privmetrics.experiments.paper.analysis import sanity_exp12

    checks = sanity_exp12(summary)
    return int(at_least(checks[checks.dataset == dataset].rho, 0.8).sum())


def _privbayes_between(summary, dataset):
    """Metrics whose PrivBayes mean at every epsilon lies between Random's and Real's (as
    printed, to the heatmaps' digits; the ends included)."""
    from privmetrics.experiments.paper.analysis import epsilon_curve
    from privmetrics.experiments.paper.figures import DIGITS

    curve = epsilon_curve(summary, dataset).round({"mean": DIGITS})
    count = 0
    for _, part in curve.groupby("metric"):
        ends = part.set_index("config")["mean"]
        low, high = sorted((ends["Random"], ends["Real"]))
        inner = part[~part.config.isin(["Random", "Real"])]["mean"]
        count += bool(((inner >= low) & (inner <= high)).all())
    return count


def _pategan_rising(summary, dataset):
    from privmetrics.experiments.grid.configurations import EPSILONS

    curve = _pategan_grid(summary["mean"], dataset)
    return None if curve is None else rising(curve, EPSILONS)


STATEMENT_MEASURES = {
    "passing_sanity": _passing_sanity,
    "random_lowest": _random_lowest,
    "real_highest": _real_highest,
    "adequate_table7": _adequate(7),
    "adequate_table8": _adequate(8),
    "privbayes_rising": _privbayes_rising,
    "privbayes_between": _privbayes_between,
    "pategan_rising": _pategan_rising,
}


@cache
def paper_statements() -> list[dict]:
    with resource("paper", "statements.yml").open() as fh:
        return yaml.safe_load(fh)


def statements(summary: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """The paper's statements about ``experiment`` (privmetrics/resources/paper/statements.yml) with the paper's
    count, ours computed from ``summary`` (the paper's 21 metrics, our edition) on the stated
    dataset, and whether they are equal. Statements about a dataset absent from ``summary`` are
    left out (a page filtered to one dataset speaks of that dataset only)."""
    present = set(summary.index.unique("dataset"))
    rows = []
    for s in paper_statements():
        if s["experiment"] != experiment or s["dataset"] not in present | {"all"}:
            continue
        ours = STATEMENT_MEASURES[s["measure"]](summary, s["dataset"])
        rows.append(
            {"dataset": s["dataset"], "the paper says": s["paper"], "paper": s["value"],
             "ours": ours, "same": None if ours is None else ours == s["value"]}
        )  # fmt: skip
    return pd.DataFrame(rows)
