"""Which metrics see a known leak: every measure read along the leakage ladder.

The attacks' power curves (:mod:`.ladder`) say what the attacks see on releases that hold a known
dose of training rows among fresh rows of the same population; this module asks the same of the
metrics. Per dataset, at the games' scale (the profile's ``game_population`` sample, training
tables of ``game_train_rows`` rows drawn from it, fresh rows from outside it,
:func:`.play.ladder_fresh`), each release of the profile's ladder
(:mod:`privmetrics.synthesisers.planted`: its games' doses and jitters; a profile whose games play
no ladder reads none, and its book shows the shipped paper store's) is made :data:`RUNS` times,
run ``r`` with a training table and plants of its own, and every registered measure is scored on
(training table, release). Nothing is fitted: a release is fresh rows and planted training rows,
so the paper profile's ladder (171 releases of 500 rows) costs about a quarter of an hour of one
core.

Per (dataset, metric, jitter), :func:`sensitivity` reads the readings along the doses, on the
package's orientation (1: no privacy, 0: none of it at risk):

* **dose 0**: the mean reading of fresh rows, a release that holds no one: the honest safe end
  of the metric's scale (Random, Algorithm 22, draws from the training rows' own values). In the
  top third of the scale (from 2/3) it is a **false alarm on fresh rows**, the third by which
  Experiment 3 calls an alarm;
* **smallest detected dose**: the smallest dose at which every run reads above every run at dose
  0, beyond the run-to-run spread (with three runs each, a chance of 1 in 20 where the dose
  changes nothing: the three would be the top three of six);
* **monotone**: the mean reading never falls from one dose to the next by more than the range of
  the dose-0 runs.

The readings live in the profile's results database (``ladder_scores``, :class:`LadderStore`),
keyed by dataset, dose, jitter, run, metric and the game settings, so that an interrupted run
resumes; the paper profile's ship in ``results/paper.sqlite``.
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from privmetrics.data.datasets import load_dataset
from privmetrics.experiments.batch import Task, run_batch
from privmetrics.experiments.games.play import ladder_fresh
from privmetrics.experiments.grid.runner import results_path
from privmetrics.experiments.grid.store import Database
from privmetrics.experiments.profiles import Profile
from privmetrics.metrics import evaluate, select
from privmetrics.synthesisers.cache import code_fingerprint
from privmetrics.synthesisers.planted import make_control

# runs per ladder release: three give the dose-0 spread and a 1-in-20 detection rule
RUNS = 3
# a reading of fresh rows from here up is an alarm (Experiment 3's top third)
ALARM = 2 / 3

SCHEMA = """
CREATE TABLE IF NOT EXISTS ladder_scores (
    dataset TEXT NOT NULL, dose REAL NOT NULL, jitter REAL NOT NULL, run INTEGER NOT NULL,
    metric TEXT NOT NULL, population INTEGER NOT NULL, train_rows INTEGER NOT NULL,
    seed INTEGER NOT NULL, score REAL, seconds REAL NOT NULL, code TEXT NOT NULL,
    finished TEXT NOT NULL,
    PRIMARY KEY (dataset, dose, jitter, run, metric, population, train_rows, seed)
);
"""
KEY = ["dataset", "dose", "jitter", "run"]


class ReadingStore(Database):
    """Releases read by every measure, one row per (release, measure), in the table ``TABLE``
    (with ``COLUMNS``) of a results database: the ladder's readings here, the configurations'
    at the games' scale in :mod:`.scale_readings`."""

    TABLE = ""
    COLUMNS: tuple[str, ...] = ()

    def add(self, rows: list[dict]) -> None:
        """One release's readings, in one transaction (replacing an older reading)."""
        with self._connection() as conn:
            conn.executemany(
                f"INSERT OR REPLACE INTO {self.TABLE} ({', '.join(self.COLUMNS)}) "
                f"VALUES ({', '.join('?' * len(self.COLUMNS))})",
                [tuple(row[c] for c in self.COLUMNS) for row in rows],
            )


def stored_at_settings(path: str | Path, table: str, columns, profile: Profile) -> pd.DataFrame:
    """The rows of ``table`` in the database at ``path`` read at the profile's game settings
    (population, training rows, seed), read without opening the file for writing (a book reads
    the shipped store and leaves its bytes as they were); empty, with ``columns``, when the file
    or its table is absent."""
    path = Path(path)
    empty = pd.DataFrame(columns=list(columns))
    if not path.exists():
        return empty
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
            return empty
        found = pd.read_sql_query(f"SELECT * FROM {table}", conn)
    return found[
        (found.population == profile.game_population)
        & (found.train_rows == profile.game_train_rows)
        & (found.seed == profile.seed)
    ].reset_index(drop=True)


