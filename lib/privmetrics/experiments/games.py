"""Experiment 3, "Do the metrics predict real attacks?": the paper's Section 8.4 measured.

For each dataset of the profile and each of the grid's twelve configurations, the shadow-model
membership game (:func:`privmetrics.attacks.membership_game.play`) is played against
``game_targets`` random targets and as many vulnerable ones (Meeus et al.'s rule), on a seeded
sample of ``game_population`` rows; the attribute-inference game
(:func:`privmetrics.attacks.attribute_game.play_attribute`) against the same targets and the
dataset's first sensitive attribute. Each game is one row of its table in the results store
(``games``, ``attribute_games``), keyed by dataset, configuration, target kind, target and every
game setting; an interrupted run recomputes nothing that finished (:func:`run_games`).

:func:`attack_table` pools each (dataset, configuration, kind)'s games into the attack's success
(membership: AUC, advantage, TPR at FPR 0.1; attribute inference: accuracy, the baseline's
accuracy and the advantage; each with a bootstrap interval over targets and releases).
:func:`predictiveness` then asks, per dataset, target kind and measure, whether the measure ranks
the configurations as the attack does: Spearman's rho between the measure's mean score and the
attack's AUC across configurations, with a bootstrap interval over configurations, and a verdict:

* **tracks the attack**: rho >= 0.8 (up to rounding, :func:`~.analysis.at_least`) and the
  interval's lower end above 0;
* **does not track it**: rho <= 0.3 and the interval's upper end below 0.8;
* **cannot tell at this scale**: anything else, including a constant measure or attack, and every
  measure where the attack itself is not shown to work: its interval on Real (the release that is
  its training table, the worst case) must lie wholly above chance (an AUC of 0.5, an advantage of
  0). A rank correlation with an attack that measures noise decides nothing. (Random is no safe
  floor here: Algorithm 22 keeps each value near its original, and the games find that it leaks
  the membership of outlying targets.)

The sizes come from the profile that runs the chapter's studies (``Profile.study_profile``): the
paper edition reads the metrics from the shipped paper store and plays its games at the quick
scale, in the quick store.
"""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy.stats import rankdata
from tqdm import tqdm

from privmetrics.attacks.attribute_game import AttributeResult, play_attribute, summarise_attribute
from privmetrics.attacks.membership_game import GameResult, play, summarise, vulnerable_targets
from privmetrics.data.datasets import load_dataset
from privmetrics.experiments.analysis import at_least
from privmetrics.experiments.grid import paper_configurations
from privmetrics.experiments.profiles import get_profile
from privmetrics.experiments.runner import results_path
from privmetrics.synthesisers.cache import code_fingerprint

GAMES = """
CREATE TABLE IF NOT EXISTS {table} (
    dataset TEXT NOT NULL, config TEXT NOT NULL, kind TEXT NOT NULL, target INTEGER NOT NULL,
    population INTEGER NOT NULL, train_rows INTEGER NOT NULL, shadow INTEGER NOT NULL,
    releases INTEGER NOT NULL, seed INTEGER NOT NULL, technique TEXT NOT NULL,
    params TEXT NOT NULL, scores TEXT NOT NULL, truth TEXT NOT NULL, seconds REAL NOT NULL,
    code TEXT NOT NULL, finished TEXT NOT NULL,
    PRIMARY KEY (dataset, config, kind, target, population, train_rows, shadow, releases, seed)
);
"""
SETTINGS = ("population", "train_rows", "shadow", "releases", "seed")
# one table per game; "scores" and "truth" hold, for membership, the forest's score and the truth
# per evaluation release, and for attribute inference, whether each release's guess was right
# and (one value) whether the baseline's was
TABLES = {"membership": "games", "attribute": "attribute_games"}
TRACKS, DOES_NOT, CANNOT_TELL = "tracks the attack", "does not track it", "cannot tell at this scale"


class GameStore:
    """A game's table in a results database (beside the grid's cells and scores): ``games`` for
    membership inference, ``attribute_games`` for attribute inference."""

    def __init__(self, path: str | Path, game: str = "membership"):
        if game not in TABLES:
            raise ValueError(f"unknown game {game!r}; choose one of {sorted(TABLES)}")
        self.path, self.game, self.table = Path(path), game, TABLES[game]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(self.path, timeout=60) as conn:
            conn.executescript(GAMES.format(table=self.table))

    def done(self, settings: dict) -> set[tuple[str, str, str, int]]:
        """(dataset, config, kind, target) of the games finished with these ``settings``."""
        where = " AND ".join(f"{k} = ?" for k in SETTINGS)
        with sqlite3.connect(self.path, timeout=60) as conn:
            rows = conn.execute(
                f"SELECT dataset, config, kind, target FROM {self.table} WHERE {where}",
                [settings[k] for k in SETTINGS],
            ).fetchall()
        return {(d, c, k, int(t)) for d, c, k, t in rows}

    def add(self, row: dict) -> None:
        with sqlite3.connect(self.path, timeout=60) as conn:
            conn.execute(
                f"INSERT OR IGNORE INTO {self.table} ({', '.join(row)}) VALUES "
                f"({', '.join('?' * len(row))})",
                list(row.values()),
            )

    def games(self, settings: dict | None = None) -> pd.DataFrame:
        with sqlite3.connect(self.path, timeout=60) as conn:
            frame = pd.read_sql_query(f"SELECT * FROM {self.table}", conn)
        if settings is not None:
            for k in SETTINGS:
                frame = frame[frame[k] == settings[k]]
        return frame.reset_index(drop=True)


