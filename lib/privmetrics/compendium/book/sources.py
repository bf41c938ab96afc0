"""Where each of the paper's results comes from: the reviewer's map.

One registry (:data:`RESULTS`): every figure and table of the paper's experiments (Figures 5-14,
Tables 7-12), the chapter and notebook that reproduce it, and the parameters that select it. From
it, :func:`reviewer_map` writes the book's page: the papermill command for each result on the
shipped paper store, and the time its notebook took in the last timed build of that profile
(``results/timings-<profile>.json``, written by ``make reproduce``), or "not timed here".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from privmetrics.compendium.book.timings import report_path
from privmetrics.experiments.profiles import Profile


@dataclass(frozen=True)
class PaperResult:
    item: str  # the paper's figure or table
    what: str
    notebook: str
    parameters: dict = field(default_factory=dict)


RESULTS = [
    PaperResult("Figure 5", "Experiment 1.1 on Texas: scores coloured by rank", "exp11",
                {"dataset": "texas"}),
    PaperResult("Figure 6", "Experiment 1.1 on MedOnc (flchain stands in)", "exp11",
                {"dataset": "flchain"}),
    PaperResult("Table 7", "Experiment 1.1: which metrics work", "exp11"),
    PaperResult("Figures 7, 8", "Experiment 1.2 on Texas: PrivBayes, PATE-GAN against epsilon",
                "exp12", {"dataset": "texas"}),
    PaperResult("Figures 9, 10", "Experiment 1.2 on MedOnc (flchain)", "exp12",
                {"dataset": "flchain"}),
    PaperResult("Table 8", "Experiment 1.2: which metrics rise with epsilon", "exp12"),
    PaperResult("Figure 11", "Experiment 2.1: Spearman matrix, Texas", "exp21",
                {"dataset": "texas"}),
    PaperResult("Figure 12", "Experiment 2.1: Spearman matrix, MedOnc (flchain)", "exp21",
                {"dataset": "flchain"}),
    PaperResult("Figures 13, 14", "Scores coloured by value (the clustering's input)", "exp11"),
    PaperResult("Table 9", "Experiment 2.2: OPTICS clusters, Texas", "exp22"),
    PaperResult("Table 10", "Experiment 2.2: OPTICS clusters, MedOnc (flchain)", "exp22"),
    PaperResult("Tables 11, 12", "The metric selection: 21 to 7", "selection"),
    PaperResult("Tables 7-12", "Every table set beside ours", "comparison"),
]  # fmt: skip


def command(result: PaperResult, profile: str = "paper") -> str:
    """The papermill command that makes ``result`` from the ``profile`` store, run from the
    checkout; the executed copy goes to ``_build/`` (ignored by git), not into the checkout."""
    params = {"profile": profile, **result.parameters}
    flags = " ".join(f"-p {k} {v}" for k, v in params.items())
    out = f"_build/rerun-{result.notebook}.ipynb"
    return f"mkdir -p _build && papermill notebooks/{result.notebook}.ipynb {out} {flags} --cwd notebooks"


def notebook_seconds(report: Path) -> dict[str, float]:
    """Wall seconds per notebook in a timing report (empty when there is none)."""
    if not report.exists():
        return {}
    steps = json.loads(report.read_text()).get("steps", [])
    return {
        s["step"].removeprefix("notebook "): s["wall_seconds"]
        for s in steps
        if s["step"].startswith("notebook ") and s.get("finished")
    }


def reviewer_map(
    profile: Profile,
    report: Path | None = None,
    values: dict[str, str] | None = None,
    beside: tuple[str, dict[str, str]] | None = None,
) -> str:
    """The page's table, in Markdown: each result, its notebook and command, what it gives on
    ``profile``'s store (``values`` by item: its verdict line,
    :func:`privmetrics.compendium.book.findings.result_values`), on a second store when
    ``beside`` = (that profile's name, its values) is given (the edition's own), and the
    notebook's time in the timing report."""
    report = report or report_path(profile)
    seconds = notebook_seconds(report)
    values = values or {}
    stores = [(profile.name, values), *([beside] if beside else [])]
    heads = " | ".join(f"on the `{name}` store" for name, _ in stores)
    rows = [
        f"| paper | what | notebook | command | {heads} | notebook time |",
        "|---|---|---|---|" + "---|" * len(stores) + "---|",
    ]
    for result in RESULTS:
        took = seconds.get(result.notebook)
        took = f"{took:.0f} s" if took is not None else f"not timed here (no `{report.name}`)"
        cells = " | ".join(
            found.get(result.item, "a figure" if result.item.startswith("Fig") else "-")
            for _, found in stores
        )
        rows.append(
            f"| {result.item} | {result.what} | `notebooks/{result.notebook}.ipynb` | "
            f"`{command(result, profile.name)}` | {cells} | {took} |"
        )
    return "\n".join(rows) + "\n"
