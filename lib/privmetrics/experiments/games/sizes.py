"""The training-size ladder: the membership games played again at other training sizes.

Risk falls as a synthesiser learns from more rows, and the two editions disagree for it: the
quick edition's games (200 training rows) find members that the paper store's (500 rows) do not.
The ladder measures the size effect at the paper's synthesiser settings: for each dataset of the
profile's ``game_size_datasets`` and each technique of ``game_size_techniques``, the games of
:mod:`.play` are played with training tables of every size in ``game_sizes``, on the same
population sample and the same targets (:func:`~privmetrics.attacks.one_run.choose_targets` does
not depend on the size), each size a game setting of its own in the store (``train_rows``), so a
size already played is not played again. The population is halved into the shadow and
evaluation pools, so a size must fit in half of it.

The *epochs ladder* plays CTGAN again at some of those sizes with other epoch counts (the
profile's ``game_epochs``: size -> epoch counts, on its ``game_epoch_datasets``), each a
configuration of its own (``CTGAN (1,000 epochs)``). At the smallest size with more epochs it is
an overfitting ladder: a synthesiser that trains longer on few rows is the textbook case of
memorising them. At another edition's size with that edition's epochs it measures whether the
editions' difference is the training's
(:func:`~privmetrics.compendium.book.known_leaks.edition_difference`).

:func:`size_table` reads the shadow attack's AUC per size, configuration and kind of target;
:func:`size_findings` says, per configuration and kind, at which sizes the attack finds members
by the chapter's rule and where that stops: the size at which the leak fades.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd

from privmetrics.experiments.games.game_analysis import finds_members
from privmetrics.experiments.games.game_store import GameStore
from privmetrics.experiments.games.play import run_games
from privmetrics.experiments.grid.configurations import DISPLAY, Configuration, paper_configurations
from privmetrics.experiments.grid.runner import results_path
from privmetrics.experiments.profiles import Profile


def size_profiles(profile: Profile) -> list[Profile]:
    """The profile at each size of its ladder (its games' ``game_train_rows`` replaced)."""
    return [replace(profile, game_train_rows=n) for n in profile.game_sizes]


OVERFIT_TECHNIQUE = "ctgan"


def epoch_configurations(epochs) -> list[Configuration]:
    """The epochs ladder's configurations (module doc): CTGAN at each of ``epochs``."""
    return [Configuration(OVERFIT_TECHNIQUE, params={"epochs": e}, setting=f"{e:,} epochs")
            for e in epochs]  # fmt: skip


def play_sizes(profile: Profile, path=None, n_jobs: int | None = None, progress: bool = True,
               client=None) -> None:  # fmt: skip
    """Play the missing games of the profile's training-size ladder (module doc) into the
    database at ``path`` (default: the profile's), resumable."""
    store = GameStore(path or results_path(profile), "membership")
    for sized in size_profiles(profile):
        run_games(sized, datasets=list(profile.game_size_datasets),
                  techniques=profile.game_size_techniques, store=store, n_jobs=n_jobs,
                  progress=progress, client=client)  # fmt: skip
    for size, epochs in profile.game_epochs.items():
        run_games(replace(profile, game_train_rows=size),
                  datasets=list(profile.game_epoch_datasets),
                  techniques=epoch_configurations(epochs), store=store, n_jobs=n_jobs,
                  progress=progress, client=client)  # fmt: skip


def size_games(profile: Profile) -> pd.DataFrame:
    """The membership games of both ladders in the profile's store (those stored at each size,
    on the ladder's datasets and techniques, and the epochs ladder's), with their ``size``,
    the ``epochs`` they trained (NaN for a synthesiser without) and the ``ladder`` they belong
    to (``"size"`` or ``"epochs"``)."""
    path = results_path(profile)
    if not profile.game_sizes or not path.exists():
        return pd.DataFrame()
    store, frames = GameStore(path, "membership"), []
    paper = {c.label for c in paper_configurations(profile.game_size_techniques)}
    sized_profiles = {p.game_train_rows: p for p in size_profiles(profile)}
    sized_profiles.update({n: replace(profile, game_train_rows=n) for n in profile.game_epochs})
    for size, sized in sorted(sized_profiles.items()):
        longer = {c.label for c in epoch_configurations(profile.game_epochs.get(size, ()))}
        games = store.games(sized)
        sized_games = games.dataset.isin(profile.game_size_datasets) & games.config.isin(
            paper if size in profile.game_sizes else set()
        )
        epoch_games = games.dataset.isin(profile.game_epoch_datasets) & games.config.isin(longer)
        games = games[sized_games | epoch_games]
        ladder = np.where(games.config.isin(longer), "epochs", "size")
        frames.append(games.assign(size=sized.game_train_rows, ladder=ladder))
    games = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(games):
        games["epochs"] = [json.loads(p).get("epochs", np.nan) for p in games.params]
    return games


def size_table(games: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """The shadow attack's AUC per (dataset, size, config, kind) with its interval and
    permutation p, the ``ladder`` and ``epochs`` of :func:`size_games`, and whether it finds
    members by the chapter's rule: on the size ladder at level 0.05 divided by the sizes
    scanned, on the epochs ladder by the epoch counts scanned at that size (the default's
    included)."""
    from privmetrics.experiments.games.kept_tables import kept_attack_table

    if games.empty:
        return pd.DataFrame()
    frames = []
    for size, part in games.groupby("size"):
        table = kept_attack_table(part.drop(columns=["size", "ladder", "epochs"]), seed=seed)
        frames.append(table[table.measure == "AUC"].drop(columns="draws").assign(size=size))
    labels = games.drop_duplicates(["dataset", "config"])[["dataset", "config", "ladder",
                                                          "epochs"]]  # fmt: skip
    table = pd.concat(frames, ignore_index=True).merge(labels, on=["dataset", "config"])
    sizes = table.groupby(["dataset", "config", "kind"])["size"].transform("nunique")
    epochs = table.groupby(["dataset", "kind", "size"])["ladder"].transform(
        lambda x: (x == "epochs").sum()
    )
    scanned = np.where(table.ladder == "epochs", epochs + 1, sizes)
    table["found"] = [finds_members(r, 0.5, 0.05 / n) for r, n in
                      zip(table.itertuples(), scanned, strict=True)]  # fmt: skip
    return table


def by_size(table: pd.DataFrame) -> pd.DataFrame:
    """The training-size ladder's rows of :func:`size_table` (a table from before the
    epochs ladder has only those)."""
    return table if "ladder" not in table else table[table.ladder == "size"]


def by_epochs(table: pd.DataFrame) -> pd.DataFrame:
    """The epochs ladder (module doc) from :func:`size_table`: per dataset, size and kind of
    target where it plays, CTGAN at the profile's epochs (the size ladder's row) and at each of
    the ladder's, with ``found`` at the level of the epoch counts scanned there."""
    if table.empty or "ladder" not in table or not (table.ladder == "epochs").any():
        return pd.DataFrame()
    longer = table[table.ladder == "epochs"]
    played = set(zip(longer.dataset, longer["size"], strict=True))
    at = pd.Series(list(zip(table.dataset, table["size"], strict=True)), index=table.index)
    default = table[(table.ladder == "size") & at.isin(played)
                    & table.config.str.fullmatch(DISPLAY[OVERFIT_TECHNIQUE])]  # fmt: skip
    rows = pd.concat([default, longer], ignore_index=True)
    scanned = rows.groupby(["dataset", "size", "kind"])["config"].transform("nunique")
    rows["found"] = [finds_members(r, 0.5, 0.05 / n) for r, n in
                     zip(rows.itertuples(), scanned, strict=True)]  # fmt: skip
    return rows.sort_values(["dataset", "size", "kind", "epochs"], ignore_index=True)


def _rows(value: float) -> str:
    return f"{int(value):,} rows"


def size_findings(table: pd.DataFrame, editions: dict[str, Profile] | None = None) -> list[str]:
    """Per (dataset, config, kind of target) in which the attack finds members at some size: the
    AUC at every size and where it finds them; per dataset, one line naming the others and their
    largest AUC; then, for each of ``editions`` (by the name a sentence gives it), what the ladder
    reads at the size of its games, and the epochs ladder at that size with its CTGAN epochs
    where it plays them; then the epochs ladder's sentences (:func:`epoch_findings`)."""
    if table.empty:
        return []
    epochs, table_all, table, lines = epoch_findings(table), table, by_size(table), []
    silent = {}  # per dataset: the (config, kind) found at no size, and their largest AUC
    for (dataset, config, kind), part in table.groupby(["dataset", "config", "kind"], sort=False):
        part = part.sort_values("size")
        each = ", ".join(f"{_rows(r.size)} {r.value:.2f} [{r.low:.2f}, {r.high:.2f}]"
                         for r in part.itertuples())  # fmt: skip
        found = part[part.found]
        if found.empty:
            silent.setdefault(dataset, []).append((f"{config} ({kind})", part.value.max()))
            continue
        if len(found) == len(part):
            verdict = "finds members at every size"
        else:
            verdict = (f"finds members at {', '.join(_rows(s) for s in found['size'])} and not at "
                       f"{', '.join(_rows(s) for s in part[~part.found]['size'])}")  # fmt: skip
        lines.append(f"**{dataset}**, {config}, {kind} targets: AUC {each}; the attack {verdict}.")
    for dataset, quiet in silent.items():
        lines.append(f"**{dataset}**: the attack finds members at no size in "
                     f"{', '.join(name for name, _ in quiet)}; their largest AUC is "
                     f"{max(v for _, v in quiet):.2f} (all in the figure).")  # fmt: skip
    faded = fades(table).dropna(subset=["finds up to"])
    if len(faded):
        lines.append("The leak fades with the training size: " + "; ".join(
            f"{r['dataset']} {r['config']}, {r['kind']} targets, found up to "
            f"{_rows(r['finds up to'])}" + (f", not from {_rows(r['fades at'])}"
                                            if not np.isnan(r["fades at"])
                                            else ", at every size played")
            for r in faded.to_dict("records")) + ".")  # fmt: skip
    longer = by_epochs(table_all)
    for name, edition in (editions or {}).items():
        size = edition.game_train_rows
        at = table[table["size"] == size]
        if at.empty:
            continue
        lines.append(f"At {_rows(size)}, the size of {name}'s games, the paper's synthesiser "
                     f"settings leak members in: {_leaks(at)}.")  # fmt: skip
        trained = edition.params_for(OVERFIT_TECHNIQUE).get("epochs")
        own = (
            longer[(longer["size"] == size) & (longer.epochs == trained)] if len(longer) else at[:0]
        )
        if len(own) and own.ladder.eq("epochs").any():
            lines.append(f"At {_rows(size)} with {name}'s own {trained:,} {DISPLAY[OVERFIT_TECHNIQUE]} "
                         f"epochs, {DISPLAY[OVERFIT_TECHNIQUE]} leaks members in: {_leaks(own)}.")  # fmt: skip
    return lines + epochs


def _leaks(rows: pd.DataFrame) -> str:
    """The rows in which the attack finds members, named, or "none"."""
    found = rows[rows.found]
    return ("; ".join(f"{r.dataset} {r.config}, {r.kind} targets (AUC {r.value:.2f})"
                      for r in found.itertuples()) if len(found) else "none")  # fmt: skip


def epoch_findings(table: pd.DataFrame) -> list[str]:
    """One sentence per dataset, size and kind of target on the epochs ladder
    (:func:`by_epochs`): CTGAN's AUC at each epoch count and the counts at which the attack finds
    members."""
    rows, lines = by_epochs(table), []
    for (dataset, _, kind), part in (rows.groupby(["dataset", "size", "kind"], sort=False)
                                     if len(rows) else []):  # fmt: skip
        each = ", ".join(f"{r.epochs:,.0f} epochs {r.value:.2f} [{r.low:.2f}, {r.high:.2f}]"
                         for r in part.itertuples())  # fmt: skip
        found = part[part.found]
        verdict = ("finds members at no epoch count played" if found.empty else
                   "finds members at " + ", ".join(f"{e:,.0f}" for e in found.epochs)
                   + " epochs")  # fmt: skip
        lines.append(f"**{dataset}**, {DISPLAY[OVERFIT_TECHNIQUE]} by its training epochs on "
                     f"{_rows(part['size'].iloc[0])}, {kind} targets: AUC {each}; the attack "
                     f"{verdict}.")  # fmt: skip
    return lines


def fades(table: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, config, kind): the largest size at which the attack finds members and the
    smallest size above it at which it finds none (both NaN where it finds members at no size;
    the second NaN where it finds them up to the largest size)."""
    rows = []
    for key, part in by_size(table).groupby(["dataset", "config", "kind"], sort=False):
        found = part[part.found]["size"]
        if found.empty:
            rows.append((*key, np.nan, np.nan))
            continue
        above = part[(~part.found) & (part["size"] > found.max())]["size"]
        rows.append((*key, found.max(), above.min() if len(above) else np.nan))
    return pd.DataFrame(rows, columns=["dataset", "config", "kind", "finds up to", "fades at"])


def editions() -> dict[str, Profile]:
    """The editions whose own games the ladders are read beside, by the name a sentence gives
    them."""
    from privmetrics.experiments.profiles import get_profile

    return {"the quick edition": get_profile("quick"), "the paper store": get_profile("paper")}
