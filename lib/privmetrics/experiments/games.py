"""Experiment 3, "Do the metrics predict real attacks?": the paper's Section 8.4 measured, the
games played.

For each dataset of the profile and each of the grid's twelve configurations, the shadow-model
membership game (:func:`privmetrics.attacks.membership_game.play`) is played against
``game_targets`` random targets and as many vulnerable ones (Meeus et al.'s rule), on a seeded
sample of ``game_population`` rows; the attribute-inference game
(:func:`privmetrics.attacks.attribute_game.play_attribute`) against the same targets and the
dataset's first sensitive attribute. Each game is one row of its table in the results store
(:class:`~.game_store.GameStore`), keyed by dataset, configuration, target kind, target and every
game setting; an interrupted run recomputes nothing that finished (:func:`run_games`).
:mod:`.game_analysis` reads them: the attack's success per configuration and whether each metric
predicts it.

The sizes come from the profile itself and the games live in its own store: the paper profile's
games (larger training tables, the paper's synthesiser settings) ship in ``results/paper.sqlite``
beside its grid. Targets are prefix-stable (:func:`choose_targets`) and the games are played round
by round (every configuration's first target of each kind, then the second, ...), so that an
interrupted run leaves complete rounds and raising ``game_targets`` only adds games.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import numpy as np
import pandas as pd
from joblib import delayed
from tqdm import tqdm

from privmetrics.attacks.attribute_game import play_attribute
from privmetrics.attacks.membership_game import play, vulnerable_targets
from privmetrics.data.datasets import load_dataset
from privmetrics.experiments.game_store import ATTACK_VERSIONS, GameStore, game_settings
from privmetrics.experiments.grid import paper_configurations
from privmetrics.experiments.profiles import Profile
from privmetrics.experiments.runner import results_path, workers
from privmetrics.experiments.store import missing_note
from privmetrics.synthesisers.cache import code_fingerprint


def choose_targets(population: pd.DataFrame, schema, count: int, seed: int) -> dict[str, list]:
    """``count`` random positions and the ``count`` most vulnerable ones (none of them twice), each
    list in the order it was drawn. Prefix-stable: the first k targets of a larger ``count`` are
    those of ``count`` = k. The most vulnerable decile is reserved for the vulnerable targets and
    the random ones are drawn from the other rows, so that the kinds never overlap at any count."""
    reserved = max(count, len(population) // 10)
    if count + reserved > len(population):
        raise ValueError(f"{count} targets of each kind need more than {len(population)} rows")
    order = vulnerable_targets(population, schema, len(population))
    rest = np.sort(order[reserved:])
    chosen = np.random.default_rng(seed).permutation(rest)[:count]
    return {"random": [int(i) for i in chosen], "vulnerable": [int(i) for i in order[:count]]}


def _one_game(game, dataset, config, params, kind, target, population, schema, settings) -> dict:
    start = time.perf_counter()
    common = {"train_rows": settings["train_rows"], "releases": settings["releases"],
              "seed": settings["seed"], "threads": 1, "kind": kind}  # fmt: skip
    if game == "membership":
        result = play(population, schema, config.technique, params, target,
                      shadow=settings["shadow"], **common)  # fmt: skip
        scores, truth = result.scores.tolist(), result.truth.tolist()
        ingredients = json.dumps({k: v.tolist() for k, v in result.ingredients.items()})
    else:
        result = play_attribute(population, schema, config.technique, params, target, **common)
        scores, truth = result.right.astype(int).tolist(), [int(result.baseline_right)]
        ingredients = None
    return {
        "dataset": dataset, "config": config.label, "kind": kind, "target": int(target),
        **settings, "technique": config.technique, "params": json.dumps(params, sort_keys=True),
        "scores": json.dumps(scores), "truth": json.dumps(truth),
        "seconds": time.perf_counter() - start, "code": code_fingerprint(config.technique),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"), "ingredients": ingredients,
        "attack": ATTACK_VERSIONS[game],
    }  # fmt: skip


def run_games(
    profile: Profile,
    datasets: list[str] | None = None,
    techniques: tuple[str, ...] | None = None,
    store: GameStore | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
    game: str = "membership",
    compute: bool = True,
) -> pd.DataFrame:
    """Play every missing ``game`` (``"membership"`` or ``"attribute"``) of the profile (module
    doc), round by round, and return the profile's games of ``datasets``. With ``compute=False``
    nothing is played: the missing games are counted in a printed note
    (:func:`.store.missing_note`)."""
    store = store or GameStore(results_path(profile), game)
    settings = game_settings(profile)
    done = store.done(settings)
    rounds: dict[int, list] = {}
    # (dataset, kind, target): games of other targets (an older choice) are not shown
    chosen = set()
    for dataset in datasets or profile.datasets:
        population, schema = load_dataset(dataset, n=settings["population"], seed=profile.seed)
        targets = choose_targets(population, schema, profile.game_targets, profile.seed)
        chosen |= {(dataset, kind, t) for kind, positions in targets.items() for t in positions}
        for config in paper_configurations(techniques or profile.game_techniques):
            params = {**profile.params_for(config.technique), **config.synthesiser_params()}
            for kind, positions in targets.items():
                for i, t in enumerate(positions):
                    if (dataset, config.label, kind, t) not in done:
                        game_args = (store.game, dataset, config, params, kind, t, population,
                                     schema, settings)  # fmt: skip
                        rounds.setdefault(i, []).append(game_args)
    tasks = [args for i in sorted(rounds) for args in rounds[i]]
    if tasks and not compute:
        print(_missing_note(profile, store, tasks))
    elif tasks:
        parallel = workers(n_jobs or profile.n_jobs)
        played = parallel(delayed(_one_game)(*args) for args in tasks)
        for row in tqdm(played, total=len(tasks), desc=f"{store.game} games", disable=not progress):
            store.add(
                row
            )  # each game kept as it finishes: an interruption loses only those running
    games = store.games(settings)
    keep = [
        (d, k, int(t)) in chosen
        for d, k, t in zip(games.dataset, games.kind, games.target, strict=True)
    ]
    return games[keep].reset_index(drop=True)


def _missing_note(profile: Profile, store: GameStore, tasks: list[tuple]) -> str:
    """:func:`.store.missing_note` for games (each costed by its technique's mean play time), with
    how many of them are stored but were played by other code of their synthesiser."""
    per_technique = store.games().groupby("technique").seconds.mean()
    # a task: (game, dataset, config, params, kind, target, population, schema, settings)
    seconds = [per_technique.get(task[2].technique) for task in tasks]
    mine = store.games(game_settings(profile))  # of this profile's game sizes
    stored = set(zip(mine.dataset, mine.config, mine.kind, mine.target, strict=True))
    stale = sum((t[1], t[2].label, t[4], t[5]) in stored for t in tasks)
    what = f"{store.game} game(s) of the `{profile.name}` profile" + (
        f" ({stale} of them stored but played by other code of their synthesiser, shown as they are)"
        if stale
        else ""
    )
    return missing_note(profile.name, store.path, what, seconds)
