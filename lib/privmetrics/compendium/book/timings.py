"""The timing report of a ``make reproduce`` run: every step timed as it ran, never typed by hand.

Each step (the experiment grid, each notebook, the book) gets its wall time and its CPU time: this
process, the children it waited for, and every descendant still alive (the grid's joblib workers,
which outlive a step, so the operating system's count of waited-for children misses them). The report also records what a reader needs
to judge the figures: the profile, the machine's cores, its load when the run started and ended,
the commit and the date. :func:`~privmetrics.compendium.book.reproduce.main` writes it as JSON
(``results/timings-<profile>.json``) and as the Markdown table that the book's "How to
reproduce" page includes (``book/generated/timings.md``).
"""

from __future__ import annotations

import json
import os
import resource
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from privmetrics.experiments.profiles import Profile


def cpu_seconds() -> float:
    """CPU time (user + system) of this process, of the children it has waited for, and of every
    live descendant with the children they waited for."""
    import psutil

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    for process in psutil.Process().children(recursive=True):
        try:
            t = process.cpu_times()
        except psutil.Error:  # ended meanwhile
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:  # not available on this platform
        return None


def peak_resident_mb() -> float:
    """This process's peak resident memory so far, MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def machine_line() -> str:
    """The machine a benchmark ran on: cores this process may use and the load averages."""
    from privmetrics.threads import available_cores

    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) + " (1, 5, 15 min)"
    except OSError:
        load = "unknown"
    return f"machine: {available_cores()} cores, load average {load}"


def report_path(profile: Profile) -> Path:
    """Where ``make reproduce`` keeps the profile's timing report: ``timings-<profile>.json``
    beside its results store (git-ignored, but for the paper edition's, which ships so that the
    reviewer's map has a time for every result)."""
    from privmetrics.experiments.grid.runner import results_path

    return results_path(profile).with_name(f"timings-{profile.name}.json")


@dataclass
class TimingReport:
    profile: str
    cores: int
    commit: str = ""
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    load_at_start: float | None = field(default_factory=load_average)
    load_at_end: float | None = None
    steps: list[dict] = field(default_factory=list)

    @contextmanager
    def step(self, name: str):
        """Time the block as step ``name`` (kept even when the block fails, marked unfinished)."""
        wall, cpu = time.perf_counter(), cpu_seconds()
        finished = False
        try:
            yield
            finished = True
        finally:
            self.steps.append(
                {
                    "step": name,
                    "wall_seconds": time.perf_counter() - wall,
                    "cpu_seconds": cpu_seconds() - cpu,
                    "finished": finished,
                }
            )

    def add(self, name: str, wall: float, cpu: float, finished: bool, part_of: str) -> None:
        """Record a step measured elsewhere that ran inside step ``part_of`` beside others (a
        notebook of the notebooks' lanes): shown, not counted again in :attr:`total_wall`."""
        self.steps.append({"step": name, "wall_seconds": wall, "cpu_seconds": cpu,
                           "finished": finished, "part_of": part_of})  # fmt: skip

    @property
    def total_wall(self) -> float:
        return sum(s["wall_seconds"] for s in self.steps if not s.get("part_of"))

    def close(self) -> None:
        self.load_at_end = load_average()

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=1))

    @classmethod
    def load(cls, path: Path) -> TimingReport:
        return cls(**json.loads(Path(path).read_text()))

    def to_markdown(self) -> str:
        """The report as the table the book includes, with one line of context above it."""

        def duration(seconds: float) -> str:
            return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"

        loads = [x for x in (self.load_at_start, self.load_at_end) if x is not None]
        load = " (load average " + " -> ".join(f"{x:.1f}" for x in loads) + ")" if loads else ""
        lines = [
            f"Last `make reproduce` run, profile `{self.profile}`, started {self.started}, commit "
            f"`{self.commit[:7] or 'unknown'}`, on {self.cores} cores{load}: "
            f"{duration(self.total_wall)} wall in all.",
            "",
            "| step | wall | CPU | finished |",
            "|---|---|---|---|",
        ]
        for s in self.steps:
            name = f"&nbsp;&nbsp;{s['step']}" if s.get("part_of") else s["step"]
            lines.append(
                f"| {name} | {duration(s['wall_seconds'])} | {duration(s['cpu_seconds'])} "
                f"| {'yes' if s['finished'] else 'no'} |"
            )
        return "\n".join(lines) + "\n"


NO_REPORT = "No timing report yet: `make reproduce` writes one when it runs.\n"


def in_child(command: list[str], timeout: float) -> dict:
    """Run a benchmark measurement in its own process (its peak memory and cold start its own):
    the JSON of its last output line, ``{"timed out": timeout}`` when it runs too long, or a
    RuntimeError with the end of its error output."""
    import subprocess

    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"timed out": timeout}
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()[-800:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
