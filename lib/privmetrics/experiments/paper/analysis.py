"""The analyses of Sections 6.4-7.5, as explicit rules: Tables 7-12 are derived by code from the
results store, never written by hand.

Every function takes the tidy ``results`` table (one row per dataset, config, run, metric, score)
or its :func:`summarise` (mean, SEM and number of runs per dataset, config and metric).

Rules (the paper judges by eye; these are our written versions of its criteria):

* **Measurably above** (:func:`measurably_above`): a mean a is measurably above b when
  a - b > s_a + s_b (beyond the uncertainty, s the SEMs) *and* a - b > ``min_effect`` x span,
  span = max(|m_Real - m_Random|, ``EFFECT_FLOOR``) on that dataset and metric (beyond a practical
  size). The default ``MIN_EFFECT = 0.05``: 5% of the distance between the two baselines, the
  scale on which every metric is read; with the floor of 0.01 (the heatmaps' last printed digit) a
  metric whose baselines nearly coincide still needs a visible difference. Without it, 0.0003 +-
  0.0001 was "above" 0.0000 +- 0.0000. :func:`sensitivity` shows how the tables move with it.
* **Experiment 1.1** (:func:`sanity_exp11`), per dataset and metric, with m and s the mean and SEM
  of a configuration: *Real on top*: no configuration is measurably above Real; *Random at the
  bottom*: none is measurably below Random; *separated*: Real is measurably above Random;
  *discriminates*: some synthesiser between them is measurably above Random (otherwise the metric
  only tells Real from everything else, the CZeroCAP pattern the paper calls unexpected).
  The metric passes on that dataset when all four hold.
* **Experiment 1.2** (:func:`sanity_exp12`), per dataset and metric, on PrivBayes with Random at
  epsilon 0.01 and Real at 200 as end points (Section 6.4; the paper excludes PATE-GAN from Table 8):
  rho = Spearman(epsilon, mean score) over the six points. *follows*: rho >= 0.8, the end points
  separated, and a measurable increase inside the grid (m(10) measurably above m(0.2));
  *partly*: rho >= 0.5 and the end points separated; *fails* otherwise.
* **Tables 7 and 8** (:func:`classify`): "works adequately" when the metric passes (follows) on every
  dataset, "inadequate" when it fails on every dataset, "sometimes works" otherwise.
* **Selection** (:func:`select_metrics`): round 1 drops every metric inadequate in Table 7 or 8;
  round 2 takes the metrics that OPTICS puts in one cluster on *every* dataset and keeps, in each
  such group, only those adequate in the most tables (the paper's reasoning on DCR, InvKullbackLieb
  and KSTest; pairs clustered together on one dataset only are kept, as the paper kept MemInf and
  CGeneralizedCAP).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import rankdata, spearmanr
from sklearn.cluster import OPTICS

from privmetrics.experiments.grid.configurations import (
    EPSILONS,
    RANDOM_EPSILON,
    REAL_EPSILON,
    configuration_order,
)
from privmetrics.metrics import REGISTRY

ADEQUATE, SOMETIMES, INADEQUATE = "works adequately", "sometimes works", "inadequate"
CLASSES = (ADEQUATE, SOMETIMES, INADEQUATE)
MIN_EFFECT = 0.05  # share of the Real-Random span a difference must exceed (see the module doc)
EFFECT_FLOOR = 0.01  # the smallest span it is a share of


def measurably_above(a, s_a, b, s_b, span, min_effect: float = MIN_EFFECT):
    """a - b beyond both the uncertainty (s_a + s_b) and ``min_effect`` x max(span, floor);
    elementwise for arrays."""
    difference = np.asarray(a) - np.asarray(b)
    size = min_effect * np.maximum(np.abs(span), EFFECT_FLOOR)
    return (difference > np.asarray(s_a) + np.asarray(s_b)) & (difference > size)


def metric_order(names) -> list[str]:
    """Metric names in the registry's (the paper's) order; unknown names last."""
    order = {name: i for i, name in enumerate(REGISTRY)}
    return sorted(set(names), key=lambda n: (order.get(n, len(order)), n))


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    """Mean, SEM (0 with one run) and run count per (dataset, config, metric)."""
    g = results.groupby(["dataset", "config", "metric"])["score"]
    out = pd.DataFrame(
        {"mean": g.mean(), "sem": g.std(ddof=1) / np.sqrt(g.count()), "n": g.count()}
    )
    out["sem"] = out["sem"].fillna(0.0)
    return out


def score_table(summary: pd.DataFrame, dataset: str, stat: str = "mean") -> pd.DataFrame:
    """One dataset's metric x configuration table of a statistic, in paper order."""
    table = summary.loc[dataset, stat].unstack("config")
    return table.loc[metric_order(table.index), configuration_order(table.columns)]


