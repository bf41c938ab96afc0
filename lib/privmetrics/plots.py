"""Figures shared by the notebooks and reports (matplotlib/seaborn; each returns its Figure)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd

from .schema import Schema


def plot_marginals(
    frame: pd.DataFrame, schema: Schema, title: str = "", max_categories: int = 12, ncols: int = 6
):
    """One small panel per column: a histogram for numerical columns, bar counts for the others.

    Categorical panels show the ``max_categories`` most frequent values; key attributes are drawn in
    blue, sensitive in red, the others in grey, so the attacker's roles are visible at a glance.
    """
    names = schema.names
    nrows = math.ceil(len(names) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.6 * ncols, 2.2 * nrows), squeeze=False)
    for ax, col in zip(axes.flat, names, strict=False):
        color = "tab:blue" if col in schema.key else "tab:red" if col in schema.sensitive else "0.5"
        if col in schema.numerical:
            ax.hist(frame[col], bins=30, color=color)
            if frame[col].max() > 100 * max(frame[col].median(), 1):
                ax.set_yscale("log")
        else:
            counts = frame[col].value_counts().head(max_categories)
            ax.bar(counts.index.astype(str), counts.to_numpy(), color=color)
            ax.tick_params(axis="x", labelrotation=90, labelsize=6)
        ax.set_title(f"{col} ({schema.columns[col]})", fontsize=8)
        ax.tick_params(axis="y", labelsize=6)
    for ax in axes.flat[len(names) :]:
        ax.axis("off")
    fig.suptitle(title or "Marginals (blue: key, red: sensitive)", fontsize=10)
    fig.tight_layout()
    return fig
