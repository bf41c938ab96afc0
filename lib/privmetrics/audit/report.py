"""The audit's HTML report: one self-contained page (table, chart, what each metric measures,
inputs and versions), with the chart embedded as a PNG.

May import ``data`` and ``metrics``.
"""

from __future__ import annotations

import base64
import html
import io
import platform
from dataclasses import dataclass, field
from importlib.metadata import version

import pandas as pd

from privmetrics.data.schema import Schema


@dataclass
class AuditReport:
    """The audit's table plus everything the HTML report shows about how it was made."""

    table: pd.DataFrame
    schema: Schema
    schema_inferred: bool
    seconds: float
    shapes: dict[str, tuple[int, int]]
    remarks: list[str] = field(default_factory=list)

    def to_html(self, sources: dict[str, str] | None = None) -> str:
        return render_html(self, sources or {})


def score_chart(table: pd.DataFrame) -> str:
    """A horizontal bar chart of the scores, coloured by attack category, as a base64 PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = table.dropna(subset=["score"])
    colours = {
        "reconstruction": "tab:purple",
        "re-identification": "tab:blue",
        "tracing": "tab:green",
    }
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(shown) + 1.2))
    ax.barh(shown.metric, shown.score, color=[colours.get(c, "grey") for c in shown.category])
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("score (0 = private, 1 = no privacy)")
    for category, colour in colours.items():
        if category in set(shown.category):
            ax.bar(0, 0, color=colour, label=category)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def render_html(report: AuditReport, sources: dict[str, str]) -> str:
    from privmetrics.metrics import get_metric

    versions = {
        "privmetrics": version("privmetrics"),
        "python": platform.python_version(),
        **{p: version(p) for p in ("numpy", "pandas", "scikit-learn", "scipy")},
    }
    explained = "".join(
        f"<dt>{html.escape(m)}</dt><dd>{html.escape(get_metric(m).doc.split(chr(10) + chr(10))[0])}</dd>"
        for m in report.table.metric
    )
    inputs = {
        **{f"{k} file": v for k, v in sources.items()},
        **{f"{k} rows x columns": f"{r} x {c}" for k, (r, c) in report.shapes.items()},
        "schema": "inferred from the real data" if report.schema_inferred else "given",
        "key attributes": ", ".join(report.schema.key) or "none",
        "sensitive attributes": ", ".join(report.schema.sensitive) or "none",
        "time taken": f"{report.seconds:.1f} s",
        **{f"version of {k}": v for k, v in versions.items()},
    }
    rows = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
        for k, v in inputs.items()
    )
    remarks = "".join(f"<p><em>{html.escape(r)}</em></p>" for r in report.remarks)
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>privmetrics audit</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left}}dt{{font-weight:bold;margin-top:.6em}}</style>
</head><body>
<h1>Privacy audit of a synthetic table</h1>
<p>Scores follow Hansen &amp; Stær's convention: 0 means private, 1 means no privacy (the synthetic
table leaks as much as the real one would).</p>
<h2>Scores</h2>
{report.table.to_html(index=False, float_format=lambda v: f"{v:.3f}", na_rep="not run")}
<h2>Scores by attack category</h2>
<img alt="bar chart of the scores by attack category" src="data:image/png;base64,{score_chart(report.table)}">
{remarks}
<h2>What each metric measures</h2><dl>{explained}</dl>
<h2>Inputs and environment</h2><table>{rows}</table>
<h2>Schema</h2><pre>{html.escape(report.schema.to_yaml())}</pre>
</body></html>
"""
