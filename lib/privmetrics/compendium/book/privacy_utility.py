"""Privacy against utility per configuration: the synthesisers chapter's trade-off plot.

**Privacy risk** of a configuration is the mean, over runs and over the paper's seven selected
metrics (its Table 12), of their scores, which sit near 0 for Random and near 1 for Real; its
**utility** is a measure of :mod:`privmetrics.metrics.release_utility` read from the store's
``utility`` table, averaged over runs. A DP synthesiser that works moves right (more useful) as
its epsilon grows while its risk grows less than its utility; one that does not learn sits with
Random.
"""

from __future__ import annotations

import json

import matplotlib.pyplot as plt
import pandas as pd

from privmetrics.experiments.grid.configurations import DISPLAY, configuration_order
from privmetrics.experiments.paper.published import paper_tables
from privmetrics.metrics.release_utility import HIGHER_IS_BETTER

MARKERS = {
    "random": "X", "uniform": "P", "real": "*", "ctgan": "s", "tvae": "D",
    "privbayes": "o", "pategan": "^", "mst": "v", "aim": "<",
}  # fmt: skip


def privacy_utility(results: pd.DataFrame, utility: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, config) found in both ``results`` (the tidy scores) and ``utility``
    (:meth:`~privmetrics.experiments.grid.store.ResultsStore.utility`): technique, epsilon, the runs
    measured, the mean privacy risk of the paper's seven metrics and one column per utility
    measure (run means)."""
    seven = paper_tables()["table12"]
    risk = (
        results[results.metric.isin(seven)]
        .groupby(["dataset", "config"])
        .score.mean()
        .rename("privacy risk")
    )
    measures = utility.pivot_table(
        index=["dataset", "config"], columns="measure", values="value", aggfunc="mean"
    )
    cells = utility.drop_duplicates(["dataset", "config"]).set_index(["dataset", "config"])
    epsilon = cells.params.map(lambda p: json.loads(p).get("epsilon"))
    runs = utility.groupby(["dataset", "config"]).run.nunique().rename("runs")
    frame = pd.concat(
        [cells.technique, epsilon.rename("epsilon"), runs, risk, measures], axis=1, join="inner"
    )
    frame.columns.name = None
    order = configuration_order(frame.index.unique("config"))
    return (
        frame.reset_index()
        .sort_values(
            ["dataset", "config"], key=lambda s: s.map(order.index) if s.name == "config" else s
        )
        .reset_index(drop=True)
    )


def plot_privacy_utility(frame: pd.DataFrame, measures=("TSTR accuracy", "two-way TVD"), width=7.8):
    """A grid of panels: one row per utility measure, one column per dataset; each configuration a
    point (marker by technique, its epsilon written beside it)."""
    datasets = list(dict.fromkeys(frame.dataset))
    fig, axes = plt.subplots(
        len(measures), len(datasets), figsize=(width, 2.8 * len(measures)), squeeze=False
    )
    for row, measure in enumerate(measures):
        for ax, name in zip(axes[row], datasets, strict=True):
            part = frame[frame.dataset == name]
            for technique, points in part.groupby("technique", sort=False):
                ax.scatter(
                    points[measure], points["privacy risk"], marker=MARKERS.get(technique, "o"),
                    label=DISPLAY.get(technique, technique), s=30,
                )  # fmt: skip
                for _, p in points[points.epsilon.notna()].iterrows():
                    ax.annotate(
                        f"{p.epsilon:g}", (p[measure], p["privacy risk"]), fontsize=6,
                        xytext=(3, 2), textcoords="offset points",
                    )  # fmt: skip
            better = "higher" if HIGHER_IS_BETTER[measure] else "lower"
            ax.set_xlabel(f"{measure} ({better} is more useful)", fontsize=8)
            ax.set_title(name, fontsize=9)
            ax.tick_params(labelsize=7)
        axes[row][0].set_ylabel("privacy risk (mean of 7)", fontsize=8)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 8), fontsize=7)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def compare_at_epsilon(
    frame: pd.DataFrame, epsilon: float = 1.0, first: str = "aim", second: str = "privbayes",
    measure: str = "two-way TVD",
) -> str:  # fmt: skip
    """A generated sentence per dataset of ``frame`` (:func:`privacy_utility`): ``measure`` of
    ``first`` against ``second`` at ``epsilon``, beside Random's (the release that learned
    nothing), and which of the two is more useful; or which of them the store lacks."""
    names = DISPLAY.get(first, first), DISPLAY.get(second, second)
    better = "higher" if HIGHER_IS_BETTER[measure] else "lower"
    sentences = []
    for dataset, part in frame.groupby("dataset", sort=False):
        matched = part[part.epsilon.sub(epsilon).abs().lt(1e-9)].set_index("technique")
        at = matched[measure]
        missing = [n for t, n in zip((first, second), names, strict=True) if t not in at.index]
        if missing:
            sentences.append(f"On {dataset} the store holds no {' or '.join(missing)} cell at "
                             f"ε={epsilon:g} with utility.")  # fmt: skip
            continue
        a, b = at[first], at[second]
        counted = (f" (runs: {matched.runs[first]} and {matched.runs[second]})"
                   if "runs" in part else "")  # fmt: skip
        noise = part.loc[part.technique == "random", measure]
        baseline = f"; Random's is {noise.iloc[0]:.3f}" if len(noise) else ""
        winner = names[0] if (a > b) == (better == "higher") else names[1]
        sentences.append(
            f"On {dataset} at ε={epsilon:g}, {names[0]}'s {measure} is {a:.3f} against "
            f"{names[1]}'s {b:.3f}{counted}{baseline}; {better} is more useful, so {winner} is "
            f"the more useful release by {abs(a - b):.3f}."
        )
    return " ".join(sentences)
