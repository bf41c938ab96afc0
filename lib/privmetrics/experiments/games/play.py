"""Experiment 3, "Do the metrics predict real attacks?": the paper's Section 8.4 measured, the
games played.

For each dataset of the profile and each of the grid's twelve configurations, one play
(:class:`privmetrics.attacks.one_run.TargetGames`) serves every target: ``game_targets`` random
targets and as many vulnerable ones (Meeus et al.'s rule, never a row with an exact twin), on a
seeded sample of ``game_population`` rows, each target in a random half of the
``game_shadow`` shadow tables and of the ``game_releases`` evaluation tables. The play gives
every target's membership game and its attribute-inference game (the dataset's first sensitive
attribute); each game is one row of its table in the results store
(:class:`~.game_store.GameStore`), keyed by dataset, configuration, target kind, target and every
game setting, the play's targets in ``design``. An interrupted run recomputes no finished
configuration (:func:`run_games`); a configuration with any game missing is played again whole,
since its games share their releases. :mod:`.game_analysis` reads them: the attack's success per
configuration and whether each metric predicts it.

The sizes come from the profile itself and the games live in its own store: the paper profile's
games (larger training tables, the paper's synthesiser settings) ship in ``results/paper.sqlite``
beside its grid. A technique whose fits are slow plays fewer releases (``game_release_cap``).
Targets are prefix-stable (:func:`~privmetrics.attacks.one_run.choose_targets`), so a store's
games of fewer targets stay readable, but raising ``game_targets`` plays every configuration
again: its tables then hold other targets.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from privmetrics.attacks.one_run import TargetGames, choose_targets
from privmetrics.attacks.whole_release import GEN_LRA
from privmetrics.data.datasets import holdout_rows, load_dataset
from privmetrics.data.schema import Schema
from privmetrics.experiments.batch import Task, run_batch
from privmetrics.experiments.games.game_store import (
    ATTACK_VERSIONS,
    TABLES,
    GameStore,
    expected,
    game_settings,
)
from privmetrics.experiments.grid.configurations import (
    LADDER,
    Configuration,
    ladder_configurations,
    paper_configurations,
)
from privmetrics.experiments.grid.runner import TECHNIQUE_COST, TORCH_TECHNIQUES, results_path
from privmetrics.experiments.grid.store import missing_note
from privmetrics.experiments.profiles import Profile
from privmetrics.synthesisers.cache import code_fingerprint


def compact(ingredients: dict[str, np.ndarray]) -> dict[str, list]:
    """The per-release ingredients as the store keeps them: counts as integers, distances to four
    significant digits (the per-record analysis ranks them; full precision made the shipped
    paper store several megabytes larger)."""
    return {
        name: (np.asarray(v).astype(int).tolist() if name in ("hit", "class")
               else [float(f"{x:.4g}") for x in v])
        for name, v in ingredients.items()
    }  # fmt: skip


@dataclass(frozen=True, eq=False)
class Play:
    """One configuration's play of the games, as the batch runner hands it to a worker: the
    ``config`` of ``dataset`` with its synthesiser ``params``, the ``targets`` by kind on the
    games' ``population`` (with its ``schema``), the game ``settings``
    (:func:`.game_store.game_settings`) and, for the leakage ladder, its ``fresh`` rows
    (:func:`ladder_fresh`)."""

    dataset: str
    config: Configuration
    params: dict
    targets: dict[str, list[int]]
    population: pd.DataFrame
    schema: Schema
    settings: dict
    fresh: pd.DataFrame | None = None

    def task(self, tag: str) -> Task:
        """The batch task that plays it (:func:`play_configuration`), costliest techniques first."""
        technique = self.config.technique
        return Task(f"game-{self.dataset}-{self.config.label}-{tag}", play_configuration,
                    (self,), cost=TECHNIQUE_COST.get(technique, 1),
                    torch=technique in TORCH_TECHNIQUES)  # fmt: skip


def play_configuration(play: Play) -> dict[str, list[dict]]:
    """One configuration's play: the rows of its membership and attribute games, by game. Each
    row's ``seconds`` is the play's time shared out over its rows, so that the rows of both
    tables add up to it."""
    start = time.perf_counter()
    settings, config, dataset = play.settings, play.config, play.dataset
    played = TargetGames(
        play.population, play.schema, config.technique, play.params, play.targets,
        train_rows=settings["train_rows"], shadow=settings["shadow"],
        releases=settings["releases"], fresh=play.fresh,
    ).evaluate(settings["seed"])  # fmt: skip
    outcomes = {
        "membership": [
            (r.target, r.kind, r.scores.tolist(), r.truth.tolist(),
             json.dumps(compact(r.ingredients)))
            for r in played.membership
        ],
        "attribute": [
            (r.target, r.kind, r.right.astype(int).tolist(), [int(r.baseline_right)], None)
            for r in played.attribute
        ],
        "release": [(0, scoring, aucs, [], None) for scoring, aucs in played.release.items()],
    }  # fmt: skip
    rows = sum(len(v) for v in outcomes.values())
    seconds = (time.perf_counter() - start) / max(rows, 1)
    common = {
        "dataset": dataset, "config": config.label, **settings, "technique": config.technique,
        "params": json.dumps(play.params, sort_keys=True), "seconds": seconds,
        "code": code_fingerprint(config.technique),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "design": json.dumps(play.targets),
    }  # fmt: skip
    return {
        game: [
            {**common, "kind": kind, "target": int(target), "scores": json.dumps(scores),
             "truth": json.dumps(truth), "ingredients": ingredients,
             "attack": ATTACK_VERSIONS[game]}
            for target, kind, scores, truth, ingredients in outcomes[game]
        ]
        for game in TABLES
    }  # fmt: skip


def ladder_fresh(dataset: str, population: pd.DataFrame, seed: int, train_rows: int):
    """The leakage ladder's fresh rows for ``dataset``'s games: rows of the dataset outside the
    games' ``population`` sample (drawn with ``seed``;
    :func:`~privmetrics.data.datasets.holdout_rows`), at least four training tables' worth, none
    equal to a population row, so that a fresh row is no member's and no non-member's twin."""
    size = max(2_000, 4 * train_rows)
    rest = holdout_rows(dataset, len(population), seed, size=size)
    known = set(pd.util.hash_pandas_object(population.astype(str), index=False))
    twins = pd.util.hash_pandas_object(rest.astype(str), index=False).isin(known).to_numpy()
    return rest[~twins].reset_index(drop=True)


def game_configurations(
    profile: Profile, techniques: tuple[str, ...] | list[Configuration] | None
) -> list[Configuration]:
    """The configurations the games play: the paper's twelve (or ``techniques``'), then the
    profile's leakage ladder (:func:`~privmetrics.experiments.grid.configurations.ladder_configurations`) when ``techniques`` is None
    or names ``"planted"``; ``techniques`` given as configurations, those."""
    if techniques and all(isinstance(t, Configuration) for t in techniques):
        return list(techniques)
    asked = techniques or profile.game_techniques
    paper = None if asked is None else tuple(t for t in asked if t != LADDER)
    configs = paper_configurations(paper) if paper is None or paper else []
    if asked is None or LADDER in asked:
        configs += ladder_configurations(profile.game_ladder_doses, profile.game_ladder_jitters)
    return configs


def run_games(
    profile: Profile,
    datasets: list[str] | None = None,
    techniques: tuple[str, ...] | None = None,
    store: GameStore | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
    game: str = "membership",
    compute: bool = True,
    client=None,
    ladder: bool = False,
) -> pd.DataFrame:
    """Play every configuration of the profile (module doc) that misses a game of either kind,
    longest first, and return the profile's ``game`` games (``"membership"`` or
    ``"attribute"``) of ``datasets``. With ``compute=False`` nothing is played: the missing
    configurations are counted in a note, the table's ``attrs["missing"]`` (:func:`privmetrics.experiments.grid.store.missing_note`). ``client``: a
    Dask client (:func:`privmetrics.experiments.cluster.dask_client`) whose workers play the configurations instead of
    joblib's; this process alone writes the store, as for the grid. The leakage ladder's games
    (:func:`game_configurations`) are played with the others and returned only with
    ``ladder=True`` (then alone): they are controls, which no metric's verdict reads.
    ``techniques`` may also be configurations, played as they are (the epochs ladder's CTGAN
    at other epoch counts, :mod:`.sizes`)."""
    store = store or GameStore(results_path(profile), game)
    stores = {g: store if g == store.game else GameStore(store.path, g) for g in TABLES}
    done = {g: stores[g].done(profile) for g in TABLES}
    plays, chosen = [], set()  # chosen: (dataset, kind, target); other targets are not shown
    noted = []  # what this call's note counts: the first game's call counts every missing play
    first = game == next(iter(TABLES))
    for dataset in datasets or profile.datasets:
        population, schema = load_dataset(dataset, n=profile.game_population, seed=profile.seed)
        targets = choose_targets(population, schema, profile.game_targets, profile.seed)
        keys = {g: expected(g, targets) for g in TABLES}
        # Gen-LRA's AUCs too, where a play scored them (the ladder's)
        shown = keys["membership"] + keys["release"] + [(GEN_LRA, 0)]
        chosen |= {(dataset, kind, t) for kind, t in shown}
        fresh = None
        for config in game_configurations(profile, techniques):
            complete = [
                all((dataset, config.label, k, t) in done[g] for k, t in keys[g]) for g in TABLES
            ]
            if all(complete):
                continue
            params = {**profile.params_for(config.technique), **config.synthesiser_params()}
            settings = game_settings(profile, config.technique)
            if config.technique == LADDER and fresh is None:
                fresh = ladder_fresh(dataset, population, profile.seed, profile.game_train_rows)
            plays.append(Play(dataset, config, params, targets, population, schema, settings,
                              fresh if config.technique == LADDER else None))  # fmt: skip
            if first or complete[0]:
                noted.append(plays[-1])
    note = _missing_note(profile, stores, noted) if plays and noted and not compute else ""
    if plays and compute:

        def keep(task: Task, rows: dict[str, list[dict]]) -> None:
            for g, part in rows.items():  # each play kept as it finishes
                stores[g].add(part)

        run_batch([play.task(profile.name) for play in plays], keep, n_jobs or profile.n_jobs,
                  client=client, progress=progress, desc="attack games")  # fmt: skip
    games = store.games(profile)
    keep = [
        (d, k, int(t)) in chosen and (tech == LADDER) == ladder
        for d, k, t, tech in zip(
            games.dataset, games.kind, games.target, games.technique, strict=True
        )  # fmt: skip
    ]
    games = games[np.array(keep, dtype=bool)].reset_index(drop=True)
    games.attrs["missing"] = note
    return games


def _missing_note(profile: Profile, stores: dict[str, GameStore], plays: list[Play]) -> str:
    """:func:`privmetrics.experiments.grid.store.missing_note` for the configurations to play, each costed by its
    technique's mean play time in the store (per game row, times its rows), with how many of
    them are stored but were played by other code of their synthesiser."""
    finished = pd.concat([s.games() for s in stores.values()], ignore_index=True)
    per_row = finished.groupby("technique").seconds.mean()
    rows = [sum(len(expected(g, play.targets)) for g in TABLES) for play in plays]
    seconds = [
        per_row.get(play.config.technique) * n if play.config.technique in per_row else None
        for play, n in zip(plays, rows, strict=True)
    ]
    mine = stores["membership"].games(profile)  # of this profile's game sizes
    stored = set(zip(mine.dataset, mine.config, strict=True))
    stale = sum((play.dataset, play.config.label) in stored for play in plays)
    what = f"configuration(s) of the `{profile.name}` attack games" + (
        f" ({stale} of them stored but played by other code of their synthesiser, shown as they are)"
        if stale
        else ""
    )
    return missing_note(profile.name, stores["membership"].path, what, seconds)
