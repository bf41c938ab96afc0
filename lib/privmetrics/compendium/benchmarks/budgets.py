"""The CPU budgets of the README's commands, measured the way a newcomer meets them.

``make bench-book`` (:func:`measure`) clones the checkout's last commit into a fresh folder (so
no cache, no results store but the shipped one, no built book), sets it up (its own ``.venv``,
timed apart), then runs each command of :data:`BUDGETS` there in turn, each after ``git clean``
(nothing another command left behind, the ``.venv`` kept), and measures its wall time
and its CPU time (user + system of everything the command started, from the kernel's count of
waited-for children). :func:`verdicts` sets each beside its budget: a command over its budget by
more than :data:`TOLERANCE` fails, so the feature that breaks a budget is seen when it lands. It
is a benchmark, not a test: the machine's cores and load are printed with the table, and a
figure from a busy machine says so.

The budgets are those of issue 44 (two cores; wall time on an idle machine).
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# a budget is exceeded when a measurement is more than this share above it
TOLERANCE = 0.2


@dataclass(frozen=True)
class Budget:
    command: str  # as the README gives it
    wall: float | None  # seconds, idle two-core machine; None: no wall budget
    cpu: float | None  # CPU seconds; None: no CPU budget


BUDGETS = (
    Budget("make reproduce", wall=10 * 60, cpu=15 * 60),
    Budget("make reproduce PROFILE=paper", wall=5 * 60, cpu=None),
    Budget("make test", wall=10 * 60, cpu=18 * 60),
    Budget("make test-fast", wall=60, cpu=None),
    Budget("make bench", wall=30, cpu=None),
)


@dataclass
class Measurement:
    command: str
    wall: float
    cpu: float
    exit_code: int


def children_cpu() -> float:
    """User + system seconds of every child this process has waited for."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_timed(command: str, cwd: Path, log: Path, env: dict | None = None) -> Measurement:
    """Run ``command`` in a shell in ``cwd``, its output to ``log``; its wall and CPU time."""
    cpu, wall = children_cpu(), time.perf_counter()
    with open(log, "ab") as out:
        done = subprocess.run(command, shell=True, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                              env={**os.environ, **(env or {})})  # fmt: skip
    return Measurement(command, time.perf_counter() - wall, children_cpu() - cpu, done.returncode)


def fresh_clone(source: Path, into: Path) -> Path:
    """A clone of ``source``'s last commit in ``into``/checkout, with the team's ``shared`` folder
    beside it as it is beside ``source`` (a link), so the Texas file is found the same way."""
    into.mkdir(parents=True, exist_ok=True)
    target = into / "checkout"
    subprocess.run(["git", "clone", "--quiet", str(source), str(target)], check=True)
    shared = source.parent / "shared"
    if shared.exists() and not (into / "shared").exists():
        (into / "shared").symlink_to(shared.resolve())
    return target


def measure(
    source: Path, commands: list[str], keep: bool = False
) -> tuple[list[Measurement], Measurement, list[str]]:
    """Every command of ``commands`` run in a fresh clone of ``source``: (their measurements, the
    set-up's, where each one's time went: :func:`breakdown`). The clone is removed afterwards
    unless ``keep``."""
    folder = Path(tempfile.mkdtemp(prefix="privmetrics-bench-book-"))
    try:
        clone = fresh_clone(source, folder)
        log = folder / "bench-book.log"
        setup = run_timed("make setup", clone, log)
        if setup.exit_code:
            raise RuntimeError(f"make setup failed in the clone; see {log}")
        measured, where = [], []
        for command in commands:  # each from a clean clone: no cache or store another one left
            subprocess.run(["git", "clean", "-xdfq", "-e", ".venv"], cwd=clone, check=True)
            junit = folder / "tests.xml"
            measured.append(
                run_timed(command, clone, log, {"PYTEST_ADDOPTS": f"--junitxml={junit}"})
            )
            where += breakdown(command, clone, junit)
        return measured, setup, where
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