# --- Experiment 1.1 --------------------------------------------------------------------------------


def sanity_exp11(summary: pd.DataFrame, min_effect: float = MIN_EFFECT) -> pd.DataFrame:
    """Per (dataset, metric): the four criteria, ``passes``, and a reason when it does not pass."""
    rows = []
    for dataset in summary.index.unique("dataset"):
        mean, sem = score_table(summary, dataset, "mean"), score_table(summary, dataset, "sem")
        for metric in mean.index:
            m, s = mean.loc[metric], sem.loc[metric]
            span = m["Real"] - m["Random"]

            def above(a, b, m=m, s=s, span=span):
                return bool(measurably_above(m[a], s[a], m[b], s[b], span, min_effect))

            others = [c for c in m.index if c not in ("Real", "Random")]
            above_real = [c for c in m.index if c != "Real" and above(c, "Real")]
            below_random = [c for c in m.index if c != "Random" and above("Random", c)]
            separated = above("Real", "Random")
            discriminates = any(above(c, "Random") for c in others)
            reasons = []
            if above_real:
                reasons.append(f"above Real: {', '.join(above_real)}")
            if below_random:
                reasons.append(f"below Random: {', '.join(below_random)}")
            if not separated:
                reasons.append("Real and Random not separated")
            if separated and not discriminates:
                reasons.append("every synthesiser scores like Random")
            rows.append(
                {
                    "dataset": dataset,
                    "metric": metric,
                    "real on top": not above_real,
                    "random at bottom": not below_random,
                    "separated": bool(separated),
                    "discriminates": bool(discriminates),
                    "passes": not reasons,
                    "reason": "; ".join(reasons),
                }
            )
    return pd.DataFrame(rows)


# --- Experiment 1.2 --------------------------------------------------------------------------------


def epsilon_curve(
    summary: pd.DataFrame, dataset: str, technique: str = "PrivBayes"
) -> pd.DataFrame:
    """Mean and SEM per metric at Random (epsilon 0.01), each epsilon of the grid, Real (200)."""
    points = [("Random", RANDOM_EPSILON)]
    points += [(f"{technique} ε={e:g}", e) for e in EPSILONS]
    points += [("Real", REAL_EPSILON)]
    frames = []
    for config, eps in points:
        part = summary.loc[(dataset, config)].reset_index()
        frames.append(part.assign(config=config, epsilon=eps))
    return pd.concat(frames, ignore_index=True)


RHO_TOLERANCE = 1e-9


def at_least(value, threshold: float):
    """``value >= threshold`` up to rounding: a Spearman rho of exactly 0.8 (one adjacent swap in
    four points) computes as 0.7999999999999999 and must count as 0.8."""
    return np.asarray(value) >= threshold - RHO_TOLERANCE


def sanity_exp12(
    summary: pd.DataFrame, technique: str = "PrivBayes", min_effect: float = MIN_EFFECT
) -> pd.DataFrame:
    """Per (dataset, metric): Spearman rho over the six epsilon points and the verdict."""
    rows = []
    for dataset in summary.index.unique("dataset"):
        curve = epsilon_curve(summary, dataset, technique)
        for metric, part in curve.groupby("metric"):
            part = part.sort_values("epsilon")
            m, s = part["mean"].to_numpy(), part["sem"].to_numpy()
            rho = spearmanr(part["epsilon"], m).statistic if np.ptp(m) > 0 else np.nan
            span = m[-1] - m[0]  # Real - Random
            separated = bool(measurably_above(m[-1], s[-1], m[0], s[0], span, min_effect))
            # epsilon 10 against 0.2
            inside = bool(measurably_above(m[-2], s[-2], m[1], s[1], span, min_effect))
            if np.isfinite(rho) and at_least(rho, 0.8) and separated and inside:
                verdict = "follows"
            elif np.isfinite(rho) and at_least(rho, 0.5) and separated:
                verdict = "partly"
            else:
                verdict = "fails"
            rows.append(
                {
                    "dataset": dataset,
                    "metric": metric,
                    "rho": rho,
                    "separated": bool(separated),
                    "increase inside grid": bool(inside),
                    "verdict": verdict,
                }
            )
    return pd.DataFrame(rows)


