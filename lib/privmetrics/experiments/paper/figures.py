"""Figures of the experiments: the score heatmaps (Figures 5, 6, 13, 14), the epsilon curves
(Figures 7-10) and the Spearman matrices (Figures 11, 12). Each returns a matplotlib Figure."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm

from privmetrics.experiments.grid.configurations import (
    EPSILONS,
    RANDOM_EPSILON,
    REAL_EPSILON,
    configuration_order,
)
from privmetrics.experiments.paper.analysis import epsilon_curve, score_table
from privmetrics.metrics import REGISTRY

CATEGORY_LINE = {"color": "forestgreen", "linewidth": 2.5}


def category_boundaries(metrics: list[str]) -> list[int]:
    """Positions (between rows) where the attack category changes, for the green lines."""
    cats = [REGISTRY[m].category if m in REGISTRY else "other" for m in metrics]
    return [i for i in range(1, len(cats)) if cats[i] != cats[i - 1]]


DIGITS = 2  # the heatmaps print scores to this many decimals


def rank_shade(mean: pd.DataFrame) -> pd.DataFrame:
    """Each row's configurations ranked on the scores *as printed* (``DIGITS`` decimals), scaled to
    [0, 1]: scores that read the same share a colour (0.9600 and 0.9599 are one rank). A row whose
    printed scores are all equal ranks nothing: it is shaded 0.5, the neutral middle of the
    colour map, not painted as the top rank."""
    printed = mean.round(DIGITS)
    shade = printed.rank(axis=1, method="average")
    shade = (shade - 1).div((shade.max(axis=1) - 1).replace(0, 1), axis=0)
    flat = printed.nunique(axis=1) <= 1
    shade.loc[flat] = 0.5
    return shade


TEXT_PT = 8  # the smallest type in a figure
# the book's text column is about 800 px; at 100 dpi every figure is at most this wide, and its
# cells shrink rather than the page scrolling (the offline book check flags wider figures)
COLUMN_INCHES = 7.8


def text_colour(rgba) -> str:
    """Black or white, whichever reads on a cell of colour ``rgba`` (relative luminance)."""
    r, g, b = rgba[:3]
    return "white" if 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5 else "black"


def score_heatmap(summary: pd.DataFrame, dataset: str, colour: str = "rank") -> plt.Figure:
    """Mean (and SEM below it) of every metric x configuration. ``colour="rank"``: each metric's
    row coloured by the rank of the configurations (Figures 5, 6: red = highest score = least
    private); ``colour="value"``: by the score itself, 0 blue to 1 red (Figures 13, 14)."""
    mean, sem = score_table(summary, dataset, "mean"), score_table(summary, dataset, "sem")
    if colour == "rank":
        shade = rank_shade(mean)
    elif colour == "value":
        shade = mean
    else:
        raise ValueError(f"colour must be 'rank' or 'value', got {colour!r}")
    fig, ax = plt.subplots(figsize=(COLUMN_INCHES, 0.5 * mean.shape[0] + 1.8))
    cmap = plt.get_cmap("coolwarm")
    ax.imshow(shade.to_numpy(), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for i in range(mean.shape[0]):
        for j in range(mean.shape[1]):
            ax.text(
                j,
                i,
                f"{mean.iat[i, j]:.{DIGITS}f}\n±{sem.iat[i, j]:.{DIGITS}f}",
                ha="center",
                va="center",
                fontsize=TEXT_PT,
                color=text_colour(cmap(float(np.clip(shade.iat[i, j], 0, 1)))),
            )
    ax.set_xticks(range(mean.shape[1]), mean.columns, rotation=40, ha="right", fontsize=TEXT_PT)
    ax.set_yticks(range(mean.shape[0]), mean.index, fontsize=TEXT_PT)
    for b in category_boundaries(list(mean.index)):
        ax.axhline(b - 0.5, **CATEGORY_LINE)
    what = "rank of the configurations within each metric" if colour == "rank" else "score"
    ax.set_title(f"{dataset}: mean ± SEM, coloured by {what}", fontsize=10)
    fig.tight_layout()
    return fig


def epsilon_curves(summary: pd.DataFrame, dataset: str) -> plt.Figure:
    """Score against epsilon (log axis) for every metric: PrivBayes with Random (epsilon 0.01) and
    Real (200) as end points (Figures 7, 9), PATE-GAN over the grid alone (Figures 8, 10); SEM bands."""
    metrics = [m for m in REGISTRY if m in summary.index.unique("metric")]
    cols = 4
    rows = int(np.ceil(len(metrics) / cols))
    fig, axes = plt.subplots(
        rows, cols, figsize=(COLUMN_INCHES, 1.8 * rows), sharex=True, sharey=True
    )
    curves = {t: epsilon_curve(summary, dataset, t) for t in ("PrivBayes", "PATE-GAN")}
    for ax, metric in zip(axes.flat, metrics, strict=False):
        for technique, colour in (("PrivBayes", "tab:blue"), ("PATE-GAN", "tab:orange")):
            part = curves[technique][curves[technique].metric == metric].sort_values("epsilon")
            if technique == "PATE-GAN":
                part = part[part.epsilon.isin(EPSILONS)]
            ax.plot(part.epsilon, part["mean"], marker="o", ms=3, color=colour, label=technique)
            ax.fill_between(part.epsilon, part["mean"] - part["sem"], part["mean"] + part["sem"],
                            color=colour, alpha=0.25, linewidth=0)  # fmt: skip
        ax.set_xscale("log")
        ax.set_title(metric, fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(metrics) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7, loc="upper left")
    fig.supxlabel(
        f"epsilon (log; Random plotted at {RANDOM_EPSILON}, Real at {REAL_EPSILON:g})", fontsize=9
    )
    fig.supylabel("score", fontsize=9)
    fig.suptitle(f"{dataset}: privacy score against epsilon (mean ± SEM)", fontsize=10)
    fig.tight_layout()
    return fig


def correlation_heatmap(
    rho: pd.DataFrame,
    low: pd.DataFrame | None = None,
    high: pd.DataFrame | None = None,
    title: str = "",
) -> plt.Figure:
    """Spearman matrix with the category lines (Figures 11, 12), rho to one decimal without its
    leading zero (".9", "-.2", "1.0") so that 21 metrics fit the column. With bootstrap bounds, a
    dot marks the pairs whose interval excludes 0."""
    # the column's width: with 21 metrics a cell is about 0.3 inch, room for "-0.9" at 8 pt
    fig, ax = plt.subplots(figsize=(COLUMN_INCHES, COLUMN_INCHES - 0.6))
    cmap, norm = plt.get_cmap("coolwarm"), TwoSlopeNorm(0, -1, 1)
    image = ax.imshow(rho.to_numpy(dtype=float), cmap=cmap, norm=norm)
    for i in range(rho.shape[0]):
        for j in range(rho.shape[1]):
            value = rho.iat[i, j]
            if np.isfinite(value):
                mark = ""
                if (
                    low is not None
                    and high is not None
                    and (low.iat[i, j] > 0 or high.iat[i, j] < 0)
                ):
                    mark = "•"
                ax.text(j, i, f"{round(value, 1) + 0.0:.1f}".replace("0.", ".") + mark, ha="center", va="center", fontsize=TEXT_PT,
                        color=text_colour(cmap(norm(value))))  # fmt: skip
    ax.set_xticks(range(rho.shape[1]), rho.columns, rotation=90, fontsize=TEXT_PT)
    ax.set_yticks(range(rho.shape[0]), rho.index, fontsize=TEXT_PT)
    for b in category_boundaries(list(rho.index)):
        ax.axhline(b - 0.5, **CATEGORY_LINE)
        ax.axvline(b - 0.5, **CATEGORY_LINE)
    fig.colorbar(image, ax=ax, shrink=0.6, fraction=0.04, label="Spearman rho")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def marks(frame: pd.DataFrame) -> pd.DataFrame:
    """A table for reading: boolean columns as ✓ and ✗ instead of walls of True/False."""
    out = frame.copy()
    for col in out.columns:
        if pd.api.types.is_bool_dtype(out[col]):
            out[col] = out[col].map({True: "✓", False: "✗"})
    return out


def shown(results: pd.DataFrame, profile: str) -> str:
    """One line saying what a page shows: the profile, and per dataset its rows and runs."""
    parts = []
    for dataset, part in results.groupby("dataset", sort=False):
        runs = part.groupby("config").run.nunique()
        span = f"{runs.min()}" if runs.min() == runs.max() else f"{runs.min()}-{runs.max()}"
        rows = f"{int(part['rows'].max()):,} rows, " if "rows" in part else ""
        parts.append(f"{dataset} ({rows}{span} runs per configuration)")
    return f"Shown: profile `{profile}`; " + "; ".join(parts) + "."


def attack_success(
    attacks: pd.DataFrame, dataset: str, measure: str = "AUC", game: str = "membership"
) -> plt.Figure:
    """Experiment 3: an attack's ``measure`` per configuration (grid order), one marker per
    target kind, with its 95% interval; the dotted line is what guessing achieves (an AUC of 0.5,
    an advantage of 0)."""
    part = attacks[(attacks.dataset == dataset) & (attacks.measure == measure)]
    configs = configuration_order(part.config.unique())
    fig, ax = plt.subplots(figsize=(COLUMN_INCHES, 3.2))
    for shift, (kind, rows) in zip((-0.12, 0.12), part.groupby("kind"), strict=False):
        rows = rows.set_index("config").reindex(configs)
        x = np.arange(len(configs)) + shift
        ax.errorbar(x, rows.value, yerr=[rows.value - rows.low, rows.high - rows.value],
                    fmt="o", capsize=3, label=f"{kind} targets")  # fmt: skip
    chance = 0.5 if measure == "AUC" else 0.0
    ax.axhline(chance, color="grey", linestyle=":", linewidth=1)
    ax.set_xticks(np.arange(len(configs)), configs, rotation=35, ha="right", fontsize=9)
    ax.set_ylim((-0.02, 1.02) if measure in ("AUC", "accuracy") else (-1.02, 1.02))
    ax.set_ylabel(f"{game} {measure}")
    ax.set_title(f"{dataset}: {game} inference per configuration")
    ax.legend(fontsize=9, loc="upper left")
    fig.tight_layout()
    return fig


def reachability_plot(summary: pd.DataFrame, dataset: str, on: str = "values",
                      min_samples: int | None = None, xi: float | None = None) -> plt.Figure:  # fmt: skip
    """OPTICS's reachability plot of the metrics (Experiment 2.2): metrics in OPTICS's order, bar
    height the reachability distance, coloured by cluster (grey: outliers). Valleys are clusters;
    a tall bar starts a new one."""
    from privmetrics.experiments.paper.analysis import optics_model, optics_points

    points = optics_points(summary, dataset, on)
    with np.errstate(divide="ignore"):
        model = optics_model(min_samples, xi).fit(points.to_numpy())
    order = model.ordering_
    reach = model.reachability_[order]
    finite = reach[np.isfinite(reach)]
    top = float(finite.max()) * 1.15 if finite.size else 1.0
    labels = model.labels_[order]
    palette = plt.get_cmap("tab10")
    colours = ["0.6" if lab < 0 else palette(lab % 10) for lab in labels]
    fig, ax = plt.subplots(figsize=(min(0.3 * len(order) + 1.5, COLUMN_INCHES), 3.8))
    ax.bar(range(len(order)), np.where(np.isfinite(reach), reach, top), color=colours)
    ax.set_xticks(range(len(order)), points.index[order], rotation=90, fontsize=9)
    ax.set_ylabel("reachability distance", fontsize=9)
    ax.set_title(f"{dataset}: OPTICS reachability on {on} (first bar: start, drawn at the top)",
                 fontsize=10)  # fmt: skip
    fig.tight_layout()
    return fig


def power_curve(curves: pd.DataFrame, dataset: str) -> plt.Figure:
    """The leakage ladder (:mod:`privmetrics.experiments.games.ladder`): each attack's AUC against the
    planted dose, one panel per jitter level, with its 95% interval; dashed, the hand-computed
    1/2 + dose/2 of an attack that sees every exact copy; dotted, chance; grey, the chapter's
    rule (an AUC of 0.6 and an interval above chance find members)."""
    from privmetrics.experiments.games.game_analysis import MIN_EFFECT

    part = curves[(curves.dataset == dataset) & (curves.measure == "AUC")]
    jitters = sorted(part.jitter.unique())
    fig, axes = plt.subplots(1, len(jitters), figsize=(COLUMN_INCHES, 3.6), sharey=True,
                             squeeze=False)  # fmt: skip
    doses = sorted(part.dose.unique())
    x = {d: i for i, d in enumerate(doses)}
    for ax, jitter in zip(axes[0], jitters, strict=True):
        shown = part[part.jitter == jitter]
        for k, ((attack, kind), rows) in enumerate(shown.groupby(["attack", "kind"])):
            rows = rows.sort_values("dose")
            at = rows.dose.map(x).to_numpy() + (k - 1.5) * 0.08
            label = attack if kind == "all members" else f"{attack}, {kind}"
            ax.errorbar(at, rows.value, yerr=[rows.value - rows.low, rows.high - rows.value],
                        fmt="o-", markersize=3, capsize=2, linewidth=1, label=label)  # fmt: skip
        ax.plot(range(len(doses)), [0.5 + d / 2 for d in doses], "k--", linewidth=0.8,
                label="1/2 + dose/2")  # fmt: skip
        ax.axhline(0.5, color="grey", linestyle=":", linewidth=1)
        ax.axhline(0.5 + MIN_EFFECT, color="grey", linewidth=0.6, alpha=0.6)
        ax.set_xticks(range(len(doses)), [f"{d:.1%}".replace(".0%", "%") for d in doses],
                      rotation=45, fontsize=8)  # fmt: skip
        ax.set_title("exact copies" if jitter == 0 else f"jitter {jitter:g}", fontsize=9)
        ax.set_xlabel("planted dose", fontsize=9)
    axes[0][0].set_ylabel("membership AUC")
    axes[0][0].set_ylim(0.3, 0.8)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.suptitle(f"{dataset}: the attacks' power on the leakage ladder", fontsize=10)
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    return fig


def size_curve(table: pd.DataFrame, dataset: str, by: str = "size") -> plt.Figure:
    """The training-size ladder (:mod:`privmetrics.experiments.games.sizes`): the shadow attack's
    AUC against the training table's size (``by="size"``: one line per configuration) or, on
    the epochs ladder, against CTGAN's epochs (``by="epochs"``: one line per training size); one
    panel per kind of target, with 95% intervals; dotted, chance; grey, the chapter's rule."""
    from privmetrics.experiments.games.game_analysis import MIN_EFFECT
    from privmetrics.experiments.games.sizes import by_epochs, by_size

    part = (by_size(table) if by == "size" else by_epochs(table))[lambda t: t.dataset == dataset]
    if by == "epochs":  # one line per training size: the technique at each epoch count
        part = part.assign(config=[f"{c.split(' (')[0]}, {n:,} rows"
                                   for c, n in zip(part.config, part["size"], strict=True)])  # fmt: skip
    kinds = sorted(part.kind.unique())
    fig, axes = plt.subplots(1, len(kinds), figsize=(COLUMN_INCHES, 3.4), sharey=True,
                             squeeze=False)  # fmt: skip
    steps = sorted(part[by].unique())
    for ax, kind in zip(axes[0], kinds, strict=True):
        shown = part[part.kind == kind]
        for k, (config, rows) in enumerate(shown.groupby("config", sort=False)):
            rows = rows.sort_values(by)
            at = np.log10(rows[by].to_numpy(float)) + (k - 3) * 0.01
            ax.errorbar(at, rows.value, yerr=[rows.value - rows.low, rows.high - rows.value],
                        fmt="o-", markersize=3, capsize=2, linewidth=1, label=config)  # fmt: skip
        ax.axhline(0.5, color="grey", linestyle=":", linewidth=1)
        ax.axhline(0.5 + MIN_EFFECT, color="grey", linewidth=0.6, alpha=0.6)
        ax.set_xticks(np.log10(steps), [f"{s:,.0f}" for s in steps], fontsize=8)
        ax.set_title(f"{kind} targets", fontsize=9)
        ax.set_xlabel("training rows" if by == "size" else "epochs", fontsize=9)
    axes[0][0].set_ylabel("membership AUC")
    handles, labels = axes[0][0].get_legend_handles_labels()
    what = "the training table's size" if by == "size" else "training epochs"
    fig.suptitle(f"{dataset}: membership inference against {what}", fontsize=10)
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    return fig