class LadderStore(ReadingStore):
    """The metrics' readings of the ladder in a results database (``ladder_scores``)."""

    SCHEMA = SCHEMA
    TABLE = "ladder_scores"
    COLUMNS = ("dataset", "dose", "jitter", "run", "metric", "population", "train_rows", "seed",
               "score", "seconds", "code", "finished")  # fmt: skip

    def readings(self, profile: Profile) -> pd.DataFrame:
        """The readings made at the profile's game settings by the current ladder code."""
        return stored_readings(self.path, profile)


def stored_readings(path: str | Path, profile: Profile) -> pd.DataFrame:
    """The ladder's readings in the database at ``path`` made at the profile's game settings by
    the current ladder code (:func:`stored_at_settings`)."""
    found = stored_at_settings(path, LadderStore.TABLE, LadderStore.COLUMNS, profile)
    return found[found.code == code_fingerprint("planted")].reset_index(drop=True)


def ladder_of(profile: Profile) -> list[tuple[float, float]]:
    """(dose, jitter) of every release of the profile's ladder: dose 0 once (its jitter moves
    nothing), then every dose above 0 at every jitter; none when its games play no ladder."""
    if not profile.game_ladder_doses:
        return []
    doses, jitters = profile.game_ladder_doses, profile.game_ladder_jitters
    return [(0.0, 0.0)] + [(d, j) for j in jitters for d in doses if d > 0]


def training_table(population: pd.DataFrame, train_rows: int, seed: int, run: int):
    """Run ``run``'s training table: ``train_rows`` rows of ``population`` drawn with ``seed``
    (the ladder's releases of run ``run`` plant its rows; the configurations read at the games'
    scale, :mod:`.scale_readings`, are fitted on it)."""
    rng = np.random.default_rng([seed, run, 7])
    train = population.iloc[np.sort(rng.choice(len(population), train_rows, replace=False))]
    return train.reset_index(drop=True)


def read_release(dataset: str, dose: float, jitter: float, run: int, population, schema, fresh,
                 train_rows: int, seed: int, metrics: list[str]) -> list[dict]:  # fmt: skip
    """Every measure of ``metrics`` on one ladder release: run ``run``'s training table (drawn
    from ``population``) against its release of ``fresh`` rows with ``dose`` of it planted."""
    start = time.perf_counter()
    train = training_table(population, train_rows, seed, run)
    control = make_control("planted", dose=dose, jitter=jitter, seed=seed * 1_000 + run)
    release = control.fit_sample(train, schema, train_rows, fresh=fresh)
    scores = evaluate(train, release, schema, metrics=metrics, seed=seed + run)
    common = {"dataset": dataset, "dose": dose, "jitter": jitter, "run": run,
              "population": len(population), "train_rows": train_rows, "seed": seed,
              "code": code_fingerprint("planted")}  # fmt: skip
    return reading_rows(common, scores, start)


def reading_rows(common: dict, scores: pd.DataFrame, start: float) -> list[dict]:
    """One stored row per measure of ``scores`` (:func:`~privmetrics.metrics.evaluate`'s table):
    ``common`` with the measure, its score, and its seconds: its own time and an equal share of
    the release's making (everything since ``start``, a ``perf_counter`` reading, beyond the
    scoring), and when it finished."""
    made = (time.perf_counter() - start - scores.seconds.sum()) / max(len(scores), 1)
    common = {**common, "finished": datetime.now(UTC).isoformat(timespec="seconds")}
    return [{**common, "metric": m, "score": float(s), "seconds": float(t) + made}
            for m, s, t in zip(scores.metric, scores.score, scores.seconds, strict=True)]  # fmt: skip


