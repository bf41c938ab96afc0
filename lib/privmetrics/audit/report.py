"""The audit's outputs: one self-contained HTML page, verdict first, and the same content as JSON.

The page: the verdict (headline and one line per attack category), a chart of the positions with
their intervals, the table with a plain one-line reading per metric (the formula behind a
toggle), the most exposed real rows, the utility panel, then what each metric measures, the
inputs and the versions. May import ``data`` and ``metrics``.
"""

from __future__ import annotations

import base64
import html
import io
import json
import platform
import re
from dataclasses import dataclass, field
from importlib.metadata import version

import numpy as np
import pandas as pd

from privmetrics.audit.verdict import CRITERIA, criteria_rows, percent
from privmetrics.data.schema import Schema
from privmetrics.prose import markdown

EVIDENCE_SHOWN = 10  # exposed rows in the page; the CSV has them all
# the verdict box's colour by level: a low risk is not drawn as an alarm
LEVEL_COLOURS = {"high risk": "#b22222", "some risk": "#d98000", "low risk": "#2e8b57",
                 "cannot tell": "#888888"}  # fmt: skip
# what a steward does not need in a formula: the code's internal notes
INTERNAL = (
    re.compile(r"\s*\((?:[^()]*;\s*)?erratum [A-Z]{2}-\d+\)"),
    re.compile(r"\berratum [A-Z]{2}-\d+[;,]?\s*"),
)


def plain_formula(doc: str) -> str:
    """A metric's docstring as a steward reads it: no Sphinx markup, no backticks, no erratum
    ids, no sentence about the code's internals (its constants, batches and tiles)."""
    text = markdown(doc).replace("`", "")
    for pattern in INTERNAL:
        text = pattern.sub("", text)
    sentences = re.split(r"(?<=[.!?])\s+", text)
    internals = r"\b[A-Z]{3,}\b at a time|\bbatch(es)?\b|\btiles?\b|dense product|sparse one"
    kept = [s for s in sentences if not re.search(internals, s)]
    return " ".join(kept)


@dataclass
class AuditReport:
    """The audit's table plus everything the report shows about the release and how it was made."""

    table: pd.DataFrame
    schema: Schema
    schema_inferred: bool
    seconds: float
    shapes: dict[str, tuple[int, int]]
    remarks: list[str] = field(default_factory=list)
    verdict: object = None  # a privmetrics.audit.verdict.Verdict
    evidence: pd.DataFrame = field(default_factory=pd.DataFrame)
    evidence_lines: list[str] = field(default_factory=list)
    # singling out, linkability and inference, the holdout as control (privmetrics.audit.criteria)
    criteria: pd.DataFrame = field(default_factory=pd.DataFrame)
    criteria_lines: list[str] = field(default_factory=list)
    utility: pd.DataFrame = field(default_factory=pd.DataFrame)
    costs: dict[str, float] = field(default_factory=dict)  # seconds per scored table
    estimated: float | None = None  # the scoring's seconds as estimated before it started
    anchor: str = "Random"

    @property
    def judged(self) -> pd.DataFrame:
        """The rows the verdict and ``--fail-on`` read: the metrics' table and, with a holdout,
        the three criteria as attack measures (:func:`~privmetrics.audit.verdict.criteria_rows`)."""
        if self.criteria.empty:
            return self.table
        return pd.concat([self.table, criteria_rows(self.criteria)], ignore_index=True)

    def to_html(self, sources: dict[str, str] | None = None) -> str:
        return render_html(self, sources or {})

    def to_dict(self, sources: dict[str, str] | None = None) -> dict:
        """Everything in the report as plain JSON types (NaN as null)."""
        table = self.table.astype(object).where(self.table.notna(), None)
        return {
            "verdict": {"level": self.verdict.level, "headline": self.verdict.headline,
                        "categories": self.verdict.categories, "metrics": self.verdict.flagged,
                        "next step": self.verdict.next_step},
            "scores": table.to_dict("records"),
            "lower end": self.anchor,
            "evidence": {"summary": self.evidence_lines, "rows": len(self.evidence)},
            "singling out, linkability and inference": {
                "summary": self.criteria_lines, "attacks": self.criteria.to_dict("records")},
            "utility": {m: row.to_dict() for m, row in self.utility.iterrows()},
            "remarks": self.remarks,
            "inputs": {**(sources or {}), **{k: list(v) for k, v in self.shapes.items()}},
            "schema": self.schema.to_dict(),
            "seconds": {"total": self.seconds, **self.costs, "scoring estimated": self.estimated},
            "versions": versions(),
        }  # fmt: skip

    def to_json(self, sources: dict[str, str] | None = None) -> str:
        return json.dumps(self.to_dict(sources), indent=2, default=_plain)


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


