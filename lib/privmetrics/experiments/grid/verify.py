"""Do the shipped numbers regenerate? ``privmetrics verify`` for reviewers.

For each chosen cell of a results store, the anonymised table is generated again from scratch
(a temporary cache, so nothing cached is read or kept), every metric the store holds for the cell is
scored on it, and each score is compared with the stored one. A cell's verdict:

* ``identical``: every score bit for bit;
* ``within tolerance``: the largest absolute difference is at most ``tolerance`` (floating-point
  summation order, e.g. BLAS threads);
* ``DIFFERENT``: some score differs by more; the command then exits non-zero.

Beside the verdict: whether the regenerated table's checksum equals the stored one, and whether the
cell was made by the current code (its recorded code fingerprint) or by other code ("stale": a
difference is then expected, and ``privmetrics run --refresh-stale`` recomputes it).

Each cell is computed with the thread count it records (``threads``); a cell that records none
(computed before the store kept it) with ``threads`` as given (default: the grid's count per
cell, the profile's ``n_jobs`` workers sharing the cores). With another count, torch and BLAS
add in another order, and a long training run (PATE-GAN, SDV's CTGAN and TVAE, whose
preprocessing fits mixtures with BLAS) drifts to another table. For the same reason each cell runs
in a fresh interpreter that inherits the caller's environment unchanged (the batch runner's
``"fresh"`` place, :mod:`privmetrics.experiments.batch`: not in joblib's workers, which cap the
OpenMP and BLAS variables), under the same :func:`~privmetrics.experiments.batch.execute` as a
grid cell. In joblib's workers four of the store's CTGAN and TVAE
cells once did not regenerate: ctgan's transformer ran its columns on threads there, which shared
numpy's global generator (fixed in :mod:`privmetrics.synthesisers.neural`, which now runs joblib
sequentially in fit and sample, and tested in and out of a worker).

The table also follows the CPU. Torch chooses its kernels by the instruction set it finds
(AVX-512, AVX2, none), and each choice adds in its own order: on one machine, flchain TVAE run 0
(paper settings, its recorded two threads) gave three tables under three settings of
``ATEN_CPU_CAPABILITY``, none the one stored from another machine, and one thread or two gave
the same table. So the paper store's PATE-GAN, CTGAN and TVAE cells regenerate bit for bit only
on a CPU like the one that made them; elsewhere they come out ``DIFFERENT``, as another draw of
the same model would (the CPU-free techniques, PrivBayes, MST, AIM and the baselines, stay
identical). The column ``within runs`` says whether such a table is still a draw like the
others: how many of its scores lie within the range the stored runs of its configuration span,
beside the share a new draw of the same model lands there, (k - 1) / (k + 1) for k runs (one
half for the paper store's three: ``make verify`` on this machine gave flchain CTGAN 19 of 40,
PATE-GAN 25 and TVAE 33, as new draws would). The record names the CPU and torch's kernels.

Cells are chosen by name (``dataset/config/run``), drawn, or both: a seeded random order of the
store's cells, taken round-robin over techniques so that every technique is represented, and
skipping cells whose expected cost (:data:`COST_SECONDS`) would exceed ``budget_minutes``. Named
cells with a ``sample`` larger than their number are completed by a draw of the others within
what the named ones leave of the budget (a reviewer's doubtful cell beside a sample; ``make
verify`` names the AIM cell that did not regenerate until Private-PGM's attributes were named by
integers, :func:`privmetrics.synthesisers.pgm._names`).

``adopt``: a cell that records no code (computed before fingerprints existed) and regenerates
identically (or within tolerance) is thereby shown to come from the current code; its provenance
(code fingerprint, cache key, table checksum) is then written into the store. So is a stale cell
(made by other code) whose regenerated table has the stored checksum and whose scores agree: a
change that leaves the tables as they were (a faster search that chooses the same) then costs a
verification, not a recomputation, and the store says which code made its numbers. :func:`record`
keeps a run's report with its date, commit and machine as JSON, and :func:`to_markdown` renders
it for the book's reproduce page.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from privmetrics.experiments.batch import run_batch
from privmetrics.experiments.grid.configurations import grid_configurations
from privmetrics.experiments.grid.provenance import made_by
from privmetrics.experiments.grid.runner import Cell, cell_task, results_path
from privmetrics.experiments.grid.store import ResultsStore
from privmetrics.experiments.profiles import Profile
from privmetrics.threads import available_cores, per_worker

TOLERANCE = 1e-9

# rough cost of regenerating and scoring one cell on two cores, seconds per 1,000 rows of the
# dataset (scoring every measure costs about 3 s per 1,000 rows; the neural fits at SDV's default
# epochs dominate theirs)
COST_SECONDS = {"real": 3, "random": 4, "uniform": 4, "privbayes": 3, "pategan": 12,
                "ctgan": 40, "tvae": 12, "mst": 3, "aim": 30}  # fmt: skip


def configurations() -> dict[str, object]:
    """Every configuration a store may hold (the paper's PATE-GAN settings too), by label."""
    return {c.label: c for c in grid_configurations()}


def cost_seconds(cells: pd.DataFrame) -> list[float]:
    """Each cell's expected cost on two cores (:data:`COST_SECONDS` per 1,000 rows)."""
    return [
        COST_SECONDS.get(t, 40) * r / 1000 for t, r in zip(cells.technique, cells.rows, strict=True)
    ]


def choose_cells(
    cells: pd.DataFrame, sample: int, seed: int, budget_minutes: float | None
) -> pd.DataFrame:
    """``sample`` cells: a seeded order, round-robin over techniques, within the time budget
    (:func:`round_robin`; each cell's cost from :func:`cost_seconds`, measured on two cores)."""
    budget = None if budget_minutes is None else budget_minutes * 60 * available_cores() / 2
    return round_robin(cells.assign(cost=cost_seconds(cells)), sample, seed, budget)


def round_robin(
    rows: pd.DataFrame, sample: int, seed: int, budget_seconds: float | None
) -> pd.DataFrame:
    """``sample`` of ``rows`` (which carry ``technique`` and ``cost`` in seconds): a seeded order,
    round-robin over techniques, costing at most ``budget_seconds`` in all.

    Each technique in turn gives the first row of its seeded order that costs at most a fair
    share of what is left (the budget left over the rows still to choose); when none does, its
    cheapest row if that still fits, so that every technique is represented when the budget
    allows it at all."""
    rng = np.random.default_rng(seed)
    order = rows.iloc[rng.permutation(len(rows))].copy()
    queues = {t: list(part.index) for t, part in order.groupby("technique", sort=True)}
    chosen, spent = [], 0.0
    budget = np.inf if budget_seconds is None else budget_seconds
    while len(chosen) < sample and any(queues.values()):
        for technique in sorted(queues):
            queue = queues[technique]
            if not queue or len(chosen) == sample:
                continue
            share = (budget - spent) / (sample - len(chosen))
            fitting = [i for i in queue if order.cost[i] <= share]
            pick = fitting[0] if fitting else min(queue, key=lambda i: order.cost[i])
            if spent + order.cost[pick] <= budget:
                chosen.append(pick)
                spent += order.cost[pick]
                queue.remove(pick)
            else:
                queue.clear()
    return order.loc[chosen]


def verify(
    profile: Profile,
    store: ResultsStore | None = None,
    cells: list[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
    tolerance: float = TOLERANCE,
    budget_minutes: float | None = None,
    progress: bool = True,
    adopt: bool = False,
    threads: int | None = None,
) -> pd.DataFrame:
    """One row per verified cell (see the module doc); ``cells`` as ``"dataset/config/run"``;
    ``sample``: how many cells in all (default: the named ones, or 12 drawn when none is)."""
    store = store or ResultsStore(results_path(profile))
    stored = store.results()
    table = store.cells()
    pick = table.iloc[:0]
    if cells:
        named = [
            tuple(c.rsplit("/", 1)[0].split("/", 1)) + (int(c.rsplit("/", 1)[1]),) for c in cells
        ]
        keys = set(zip(table.dataset, table.config, table.run, strict=True))
        missing = [c for c, w in zip(cells, named, strict=True) if w not in keys]
        if missing:
            raise KeyError(f"no such cell(s) in {store.path}: {missing}")
        pick = table.set_index(["dataset", "config", "run"]).loc[named].reset_index()
    sample = sample if sample is not None else (len(pick) if cells else 12)
    if sample > len(pick):
        chosen = set(zip(pick.dataset, pick.config, pick.run, strict=True))
        rest = table[[k not in chosen for k in zip(table.dataset, table.config, table.run,
                                                      strict=True)]]  # fmt: skip
        left = (None if budget_minutes is None
                else budget_minutes - sum(cost_seconds(pick)) / 60 * 2 / available_cores())  # fmt: skip
        drawn = choose_cells(rest, sample - len(pick), seed, left)
        pick = pd.concat([pick, drawn[pick.columns]], ignore_index=True)
    configs = configurations()
    rows = []
    default = threads or per_worker(profile.n_jobs)  # for cells that record no count (module doc)

    def threads_of(c) -> int:
        recorded = getattr(c, "threads", None)
        return int(recorded) if recorded is not None and recorded == recorded else default

    wanted = {
        (c.dataset, c.config, int(c.run)): stored[
            (stored.dataset == c.dataset) & (stored.config == c.config) & (stored.run == c.run)
        ].set_index("metric")["score"]
        for c in pick.itertuples()
    }
    found = {}

    def keep(task, result) -> None:
        record, scores = result
        found[record["dataset"], record["config"], record["run"]] = (record, scores)

    with tempfile.TemporaryDirectory(prefix="privmetrics-verify-") as cache:
        # the stored row count: a sample of that size (all rows when it is the dataset's size)
        tasks = [
            cell_task(Cell(c.dataset, int(c.rows), configs[c.config], int(c.run), int(c.seed)),
                      list(wanted[c.dataset, c.config, int(c.run)].index), profile, cache,
                      threads_of(c), refresh=True)
            for c in pick.itertuples()
        ]  # fmt: skip
        # each cell in a fresh interpreter that inherits this environment as it is, as a reviewer
        # running one cell would (the batch runner's "fresh" place)
        run_batch(tasks, keep, profile.n_jobs, where="fresh", progress=progress, desc="verify")
    for cell, made in zip(pick.itertuples(), made_by(pick, profile), strict=True):
        key = (cell.dataset, cell.config, int(cell.run))
        record, scores = found[key]
        mine = wanted[key]
        new = pd.Series({s["metric"]: s["score"] for s in scores})
        gap = (new.reindex(mine.index) - mine).abs()
        largest = float(gap.max()) if len(gap) else 0.0
        same = int((new.reindex(mine.index) == mine).sum())
        unrecorded, stale = made == "code not recorded", made == "other code (stale)"
        same_table = record["table_checksum"] == getattr(cell, "table_checksum", None)
        runs = stored[(stored.dataset == cell.dataset) & (stored.config == cell.config)]
        inside = within_runs(new.reindex(mine.index), runs, tolerance)
        if adopt and len(mine) and largest <= tolerance and (unrecorded or (stale and same_table)):
            fields = ("code", "cache_key", "generator", "table_checksum", "threads")
            store.set_provenance(key, {f: record[f] for f in fields})
        rows.append(
            {
                "dataset": cell.dataset,
                "config": cell.config,
                "run": int(cell.run),
                "scores": len(mine),
                "identical": same,
                "largest difference": largest,
                "table": _table_verdict(cell, record),
                "made by": made,
                "within runs": f"{inside} of {len(mine)} (a new draw: {draw_share(runs):.0%})",
                "verdict": _verdict(same, len(mine), largest, tolerance),
                "seconds": record["cell_seconds"],
            }
        )
    return pd.DataFrame(rows)


def within_runs(scores: pd.Series, runs: pd.DataFrame, tolerance: float = TOLERANCE) -> int:
    """How many of a regenerated cell's ``scores`` (metric -> score) lie within the range the
    stored runs of its (dataset, configuration) span (``runs``: tidy results), up to
    ``tolerance``: a table that is not the stored one may still be a draw like the others."""
    span = runs.groupby("metric")["score"].agg(["min", "max"]).reindex(scores.index)
    inside = (scores >= span["min"] - tolerance) & (scores <= span["max"] + tolerance)
    return int(inside.sum())


def _verdict(same: int, scores: int, largest: float, tolerance: float) -> str:
    if same == scores:
        return "identical"
    return "within tolerance" if largest <= tolerance else "DIFFERENT"


def draw_share(runs: pd.DataFrame) -> float:
    """The chance that a new draw of the same model lands within the range of ``k`` stored runs
    (tidy results of one configuration): (k - 1) / (k + 1), the new one being equally likely to
    rank anywhere among the k + 1 (one half for three runs)."""
    k = runs["run"].nunique()
    return (k - 1) / (k + 1) if k else 0.0


def machine() -> dict:
    """The CPU a verification ran on: its model and the instruction set torch's kernels chose
    (they dispatch by it, so a neural cell's table follows the CPU; module doc)."""
    model = next((line.split(":", 1)[1].strip() for line in _cpuinfo() if "model name" in line),
                 None)  # fmt: skip
    try:
        import torch

        capability = torch.backends.cpu.get_cpu_capability()
    except ImportError:
        capability = None
    return {"cpu": model, "torch kernels": capability}


def _cpuinfo() -> list[str]:
    try:
        return Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return []


def _table_verdict(cell, record: dict) -> str:
    stored = getattr(cell, "table_checksum", None)
    if not isinstance(stored, str):
        return "no checksum stored"
    return "same checksum" if stored == record["table_checksum"] else "different checksum"


def format_report(report: pd.DataFrame, tolerance: float = TOLERANCE, what: str = "cells") -> str:
    """The report (of ``what``: cells, or games from :mod:`privmetrics.experiments.games.replay`) as a plain table with a
    closing summary line."""
    shown = report.assign(
        **{
            "largest difference": report["largest difference"].map(lambda v: f"{v:.2e}"),
            "seconds": report["seconds"].round(0).astype(int),
        }
    )
    bad = int((report.verdict == "DIFFERENT").sum())
    summary = (
        f"{len(report)} {what} verified: {int((report.verdict == 'identical').sum())} identical, "
        f"{int((report.verdict == 'within tolerance').sum())} within {tolerance:g}, {bad} different"
    )
    return shown.to_string(index=False) + "\n" + summary


def record(
    report: pd.DataFrame,
    path: str | Path,
    profile: str,
    tolerance: float,
    wall_seconds: float | None = None,
    what: str = "cells",
) -> None:
    """Keep ``report`` (of ``what``: cells, or games) as JSON with when, where, how long and by
    which commit it was run."""
    from privmetrics.experiments.grid.store import current_commit
    from privmetrics.paths import checkout_root

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    payload = {
        "profile": profile,
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": current_commit(checkout_root(required=False)),
        "cores": available_cores(),
        "load": load,
        "tolerance": tolerance,
        **machine(),
        "wall_seconds": wall_seconds,
        "what": what,
        "cells": report.to_dict("records"),
    }
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(payload, indent=1, default=float))


def command_of(what: str) -> str:
    """The command that verifies ``what`` (cells: ``verify``, games: ``verify-games``); its
    record is ``results/<command>-paper.json`` and its book page ``<command>.md``."""
    return "verify" if what == "cells" else f"verify-{what}"


def to_markdown(path: str | Path, what: str = "cells") -> str:
    """The recorded run (of ``what``: cells, or games) as a sentence and a table (for the book),
    or a line saying there is none."""
    command = command_of(what)
    if not Path(path).exists():
        return f"No `privmetrics {command}` run has been recorded yet (`make {command}` records one).\n"
    payload = json.loads(Path(path).read_text())
    what = payload.get("what", what)
    command = command_of(what)
    report = pd.DataFrame(payload["cells"])
    verdicts = report.verdict.value_counts()
    wall = payload.get("wall_seconds")
    minutes = (wall if wall is not None else report.seconds.sum()) / 60
    load = f", load {payload['load']:.1f}" if payload.get("load") is not None else ""
    cpu = (f", {payload['cpu']} (torch kernels {payload.get('torch kernels')})"
           if payload.get("cpu") else "")  # fmt: skip
    head = (
        f"Last `make {command}` on the `{payload['profile']}` store: {payload['finished']}, commit "
        f"`{payload['commit'][:12]}`, {payload['cores']} cores{cpu}{load}, {minutes:.0f} min. "
        f"{len(report)} {what} regenerated from scratch: {verdicts.get('identical', 0)} identical, "
        f"{verdicts.get('within tolerance', 0)} within {payload['tolerance']:g}, "
        f"{verdicts.get('DIFFERENT', 0)} different."
    )
    shown = report.assign(
        **{"largest difference": report["largest difference"].map(lambda v: f"{v:.1e}"),
           "seconds": report.seconds.round().astype(int)}
    )  # fmt: skip
    columns = list(shown.columns)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += [
        "| " + " | ".join(str(v) for v in row) + " |" for row in shown.itertuples(index=False)
    ]
    return head + "\n\n" + "\n".join(lines) + "\n"
