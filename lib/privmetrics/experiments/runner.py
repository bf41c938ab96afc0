"""The experiment runner: fill the results store with every (dataset, configuration, run) cell.

A cell loads the profile's sample of the dataset (the same rows for every configuration and run),
gets the anonymised table from the :class:`~privmetrics.synthesisers.SyntheticCache` (generating it
only once), scores every requested metric on it and returns the rows; the parent process writes
each finished cell in one transaction (:class:`.store.ResultsStore`). Restarting skips every cell
that already has all its metrics, so an interrupted run resumes where it stopped.

Runs follow Section 6.1: ``min_runs`` per configuration, then one more run at a time, up to
``max_runs``, for each configuration on which some metric's standard error of the mean is still
above ``sem_threshold``. Seeds: run r uses seed ``profile.seed + r`` for both the synthesiser and
the metrics. Cells run in parallel with joblib (``n_jobs``); inside
``joblib.parallel_config(backend="dask")`` the same grid runs on a Dask cluster.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed
from tqdm import tqdm

from ..datasets import REPO_ROOT, load_dataset
from ..metrics import evaluate, select
from ..profiles import Profile, get_profile
from ..synthesisers import SyntheticCache
from .analysis import summarise
from .grid import Configuration, paper_configurations
from .store import ResultsStore


def results_path(profile: str) -> Path:
    root = Path(os.environ.get("PRIVMETRICS_RESULTS", REPO_ROOT / "results"))
    return root / f"{profile}.sqlite"


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
    real, schema = _sample(cell.dataset, cell.rows, profile.seed)
    params = {**profile.params_for(cell.config.technique), **cell.config.synthesiser_params()}
    synthetic = SyntheticCache(cache_root).fit_sample(
        f"{cell.dataset}-n{len(real)}-s{profile.seed}", cell.config.technique, params, cell.seed,
        real, schema,
    )  # fmt: skip
    return real, schema, synthetic


def compute_cell(
    cell: Cell, metrics: list[str], profile: Profile, cache_root: str | None
) -> tuple[dict, list[dict]]:
    """Generate (or fetch) the cell's anonymised table and score ``metrics`` on it."""
    start = time.perf_counter()
    real, schema, synthetic = generated_table(cell, profile, cache_root)
    synth_seconds = time.perf_counter() - start
    scores = evaluate(real, synthetic, schema, metrics=metrics, seed=cell.seed)
    record = {
        "dataset": cell.dataset,
        "config": cell.config.label,
        "run": cell.run,
        "technique": cell.config.technique,
        "params": cell.config.params_json(),
        "seed": cell.seed,
        "rows": len(real),
        "synth_seconds": synth_seconds,
    }
    return record, scores.to_dict("records")


def run_grid(
    profile: str = "quick",
    datasets: list[str] | None = None,
    techniques: tuple[str, ...] | None = None,
    metrics: str | list[str] = "all",
    rows: int | None = None,
    store: ResultsStore | None = None,
    cache_root: str | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
) -> ResultsStore:
    """Compute every missing cell of the profile's grid, then the extra runs the SEM rule asks for."""
    settings = get_profile(profile)
    store = store or ResultsStore(results_path(profile))
    datasets = list(datasets or settings.datasets)
    configs = paper_configurations(techniques)
    names = [m.name for m in select(metrics)]
    runs = {(d, c.label): settings.min_runs for d in datasets for c in configs}
    while True:
        done = store.done()
        pending = [
            Cell(d, rows or settings.rows_for(d), c, r, settings.seed + r)
            for d in datasets
            for c in configs
            for r in range(runs[d, c.label])
            if not set(names) <= done.get((d, c.label, r), set())
        ]
        _execute(
            pending, done, names, settings, store, cache_root, n_jobs or settings.n_jobs, progress
        )
        more = _needing_more_runs(store, runs, names, settings)
        if not more:
            return store
        for key in more:
            runs[key] += 1


def _execute(cells, done, names, settings, store, cache_root, n_jobs, progress) -> None:
    if not cells:
        return
    tasks = (
        delayed(compute_cell)(
            c, [m for m in names if m not in done.get((c.dataset, c.config.label, c.run), set())],
            settings, cache_root,
        )
        for c in cells
    )  # fmt: skip
    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    for record, scores in tqdm(
        parallel(tasks), total=len(cells), desc=f"grid ({settings.name})", disable=not progress
    ):
        store.write_cell(record, scores)


def _needing_more_runs(store, runs, names, settings) -> list[tuple[str, str]]:
    results = store.results()
    results = results[results.metric.isin(names)]
    sem = summarise(results)["sem"].groupby(["dataset", "config"]).max()
    return [
        key
        for key, n in runs.items()
        if n < settings.max_runs and key in sem.index and sem[key] > settings.sem_threshold
    ]


def load_results(
    profile: str, run: bool = True, metrics: str | list[str] = "all", **grid
) -> pd.DataFrame:
    """The profile's results for ``metrics`` (as :func:`privmetrics.metrics.select` reads them) as a
    tidy DataFrame, computing any missing cell first when ``run``."""
    store = (
        run_grid(profile, metrics=metrics, **grid) if run else ResultsStore(results_path(profile))
    )
    results = store.results()
    return results[results.metric.isin([m.name for m in select(metrics)])].reset_index(drop=True)