def versions() -> dict[str, str]:
    return {
        "privmetrics": version("privmetrics"),
        "python": platform.python_version(),
        **{p: version(p) for p in ("numpy", "pandas", "scikit-learn", "scipy")},
    }


COLOURS = {"reconstruction": "tab:purple", "re-identification": "tab:blue", "tracing": "tab:green",
           CRITERIA: "tab:orange"}  # fmt: skip


def position_chart(table: pd.DataFrame, anchor: str) -> str:
    """:func:`chart_figure` as a base64 PNG."""
    import matplotlib.pyplot as plt

    fig = chart_figure(table, anchor)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def chart_figure(table: pd.DataFrame, anchor: str):
    """The positions (0 = the lower end, 1 = Real) with their intervals, one bar per informative
    metric, coloured by attack category, with the thirds that the readings use, every bar and
    whisker inside the axis and its labels legible at 1,280 px (11-point type, 900 px wide).
    Every metric is oriented the same way here, whatever its raw scale (MDCR's copy scores 0.95,
    CZeroCAP's 1): the position is measured between this data's own references."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = ["metric", "category", "position", "position low", "position high"]
    shown = (table.dropna(subset=["position"]) if "position" in table
             else pd.DataFrame(columns=columns))  # fmt: skip
    fig, ax = plt.subplots(figsize=(9, 0.5 * max(len(shown), 1) + 1.8))
    for edge in (1 / 3, 2 / 3):
        ax.axvline(edge, color="grey", lw=0.8, ls=":")
    y = np.arange(len(shown))
    where, low, high = (shown[c].to_numpy(float) for c in columns[2:])
    low, high = np.where(np.isnan(low), where, low), np.where(np.isnan(high), where, high)
    # the axis holds every bar and whisker (a position may lie beyond 0 or 1), with room for
    # the label at the right of the longest bar
    left = min(0.0, float(np.min(low, initial=0.0))) - 0.05
    right = max(1.0, float(np.max(high, initial=1.0))) + 0.22
    ax.barh(y, where, color=[COLOURS.get(c, "grey") for c in shown.category],
            xerr=[np.abs(where - low), np.abs(high - where)], capsize=3)  # fmt: skip
    for row, (value, top) in enumerate(zip(where, high, strict=True)):
        # the position right of the bar and its whisker (right of zero for a bar to the left), so
        # it never covers a metric's name
        ax.text(max(value, top, 0) + 0.02, row, percent(value), va="center", ha="left",
                fontsize=11)  # fmt: skip
    ax.axvline(0, color="black", lw=0.6)
    ax.set_yticks(y, shown.metric, fontsize=11)
    ax.tick_params(axis="x", labelsize=10)
    ax.set_xlim(left, right)
    ax.invert_yaxis()
    ax.set_xlabel(f"position: 0 = scores like the {anchor}, 1 = scores like Real (a copy)",
                  fontsize=11)  # fmt: skip
    thirds = (("like unseen people", "closer", "like a copy") if anchor == "holdout"
              else (f"near {anchor}", "between", "near Real"))  # fmt: skip
    for x, words in zip((1 / 6, 0.5, 5 / 6), thirds, strict=True):
        ax.text(x, -0.75, words, ha="center", va="bottom", fontsize=10, color="dimgrey")
    present = [c for c in COLOURS if c in set(shown.category)] or list(COLOURS)[:3]
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[c]) for c in present]
    fig.legend(handles, present, loc="lower center", ncol=len(present), fontsize=10, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


NUMBERS = ("score", "Holdout", "Random", "Random SEM", "Real", "position", "position low",
           "position high")  # fmt: skip


def _number(col: str, value) -> str:
    if isinstance(value, float) and np.isnan(value):
        # a position of a metric whose references score alike; a score never computed
        return "uninformative" if col.startswith("position") else "not run"
    return f"{value:.3f}" if isinstance(value, float) else html.escape(str(value))


def _table_html(table: pd.DataFrame) -> str:
    """One row per metric: its name, category and reading in words, with the numbers behind it
    (the score, the references' scores, the position and its interval) and its formula (the
    docstring) behind two toggles, so the table fits a page."""
    from privmetrics.metrics import get_metric

    numbers = [c for c in NUMBERS if c in table]
    rows = []
    for _, row in table.iterrows():
        shown = "".join(f"<tr><th>{html.escape(c)}</th><td>{_number(c, row[c])}</td></tr>"
                        for c in numbers)  # fmt: skip
        doc = plain_formula(get_metric(row.metric).doc)
        rows.append(
            f"<tr><td>{html.escape(row.metric)}</td><td>{html.escape(str(row.category))}</td>"
            f"<td>{html.escape(str(row.reading))}"
            f"<details><summary>numbers</summary><table>{shown}</table></details>"
            f"<details><summary>formula</summary><pre>{html.escape(doc)}</pre></details></td></tr>"
        )
    head = "<tr><th>metric</th><th>category</th><th>reading</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def render_html(report: AuditReport, sources: dict[str, str]) -> str:
    from privmetrics.metrics import get_metric

    verdict = report.verdict
    lines = "".join(f"<li>{html.escape(line)}</li>" for line in verdict.categories)
    explained = "".join(
        f"<dt>{html.escape(m)}</dt><dd>{html.escape(get_metric(m).reading)}</dd>"
        for m in report.table.metric
    )
    inputs = {
        **{f"{k} file": v for k, v in sources.items()},
        **{f"{k} rows x columns": f"{r} x {c}" for k, (r, c) in report.shapes.items()},
        "schema": "inferred from the real data" if report.schema_inferred else "given",
        "key attributes": ", ".join(report.schema.key) or "none",
        "sensitive attributes": ", ".join(report.schema.sensitive) or "none",
        "time taken": f"{report.seconds:.1f} s ("
        + ", ".join(f"{k} {v:.1f} s" for k, v in report.costs.items())
        + ")",
        **{f"version of {k}": v for k, v in versions().items()},
    }
    rows = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
        for k, v in inputs.items()
    )
    remarks = "".join(f"<p><em>{html.escape(r)}</em></p>" for r in report.remarks)
    evidence = "".join(f"<li>{html.escape(line)}</li>" for line in report.evidence_lines)
    top = report.evidence.head(EVIDENCE_SHOWN)
    signals = [c for c in top.columns if not c.startswith(("real: ", "release: "))]
    top_html = (  # what exposes each row; its values and its release row's are in the CSV
        f"<table><caption>The {len(top)} most exposed of {len(report.evidence):,} listed real rows: "
        "what exposes each (the rows' values and their nearest release rows' are in the evidence "
        f"file, --evidence)</caption>{top[signals].to_html(index=False, header=True, float_format=lambda v: f'{v:.4f}').split('>', 1)[1]}"
        if len(top) else ""
    )  # fmt: skip
    utility = (
        report.utility.to_html(float_format=lambda v: f"{v:.3f}") if len(report.utility) else ""
    )
    chart = position_chart(report.judged, report.anchor)  # the criteria too, as the verdict
    criteria = "".join(f"<li>{html.escape(line)}</li>" for line in report.criteria_lines)
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>privmetrics audit</title>
<style>body{{font-family:sans-serif;max-width:64em;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}}
dt{{font-weight:bold;margin-top:.6em}}.verdict{{font-size:1.15em;padding:.6em;border-left:.4em solid {LEVEL_COLOURS.get(verdict.level, "#888")}}}
details pre{{white-space:pre-wrap;font-size:.8em}}
.next{{padding:.6em;background:#f4f4f4}}img{{max-width:100%}}caption{{caption-side:top;text-align:left;padding:.3em 0}}</style>
</head><body>
<h1>Privacy audit of a synthetic table</h1>
<p class="verdict"><strong>{html.escape(verdict.headline)}</strong></p>
<ul>{lines}</ul>
<p class="next"><strong>Next step.</strong> {html.escape(verdict.next_step)}</p>
<h2>Where the release sits</h2>
<p>Each metric's score is placed between what this data's own references score: 0 is the
{html.escape(report.anchor)}, 1 is Real (the real table itself, a copy). Bars show the position,
whiskers its interval; metrics whose references score alike (uninformative here) are left out.</p>
<img alt="bar chart: each metric's position between the {html.escape(report.anchor)} (0) and Real (1)" src="data:image/png;base64,{chart}">
{remarks}
<h2>Scores</h2>
{_table_html(report.table)}
<h2>Who is exposed</h2>
<ul>{evidence}</ul>
{top_html}
<h2>Singling out, linkability and inference</h2>
<p>The three risks by which European practice judges anonymisation: attacks on the people in the
training data, each set against the same attack on unseen people (the holdout). Risk 0: the
release tells nothing more about its members than about anyone; 1: the attack succeeds on every
member.</p>
<ul>{criteria}</ul>
<h2>Utility beside privacy</h2>
<p>How much the release resembles the real data (total variation distances: 0 identical, 1
disjoint; detection AUC: 0.5 indistinguishable, 1 always told apart), beside the references.</p>
{utility}
<h2>What each metric measures</h2><dl>{explained}</dl>
<h2>Inputs and environment</h2><table>{rows}</table>
<h2>Schema</h2><pre>{html.escape(report.schema.to_yaml())}</pre>
</body></html>
"""