def breakdown(command: str, clone: Path, junit: Path) -> list[str]:
    """Where a measured command's time went, as lines of text: for ``make reproduce``, its timing
    report's steps and, from its results store, the grid's seconds per technique and per metric
    and the games' per technique; for ``make test``, the test files' seconds (summed over the
    workers), most first."""
    import json
    import sqlite3
    import xml.etree.ElementTree as ET
    from collections import Counter

    lines = []
    profile = "paper" if "PROFILE=paper" in command else "quick"
    report = clone / "results" / f"timings-{profile}.json"
    if command.startswith("make reproduce") and report.exists():
        lines += ["", f"{command}: steps (wall s, CPU s)"]
        for step in json.loads(report.read_text())["steps"]:
            name = ("  " if step.get("part_of") else "") + step["step"]
            lines.append(f"  {name:<32}{step['wall_seconds']:8.0f}{step['cpu_seconds']:8.0f}")
        store = clone / "results" / f"{profile}.sqlite"
        if profile == "quick" and store.exists():
            with sqlite3.connect(store) as conn:
                for title, sql in (
                    ("grid cells per technique (cells, wall s in the workers)",
                     "SELECT technique, COUNT(*), SUM(cell_seconds) FROM cells GROUP BY technique"),
                    ("grid metrics (scorings, s), the ten dearest",
                     "SELECT metric, COUNT(*), SUM(seconds) FROM scores GROUP BY metric"),
                    ("attack games per technique (games of both kinds, s)",
                     "SELECT technique, COUNT(*), SUM(seconds) FROM (SELECT technique, seconds FROM "
                     "games UNION ALL SELECT technique, seconds FROM attribute_games) GROUP BY technique"),
                ):  # fmt: skip
                    try:
                        rows = sorted(conn.execute(sql).fetchall(), key=lambda r: -(r[2] or 0))
                    except sqlite3.Error:
                        continue
                    lines += ["", title] + [
                        f"  {n:<36}{c:8d}{(s or 0):8.0f}" for n, c, s in rows[:10]
                    ]
    if command == "make test" and junit.exists():
        files = Counter()
        for case in ET.parse(junit).iter("testcase"):
            files[case.get("classname", "?")] += float(case.get("time") or 0)
        lines += [
            "",
            f"make test: seconds per test file (summed over workers), {sum(files.values()):.0f} in all",
        ]
        lines += [f"  {name:<52}{seconds:8.0f}" for name, seconds in files.most_common(15)]
    return lines


def verdict(measured: float | None, budget: float | None) -> str:
    """ "ok", "over (+x%)" within the tolerance, "OVER BUDGET (+x%)" beyond it, or "-"."""
    if measured is None or budget is None:
        return "-"
    excess = measured / budget - 1
    if excess <= 0:
        return "ok"
    return f"over (+{excess:.0%})" if excess <= TOLERANCE + 1e-9 else f"OVER BUDGET (+{excess:.0%})"


def verdicts(measurements: list[Measurement]) -> list[dict]:
    """One row per measurement beside its budget."""
    budgets = {b.command: b for b in BUDGETS}
    rows = []
    for m in measurements:
        budget = budgets.get(m.command, Budget(m.command, None, None))
        rows.append({"command": m.command, "exit": m.exit_code, "wall s": m.wall,
                     "wall budget": budget.wall, "wall": verdict(m.wall, budget.wall),
                     "CPU s": m.cpu, "CPU budget": budget.cpu, "CPU": verdict(m.cpu, budget.cpu)})  # fmt: skip
    return rows


def failed(rows: list[dict]) -> bool:
    """A command failed, or exceeded a budget beyond the tolerance."""
    return any(r["exit"] or "OVER BUDGET" in r["wall"] + r["CPU"] for r in rows)


def format_rows(
    rows: list[dict], setup: Measurement | None, machine: str, where: list[str] = ()
) -> str:
    def seconds(value):
        return "-" if value is None else f"{value:,.0f}"

    lines = [machine]
    if setup is not None:
        lines.append(f"set-up (make setup in the fresh clone): {setup.wall:,.0f} s wall, "
                     f"{setup.cpu:,.0f} CPU-s (not counted below)")  # fmt: skip
    lines += ["", f"{'command':<30}{'wall s':>8}{'budget':>8}  {'':<22}{'CPU s':>8}{'budget':>8}  "]
    for r in rows:
        lines.append(
            f"{r['command']:<30}{seconds(r['wall s']):>8}{seconds(r['wall budget']):>8}  "
            f"{r['wall']:<22}{seconds(r['CPU s']):>8}{seconds(r['CPU budget']):>8}  {r['CPU']}"
            + (f"  (exit {r['exit']})" if r["exit"] else "")
        )
    lines.append(f"\na budget counts as exceeded above +{TOLERANCE:.0%}; wall budgets are for an "
                 "idle machine")  # fmt: skip
    return "\n".join([*lines, *where])


def load_line() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"
