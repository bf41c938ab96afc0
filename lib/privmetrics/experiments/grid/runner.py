"""The experiment runner: fill the results store with every (dataset, configuration, run) cell.

A cell loads the profile's sample of the dataset (the same rows for every configuration and run),
gets the anonymised table from the :class:`~privmetrics.synthesisers.SyntheticCache` (generating it
only once), scores every requested metric on it and returns the rows; the parent process writes
each finished cell in one transaction (:class:`.store.ResultsStore`). Restarting skips every cell
that already has all its metrics, so an interrupted run resumes where it stopped.

Runs follow Section 6.1: ``min_runs`` per configuration, then one more run at a time, up to
``max_runs``, for each configuration on which some metric's standard error of the mean is still
above ``sem_threshold``. Seeds: run r uses seed ``profile.seed + r`` for both the synthesiser and
the metrics. Cells run in parallel with joblib (``n_jobs``), or as tasks of a Dask cluster when a
``client`` is given (:mod:`.cluster`: the workers compute, this process alone writes). Each worker caps
its BLAS/OpenMP/torch threads to its share of the cores (:mod:`privmetrics.threads`), and a worker
whose runner died stops within a second instead of computing on for minutes.

Every cell records what made its table (code fingerprint, cache key, library versions, table
checksum; :mod:`.store`). ``refresh_stale`` recomputes the cells whose code fingerprint is not the
current code's (each replaced in one transaction, so an interrupted refresh leaves every cell
either old or new, never half), with the tables generated afresh rather than read from the cache.

Where the results go: ``results/<profile>.sqlite`` (``PRIVMETRICS_RESULTS`` overrides the
folder). The ``paper`` profile's store is tracked in git (``results/paper.sqlite``), so a fresh
clone builds the paper edition from it and computes only what is missing. Every session is
recorded in the store with its commit, machine and wall time.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pandas as pd

from privmetrics.data.datasets import load_dataset
from privmetrics.data.validation import OutlierWarning, UnseenCategoryWarning
from privmetrics.experiments.batch import Task, run_batch
from privmetrics.experiments.grid.cell_utility import cell_utility
from privmetrics.experiments.grid.configurations import (
    Configuration,
    grid_configurations,
    grid_metrics,
)
from privmetrics.experiments.grid.provenance import stale_cells
from privmetrics.experiments.grid.store import ResultsStore, current_commit, missing_note
from privmetrics.experiments.grid.ways import edition
from privmetrics.experiments.paper.analysis import summarise
from privmetrics.experiments.profiles import Profile
from privmetrics.metrics import evaluate, select
from privmetrics.metrics.release_utility import MEASURES as UTILITY_MEASURES
from privmetrics.paths import CheckoutNotFoundError, checkout_root
from privmetrics.synthesisers import SyntheticCache
from privmetrics.synthesisers.cache import (
    key_digest,
    key_text,
    table_checksum,
)
from privmetrics.synthesisers.pategan import FewIterationsWarning
from privmetrics.threads import available_cores, per_worker, thread_budget


def results_path(profile: Profile) -> Path:
    """``$PRIVMETRICS_RESULTS/<profile name>.sqlite``, else ``results/`` of the checkout (an error
    naming both variables when there is neither)."""
    if os.environ.get("PRIVMETRICS_RESULTS"):
        return Path(os.environ["PRIVMETRICS_RESULTS"]) / f"{profile.name}.sqlite"
    try:
        root = checkout_root() / "results"
    except CheckoutNotFoundError as err:
        raise CheckoutNotFoundError(
            f"{err}; or set $PRIVMETRICS_RESULTS to the folder for the results stores"
        ) from None
    return root / f"{profile.name}.sqlite"


@dataclass(frozen=True)
class Cell:
    dataset: str
    rows: int | None
    config: Configuration
    run: int
    seed: int


@lru_cache(maxsize=8)
def _sample(dataset: str, rows: int | None, seed: int):
    return load_dataset(dataset, n=rows, seed=seed)


def generated_table(cell: Cell, profile: Profile, cache_root: str | None = None):
    """The real sample, its schema and the cell's anonymised table (generated once, then cached)."""
    return generated_with_provenance(cell, profile, cache_root)[:3]


