"""The compendium's commands and what they cost, from one source.

:data:`MAIN` is the two commands that reproduce everything; :data:`OTHERS` the editions built
beside them. :func:`block` is the Markdown code block that the README shows (a test checks that
the README holds exactly this block) and that the book's introduction and "How to reproduce" page
include from ``book/generated/commands.md`` (:func:`page`). The costs in :func:`costs` are never
typed: they are read from the timing reports that ``make reproduce`` writes
(``results/timings-<profile>.json``, git-ignored so that a build leaves the checkout clean,
but for the paper edition's, which ships) and
from the computing time recorded with every cell of the shipped paper store.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from privmetrics.compendium.book.timings import TimingReport

MAIN = [
    ("make reproduce", "the book on the quick profile, offline"),
    (
        "make test",
        "the whole test suite (ruff + pytest, notebooks included); .ci/run calls exactly this",
    ),
]
OTHERS = [
    ("make reproduce PROFILE=paper", "the paper edition, from the shipped results store"),
    ("make book-student", "the student edition: chapters and exercises, no answers"),
]


def block(commands: list[tuple[str, str]] = MAIN) -> str:
    """The commands as a bash code block, comments aligned."""
    width = max(len(c) for c, _ in commands) + 2
    lines = [f"{c.ljust(width)}# {what}" for c, what in commands]
    return "```bash\n" + "\n".join(lines) + "\n```"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def _report_sentence(path: Path, what: str) -> str | None:
    if not path.exists():
        return None
    report = TimingReport.load(path)
    loads = [x for x in (report.load_at_start, report.load_at_end) if x is not None]
    load = f", load average {loads[0]:.1f} at the start" if loads else ""
    return (f"{what} took {_minutes(report.total_wall)} of wall time on {report.cores} cores{load} "
            f"(its last run, {report.started[:10]})")  # fmt: skip


def paper_store_time(store: Path) -> tuple[int, float] | None:
    """The shipped paper store's cell count and the hours of cell time recorded with them."""
    if not store.exists():
        return None
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        count, seconds = conn.execute("SELECT COUNT(*), SUM(cell_seconds) FROM cells").fetchone()
    return None if not count else (int(count), (seconds or 0.0) / 3600)


def costs(results: Path) -> str:
    """What the commands cost, from the timing reports in ``results`` and the paper store."""
    parts = [
        _report_sentence(results / "timings-quick.json", "`make reproduce` (quick profile)"),
        _report_sentence(results / "timings-paper.json", "`make reproduce PROFILE=paper`"),
    ]
    recorded = paper_store_time(results / "paper.sqlite")
    if recorded is not None:
        parts.append(
            f"the paper edition reads its grid from the shipped store ({recorded[0]} cells with "
            f"{recorded[1]:.1f} h of cell time recorded; a fit taken from the synthetic-table "
            "cache counts only its loading) and recomputes only cells that are missing"
        )
    found = [p for p in parts if p]
    if not found:
        return "No timing report exists yet on this machine: `make reproduce` writes one."
    return "Measured, not typed: " + "; ".join(found) + "."


def page(results: Path) -> str:
    """``book/generated/commands.md``: the two commands, the other editions, and their costs."""
    return block() + "\n\nThe other editions:\n\n" + block(OTHERS) + "\n\n" + costs(results) + "\n"