def game_settings(profile: str) -> dict:
    """The game sizes of ``profile``'s study profile, as stored with every game."""
    sizes = get_profile(get_profile(profile).study_profile)
    return {
        "population": sizes.game_population,
        "train_rows": sizes.game_train_rows,
        "shadow": sizes.game_shadow,
        "releases": sizes.game_releases,
        "seed": sizes.seed,
    }


def choose_targets(population: pd.DataFrame, schema, count: int, seed: int) -> dict[str, list]:
    """``count`` random positions and the ``count`` most vulnerable ones (none of them twice)."""
    vulnerable = [int(i) for i in vulnerable_targets(population, schema, count)]
    rest = np.setdiff1d(np.arange(len(population)), vulnerable)
    chosen = np.random.default_rng(seed).choice(rest, size=count, replace=False)
    return {"random": sorted(int(i) for i in chosen), "vulnerable": vulnerable}


def _one_game(game, dataset, config, params, kind, target, population, schema, settings) -> dict:
    start = time.perf_counter()
    common = {"train_rows": settings["train_rows"], "releases": settings["releases"],
              "seed": settings["seed"], "threads": 1, "kind": kind}  # fmt: skip
    if game == "membership":
        result = play(population, schema, config.technique, params, target,
                      shadow=settings["shadow"], **common)  # fmt: skip
        scores, truth = result.scores.tolist(), result.truth.tolist()
    else:
        result = play_attribute(population, schema, config.technique, params, target, **common)
        scores, truth = result.right.astype(int).tolist(), [int(result.baseline_right)]
    return {
        "dataset": dataset, "config": config.label, "kind": kind, "target": int(target),
        **settings, "technique": config.technique, "params": json.dumps(params, sort_keys=True),
        "scores": json.dumps(scores), "truth": json.dumps(truth),
        "seconds": time.perf_counter() - start, "code": code_fingerprint(config.technique),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
    }  # fmt: skip


def run_games(
    profile: str = "quick",
    datasets: list[str] | None = None,
    techniques: tuple[str, ...] | None = None,
    store: GameStore | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
    game: str = "membership",
) -> pd.DataFrame:
    """Play every missing ``game`` (``"membership"`` or ``"attribute"``) of the profile (module
    doc) and return all of its games."""
    settings_profile = get_profile(profile)
    sizes = get_profile(settings_profile.study_profile)
    store = store or GameStore(results_path(sizes.name), game)
    settings = game_settings(profile)
    done = store.done(settings)
    tasks = []
    for dataset in datasets or settings_profile.datasets:
        population, schema = load_dataset(dataset, n=settings["population"], seed=sizes.seed)
        targets = choose_targets(population, schema, sizes.game_targets, sizes.seed)
        for config in paper_configurations(techniques or sizes.game_techniques):
            params = {**sizes.params_for(config.technique), **config.synthesiser_params()}
            for kind, positions in targets.items():
                tasks += [
                    delayed(_one_game)(store.game, dataset, config, params, kind, t, population,
                                       schema, settings)  # fmt: skip
                    for t in positions
                    if (dataset, config.label, kind, t) not in done
                ]
    if tasks:
        parallel = Parallel(n_jobs=n_jobs or sizes.n_jobs, return_as="generator_unordered")
        for row in tqdm(parallel(tasks), total=len(tasks), desc=f"{store.game} games",
                        disable=not progress):  # fmt: skip
            store.add(row)  # each game kept as it finishes: an interruption loses only those running
    return store.games(settings)


def _results(games: pd.DataFrame) -> list[GameResult]:
    return [
        GameResult(int(g.target), g.kind, np.array(json.loads(g.scores)), np.array(json.loads(g.truth)))
        for g in games.itertuples()
    ]  # one per game (a few dozen), not per row of data


def _attribute_results(games: pd.DataFrame) -> list[AttributeResult]:
    return [
        AttributeResult(int(g.target), g.kind, np.array(json.loads(g.scores), dtype=bool),
                        bool(json.loads(g.truth)[0]))  # fmt: skip
        for g in games.itertuples()
    ]