def generated_with_provenance(
    cell: Cell, profile: Profile, cache_root: str | None = None, refresh: bool = False
):
    """:func:`generated_table` (``refresh``: generated again even when cached) and the
    provenance fields the store records for the table."""
    real, schema = _sample(cell.dataset, cell.rows, profile.seed)
    params = profile.synthesiser_params(cell.config.technique, cell.config.synthesiser_params())
    cache = SyntheticCache(cache_root)
    synthetic = cache.fit_sample(
        f"{cell.dataset}-n{len(real)}-s{profile.seed}", cell.config.technique, params, cell.seed,
        real, schema, refresh=refresh,
    )  # fmt: skip
    provenance = {
        "code": cache.last_key["code"],
        "cache_key": key_digest(cache.last_key),
        "generator": key_text(cache.last_key),
        "table_checksum": table_checksum(synthetic),
    }
    return real, schema, synthetic, provenance


# techniques that train with torch (their tasks import it before their thread cap:
# :func:`privmetrics.experiments.batch.execute`)
TORCH_TECHNIQUES = ("pategan", "ctgan", "tvae")

EXPECTED_WARNINGS = (UnseenCategoryWarning, OutlierWarning, FewIterationsWarning)


def compute_cell(
    cell: Cell,
    metrics: list[str],
    profile: Profile,
    cache_root: str | None,
    refresh: bool = False,
) -> tuple[dict, list[dict]]:
    """Generate (or fetch) the cell's anonymised table and score ``metrics`` on it, recording the
    thread cap it ran under (its task's, :func:`cell_task`). The warnings the grid expects by
    design (Random's unseen categories, PATE-GAN's few iterations at small epsilon, far outliers
    of an untrained generator) are silenced here; a library user still sees them."""
    start, cpu_start = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        for expected in EXPECTED_WARNINGS:
            warnings.simplefilter("ignore", expected)
        real, schema, synthetic, provenance = generated_with_provenance(
            cell, profile, cache_root, refresh
        )
        synth_seconds = time.perf_counter() - start
        synth_cpu_seconds = time.process_time() - cpu_start  # one cell per process at a time
        if "jax" in sys.modules:  # Private-PGM compiles programs per model shape: free them, or a
            sys.modules["jax"].clear_caches()  # long run of AIM cells runs out of memory maps
        measures = [m for m in metrics if m in UTILITY_MEASURES]
        metrics = [m for m in metrics if m not in UTILITY_MEASURES]
        scores = evaluate(real, synthetic, schema, metrics=metrics, seed=cell.seed)
        utility = cell_utility(
            cell.dataset, cell.rows, profile.seed, real, synthetic, schema, cell.seed, measures
        )
    record = {
        "dataset": cell.dataset,
        "config": cell.config.label,
        "run": cell.run,
        "technique": cell.config.technique,
        "params": cell.config.params_json(),
        "seed": cell.seed,
        "rows": len(real),
        "synth_seconds": synth_seconds,
        "synth_cpu_seconds": synth_cpu_seconds,
        "cell_seconds": time.perf_counter() - start,
        "threads": thread_budget(),
        **provenance,
        "utility": utility,  # the store's utility rows (written with the cell)
    }
    return record, scores.to_dict("records")


