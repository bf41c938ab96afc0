"""Do the shipped games regenerate? ``privmetrics verify-games`` for reviewers.

The games of Experiment 3 (:mod:`privmetrics.experiments.games.play`) are stored outcomes: per membership game, the
attacker's score and the truth for every evaluation release; per attribute-inference game,
whether each release's guess and the baseline's guess were right. :func:`replay_games` draws a
seeded sample of a store's games, round-robin over techniques within a time budget (the stored
time of the play each game came from; :func:`~privmetrics.experiments.grid.verify.round_robin`), plays each such play again
from scratch with the targets, settings and synthesiser parameters the store recorded for it,
by the same batch runner the games are played by (:func:`~privmetrics.experiments.batch.run_batch`), and compares the
sampled games' outcomes value by value:

* ``identical``: every value bit for bit;
* ``within tolerance``: the largest absolute difference is at most ``tolerance`` (a forest's
  score summed in another order);
* ``DIFFERENT``: anything else, including another number of releases.

Beside the verdict, as for the grid's cells (:mod:`privmetrics.experiments.grid.verify`): whether the game was made by the
current code of its technique or by other code ("stale": a difference is then expected, and
``make reproduce`` or ``-p compute True`` plays it again).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from privmetrics.data.datasets import load_dataset
from privmetrics.experiments.batch import run_batch
from privmetrics.experiments.games.game_store import SETTINGS, TABLES, GameStore, expected
from privmetrics.experiments.games.play import Play, ladder_fresh
from privmetrics.experiments.grid.configurations import LADDER, stored_configuration
from privmetrics.experiments.grid.runner import results_path
from privmetrics.experiments.grid.verify import TOLERANCE, round_robin
from privmetrics.experiments.profiles import Profile
from privmetrics.synthesisers.cache import code_fingerprint

GAMES = tuple(TABLES)


def choose_games(
    stored: pd.DataFrame,
    sample: int,
    seed: int,
    budget_minutes: float | None,
    n_jobs: int,
    train_rows: int | None = None,
) -> pd.DataFrame:
    """``sample`` stored games (with a ``game`` column), round-robin over techniques, whose plays
    (:func:`play_cost`, one core each) fit ``budget_minutes`` of wall time on ``n_jobs`` workers.
    Games at another training size than ``train_rows`` (the profile's: the training-size and
    overfitting ladders', :mod:`.sizes`) are drawn as one technique of their own, so that a draw
    of one game per technique holds one of them."""
    budget = None if budget_minutes is None else budget_minutes * 60 * n_jobs
    strata = stored.technique
    if train_rows is not None and "train_rows" in stored:
        strata = strata.where(stored.train_rows == train_rows, SIZE_STRATUM)
    chosen = round_robin(stored.assign(cost=play_cost(stored), technique=strata), sample, seed,
                         budget)  # fmt: skip
    return chosen.assign(technique=stored.technique.loc[chosen.index])


SIZE_STRATUM = "training-size ladder"


def play_cost(stored: pd.DataFrame) -> pd.Series:
    """The stored time of the play each game came from: its share of the play's time times the
    play's games (every game of every target of its ``design``, :func:`.game_store.expected`)."""
    games = stored.design.map(lambda d: sum(len(expected(g, json.loads(d))) for g in TABLES))
    return stored.seconds * games


def _outcome(row) -> np.ndarray:
    return np.array(json.loads(row["scores"]) + json.loads(row["truth"]), dtype=float)


def _compare(old: np.ndarray, new: np.ndarray, tolerance: float) -> tuple[int, float, str]:
    if old.shape != new.shape:
        return 0, np.inf, "DIFFERENT"
    same = int((old == new).sum())
    largest = float(np.abs(old - new).max()) if len(old) else 0.0
    verdict = ("identical" if same == len(old) else "within tolerance" if largest <= tolerance
               else "DIFFERENT")  # fmt: skip
    return same, largest, verdict


def replay_games(
    profile: Profile,
    path: str | None = None,
    games: tuple[str, ...] = GAMES,
    sample: int = 6,
    seed: int = 0,
    tolerance: float = TOLERANCE,
    budget_minutes: float | None = None,
    n_jobs: int = 2,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per replayed game (module doc): ``sample`` games drawn over all ``games`` kinds of
    the store at ``path`` (default: the profile's store)."""
    path = path or results_path(profile)
    unknown = set(games) - set(GAMES)
    if unknown:
        raise ValueError(f"unknown game(s) {sorted(unknown)}; choose from {list(GAMES)}")
    stored = pd.concat(
        [GameStore(path, g).games().assign(game=g) for g in games], ignore_index=True
    )
    if stored.empty:
        raise ValueError(f"{path} holds no {' or '.join(games)} games to replay")
    pick = choose_games(stored, sample, seed, budget_minutes, n_jobs,
                        profile.game_train_rows).reset_index(drop=True)  # fmt: skip
    populations = {
        (d, n, s): load_dataset(d, n=int(n), seed=int(s))
        for d, n, s in set(zip(pick.dataset, pick.population, pick.seed, strict=True))
    }
    # one replay per play the sampled games came from (its games share their releases)
    plays = pick.drop_duplicates(["dataset", "config", *SETTINGS, "design"])
    fresh = {  # the leakage ladder's fresh rows, for its plays
        (d, n, s, t): ladder_fresh(d, populations[d, n, s][0], int(s), int(t))
        for d, n, s, t, tech in zip(
            plays.dataset,
            plays.population,
            plays.seed,
            plays.train_rows,
            plays.technique,
            strict=True,
        )  # fmt: skip
        if tech == LADDER
    }
    replays = [
        Play(row.dataset, stored_configuration(row.config, row.technique, row.params),
             json.loads(row.params), json.loads(row.design),
             *populations[row.dataset, row.population, row.seed],
             {k: int(getattr(row, k)) for k in SETTINGS},
             fresh.get((row.dataset, row.population, row.seed, row.train_rows)))
        for row in plays.itertuples()
    ]  # fmt: skip
    found = {}

    def keep(task, rows: dict[str, list[dict]]) -> None:
        for g, part in rows.items():
            # keyed with the training rows: the size ladders play the same targets at every size
            found.update({(g, r["dataset"], r["config"], r["kind"], r["target"], r["train_rows"]): r
                          for r in part})  # fmt: skip

    tasks = [replay.task(f"replay-{i}") for i, replay in enumerate(replays)]
    run_batch(tasks, keep, n_jobs, progress=progress, desc="replay")
    rows = []
    for _, old in pick.iterrows():
        new = found[old.game, old.dataset, old.config, old.kind, int(old.target),
                    int(old.train_rows)]  # fmt: skip
        stored = _outcome(old)
        same, largest, verdict = _compare(stored, _outcome(new), tolerance)
        current = old.code == code_fingerprint(old.technique)
        rows.append({"game": old.game, "dataset": old.dataset, "config": old.config,
                     "kind": old.kind, "target": int(old.target),
                     "rows": int(old.train_rows), "values": len(stored),
                     "identical": same, "largest difference": largest,
                     "made by": "current code" if current else "other code (stale)",
                     "verdict": verdict, "seconds": new["seconds"]})  # fmt: skip
    return pd.DataFrame(rows)
