"""Attack tables kept by content, so that one build pays for each once.

:func:`~privmetrics.experiments.games.game_analysis.attack_table` on the paper store's
membership games costs about a minute of CPU, nearly all of it the permutation test's 10,000
shuffles per configuration; the attacks chapter reads it and each metric page's "How it fared
here" box reads the verdicts made from it. :func:`kept_attack_table` computes it once per
content: the key hashes the games it reads (dataset, configuration, kind, target, scores,
truth), the table's parameters and the code of the modules that compute it, so a new game, a
new parameter or changed code computes afresh, and nothing stale is read. The tables live in
``analysis/`` under :func:`~privmetrics.paths.cache_home` (generated, out of git).

:func:`kept_findings` keeps what the book reads of a store's games, the membership AUC rows and
Experiment 3's verdicts, in ``verdicts-<profile>.json`` beside the store under a key of
everything they read (:func:`verdicts_key`): the paper edition's build writes the paper store's,
which ships, and another edition's headline and the metric pages read it while its key holds.
:func:`kept_power_curves` and :func:`kept_size_table` keep the leakage ladder's power curves and
the training-size ladder's table the same way (``ladder-<profile>.json``, ``sizes-<profile>.json``)."""

import hashlib
import importlib
import json
from pathlib import Path

import pandas as pd

from privmetrics.paths import cache_home
from privmetrics.synthesisers.cache import code_digest

READ = ["dataset", "config", "kind", "target", "scores", "truth"]  # what attack_table reads
COMPUTING = (  # the modules whose code makes the table
    "privmetrics.experiments.games.game_analysis",
    "privmetrics.attacks.membership_game",
    "privmetrics.attacks.outcome",
)


def table_key(games: pd.DataFrame, **params) -> str:
    """A digest of ``games``'s columns that the table reads, in their order, of ``params`` and
    of the code of :data:`COMPUTING`."""
    digest = hashlib.sha256()
    for name in COMPUTING:
        digest.update(_code(importlib.import_module(name)).encode())
    digest.update(repr(sorted(params.items())).encode())
    shown = games.reindex(columns=READ).astype(str)
    digest.update(pd.util.hash_pandas_object(shown, index=False).to_numpy().tobytes())
    return digest.hexdigest()[:20]


def _code(module) -> str:
    return code_digest(Path(module.__file__).read_text())


def kept_attack_table(
    games: pd.DataFrame, seed: int = 0, game: str = "membership", root: Path | None = None
) -> pd.DataFrame:
    """:func:`~privmetrics.experiments.games.game_analysis.attack_table` of ``games``, read from
    ``root`` (default ``cache_home() / "analysis"``) when this content was computed before, else
    computed and kept there."""
    from privmetrics.experiments.games.game_analysis import attack_table

    key = table_key(games, seed=seed, game=game)
    path = (root or cache_home() / "analysis") / f"attack-table-{key}.pkl"
    if path.exists():
        return pd.read_pickle(path)
    table = attack_table(games, seed=seed, game=game)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    table.to_pickle(partial)
    partial.replace(path)  # whole or absent: an interrupted build leaves no torn table
    return table


def verdicts_path(profile) -> Path:
    """Where a profile's Experiment 3 verdicts are kept: ``verdicts-<profile>.json`` beside its
    results store (the paper store's ships, as its store does)."""
    from privmetrics.experiments.grid.runner import results_path

    return results_path(profile).parent / f"verdicts-{profile.name}.json"


def verdicts_key(games: pd.DataFrame, results: pd.DataFrame, profile, calibration=None) -> str:
    """A digest of what the verdicts read: the games (:func:`table_key`), every score of the
    grid, the profile (its games' sizes and synthesisers: which configurations trained), the
    ``calibration``'s readings and doses (:func:`.calibration.content_digest`) and the code of
    the modules that decide, PATE-GAN's included."""
    from privmetrics.experiments.games import calibration as calibrating
    from privmetrics.experiments.studies import pategan_study
    from privmetrics.synthesisers.cache import code_fingerprint

    digest = hashlib.sha256(table_key(games, seed=profile.seed).encode())
    scores = results.reindex(columns=["dataset", "config", "run", "metric", "score"])
    digest.update(pd.util.hash_pandas_object(scores, index=False).to_numpy().tobytes())
    digest.update(repr(profile).encode())
    digest.update(_code(pategan_study).encode())
    digest.update(code_fingerprint("pategan").encode())
    digest.update(_code(calibrating).encode())
    digest.update(calibrating.content_digest(calibration).encode())
    return digest.hexdigest()[:20]


def kept_verdicts(profile, keep: bool = False) -> pd.DataFrame:
    """Experiment 3's verdicts on ``profile``'s store (:func:`kept_findings`)."""
    return kept_findings(profile, keep)[1]


def kept_calibrated(profile, keep: bool = False) -> pd.DataFrame:
    """Experiment 3's verdicts calibrated on the ladder (:mod:`.calibration`) on ``profile``'s
    store (:func:`kept_findings`); empty when the store has no complete calibration."""
    return kept_findings(profile, keep, calibrated=True)[1]