def ladder_readings(
    profile: Profile, datasets: list[str] | None = None, path: str | Path | None = None,
    compute: bool = True, n_jobs: int | None = None, progress: bool = True, client=None,
) -> pd.DataFrame:  # fmt: skip
    """The profile's readings of its ladder (module doc) for ``datasets`` from the database at
    ``path`` (default: the profile's), computing the missing releases first when ``compute``
    (else their count is in ``attrs["missing"]``, and the file is only read)."""
    path = path or results_path(profile)
    datasets = list(datasets or profile.datasets)
    metrics = [m.name for m in select("all")]
    found = stored_readings(path, profile)
    have = read_by_all(found, KEY, metrics)
    tasks = []
    for dataset in datasets:
        wanted = [(dataset, d, j, r) for d, j in ladder_of(profile) for r in range(RUNS)]
        missing = [w for w in wanted if w not in have]
        if not missing or not compute:
            continue
        population, schema = load_dataset(dataset, n=profile.game_population, seed=profile.seed)
        fresh = ladder_fresh(dataset, population, profile.seed, profile.game_train_rows)
        tasks += [Task(f"ladder-{d}-{dose}-{jitter}-{r}", read_release,
                       (d, dose, jitter, r, population, schema, fresh, profile.game_train_rows,
                        profile.seed, metrics))
                  for d, dose, jitter, r in missing]  # fmt: skip
    if tasks:
        store = LadderStore(path)
        run_batch(tasks, lambda task, rows: store.add(rows), n_jobs or profile.n_jobs,
                  client=client, progress=progress, desc="metrics on the ladder")  # fmt: skip
        found = store.readings(profile)
    ladder = set(ladder_of(profile))
    on_ladder = [(d, j) in ladder for d, j in zip(found.dose, found.jitter, strict=True)]
    found = found[found.dataset.isin(datasets).to_numpy() & np.array(on_ladder, dtype=bool)]
    found = found.reset_index(drop=True)
    expected = len(datasets) * len(ladder_of(profile)) * RUNS
    return with_missing(found, KEY, expected, "ladder releases", profile)


def read_by_all(found: pd.DataFrame, key: list[str], metrics: list[str]) -> set[tuple]:
    """The releases (``key`` values) of ``found`` that every one of ``metrics`` has read."""
    counts = found.groupby(key).metric.nunique()
    return {tuple(k) for k in counts[counts >= len(metrics)].index}


def with_missing(found: pd.DataFrame, key: list[str], expected: int, what: str, profile):
    """``found`` with ``attrs["missing"]``: how many of the ``expected`` releases (by ``key``) it
    lacks, and the command that reads them; empty when none is missing."""
    releases = found.groupby(key).ngroups if len(found) else 0
    found.attrs["missing"] = (
        f"{expected - releases} of {expected} {what} not read yet "
        f"(`privmetrics games --profile {profile.name}` reads them)"
        if releases < expected
        else ""
    )
    return found


def sensitivity(readings: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, metric, jitter): the dose-0 reading (mean, lowest and highest run), whether
    it is a false alarm on fresh rows, the smallest detected dose and whether the readings rise
    monotonically (module doc)."""
    rows = []
    zero = readings[readings.dose == 0]
    for (dataset, metric), part in readings.groupby(["dataset", "metric"], sort=False):
        base = zero[(zero.dataset == dataset) & (zero.metric == metric)].score.to_numpy(float)
        if not len(base) or np.isnan(base).all():
            continue
        spread = float(np.nanmax(base) - np.nanmin(base))
        for jitter in sorted(set(part.jitter[part.dose > 0])):
            curve = part[(part.jitter == jitter) & (part.dose > 0)]
            by_dose = curve.groupby("dose").score
            detected = [d for d, s in by_dose if np.nanmin(s.to_numpy(float)) > np.nanmax(base)]
            means = [float(np.nanmean(base))] + list(by_dose.mean().to_numpy(float))
            rows.append({
                "dataset": dataset, "metric": metric, "jitter": float(jitter),
                "dose 0": float(np.nanmean(base)), "dose 0 low": float(np.nanmin(base)),
                "dose 0 high": float(np.nanmax(base)),
                "false alarm on fresh rows": bool(np.nanmean(base) >= ALARM - 1e-12),
                "smallest detected dose": min(detected) if detected else np.nan,
                "monotone": bool(np.all(np.diff(means) >= -spread - 1e-12)),
                "largest dose": float(curve.dose.max()), "at largest dose": means[-1],
            })  # fmt: skip
    return pd.DataFrame(rows)


def sensitivity_table(found: pd.DataFrame, metrics: list[str] | None = None) -> pd.DataFrame:
    """One row per metric, per dataset its dose-0 reading (an asterisk: a false alarm on fresh
    rows) and its smallest detected dose, exact copies and at the largest jitter ("-": none
    detected up to the ladder's largest dose; "no": not monotone), for the attacks chapter."""
    if found.empty:
        return pd.DataFrame()
    exact = found[found.jitter == 0].set_index(["metric", "dataset"])
    rough = found[found.jitter == found.jitter.max()].set_index(["metric", "dataset"])
    table = {}
    for dataset in found.dataset.unique():
        mine = exact.xs(dataset, level="dataset")
        jittered = rough.xs(dataset, level="dataset")
        table[(dataset, "dose 0")] = [
            f"{r['dose 0']:.2f}" + ("*" if r["false alarm on fresh rows"] else "")
            for _, r in mine.iterrows()
        ]
        for name, part in (("copies", mine), (f"jitter {found.jitter.max():g}", jittered)):
            table[(dataset, name)] = [
                (
                    "-"
                    if np.isnan(r["smallest detected dose"])
                    else f"{r['smallest detected dose']:.1%}"
                )
                + ("" if r["monotone"] else " (not monotone)")
                for _, r in part.iterrows()
            ]
        index = mine.index
    out = pd.DataFrame(table, index=index)
    order = metrics or [m.name for m in select("all")]
    return out.reindex([m for m in order if m in out.index])


def detected_share(found: pd.DataFrame, jitter: float = 0.0) -> pd.Series:
    """Per dataset, the share of metrics that detect some dose of the ladder at ``jitter``."""
    part = found[found.jitter == jitter]
    return part.groupby("dataset")["smallest detected dose"].apply(
        lambda s: float(s.notna().mean())
    )


def _names(items) -> str:
    items = list(items)
    if not items:
        return "none"
    return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]