def run_grid(
    profile: Profile,
    datasets: list[str] | None = None,
    techniques: tuple[str, ...] | None = None,
    metrics: str | list[str] | None = None,
    rows: int | None = None,
    store: ResultsStore | None = None,
    cache_root: str | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
    refresh_stale: bool = False,
    client=None,
) -> ResultsStore:
    """Compute every missing cell of the profile's grid (the twelve configurations and PATE-GAN
    with the paper's profile), then the extra runs the SEM rule asks for. ``metrics`` as
    :func:`~privmetrics.metrics.select` reads it; by default the profile's
    (:func:`privmetrics.experiments.grid.configurations.grid_metrics`). ``refresh_stale``: also recompute, from a freshly generated table, every
    cell whose code fingerprint differs from the current code's. ``client``: a Dask client
    (:func:`.cluster.dask_client`) whose workers compute the cells instead of joblib's."""
    store = store or ResultsStore(results_path(profile))
    datasets = list(datasets or profile.datasets)
    configs = grid_configurations(techniques, profile.grid_extras)
    names = {c.label: grid_metrics(profile, metrics, c.technique) for c in configs}
    runs = {(d, c.label): profile.min_runs for d in datasets for c in configs}
    n_jobs = n_jobs or profile.n_jobs
    stale = stale_cells(store, profile) if refresh_stale else set()
    session = None
    start = time.perf_counter()
    try:
        while True:
            done = store.done()
            for key in stale:
                done.pop(key, None)  # recomputed whole
            pending = [
                Cell(d, rows or profile.rows_for(d), c, r, profile.seed + r)
                for d in datasets
                for c in configs
                for r in range(runs[d, c.label])
                if not set(names[c.label]) <= done.get((d, c.label, r), set())
            ]
            if pending and session is None:
                session = store.start_session(
                    profile.name,
                    current_commit(checkout_root(required=False)),
                    n_jobs,
                    available_cores(),
                )
            run = _Run(store, session, start, stale, profile, cache_root, n_jobs, progress, client)
            run.execute(pending, done, names)
            stale = set()
            more = _needing_more_runs(store, runs, set().union(*names.values()), profile)
            if not more:
                return store
            for key in more:
                runs[key] += 1
    finally:
        if session is not None:
            store.end_session(session, time.perf_counter() - start)


@dataclass
class _Run:
    """One batch of cells computed in parallel and written by this (the only writing) process."""

    store: ResultsStore
    session: int | None
    start: float
    stale: set
    settings: Profile
    cache_root: str | None
    n_jobs: int
    progress: bool
    client: object = None

    def execute(self, cells, done, names) -> int:
        """Compute ``cells`` (longest first) and write each as it finishes; returns how many.
        ``names``: configuration label -> what its cells measure."""
        if not cells:
            return 0
        commit = current_commit(checkout_root(required=False))
        key = lambda c: (c.dataset, c.config.label, c.run)  # noqa: E731
        threads = 1 if self.client is not None else per_worker(self.n_jobs)
        tasks = [
            cell_task(c, [m for m in names[c.config.label] if m not in done.get(key(c), set())],
                      self.settings, self.cache_root, threads, key(c) in self.stale)
            for c in cells
        ]  # fmt: skip

        def write(task: Task, result) -> None:
            record, scores = result
            self.store.write_cell(
                {**record, "commit_id": commit}, scores, replace=task.args[-1],
                session=self.session, wall_seconds=time.perf_counter() - self.start,
                utility=record.get("utility", ()),
            )  # fmt: skip

        return run_batch(tasks, write, self.n_jobs, client=self.client, progress=self.progress,
                         desc=f"grid ({self.settings.name})")  # fmt: skip


def cell_task(
    cell: Cell, metrics: list[str], profile: Profile, cache_root: str | None, threads: int,
    refresh: bool = False,
) -> Task:  # fmt: skip
    """The batch task that computes ``cell`` (:func:`compute_cell`) under ``threads`` threads."""
    return Task(
        f"cell-{cell.dataset}-{cell.config.label}-{cell.run}", compute_cell,
        (cell, metrics, profile, cache_root, refresh), cost=_expected_cost(cell),
        threads=threads, torch=cell.config.technique in TORCH_TECHNIQUES,
    )  # fmt: skip


# rough relative cost of generating a table (the neural fits dominate), to start the longest first
TECHNIQUE_COST = {"ctgan": 100, "tvae": 50, "pategan": 5}


def _expected_cost(cell: Cell) -> tuple:
    return (TECHNIQUE_COST.get(cell.config.technique, 1), cell.rows or 10**9, -cell.run)


def generate_tables(
    profile: Profile,
    datasets: list[str] | None = None,
    techniques: tuple[str, ...] | None = None,
    runs: int | None = None,
    cache_root: str | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
) -> int:
    """Fill the synthetic-table cache for the profile's grid without scoring anything (the slow
    neural fits can run ahead of the metrics); returns the number of tables now cached."""
    configs = grid_configurations(techniques, profile.grid_extras)
    cells = [
        Cell(d, profile.rows_for(d), c, r, profile.seed + r)
        for d in datasets or profile.datasets
        for c in configs
        for r in range(runs or profile.min_runs)
    ]
    tasks = [
        Task(f"table-{c.dataset}-{c.config.label}-{c.run}", cache_table, (c, profile, cache_root),
             cost=_expected_cost(c), torch=c.config.technique in TORCH_TECHNIQUES)
        for c in cells
    ]  # fmt: skip
    return run_batch(tasks, n_jobs=n_jobs or profile.n_jobs, progress=progress, desc="tables")


