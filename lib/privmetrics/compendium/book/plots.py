"""Figures shared by the notebooks and reports (matplotlib/seaborn; each returns its Figure)."""

from __future__ import annotations

import json
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from privmetrics.attacks.alc import recall_for_prc
from privmetrics.data.schema import Schema
from privmetrics.experiments.grid.configurations import DISPLAY, configuration_order
from privmetrics.experiments.paper.figures import COLUMN_INCHES
from privmetrics.experiments.paper.published import paper_tables
from privmetrics.metrics.release_utility import HIGHER_IS_BETTER

PRC_LEVELS = (0.99, 0.9, 0.7, 0.5, 0.3, 0.1, 0.001)  # the curves of the ALC paper's Figure 4


def plot_marginals(
    frame: pd.DataFrame, schema: Schema, title: str = "", max_categories: int = 12, ncols: int = 3
):
    """One small panel per column: a histogram for numerical columns, bar counts for the others.

    Categorical panels show the ``max_categories`` most frequent values; key attributes are drawn in
    blue, sensitive in red, the others in grey, so the attacker's roles are visible at a glance.
    """
    from matplotlib.ticker import EngFormatter, MaxNLocator

    names = schema.names
    nrows = math.ceil(len(names) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(COLUMN_INCHES, 2.6 * nrows), squeeze=False)
    for ax, col in zip(axes.flat, names, strict=False):
        color = "tab:blue" if col in schema.key else "tab:red" if col in schema.sensitive else "0.5"
        if col in schema.numerical:
            ax.hist(frame[col].dropna(), bins=30, color=color)
            if frame[col].max() > 100 * max(frame[col].median(), 1):
                ax.set_yscale("log")
            # few ticks in engineering notation: 250k, 500k, not "250000500000750000"
            ax.xaxis.set_major_locator(MaxNLocator(4))
            ax.xaxis.set_major_formatter(EngFormatter(sep=""))
            ax.tick_params(axis="x", labelsize=8)
        else:
            counts = frame[col].value_counts().head(max_categories)
            ax.bar(counts.index.astype(str), counts.to_numpy(), color=color)
            ax.tick_params(axis="x", labelrotation=90, labelsize=8)
        ax.set_title(f"{col}\n({schema.columns[col]})", fontsize=9)
        ax.tick_params(axis="y", labelsize=8)
    for ax in axes.flat[len(names) :]:
        ax.axis("off")
    fig.suptitle(title or "Marginals (blue: key, red: sensitive)", fontsize=10)
    fig.tight_layout(h_pad=1.5, w_pad=1.0)
    return fig


def plot_alc(result, ax=None, alpha: float = 3.0, r_min: float = 1e-4, title: str = ""):
    """Figure 4 of the ALC paper for one measurement: precision against recall (log scale) with
    equal-PRC curves, the attack's and the baseline's (precision, recall) pairs, their Wilson
    intervals, and the two best pairs that give the ALC ringed."""
    fig, ax = (
        (ax.figure, ax) if ax is not None else plt.subplots(figsize=(COLUMN_INCHES * 0.85, 4.2))
    )
    precision = np.linspace(0, 1, 400)
    for level in PRC_LEVELS:
        recall = recall_for_prc(level, precision, alpha, r_min)
        ax.plot(recall, precision, color="0.75", lw=0.8, zorder=1)
        ax.annotate(f"PRC {level:g}", (1.0, level), xycoords=("axes fraction", "data"),
                    xytext=(3, 0), textcoords="offset points", fontsize=7, color="0.45",
                    va="center")  # fmt: skip
    for pairs, best, colour, name in (
        (result.attack, result.best_attack, "tab:red", "attack"),
        (result.base, result.best_base, "tab:blue", "baseline"),
    ):
        ax.errorbar(pairs.recall, pairs.precision, yerr=[pairs.precision - pairs.low,
                    pairs.high - pairs.precision], fmt="o", color=colour, ms=4, capsize=2,
                    label=f"{name} pairs", zorder=3)  # fmt: skip
        ax.scatter([best.recall], [best.precision], s=160, facecolors="none", edgecolors=colour,
                   lw=2, zorder=4, clip_on=False, label=f"best {name}: PRC {best.prc:.3f}")  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlim(r_min, 2.0)  # room right of recall 1, where the recall-1 pairs and rings sit
    ax.set_ylim(0, 1.08)
    ax.axvline(1.0, color="0.6", lw=0.8, ls=":", zorder=0)
    ax.set_xlabel("recall (log scale)")
    ax.set_ylabel("precision (Wilson centre)")
    ax.set_title(title or f"{result.secret}: ALC {result.alc:.3f} ({result.label})")
    ax.legend(loc="lower left", fontsize=8)
    return fig