# --- Tables 7 and 8 --------------------------------------------------------------------------------


def classify(per_dataset: pd.DataFrame, column: str, good, bad) -> pd.Series:
    """Across datasets: adequate when ``column`` is ``good`` everywhere, inadequate when it is
    ``bad`` everywhere, sometimes otherwise. Returns metric -> class, in paper order."""

    def verdict(values: pd.Series) -> str:
        if (values == good).all():
            return ADEQUATE
        if (values == bad).all():
            return INADEQUATE
        return SOMETIMES

    classes = per_dataset.groupby("metric")[column].agg(verdict)
    return classes.loc[metric_order(classes.index)]


def table7(summary: pd.DataFrame, min_effect: float = MIN_EFFECT) -> pd.Series:
    return classify(sanity_exp11(summary, min_effect), "passes", True, False)


def table8(
    summary: pd.DataFrame, technique: str = "PrivBayes", min_effect: float = MIN_EFFECT
) -> pd.Series:
    return classify(sanity_exp12(summary, technique, min_effect), "verdict", "follows", "fails")


def as_columns(classes: pd.Series) -> pd.DataFrame:
    """The paper's three-column layout of Tables 7 and 8."""
    columns = {c: list(classes[classes == c].index) for c in CLASSES}
    height = max(len(v) for v in columns.values())
    return pd.DataFrame({c: v + [""] * (height - len(v)) for c, v in columns.items()})


# --- Experiment 2.1 --------------------------------------------------------------------------------