def attack_table(
    games: pd.DataFrame, draws: int = 500, seed: int = 0, game: str = "membership"
) -> pd.DataFrame:
    """Per (dataset, config, kind, measure): the pooled value with its 95% interval (membership:
    AUC, advantage, TPR at FPR 0.1; attribute: accuracy, baseline accuracy, advantage)."""
    frames = []
    for (dataset, config), part in games.groupby(["dataset", "config"], sort=False):
        if game == "membership":
            table = summarise(_results(part), draws=draws, seed=seed)
        else:
            table = summarise_attribute(_attribute_results(part), draws=draws, seed=seed)
        frames.append(table.rename(columns={"targets": "kind"}).assign(dataset=dataset, config=config))
    columns = ["dataset", "config", "kind", "measure", "value", "low", "high", "n targets"]
    return pd.concat(frames, ignore_index=True)[columns]


def _spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row pair of ``x`` and ``y`` (average ranks for ties); NaN where a
    row is constant."""
    rx, ry = rankdata(x, axis=1), rankdata(y, axis=1)
    rx -= rx.mean(1, keepdims=True)
    ry -= ry.mean(1, keepdims=True)
    denominator = np.sqrt((rx**2).sum(1) * (ry**2).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (rx * ry).sum(1) / denominator, np.nan)


def verdict(rho: float, low: float, high: float) -> str:
    """The module doc's rule."""
    if np.isnan(rho):
        return CANNOT_TELL
    if at_least(rho, 0.8) and low > 0:
        return TRACKS
    if rho <= 0.3 + 1e-9 and high < 0.8:
        return DOES_NOT
    return CANNOT_TELL


def predictiveness(
    attacks: pd.DataFrame,
    results: pd.DataFrame,
    measure: str = "AUC",
    draws: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per (dataset, kind, metric): rho between the metric's mean score and the attack's
    ``measure`` across configurations, its bootstrap interval over configurations, whether the
    attack is shown to work on Real, and the verdict (module doc). ``results`` is the grid's tidy results (dataset, config, metric, score)."""
    means = results.groupby(["dataset", "config", "metric"]).score.mean().unstack("metric")
    rows = []
    chosen = attacks[attacks.measure == measure]
    for (dataset, kind), part in chosen.groupby(["dataset", "kind"], sort=False):
        if dataset not in means.index.get_level_values(0):
            continue
        bounds = part.set_index("config")
        attack = bounds.value
        chance = 0.5 if measure == "AUC" else 0.0
        informative = "Real" in bounds.index and bounds.low["Real"] > chance
        scores = means.loc[dataset].reindex(attack.index)
        for metric in scores.columns:
            x = scores[metric].to_numpy(float)
            keep = ~np.isnan(x)
            x, y = x[keep], attack.to_numpy(float)[keep]
            if len(x) < 4:
                continue
            rho = float(_spearman_rows(x[None], y[None])[0])
            # configurations resampled with replacement; the same draws for every metric
            sample = np.random.default_rng(seed).integers(len(x), size=(draws, len(x)))
            boot = _spearman_rows(x[sample], y[sample])
            low, high = (np.nanpercentile(boot, [2.5, 97.5]) if np.isfinite(boot).any()
                         else (np.nan, np.nan))  # fmt: skip
            rows.append({"dataset": dataset, "kind": kind, "metric": metric, "rho": rho,
                         "low": float(low), "high": float(high), "configurations": len(x),
                         "attack works on Real": informative,
                         "verdict": verdict(rho, low, high) if informative else CANNOT_TELL})  # fmt: skip
    return pd.DataFrame(rows)


def findings(table: pd.DataFrame, final: list[str], named: tuple[str, ...] = ("ALC", "DCR")) -> str:
    """The chapter's generated sentences: per dataset and target kind, how many measures track
    the attack and which, the verdicts on the paper's ``final`` seven, and the ``named`` ones."""
    lines = []
    for (dataset, kind), part in table.groupby(["dataset", "kind"], sort=False):
        counts = part.verdict.value_counts()
        tracking = sorted(part.metric[part.verdict == TRACKS])
        mine = part[part.metric.isin(final)].verdict.value_counts()
        if not part["attack works on Real"].any():
            lines.append(
                f"- **{dataset}, {kind} targets**: the attack is not shown to work even on Real "
                "(its interval there reaches chance), so no measure can be said to track it or "
                "not at this scale."
            )
            continue
        line = (
            f"- **{dataset}, {kind} targets** ({int(part.configurations.max())} configurations): "
            f"{counts.get(TRACKS, 0)} of {len(part)} measures track the attack"
            + (f" ({', '.join(tracking)})" if tracking else "")
            + f", {counts.get(DOES_NOT, 0)} do not, {counts.get(CANNOT_TELL, 0)} cannot tell at "
            f"this scale. Of the paper's final seven: {mine.get(TRACKS, 0)} track it, "
            f"{mine.get(DOES_NOT, 0)} do not, {mine.get(CANNOT_TELL, 0)} cannot tell."
        )
        for name in named:
            row = part[part.metric == name]
            if len(row):
                r = row.iloc[0]
                line += f" {name}: {r.verdict} (rho {r.rho:.2f}, 95% interval {r.low:.2f} to {r.high:.2f})."
        lines.append(line)
    return "\n".join(lines) + "\n"
