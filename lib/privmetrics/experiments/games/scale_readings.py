"""The configurations read at the games' scale: the metrics' side of the calibrated verdicts.

The metrics' readings of the leakage ladder (:mod:`.sensitivity`) are made at the games' scale:
training tables of ``game_train_rows`` rows drawn from a ``game_population`` sample. The grid
reads its configurations at another scale (every row of a dataset), so a grid reading cannot be
placed on the ladder: "DCR reads Texas CTGAN as it reads a release with 2% copied rows" needs
both readings from tables of one size. This module makes them: for each dataset of a profile
that plays a ladder and each of the games' twelve configurations
(:func:`~privmetrics.experiments.grid.configurations.paper_configurations`), :data:`RUNS` releases,
run ``r`` fitted on the *same* training table as the ladder's run ``r`` (the same draw of the
population) with the games' synthesiser settings, and every registered measure scored on
(training table, release).

Cost: one fit per release, three per configuration, 108 for the paper profile's three datasets
(CTGAN and TVAE at 300 epochs on 500 rows, the slowest). The readings live in the profile's
results database (``scale_scores``, keyed by dataset, configuration, run, metric and the game
settings, with the synthesiser's code fingerprint), so an interrupted run resumes and a reading
made by other code of its synthesiser is made again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pandas as pd

from privmetrics.data.datasets import load_dataset
from privmetrics.experiments.batch import Task, run_batch
from privmetrics.experiments.games.sensitivity import (
    RUNS,
    ReadingStore,
    read_by_all,
    reading_rows,
    stored_at_settings,
    training_table,
    with_missing,
)
from privmetrics.experiments.grid.configurations import (
    Configuration,
    ladder_configurations,
    paper_configurations,
)
from privmetrics.experiments.grid.runner import TECHNIQUE_COST, TORCH_TECHNIQUES, results_path
from privmetrics.experiments.profiles import Profile
from privmetrics.metrics import evaluate, select
from privmetrics.synthesisers import make_synthesiser
from privmetrics.synthesisers.cache import code_fingerprint

SCHEMA = """
CREATE TABLE IF NOT EXISTS scale_scores (
    dataset TEXT NOT NULL, config TEXT NOT NULL, run INTEGER NOT NULL, metric TEXT NOT NULL,
    technique TEXT NOT NULL, params TEXT NOT NULL, population INTEGER NOT NULL,
    train_rows INTEGER NOT NULL, seed INTEGER NOT NULL, score REAL, seconds REAL NOT NULL,
    code TEXT NOT NULL, finished TEXT NOT NULL,
    PRIMARY KEY (dataset, config, run, metric, population, train_rows, seed)
);
"""
KEY = ["dataset", "config", "run"]
COLUMNS = ["dataset", "config", "run", "metric", "technique", "params", "population",
           "train_rows", "seed", "score", "seconds", "code", "finished"]  # fmt: skip


class ScaleStore(ReadingStore):
    """The metrics' readings of the configurations at the games' scale (``scale_scores``)."""

    SCHEMA = SCHEMA
    TABLE = "scale_scores"
    COLUMNS = tuple(COLUMNS)


def stored_scale_readings(path: str | Path, profile: Profile) -> pd.DataFrame:
    """The readings in the database at ``path`` made at the profile's game settings by the
    current code of each synthesiser (:func:`.sensitivity.stored_at_settings`)."""
    found = stored_at_settings(path, ScaleStore.TABLE, COLUMNS, profile)
    return found[found.technique.map(code_fingerprint) == found.code].reset_index(drop=True)


def read_configuration(dataset: str, config: Configuration, params: dict, run: int,
                       population: pd.DataFrame, schema, train_rows: int, seed: int,
                       metrics: list[str]) -> list[dict]:  # fmt: skip
    """Every measure of ``metrics`` on one release of ``config``: fitted with ``params`` on run
    ``run``'s training table (the ladder's, :func:`.sensitivity.training_table`), as many rows
    sampled as it holds."""
    start = time.perf_counter()
    train = training_table(population, train_rows, seed, run)
    model = make_synthesiser(config.technique, seed=seed * 1_000 + run, **params)
    release = model.fit_sample(train, schema, train_rows)
    scores = evaluate(train, release, schema, metrics=metrics, seed=seed + run)
    common = {"dataset": dataset, "config": config.label, "run": run,
              "technique": config.technique, "params": json.dumps(params, sort_keys=True),
              "population": len(population), "train_rows": train_rows, "seed": seed,
              "code": code_fingerprint(config.technique)}  # fmt: skip
    return reading_rows(common, scores, start)


def scale_readings(
    profile: Profile, datasets: list[str] | None = None, path: str | Path | None = None,
    compute: bool = True, n_jobs: int | None = None, progress: bool = True, client=None,
) -> pd.DataFrame:  # fmt: skip
    """The profile's readings of the games' configurations at the games' scale (module doc) for
    ``datasets``, from the database at ``path`` (default: the profile's), computing the missing
    releases first when ``compute`` (else their count is in ``attrs["missing"]``). A profile
    whose games play no ladder has nothing to calibrate against and reads none."""
    path = path or results_path(profile)
    datasets = list(datasets or profile.datasets) if profile.game_ladder_doses else []
    metrics = [m.name for m in select("all")]
    found = stored_scale_readings(path, profile)
    have = read_by_all(found, KEY, metrics)
    configs = paper_configurations(profile.game_techniques)
    tasks, expected = [], 0
    for dataset in datasets:
        wanted = [(dataset, c, r) for c in configs for r in range(RUNS)]
        expected += len(wanted)
        missing = [(d, c, r) for d, c, r in wanted if (d, c.label, r) not in have]
        if not missing or not compute:
            continue
        population, schema = load_dataset(dataset, n=profile.game_population, seed=profile.seed)
        for d, config, r in missing:
            params = {**profile.params_for(config.technique), **config.synthesiser_params()}
            tasks.append(Task(f"scale-{d}-{config.label}-{r}", read_configuration,
                              (d, config, params, r, population, schema,
                               profile.game_train_rows, profile.seed, metrics),
                              cost=TECHNIQUE_COST.get(config.technique, 1),
                              torch=config.technique in TORCH_TECHNIQUES))  # fmt: skip
    if tasks:
        store = ScaleStore(path)
        run_batch(tasks, lambda task, rows: store.add(rows), n_jobs or profile.n_jobs,
                  client=client, progress=progress, desc="metrics at the games' scale")  # fmt: skip
        found = stored_scale_readings(path, profile)
    found = found[found.dataset.isin(datasets)].reset_index(drop=True)
    what = "releases of the configurations at the games' scale"
    return with_missing(found, KEY, expected, what, profile)


def verify_readings(
    profile: Profile, path: str | Path | None = None, sample: int = 3, seed: int = 0,
    tolerance: float = 1e-9, budget_minutes: float | None = None, n_jobs: int = 2,
    progress: bool = True, where: str = "fresh", ladder: int = 1,
) -> pd.DataFrame:  # fmt: skip
    """Do the stored readings regenerate? A seeded ``sample`` of the stored releases (round-robin
    over techniques within ``budget_minutes``, :func:`~privmetrics.experiments.grid.verify.
    round_robin`) and ``ladder`` releases of the leakage ladder (:mod:`.sensitivity`, drawn
    by the same seed), each made and read again from scratch in a fresh interpreter (``where``,
    as :func:`~privmetrics.experiments.batch.run_batch` reads it), every measure's score compared
    with the stored one: one row per release with the measures read, how many are the same to
    the bit, the largest difference and the verdict ("identical", "within tolerance" or
    "DIFFERENT")."""
    from privmetrics.experiments.games.play import ladder_fresh
    from privmetrics.experiments.games.sensitivity import KEY as LADDER_KEY
    from privmetrics.experiments.games.sensitivity import read_release, stored_readings
    from privmetrics.experiments.grid.verify import configurations, round_robin

    path = path or results_path(profile)
    found = stored_scale_readings(path, profile)
    if found.empty and sample:
        raise ValueError(f"{path} holds no readings at the games' scale to verify")
    releases = found.groupby(KEY, as_index=False).agg(
        technique=("technique", "first"), params=("params", "first"), cost=("seconds", "sum")
    )
    budget = None if budget_minutes is None else budget_minutes * 60 * n_jobs
    pick = round_robin(releases, sample, seed, budget)
    configs = configurations()
    planted = stored_readings(path, profile)
    drawn = planted.drop_duplicates(LADDER_KEY).sample(min(ladder, len(planted)), random_state=seed)
    populations = {d: load_dataset(d, n=profile.game_population, seed=profile.seed)
                   for d in set(pick.dataset) | set(drawn.dataset)}  # fmt: skip
    stored, tasks = {}, []  # by task key: the stored scores by measure, and the release's name
    for r in pick.itertuples():
        name = f"verify-scale-{r.dataset}-{r.config}-{r.run}"
        part = found[
            (found.dataset == r.dataset) & (found.config == r.config) & (found.run == r.run)
        ]
        stored[name] = (part.set_index("metric").score, (r.dataset, r.config, r.run))
        tasks.append(Task(name, read_configuration,
                          (r.dataset, configs[r.config], json.loads(r.params), int(r.run),
                           *populations[r.dataset], profile.game_train_rows, profile.seed,
                           sorted(set(part.metric))), cost=float(r.cost)))  # fmt: skip
    for r in drawn.itertuples():
        name = f"verify-ladder-{r.dataset}-{r.dose}-{r.jitter}-{r.run}"
        part = planted[(planted.dataset == r.dataset) & (planted.dose == r.dose)
                       & (planted.jitter == r.jitter) & (planted.run == r.run)]  # fmt: skip
        population, schema = populations[r.dataset]
        fresh = ladder_fresh(r.dataset, population, profile.seed, profile.game_train_rows)
        label = ladder_configurations([r.dose], [r.jitter])[-1].label
        stored[name] = (part.set_index("metric").score, (r.dataset, label, r.run))
        tasks.append(Task(name, read_release,
                          (r.dataset, r.dose, r.jitter, int(r.run), population, schema, fresh,
                           profile.game_train_rows, profile.seed, sorted(set(part.metric)))))  # fmt: skip
    rows = {}  # by task key, as they finish

    def compare(task, new: list[dict]) -> None:
        old, (dataset, config, run) = stored[task.key]
        again = pd.Series({n["metric"]: n["score"] for n in new})
        old = old.reindex(again.index)
        same = (again == old) | (again.isna() & old.isna())
        gap = (again - old).abs()[~same]  # NaN where one side is missing: different
        largest = float(gap.max()) if len(gap) else 0.0
        verdict = ("identical" if same.all() else "within tolerance"
                   if gap.notna().all() and largest <= tolerance else "DIFFERENT")  # fmt: skip
        rows[task.key] = {"dataset": dataset, "config": config, "run": int(run),
                          "measures": len(again), "same": int(same.sum()),
                          "largest difference": largest, "verdict": verdict,
                          "seconds": sum(n["seconds"] for n in new)}  # fmt: skip

    run_batch(tasks, compare, n_jobs, where=where, progress=progress,
              desc="readings at the games' scale, again")  # fmt: skip
    # in the order drawn (the configurations', then the ladder's), not the order they finished
    return pd.DataFrame([rows[task.key] for task in tasks])


def as_verified_cells(readings: pd.DataFrame) -> pd.DataFrame:
    """:func:`verify_readings`' rows in the columns of ``privmetrics verify``'s report
    (:func:`~privmetrics.experiments.grid.verify.verify`), so that ``make verify`` draws leakage
    ladder cells beside the grid's: a planted release keeps no table (it is rebuilt from the
    population, its fresh rows and the dose), and one reading per release has no run spread."""
    return pd.DataFrame({
        "dataset": readings.dataset, "config": readings.config, "run": readings.run,
        "scores": readings.measures, "identical": readings.same,
        "largest difference": readings["largest difference"],
        "table": "rebuilt (planted)", "made by": "current code", "within runs": "-",
        "verdict": readings.verdict, "seconds": readings.seconds,
    })  # fmt: skip