# The paper's figures that a per-dataset figure of ours reproduces (flchain stands in for MedOnc);
# "exp11 values" is Experiment 1.1's heatmap coloured by value, the clustering's input
PAPER_FIGURES = {
    ("exp11", "texas"): "Fig. 5",
    ("exp11", "flchain"): "Fig. 6 (MedOnc; flchain stands in)",
    ("exp11 values", "texas"): "Fig. 13",
    ("exp11 values", "flchain"): "Fig. 14 (MedOnc; flchain stands in)",
    ("exp12", "texas"): "Figs. 7 (PrivBayes) and 8 (PATE-GAN)",
    ("exp12", "flchain"): "Figs. 9 (PrivBayes) and 10 (PATE-GAN) (MedOnc; flchain stands in)",
    ("exp21", "texas"): "Fig. 11",
    ("exp21", "flchain"): "Fig. 12 (MedOnc; flchain stands in)",
}


def reproduces(experiment: str, dataset: str) -> str:
    """The sentence a caption ends with: which of the paper's figures this one reproduces, named
    "paper Fig. N" so that it is never read as one of the book's own numbered figures."""
    figure = PAPER_FIGURES.get((experiment, dataset))
    if figure:
        return f"Reproduces paper {figure}."
    return f"Not in the paper ({dataset} is not one of its datasets): the same analysis, beyond it."


_numbers = iter(range(1, 10_000))  # figures of one page: each notebook runs in its own kernel


def captioned(fig, caption: str, alt: str):
    """``fig`` as a numbered figure of the page with its caption (what to read from it, and which
    of the paper's figures it reproduces) and an alternative text that describes it; the figure
    is closed. Returns an IPython HTML object to ``display``."""
    import base64
    import html
    import io

    from IPython.display import HTML
    from markdown_it import MarkdownIt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    image = base64.b64encode(buffer.getvalue()).decode()
    text = MarkdownIt().renderInline(caption)
    # a figure is drawn for the column (COLUMN_INCHES); one that is not still fits, scaled down
    style = "max-width:100%"
    return HTML(
        f'<figure class="captioned"><div><img alt="{html.escape(alt)}" '
        f'style="{style}" src="data:image/png;base64,{image}"></div><figcaption><strong>Figure '
        f"{next(_numbers)}.</strong> {text}</figcaption></figure>"
    )


def p_column(name) -> bool:
    """Whether a column holds p-values, by its name ("p", "permutation p", "p-value", "p (rho)")."""
    name = str(name).lower()
    return name == "p" or name.endswith(" p") or name.startswith(("p ", "p-value"))


def readable(value: float, p: bool = False) -> str:
    """One number as a reader takes it in: a p-value below 0.001 as "< 0.001" (else three
    decimals); an integral value as an integer with thousands separators; any other to three
    significant figures (from 1,000 on, as a whole number); a missing one as "-"."""
    if not np.isfinite(value):
        return "-" if np.isnan(value) else str(value)
    if p:
        return "< 0.001" if value < 0.001 else f"{value:.3f}"
    if float(value).is_integer() or abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as the book shows it: float columns through :func:`readable` (p-value columns by
    :func:`p_column`), dates as dates, everything else as it is."""
    shown = frame.copy()
    for col in shown.columns:
        values = shown[col]
        if pd.api.types.is_datetime64_any_dtype(values):
            shown[col] = values.dt.strftime("%Y-%m-%d")
        elif pd.api.types.is_float_dtype(values):
            shown[col] = [readable(float(v), p_column(col)) for v in values]
    return shown


def _default_index(frame: pd.DataFrame) -> bool:
    """An index that only numbers the rows (unnamed integers: 0, 1, 2 ..., or the positions a
    filter kept): nothing a reader should see."""
    index = frame.index
    return index.nlevels == 1 and index.name is None and pd.api.types.is_integer_dtype(index)


def colour_name(rgb) -> str:
    """A plain name for a colour of a diverging or sequential map's end: red, orange, yellow,
    green, blue or purple (by hue), grey when it has almost none."""
    import colorsys

    hue, lightness, saturation = colorsys.rgb_to_hls(*rgb[:3])
    if saturation < 0.15:
        return "grey"
    names = ((0.04, "red"), (0.11, "orange"), (0.19, "yellow"), (0.45, "green"), (0.72, "blue"),
             (0.92, "purple"), (1.01, "red"))  # fmt: skip
    return next(name for edge, name in names if hue < edge)


def gradient_key(cmap: str, low: str, high: str) -> str:
    """The caption's key to a colour gradient, read from the map itself: "red: <low>; blue:
    <high>" for ``RdBu``, whose low end is red. ``low`` and ``high`` say what each end means."""
    import matplotlib

    colours = matplotlib.colormaps[cmap]
    return f"{colour_name(colours(0.0))}: {low}; {colour_name(colours(1.0))}: {high}"


