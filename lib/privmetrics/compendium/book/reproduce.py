"""The main job: execute every notebook with papermill for one profile, then build the book.

``privmetrics book --profile quick`` (what ``make reproduce`` runs; :func:`make_book`). The experiment
grid is computed first (:func:`privmetrics.experiments.grid.runner.run_grid`, resumable, with a
progress bar), then Experiment 3's games (:func:`privmetrics.experiments.games.play.run_games`,
likewise), then the notebooks read their results, one per core at a time. Executed
notebooks go to ``book/generated/`` (git-ignored), which ``_toc.yml`` points at; jupyter-book
then builds them without re-executing (``execute_notebooks: off`` in ``_config.yml``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from privmetrics.compendium.book.sessions import ANSWERS, keep_answers, tag_for_book
from privmetrics.compendium.book.timings import NO_REPORT, TimingReport, report_path
from privmetrics.experiments.profiles import Profile, get_profile
from privmetrics.paths import checkout_root
from privmetrics.threads import available_cores

# In book order; each notebook takes the papermill parameter ``profile``.
NOTEBOOKS = [
    "metrics", "errata", "datasets", "synthesisers", "exp11", "exp12", "exp21", "exp22",
    "selection", "comparison", "attacks", "alc", "disclosure", "priveval", "peers", "own_data",
]  # fmt: skip


# the BLAS/OpenMP pools of a notebook's kernel, sized to its share of the cores
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class NotebookFailed(RuntimeError):
    """A notebook stopped with an error (the executed copy shows the cell)."""


@dataclass
class NotebookRun:
    name: str
    path: Path
    wall: float  # seconds
    cpu: float  # user + system seconds of papermill and its kernel
    exit_code: int
    log_tail: str


def run_notebooks(
    profile: Profile,
    out_dir: Path,
    names: list[str] | None = None,
    report: TimingReport | None = None,
    lanes: int | None = None,
) -> list[Path]:
    """Execute ``names`` (default :data:`NOTEBOOKS`) with papermill into ``out_dir`` and tag them
    for the book; returns their paths in book order. They run ``lanes`` at a time (default: one
    per available core), each in its own process with a BLAS pool of its share of the cores, in
    book order: the notebooks only read the results store and the caches (whose writes are
    atomic), so no order among them is needed. Every notebook runs even when one fails; then
    :class:`NotebookFailed` names the failures with the end of papermill's log."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from tqdm.auto import tqdm

    names = list(names or NOTEBOOKS)
    lanes = max(1, min(lanes or available_cores(), len(names)))
    out_dir.mkdir(parents=True, exist_ok=True)
    threads = str(max(1, available_cores() // lanes))
    env = {**os.environ, **dict.fromkeys(THREAD_VARIABLES, threads)}
    step = f"notebooks ({lanes} at a time)"
    runs, answers, kept = {}, {}, checkout_root() / "results" / ANSWERS
    shipped = json.loads(kept.read_text()) if kept.exists() else {}
    with report.step(step) if report else contextlib.nullcontext():
        with ThreadPoolExecutor(lanes) as pool:
            futures = [pool.submit(_execute, profile, name, out_dir, env) for name in names]
            for future in tqdm(as_completed(futures), total=len(names), desc="notebooks"):
                run = future.result()
                runs[run.name] = run
                if not run.exit_code:
                    answers[run.name] = tag_for_book(run.path, profile.name, shipped)
                print(f"executed {run.name} in {run.wall:.1f} s -> {run.path}", flush=True)
    if report:
        for run in runs.values():
            report.add(f"notebook {run.name}", run.wall, run.cpu, not run.exit_code, step)
    if profile.name == "paper" and len(answers) == len(NOTEBOOKS):  # a whole paper edition
        keep_answers(kept, answers)
    failed = [run for run in runs.values() if run.exit_code]
    if failed:
        raise NotebookFailed("\n\n".join(
            f"notebook {run.name} failed (see {run.path}):\n{run.log_tail}" for run in failed
        ))  # fmt: skip
    return [runs[name].path for name in names]


def _execute(profile: Profile, name: str, out_dir: Path, env: dict) -> NotebookRun:
    """One notebook through papermill's command line in a child process, timed: its wall time
    and the CPU time of the child and the kernel it waited for (``os.wait4``'s count)."""
    import tempfile

    root = checkout_root()
    target = out_dir / f"{name}.ipynb"
    command = [
        sys.executable, "-m", "papermill", str(root / "notebooks" / f"{name}.ipynb"), str(target),
        "-p", "profile", profile.name, "--cwd", str(root), "-k", "python3",
        "--no-progress-bar", "--log-level", "WARNING",
    ]  # fmt: skip
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        log.seek(0)
        tail = log.read()[-3000:].decode(errors="replace")
    cpu = usage.ru_utime + usage.ru_stime
    return NotebookRun(name, target, wall, cpu, child.returncode, tail)


def build_book(root: Path | None = None) -> Path:
    """jupyter-book over ``root`` (default: the checkout; its ``_config.yml`` and ``_toc.yml``);
    the built index page."""
    root = root or checkout_root()
    subprocess.run(
        [
            str(Path(sys.executable).parent / "jupyter-book"),
            "build",
            str(root),
            "--warningiserror",
            "--quiet",
        ],
        check=True,
        cwd=root,
    )
    return root / "_build" / "html" / "index.html"


BOOK_SOURCES = ["_config.yml", "_toc.yml", "references.bib", "book"]


def copy_sources(target: Path) -> Path:
    """The book's sources (:data:`BOOK_SOURCES`, without ``book/generated``) copied into
    ``target``; returns the checkout they came from."""
    root = checkout_root()
    for name in BOOK_SOURCES:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("generated"))
        elif source.exists():
            shutil.copy2(source, target / name)
    return root


def stage_unexecuted(target: Path) -> Path:
    """The book's sources copied to ``target`` with the notebooks *unexecuted* in place of
    ``book/generated/``: the same configuration, chapters, prose and formulas as the real book,
    without outputs, built in a minute (what the offline-book test opens)."""
    target.mkdir(parents=True, exist_ok=True)
    root = copy_sources(target)
    generated = target / "book" / "generated"
    generated.mkdir(parents=True, exist_ok=True)
    for name in NOTEBOOKS:
        shutil.copy2(root / "notebooks" / f"{name}.ipynb", generated / f"{name}.ipynb")
        tag_for_book(generated / f"{name}.ipynb")
    (generated / "timings.md").write_text(NO_REPORT)
    write_verify_page(generated)
    write_generated_pages(generated)
    (generated / "findings.md").write_text(NO_FINDINGS)
    (generated / "headline.md").write_text(NO_FINDINGS)
    return target


STUDENT_NOTE = "*Student edition: work each exercise out from the results above.*"
# text for the full edition only (how solutions are shown, advice to tutors), dropped from the
# student edition: in a notebook's Markdown or a book page, between these two comments
FULL_ONLY = re.compile(r"<!-- full edition -->.*?<!-- end full edition -->\n?", re.S)


def for_students(text: str) -> str:
    """``text`` without its full-edition passages (:data:`FULL_ONLY`)."""
    return FULL_ONLY.sub("", text)


def without_solutions(path: Path) -> int:
    """Remove every ``solution`` cell (code and output) and every full-edition passage from the
    notebook at ``path``, and say so above its exercises; the number of cells removed."""
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    kept = [c for c in notebook.cells if "solution" not in c.metadata.get("tags", [])]
    removed = len(notebook.cells) - len(kept)
    for cell in kept:
        if cell.cell_type == "markdown":
            cell.source = for_students(cell.source)
            if removed and cell.source.startswith("## Exercises"):
                cell.source += "\n\n" + STUDENT_NOTE
    notebook.cells = kept
    nbformat.write(notebook, path)
    return removed


def stage_student(target: Path, generated: Path | None = None) -> Path:
    """The book's sources copied to ``target`` with the notebooks of ``generated`` (default: the
    executed ones in ``book/generated``) stripped of their solutions, and every page of its
    full-edition passages: the student edition, the same pages and results with the exercises
    and no solution code, output or sentence about solutions."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    root = copy_sources(target)
    shutil.copytree(generated or root / "book" / "generated", target / "book" / "generated")
    for notebook in (target / "book" / "generated").glob("*.ipynb"):
        without_solutions(notebook)
    for page in (target / "book").rglob("*.md"):
        page.write_text(for_students(page.read_text()))
    return target


def timings_paths(profile: Profile) -> tuple[Path, Path]:
    """The JSON report and the Markdown table the book includes."""
    return report_path(profile), checkout_root() / "book" / "generated" / "timings.md"


def make_book(
    profile: Profile,
    skip_notebooks: bool = False,
    edition: str = "full",
    scheduler: str | None = None,
    local_cluster: int | None = None,
) -> Path:
    """The main job (``privmetrics book``, what ``make reproduce`` runs): fill the profile's grid
    and games (resumable; on a Dask cluster with ``scheduler`` or ``local_cluster``), execute
    every notebook, write the generated pages and build ``edition`` (``"full"``, or
    ``"student"``: without the exercises' solutions, in ``_build/student/html``); with
    ``skip_notebooks`` only the book is rebuilt. Returns the built index page."""
    from privmetrics.experiments.cluster import cluster_client

    start = time.perf_counter()
    json_path, markdown_path = timings_paths(profile)
    if not skip_notebooks:
        from privmetrics.experiments.games.play import run_games
        from privmetrics.experiments.games.scale_readings import scale_readings
        from privmetrics.experiments.games.sensitivity import ladder_readings
        from privmetrics.experiments.games.sizes import play_sizes
        from privmetrics.experiments.grid.runner import run_grid
        from privmetrics.experiments.grid.store import current_commit

        report = TimingReport(profile.name, available_cores(), current_commit(checkout_root()))
        with cluster_client(scheduler, local_cluster) as client:  # one (or none) for them all
            with report.step("experiment grid"):
                store = run_grid(profile, client=client)  # resumable: finished cells are kept
            print(f"results: {store.count('cells')} cells in {store.path} "
                  f"({time.perf_counter() - start:.0f} s)")  # fmt: skip
            with report.step("attack games"):  # Experiment 3's games, resumable like the grid
                run_games(profile, client=client)  # one play gives both kinds of game
            if profile.game_ladder_doses:  # what each metric reads of known leaks
                with report.step("metrics on the ladder"):
                    ladder_readings(profile, client=client)
                    scale_readings(profile, client=client)  # the calibration's other side
            if profile.game_sizes:  # the games again at other training sizes
                with report.step("training-size ladder"):
                    play_sizes(profile, client=client)
        run_notebooks(profile, checkout_root() / "book" / "generated", report=report)
        report.close()
        report.save(json_path)
        markdown_path.write_text(report.to_markdown())
        print(report.to_markdown())
    elif not markdown_path.exists():
        markdown_path.parent.mkdir(parents=True, exist_ok=True)
        markdown_path.write_text(
            TimingReport.load(json_path).to_markdown() if json_path.exists() else NO_REPORT
        )
    write_verify_page()
    write_generated_pages(profile=profile)
    write_findings_page(profile)
    if edition == "student":
        staged = stage_student(checkout_root() / "_build" / "student-sources")
        built = build_book(staged).parent
        index = checkout_root() / "_build" / "student" / "html" / "index.html"
        shutil.rmtree(index.parent, ignore_errors=True)
        shutil.copytree(built, index.parent)
        shutil.rmtree(staged)
    else:
        index = build_book()
    print(f"{edition} edition built in {time.perf_counter() - start:.0f} s: open {index}")
    check_offline(index.parent)
    return index


VERIFIED = ("cells", "games")  # what `make verify` and `make verify-games` regenerate


def verify_record(what: str = "cells") -> Path:
    """The shipped record of the last ``make verify`` (cells) or ``make verify-games`` (games) on
    the paper store."""
    from privmetrics.experiments.grid.verify import command_of

    return checkout_root() / "results" / f"{command_of(what)}-paper.json"


def write_generated_pages(generated: Path | None = None, profile: Profile | None = None) -> None:
    """The pages written from the library rather than run as notebooks: the reviewer's map (with
    ``profile``'s store beside the paper store's), one page per metric and per anonymisation
    criterion, and the commands with their costs (both editions and the offline test)."""
    write_sources_page(generated, profile)
    write_metric_pages(generated, keep=profile is not None and profile.name == "paper")
    write_criteria_pages(generated)
    write_commands_page(generated)
    from privmetrics.compendium.book.sessions import sessions_markdown

    out = generated or checkout_root() / "book" / "generated"
    (out / "sessions.md").write_text(sessions_markdown(checkout_root()))


NO_FINDINGS = "*(The findings are computed from the results stores when the book is built.)*\n"


def write_findings_page(profile: Profile, generated: Path | None = None) -> None:
    """What we found (:mod:`privmetrics.compendium.book.findings`), which the Discussion includes,
    and the headline the introduction opens with."""
    from privmetrics.compendium.book.findings import headline, what_we_found

    generated = generated or checkout_root() / "book" / "generated"
    generated.mkdir(parents=True, exist_ok=True)
    (generated / "findings.md").write_text(what_we_found(profile) + "\n")
    (generated / "headline.md").write_text(headline(profile) + "\n")


def write_commands_page(generated: Path | None = None) -> None:
    """The commands and their measured costs (:mod:`privmetrics.compendium.benchmarks.command_costs`), which the
    introduction and the "How to reproduce" page include."""
    from privmetrics.compendium.benchmarks.command_costs import page
    from privmetrics.experiments.grid.runner import results_path

    generated = generated or checkout_root() / "book" / "generated"
    generated.mkdir(parents=True, exist_ok=True)
    (generated / "commands.md").write_text(page(results_path(get_profile("paper")).parent))


def write_metric_pages(generated: Path | None = None, keep: bool = False) -> None:
    """One page per metric (:mod:`privmetrics.compendium.book.metric_pages`) for the book; with
    ``keep`` (the paper edition's build) the Experiment 3 verdicts their boxes read are kept."""
    from privmetrics.compendium.book.metric_pages import write_pages

    write_pages((generated or checkout_root() / "book" / "generated") / "metric", keep)


def write_criteria_pages(generated: Path | None = None) -> None:
    """One page per anonymisation criterion (:mod:`privmetrics.compendium.book.criteria_pages`)."""
    from privmetrics.compendium.book.criteria_pages import write_pages

    write_pages((generated or checkout_root() / "book" / "generated") / "criteria")


def write_sources_page(generated: Path | None = None, profile: Profile | None = None) -> None:
    """The reviewer's map (:func:`privmetrics.compendium.book.sources.reviewer_map`) for the book:
    each result's verdict on the shipped paper store and, for another ``profile``'s edition, on
    that profile's store beside it."""
    from privmetrics.compendium.book.findings import result_values
    from privmetrics.compendium.book.plots import captioned_markdown
    from privmetrics.compendium.book.sources import reviewer_map

    generated = generated or checkout_root() / "book" / "generated"
    generated.mkdir(parents=True, exist_ok=True)
    paper = get_profile("paper")
    beside = None
    if profile is not None and profile.name != paper.name:
        beside = (profile.name, result_values(profile))
    page = reviewer_map(paper, values=result_values(paper), beside=beside)
    caption = (
        "Each of the paper's results: what it shows, the notebook and command that make it, its "
        "verdict against the paper on each store, and the notebook's time in the last timed build."
    )
    (generated / "sources.md").write_text(captioned_markdown(page, caption))


def write_verify_page(generated: Path | None = None) -> None:
    """The reproduce page's records of the last ``make verify`` and ``make verify-games`` on the
    shipped paper store (``verify.md``, ``verify-games.md``), and of the last ``make bench-scale``
    (``scale.md``)."""
    from privmetrics.experiments.grid.provenance import provenance_markdown
    from privmetrics.experiments.grid.verify import command_of, to_markdown
    from privmetrics.experiments.profiles import get_profile

    generated = generated or checkout_root() / "book" / "generated"
    generated.mkdir(parents=True, exist_ok=True)
    from privmetrics.compendium.book.plots import captioned_markdown

    captions = {
        "cells": "Each regenerated cell: its scores identical, within tolerance or different, the "
        "largest difference and the seconds it took.",
        "games": "Each replayed game: its target values identical or not, the largest difference "
        "and the seconds it took.",
    }
    for what in VERIFIED:
        page = captioned_markdown(to_markdown(verify_record(what), what), captions[what])
        (generated / f"{command_of(what)}.md").write_text(page)
    shipped = checkout_root() / "results" / "paper.sqlite"
    (generated / "provenance.md").write_text(provenance_markdown(shipped, get_profile("paper")))
    from privmetrics.compendium.benchmarks.bench_scale import record_path, scale_markdown

    (generated / "scale.md").write_text(scale_markdown(record_path()))  # "How cost grows"


def check_offline(html_dir: Path) -> None:
    """Open every page offline in headless Chromium (when installed) and say what failed."""
    from privmetrics.compendium.book.bookcheck import (
        INSTALL_HINT,
        check_book,
        find_browser,
        summary,
    )

    browser = find_browser()
    if browser is None:
        print(f"offline check skipped: {INSTALL_HINT}")
        return
    checks = check_book(html_dir, browser)
    print(f"offline check: {summary(checks)}")
    for check in checks:
        if not check.ok:
            print(f"  {check.page}: {check.problem()}")