def spearman_matrix(summary: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """Spearman rho between metrics over the configuration means (Figures 11, 12)."""
    means = score_table(summary, dataset).T  # configs x metrics
    rho = spearmanr(means.to_numpy()).statistic
    return pd.DataFrame(np.atleast_2d(rho), index=means.columns, columns=means.columns)


def spearman_bootstrap(
    results: pd.DataFrame, dataset: str, reps: int = 200, seed: int = 0, level: float = 0.95
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Percentile bootstrap interval of every rho: resample the runs of each configuration with
    replacement, recompute the configuration means and the matrix (Section 8.2 asks for intervals)."""
    part = results[results.dataset == dataset]
    wide = part.pivot_table(index=["config", "run"], columns="metric", values="score")
    wide = wide[metric_order(wide.columns)]
    rng = np.random.default_rng(seed)
    groups = [g.to_numpy() for _, g in wide.groupby(level="config")]
    draws = np.empty((reps, wide.shape[1], wide.shape[1]))
    for b in range(reps):
        means = np.stack([g[rng.integers(len(g), size=len(g))].mean(0) for g in groups])
        draws[b] = spearmanr(means).statistic
    alpha = (1 - level) / 2
    with np.errstate(invalid="ignore"):
        low, high = np.nanquantile(draws, [alpha, 1 - alpha], axis=0)
    index = wide.columns
    return pd.DataFrame(low, index, index), pd.DataFrame(high, index, index)


# --- Experiment 2.2 --------------------------------------------------------------------------------

OPTICS_PARAMS = {
    "min_samples": 2,
    "metric": "minkowski",
    "p": 2,
    "cluster_method": "xi",
    "xi": 0.05,
}


def optics_points(summary: pd.DataFrame, dataset: str, on: str = "values") -> pd.DataFrame:
    """The points OPTICS clusters: each metric's configuration means (``"values"``) or their
    ranks scaled to [0, 1] (``"ranks"``), one row per metric."""
    points = score_table(summary, dataset)
    if on == "ranks":
        points = points.apply(lambda row: pd.Series(rankdata(row) / len(row), row.index), axis=1)
    elif on != "values":
        raise ValueError(f"on must be 'values' or 'ranks', got {on!r}")
    return points


def optics_model(min_samples: int | None = None, xi: float | None = None) -> OPTICS:
    """OPTICS with :data:`OPTICS_PARAMS`, ``min_samples`` and ``xi`` overriding them when given."""
    given = (("min_samples", min_samples), ("xi", xi))
    return OPTICS(**{**OPTICS_PARAMS, **{k: v for k, v in given if v is not None}})


def optics_clusters(
    summary: pd.DataFrame,
    dataset: str,
    on: str = "values",
    min_samples: int | None = None,
    xi: float | None = None,
) -> pd.Series:
    """OPTICS cluster label per metric (-1 = outlier), each metric a point in the space of its
    configuration means (``on="values"``, the paper) or of their ranks (``on="ranks"``, Section 8.1:
    each metric's scores replaced by the ranks of the configurations, scaled to [0, 1], so that the
    distance follows Spearman's). ``min_samples=2``: the paper's tables have two-metric clusters,
    which sklearn's default of 5 cannot produce; the other parameters are sklearn's defaults
    (Minkowski p = 2, i.e. Euclidean; xi = 0.05). Passing ``metric="euclidean"`` instead gives the
    same reachability distances but, in scikit-learn 1.9, other labels: a far outlier joins a
    cluster (seen in ``tests/experiments/paper/test_analysis.py``), so we keep the default spelling.
    ``min_samples`` and ``xi`` override :data:`OPTICS_PARAMS` (the notebooks' parameters)."""
    points = optics_points(summary, dataset, on)
    with np.errstate(divide="ignore"):  # identical metrics give zero reachability distances
        labels = optics_model(min_samples, xi).fit_predict(points.to_numpy())
    return pd.Series(labels, index=points.index, name=f"{dataset} ({on})")


def cluster_table(labels: pd.Series) -> pd.DataFrame:
    """Tables 9 and 10 layout: one row per group (outliers first) with its metrics."""
    rows = [
        {
            "group": "Outliers" if label == -1 else f"Cluster {label}",
            "metrics": ", ".join(labels[labels == label].index),
        }
        for label in sorted(labels.unique())
    ]
    return pd.DataFrame(rows)


# --- Selection (Tables 11, 12) ---------------------------------------------------------------------


def select_metrics(
    t7: pd.Series, t8: pd.Series, clusterings: dict[str, pd.Series]
) -> tuple[list[str], list[str], list[str]]:
    """The two exclusion rounds of Section 7.5.

    Returns (after round 1, after round 2, one line of reasoning per exclusion in round 2).
    """
    first = [m for m in t7.index if t7[m] != INADEQUATE and t8.get(m) != INADEQUATE]
    together = {
        (a, b)
        for i, a in enumerate(first)
        for b in first[i + 1 :]
        if all(lab[a] == lab[b] != -1 for lab in clusterings.values())
    }
    # connected groups of metrics that every clustering puts together
    group = {m: {m} for m in first}
    for a, b in together:
        merged = group[a] | group[b]
        for m in merged:
            group[m] = merged
    adequacy = {m: (t7[m] == ADEQUATE) + (t8.get(m) == ADEQUATE) for m in first}
    dropped, reasons = set(), []
    for members in {frozenset(g) for g in group.values() if len(g) > 1}:
        best = max(adequacy[m] for m in members)
        keep = sorted(m for m in members if adequacy[m] == best)
        for m in sorted(members - set(keep)):
            dropped.add(m)
            reasons.append(
                f"{m}: clustered with {', '.join(keep)} on every dataset, which "
                f"{'is' if len(keep) == 1 else 'are'} adequate in more tables"
            )
    second = [m for m in first if m not in dropped]
    return first, second, reasons


def verdicts(summary: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    """For a few metrics: the Exp 1.1 verdict and reason and the Exp 1.2 verdicts (PrivBayes and
    PATE-GAN) per dataset, one row per (metric, dataset), in the order of ``metrics``."""
    checks11 = sanity_exp11(summary).set_index(["metric", "dataset"])
    out = pd.DataFrame(
        {
            "Exp 1.1 passes": checks11.passes,
            "Exp 1.1 reason": checks11.reason,
            **{
                f"Exp 1.2 {technique}": sanity_exp12(summary, technique)
                .set_index(["metric", "dataset"])
                .verdict
                for technique in ("PrivBayes", "PATE-GAN")
            },
        }
    )
    return out.loc[[m for m in metrics if m in out.index.get_level_values("metric")]]
