"""The commands and their costs come from one source (issue 31): the README holds the generated
blocks, the introduction and the "How to reproduce" page include the generated page, and the
costs are read from timing reports, never typed."""

import re
import sqlite3

from privmetrics.compendium.benchmarks import command_costs as C
from privmetrics.compendium.book.timings import TimingReport
from privmetrics.paths import checkout_root


def test_the_readme_shows_the_generated_blocks_and_the_book_includes_them():
    readme = (checkout_root() / "README.md").read_text()
    assert C.block() in readme and C.block(C.OTHERS) in readme
    for page in ("intro.md", "reproduce.md"):
        text = (checkout_root() / "book" / page).read_text()
        assert "```{include} generated/commands.md" in text, page
        typed = re.search(r"^make (reproduce|test|book-student)\b", text, re.MULTILINE)
        assert not typed, f"{page} types its own commands"
    assert (
        "Two commands" in (checkout_root() / "book" / "intro.md").read_text() and len(C.MAIN) == 2
    )


def test_the_costs_are_read_from_the_reports_and_the_store(tmp_path):
    assert "No timing report exists yet" in C.costs(tmp_path)
    report = TimingReport("quick", cores=2, started="2026-01-02T03:04:05+00:00", load_at_start=1.25)
    report.steps = [{"step": "a", "wall_seconds": 300.0, "cpu_seconds": 1.0, "finished": True},
                    {"step": "b", "wall_seconds": 60.0, "cpu_seconds": 1.0, "finished": True}]  # fmt: skip
    report.save(tmp_path / "timings-quick.json")
    with sqlite3.connect(tmp_path / "paper.sqlite") as conn:
        conn.execute("CREATE TABLE cells (cell_seconds REAL)")
        conn.executemany("INSERT INTO cells VALUES (?)", [(3600.0,), (1800.0,)])
    said = C.costs(tmp_path)
    assert "`make reproduce` (quick profile) took 6 min of wall time on 2 cores" in said
    assert "load average 1.2 at the start" in said or "load average 1.3 at the start" in said
    assert "(2 cells with 1.5 h of cell time recorded" in said
    assert "PROFILE=paper` took" not in said  # no paper report: nothing said about it
    page = C.page(tmp_path)
    assert page.startswith(C.block()) and C.block(C.OTHERS) in page
