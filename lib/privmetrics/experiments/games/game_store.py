"""Where Experiment 3's games are kept: one table per game in a profile's results database,
beside the grid's cells and scores (:class:`GameStore`, on the same
:class:`~privmetrics.experiments.grid.store.Database` as :class:`~privmetrics.experiments.grid.store.ResultsStore`).

A game is keyed by dataset, configuration, target kind, target and every game setting
(:data:`SETTINGS`); it records its technique's code fingerprint, the attack's version and, in
``design``, every target of the play it came from (one play serves them all,
:mod:`privmetrics.attacks.one_run`; a replay needs them). A game made by other code or another
attack version counts as missing (:meth:`GameStore.done`).
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pandas as pd

from privmetrics.attacks.attribute_game import VERSION as attribute_version
from privmetrics.attacks.membership_game import VERSION as membership_version
from privmetrics.attacks.whole_release import SCORINGS
from privmetrics.attacks.whole_release import VERSION as release_version
from privmetrics.experiments.grid.store import Database
from privmetrics.experiments.profiles import Profile
from privmetrics.synthesisers.cache import code_fingerprint

GAMES = """
CREATE TABLE IF NOT EXISTS {table} (
    dataset TEXT NOT NULL, config TEXT NOT NULL, kind TEXT NOT NULL, target INTEGER NOT NULL,
    population INTEGER NOT NULL, train_rows INTEGER NOT NULL, shadow INTEGER NOT NULL,
    releases INTEGER NOT NULL, seed INTEGER NOT NULL, technique TEXT NOT NULL,
    params TEXT NOT NULL, scores TEXT NOT NULL, truth TEXT NOT NULL, seconds REAL NOT NULL,
    code TEXT NOT NULL, finished TEXT NOT NULL, ingredients TEXT, attack INTEGER, design TEXT,
    PRIMARY KEY (dataset, config, kind, target, population, train_rows, shadow, releases, seed)
);
"""


SETTINGS = ("population", "train_rows", "shadow", "releases", "seed")


# one table per game; "scores" and "truth" hold, for membership, the forest's score and the truth
# per evaluation release, for attribute inference, whether each release's guess was right and
# (one value) whether the baseline's was, and for the whole-release attack (one row per scoring,
# its "kind", target 0), the AUC of each evaluation release (no truth); "ingredients" the membership game's per-release
# quantities of the metrics (membership_game.FeatureMaker.ingredients). A membership game stored
# before they were kept counts as missing and is played again, as does any game made by other
# code of its technique (GameStore.done).
TABLES = {"membership": "games", "attribute": "attribute_games", "release": "release_games"}


# the version of each attack, stored with every game: games of another version count as missing
ATTACK_VERSIONS = {"membership": membership_version, "attribute": attribute_version,
                   "release": release_version}  # fmt: skip


class GameStore(Database):
    """A game's table in a results database (beside the grid's cells and scores): ``games`` for
    membership inference, ``attribute_games`` for attribute inference, ``release_games`` for the
    whole-release attack."""

    def __init__(self, path: str | Path, game: str = "membership"):
        if game not in TABLES:
            raise ValueError(f"unknown game {game!r}; choose one of {sorted(TABLES)}")
        self.game, self.table = game, TABLES[game]
        self.SCHEMA = GAMES.format(table=self.table)
        # a store from before these columns
        self.ADDED_COLUMNS = (
            (self.table, "ingredients", "TEXT"),
            (self.table, "attack", "INTEGER"),
            (self.table, "design", "TEXT"),
        )
        super().__init__(path)

    def done(self, profile: Profile) -> set[tuple[str, str, str, int]]:
        """(dataset, config, kind, target) of the games finished with the profile's settings for
        their technique (:func:`game_settings`), by this attack version and by the current code
        of their technique (its code fingerprint): a game whose synthesiser code has changed
        since counts as missing, as a stale grid cell does."""
        games = self.games(profile)
        current = {tech: code_fingerprint(tech) for tech in set(games.technique)}
        fresh = games[games.code == games.technique.map(current)]
        return set(
            zip(fresh.dataset, fresh.config, fresh.kind, fresh.target.astype(int), strict=True)
        )

    def add(self, rows: list[dict]) -> None:
        """Write ``rows`` (one play's games) in one transaction, replacing any stored game of
        the same key."""
        if not rows:
            return
        columns = list(rows[0])
        with self._connection() as conn:
            conn.executemany(
                f"INSERT OR REPLACE INTO {self.table} ({', '.join(columns)}) VALUES "
                f"({', '.join('?' * len(columns))})",
                [[packed(row[c]) if c in PACKED else row[c] for c in columns] for row in rows],
            )

    def games(self, profile: Profile | None = None) -> pd.DataFrame:
        """The stored games of this attack version; with ``profile``, those played with its
        settings for their technique."""
        with self._connection() as conn:
            frame = pd.read_sql_query(f"SELECT * FROM {self.table}", conn)
        for column in PACKED:
            frame[column] = frame[column].map(unpacked)
        current = pd.to_numeric(frame.attack).fillna(1) == ATTACK_VERSIONS[self.game]
        if self.game == "membership":
            current &= frame.ingredients.notna()
        if profile is not None:
            wanted = pd.DataFrame([game_settings(profile, t) for t in frame.technique])
            for k in SETTINGS:
                current &= frame[k].to_numpy() == wanted[k].to_numpy() if len(frame) else current
        return frame[current].reset_index(drop=True)


# the bulky JSON columns, kept zlib-compressed (the paper profile's 40 targets x 100 releases
# made the shipped store 7.6 MB as text); read back as text, and text from before is read as is
PACKED = ("scores", "truth", "ingredients", "design")


def packed(text: str | None) -> bytes | None:
    return None if text is None else zlib.compress(text.encode(), 9)


def unpacked(value: bytes | str | None) -> str | None:
    return zlib.decompress(value).decode() if isinstance(value, bytes) else value


def expected(game: str, targets: dict[str, list[int]]) -> list[tuple[str, int]]:
    """The (kind, target) keys a play of ``targets`` writes to ``game``'s table: one per target,
    or for the whole-release attack one per scoring (target 0)."""
    if game == "release":
        return [(scoring, 0) for scoring in SCORINGS]
    return [(kind, int(t)) for kind, positions in targets.items() for t in positions]


def game_settings(profile: Profile, technique: str | None = None) -> dict:
    """The game sizes of a profile, as stored with every game: for ``technique``, its shadow and
    evaluation releases capped by the profile's ``game_release_cap`` (the slow neural fits)."""
    cap = profile.game_release_cap.get(technique, 10**9)
    return {
        "population": profile.game_population,
        "train_rows": profile.game_train_rows,
        "shadow": min(profile.game_shadow, cap),
        "releases": min(profile.game_releases, cap),
        "seed": profile.seed,
    }