def sensitivity_findings(found: pd.DataFrame, final: list[str]) -> list[str]:
    """Generated sentences from :func:`sensitivity`'s table: per dataset, how many measures
    detect exact copies and the largest jitter at some dose, the smallest dose any detects, which
    read fresh rows as a leak; then the paper's final selection (``final``) re-read with it."""
    lines = []
    rough = found.jitter.max()
    for dataset, part in found.groupby("dataset", sort=False):
        exact, jittered = part[part.jitter == 0], part[part.jitter == rough]
        seen = exact.dropna(subset=["smallest detected dose"])
        smallest = seen["smallest detected dose"].min() if len(seen) else np.nan
        first = sorted(seen[seen["smallest detected dose"] == smallest].metric)
        alarms = sorted(exact[exact["false alarm on fresh rows"]].metric)
        lines.append(
            f"On {dataset}, {len(seen)} of {len(exact)} measures detect exact copies at some dose "
            + (f"(from {smallest:.1%}: {_names(first)})" if len(seen) else "")
            + f" and {int(jittered['smallest detected dose'].notna().sum())} detect copies "
            f"jittered by {rough:g}; {len(alarms)} read fresh rows, which hold no one, in the top third of "
            f"their scale (a false alarm on fresh rows): {_names(alarms)}."
        )
    chosen = found[found.metric.isin(final) & (found.jitter == 0)]
    if len(chosen):
        said = []
        for metric, part in chosen.groupby("metric", sort=False):
            doses = [f"{d:.1%} on {s}" if not np.isnan(d) else f"none on {s}"
                     for s, d in zip(part.dataset, part["smallest detected dose"], strict=True)]  # fmt: skip
            said.append(f"{metric} ({', '.join(doses)})")
        blind = sorted(set(final) - set(chosen.dropna(subset=["smallest detected dose"]).metric))
        lines.append(
            "The paper's final seven, re-read with the ladder, by the smallest dose of exact copies "
            f"each detects: {'; '.join(said)}. "
            + (f"{_names(blind)} {'detects' if len(blind) == 1 else 'detect'} no dose of exact "
               f"copies on any dataset: a selection that keeps "
               f"{'it keeps a measure' if len(blind) == 1 else 'them keeps measures'} blind to "
               "copied rows." if blind else "Each detects copied rows on some dataset.")
        )  # fmt: skip
    return lines


def leak_lines(found: pd.DataFrame) -> dict[str, str]:
    """Per metric of :func:`sensitivity`'s table, the line of its page: its reading of fresh rows
    and the smallest dose of exact copies it detects, per dataset."""
    out = {}
    if found.empty:
        return out
    for name, part in found[found.jitter == 0].groupby("metric"):
        each = [f"{r.dataset}: fresh rows {r['dose 0']:.2f}"
                + (" (a false alarm)" if r["false alarm on fresh rows"] else "") + ", copies "
                + ("never detected" if np.isnan(r["smallest detected dose"])
                   else f"detected from {r['smallest detected dose']:.1%}")
                for _, r in part.iterrows()]  # fmt: skip
        out[name] = ("- Known leaks (the paper store's leakage ladder, in the attacks chapter): "
                     + "; ".join(each) + ".")  # fmt: skip
    return out