class CaptionedTable:
    """A result table shown with its caption above it (an HTML ``<caption>``). A DataFrame is shown
    :func:`tidy` (p-values as "< 0.001", integers as integers, three significant figures, dates as
    dates) and without an index that only numbers its rows; a Styler as its caller formatted it.
    Unnumbered: the book names the paper's tables "Table 7" to "Table 12", and a page's own
    "Table 1" beside them would read as the paper's."""

    def __init__(self, table, caption: str):
        self.table, self.caption = table, caption

    def _repr_html_(self) -> str:
        return with_caption(self._body(), self.caption)

    def _body(self) -> str:
        if not isinstance(self.table, pd.DataFrame):
            return self.table._repr_html_()
        shown = tidy(self.table)
        return shown.to_html(index=not _default_index(shown), classes="dataframe", border=1)

    def __repr__(self) -> str:
        body = self.table.to_string() if hasattr(self.table, "to_string") else repr(self.table)
        return f"{self.caption}\n{body}"


def with_caption(html: str, caption: str) -> str:
    """``html``'s first table with ``caption`` (Markdown, rendered inline) as its ``<caption>``,
    above the table and unnumbered."""
    import re

    from markdown_it import MarkdownIt

    text = MarkdownIt().renderInline(caption)
    head = f'<caption style="caption-side:top;text-align:left">{text}</caption>'
    return re.sub(r"(<table[^>]*>)", lambda m: m.group(1) + head, html, count=1)


def table(frame, caption: str) -> CaptionedTable:
    """``frame`` (a DataFrame, Series or Styler) with ``caption`` (what it holds and how to read
    it) above it; ``display`` it or leave it last in a cell."""
    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    return CaptionedTable(frame, caption)


def captioned_markdown(text: str, caption: str) -> str:
    """``text`` (Markdown whose tables are pipe tables) with each table rendered as HTML under
    ``caption``, in a box of its own: a wide table then scrolls below its caption, as the book
    check asks, and stays unnumbered (a Sphinx table directive would number it "Table 1" beside the
    paper's Tables 7-12)."""
    from markdown_it import MarkdownIt

    lines, out, block = text.splitlines(), [], []

    def flush():
        if block:
            html = MarkdownIt("commonmark").enable("table").render("\n".join(block))
            out.append(f'<div style="overflow-x:auto">{with_caption(html, caption).strip()}</div>')
            block.clear()

    for line in lines:
        if line.startswith("|"):
            block.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return "\n".join(out) + "\n"


# --- privacy against utility per configuration: the synthesisers chapter's trade-off plot ---
# Privacy against utility per configuration: the synthesisers chapter's trade-off plot.
#
# **Privacy risk** of a configuration is the mean, over runs and over the paper's seven selected
# metrics (its Table 12), of their scores, which sit near 0 for Random and near 1 for Real; its
# **utility** is a measure of :mod:`privmetrics.metrics.release_utility` read from the store's
# ``utility`` table, averaged over runs. A DP synthesiser that works moves right (more useful) as
# its epsilon grows while its risk grows less than its utility; one that does not learn sits with
# Random.


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