def cache_table(cell: Cell, profile: Profile, cache_root: str | None) -> None:
    """Generate ``cell``'s table into the cache (a worker returns nothing: the table stays on disk)."""
    generated_table(cell, profile, cache_root)


def _needing_more_runs(store, runs, names, settings) -> list[tuple[str, str]]:
    results = store.results()
    results = results[results.metric.isin(names)]  # the utility measures are not SEM-ruled
    sem = summarise(results)["sem"].groupby(["dataset", "config"]).max()
    return [
        key
        for key, n in runs.items()
        if n < settings.max_runs and key in sem.index and sem[key] > settings.sem_threshold
    ]


def missing_cells(
    profile: Profile,
    store: ResultsStore,
    datasets: list[str] | None = None,
    techniques: tuple[str, ...] | None = None,
    metrics: str | list[str] | None = None,
) -> list[Cell]:
    """The cells of the profile's grid (its minimum runs) that ``store`` lacks, whole or in part;
    ``metrics`` as :func:`run_grid` reads it."""
    done = store.done()
    configs = grid_configurations(techniques, profile.grid_extras)
    names = {c.label: set(grid_metrics(profile, metrics, c.technique)) for c in configs}
    return [
        Cell(d, profile.rows_for(d), c, r, profile.seed + r)
        for d in datasets or profile.datasets
        for c in configs
        for r in range(profile.min_runs)
        if not names[c.label] <= done.get((d, c.label, r), set())
    ]


def _missing_note(profile: Profile, store: ResultsStore, missing: list[Cell]) -> str:
    """:func:`.store.missing_note` for grid cells, each costed by its technique's mean cell time."""
    cells = store.cells()
    per_technique = cells.groupby("technique").cell_seconds.mean() if len(cells) else pd.Series()
    seconds = [per_technique.get(c.config.technique) for c in missing]
    return missing_note(profile.name, store.path, f"cell(s) of the `{profile.name}` grid", seconds)


def load_results(
    profile: Profile,
    compute: bool = False,
    metrics: str | list[str] = "all",
    way: str = "ours",
    extras: bool = False,
    **grid,
) -> pd.DataFrame:
    """The profile's results as edition ``way`` (:func:`.ways.edition`: ``"ours"``, ``"paper"``,
    ``"priveval"``) for ``metrics`` (as :func:`privmetrics.metrics.select` reads them) and the
    ``datasets`` of ``grid`` when given, as a tidy DataFrame; the DP synthesisers beyond the
    paper's (:data:`privmetrics.experiments.grid.configurations.EXTRA_TECHNIQUES`) only when ``extras``.

    A notebook never computes a grid in silence: with cells missing the table's
    ``attrs["missing"]`` says how many and about how long they would take
    (:func:`.store.missing_note`; the chapter's set-up shows it) and the table holds what is
    there, unless ``compute`` (then :func:`run_grid` fills them first, with ``grid`` as its
    arguments; ``make reproduce`` fills the grid before it runs the notebooks)."""
    store = ResultsStore(results_path(profile))
    datasets, techniques = grid.get("datasets"), grid.get("techniques")
    missing = missing_cells(profile, store, datasets, techniques)
    note = ""
    if missing and compute:
        store = run_grid(profile, store=store, **grid)
    elif missing:
        note = _missing_note(profile, store, missing)
    results = store.results()
    if way != "ours" and not results.metric.str.endswith(f"@{way}").any():
        raise ValueError(
            f"{store.path} holds no `@{way}` readings, so its {way!r} edition would be ours: "
            f"the {profile.name!r} grid scores {profile.grid_variants or 'every'} variant(s); "
            f"`privmetrics run --profile {profile.name} --metrics everything` adds them"
        )
    results = edition(results, way, extras=extras)
    if datasets:
        results = results[results.dataset.isin(datasets)]
    results = results[results.metric.isin([m.name for m in select(metrics)])].reset_index(drop=True)
    results.attrs["missing"] = note
    return results