def kept_findings(
    profile, keep: bool = False, calibrated: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the membership attack's AUC rows, Experiment 3's verdicts, or with ``calibrated`` the
    verdicts calibrated on the ladder) on ``profile``'s store, as the attacks chapter makes them
    (:func:`~privmetrics.experiments.games.game_analysis.attack_table` without its bootstrap
    draws, and :func:`~privmetrics.experiments.games.game_analysis.predictiveness`, untrained
    configurations left out, with the store's :func:`.calibration.load_calibration`): read from
    :func:`verdicts_path` when its key is :func:`verdicts_key` of today's store and code, else
    computed (and written there when ``keep``: the paper edition's build keeps them, so that
    another edition's headline and the metric pages read them for nothing). Empty frames when
    the store holds no game."""
    from privmetrics.experiments.games.calibration import load_calibration
    from privmetrics.experiments.games.game_analysis import predictiveness
    from privmetrics.experiments.games.game_store import GameStore
    from privmetrics.experiments.grid.configurations import LADDER
    from privmetrics.experiments.grid.runner import load_results, results_path
    from privmetrics.experiments.studies.pategan_study import untrained

    store = results_path(profile)
    games = GameStore(store, "membership").games(profile) if store.exists() else pd.DataFrame()
    if not games.empty:  # the leakage ladder's games are controls, which no verdict reads
        games = games[games.technique != LADDER].reset_index(drop=True)
    if games.empty:
        return pd.DataFrame(), pd.DataFrame()
    results = load_results(profile, progress=False)
    calibration = load_calibration(profile)
    key, path = verdicts_key(games, results, profile, calibration), verdicts_path(profile)
    wanted = "calibrated" if calibrated else "verdicts"
    kept = _read_kept(path, key, ("attacks", "verdicts", "calibrated"))
    if kept is not None:
        return kept["attacks"], kept[wanted]
    table = kept_attack_table(games, seed=profile.seed)
    left_out = untrained(profile)
    found = {"verdicts": predictiveness(table, results, seed=profile.seed, untrained=left_out)}
    found["calibrated"] = (
        predictiveness(
            table, results, seed=profile.seed, untrained=left_out, calibration=calibration
        )
        if calibration is not None
        else pd.DataFrame(columns=found["verdicts"].columns)
    )
    attacks = table[table.measure == "AUC"].drop(columns="draws").reset_index(drop=True)
    if keep:
        _write_kept(path, key, {"attacks": attacks, **found})
    return attacks, found[wanted]


def _read_kept(path: Path, key: str, names: tuple[str, ...]) -> dict[str, pd.DataFrame] | None:
    """The frames ``names`` kept in the JSON file ``path`` under ``key``; None when the file is
    absent, holds another key or lacks one of them."""
    if not path.exists():
        return None
    kept = json.loads(path.read_text())
    if kept["key"] != key or any(name not in kept for name in names):
        return None
    return {name: pd.DataFrame(kept[name]) for name in names}


def _write_kept(path: Path, key: str, frames: dict[str, pd.DataFrame]) -> None:
    """``frames`` kept in the JSON file ``path`` under ``key`` (records, 15 significant digits)."""
    found = {name: json.loads(frame.to_json(orient="records", double_precision=15))
             for name, frame in frames.items()}  # fmt: skip
    path.write_text(json.dumps({"key": key, **found}, indent=0) + "\n")


def ladder_path(profile) -> Path:
    """Where a profile's ladder power curves are kept: ``ladder-<profile>.json`` beside its
    results store (the paper store's ships, as its verdicts do)."""
    return verdicts_path(profile).with_name(f"ladder-{profile.name}.json")


def kept_power_curves(
    membership: pd.DataFrame, release: pd.DataFrame, profile, keep: bool = False
) -> pd.DataFrame:
    """:func:`~privmetrics.experiments.games.ladder.power_curves` of the ladder's ``membership``
    and ``release`` games, read from :func:`ladder_path` when its key (the games' content with
    their parameters, which give the doses, and the code of the ladder and of
    :data:`COMPUTING`) is today's, else computed (and written there when ``keep``: the paper
    edition's attacks chapter keeps them, so that the quick edition, which shows the paper
    store's ladder, does not pay its permutation tests: about 16 CPU-s)."""
    from privmetrics.experiments.games import ladder

    digest = hashlib.sha256(_code(ladder).encode())
    for games in (membership, release):
        digest.update(table_key(games).encode())
        params = games.reindex(columns=["params"]).astype(str)
        digest.update(pd.util.hash_pandas_object(params, index=False).to_numpy().tobytes())
    key, path = digest.hexdigest()[:20], ladder_path(profile)
    kept = _read_kept(path, key, ("curves",))
    if kept is not None:
        return kept["curves"].reindex(columns=ladder.CURVE)
    curves = ladder.power_curves(membership, release)
    if keep:
        _write_kept(path, key, {"curves": curves})
    return curves


def sizes_path(profile) -> Path:
    """Where a profile's training-size table is kept: ``sizes-<profile>.json`` beside its
    results store (the paper store's ships, as its verdicts and ladder do)."""
    return verdicts_path(profile).with_name(f"sizes-{profile.name}.json")


def kept_size_table(profile, keep: bool = False) -> pd.DataFrame:
    """:func:`~privmetrics.experiments.games.sizes.size_table` of the profile's training-size
    ladder, read from :func:`sizes_path` when its key (the games' content and sizes, and the
    code of the sizes module and of :data:`COMPUTING`) is today's, else computed (and written
    there when ``keep``: the paper edition's build keeps it, so that the quick edition shows it
    without paying its permutation tests)."""
    from privmetrics.experiments.games import sizes

    games = sizes.size_games(profile)
    if games.empty:
        return pd.DataFrame()
    digest = hashlib.sha256(table_key(games, sizes=profile.game_sizes).encode())
    digest.update(_code(sizes).encode())
    digest.update(pd.util.hash_pandas_object(games["size"], index=False).to_numpy().tobytes())
    key, path = digest.hexdigest()[:20], sizes_path(profile)
    kept = _read_kept(path, key, ("sizes",))
    if kept is not None:
        return kept["sizes"]
    table = sizes.size_table(games, seed=profile.seed)
    if keep:
        _write_kept(path, key, {"sizes": table})
    return table
