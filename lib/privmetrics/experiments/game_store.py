"""Where Experiment 3's games are kept: one table per game in a profile's results database,
beside the grid's cells and scores (:class:`GameStore`, on the same
:class:`~privmetrics.experiments.store.Database` as :class:`~privmetrics.experiments.store.ResultsStore`).

A game is keyed by dataset, configuration, target kind, target and every game setting
(:data:`SETTINGS`); it records its technique's code fingerprint and the attack's version, and a
game made by other code or another attack version counts as missing (:meth:`GameStore.done`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from privmetrics.attacks.attribute_game import VERSION as attribute_version
from privmetrics.attacks.membership_game import VERSION as membership_version
from privmetrics.experiments.profiles import Profile
from privmetrics.experiments.store import Database
from privmetrics.synthesisers.cache import code_fingerprint

GAMES = """
CREATE TABLE IF NOT EXISTS {table} (
    dataset TEXT NOT NULL, config TEXT NOT NULL, kind TEXT NOT NULL, target INTEGER NOT NULL,
    population INTEGER NOT NULL, train_rows INTEGER NOT NULL, shadow INTEGER NOT NULL,
    releases INTEGER NOT NULL, seed INTEGER NOT NULL, technique TEXT NOT NULL,
    params TEXT NOT NULL, scores TEXT NOT NULL, truth TEXT NOT NULL, seconds REAL NOT NULL,
    code TEXT NOT NULL, finished TEXT NOT NULL, ingredients TEXT, attack INTEGER,
    PRIMARY KEY (dataset, config, kind, target, population, train_rows, shadow, releases, seed)
);
"""


SETTINGS = ("population", "train_rows", "shadow", "releases", "seed")


# one table per game; "scores" and "truth" hold, for membership, the forest's score and the truth
# per evaluation release, and for attribute inference, whether each release's guess was right
# and (one value) whether the baseline's was; "ingredients" the membership game's per-release
# quantities of the metrics (membership_game.FeatureMaker.ingredients). A membership game stored
# before they were kept counts as missing and is played again, as does any game made by other
# code of its technique (GameStore.done).
TABLES = {"membership": "games", "attribute": "attribute_games"}


# the version of each attack, stored with every game: games of another version count as missing
ATTACK_VERSIONS = {"membership": membership_version, "attribute": attribute_version}


class GameStore(Database):
    """A game's table in a results database (beside the grid's cells and scores): ``games`` for
    membership inference, ``attribute_games`` for attribute inference."""

    def __init__(self, path: str | Path, game: str = "membership"):
        if game not in TABLES:
            raise ValueError(f"unknown game {game!r}; choose one of {sorted(TABLES)}")
        self.game, self.table = game, TABLES[game]
        self.SCHEMA = GAMES.format(table=self.table)
        # a store from before these columns
        self.ADDED_COLUMNS = (
            (self.table, "ingredients", "TEXT"),
            (self.table, "attack", "INTEGER"),
        )
        super().__init__(path)

    def done(self, settings: dict) -> set[tuple[str, str, str, int]]:
        """(dataset, config, kind, target) of the games finished with these ``settings``, by this
        attack version and by the current code of their technique (its code fingerprint): a game
        whose synthesiser code has changed since counts as missing, as a stale grid cell does."""
        where = " AND ".join(f"{k} = ?" for k in SETTINGS)
        version = ATTACK_VERSIONS[self.game]
        where += f" AND COALESCE(attack, 1) = {int(version)}"  # stored without one: version 1
        if self.game == "membership":
            where += " AND ingredients IS NOT NULL"
        with self._connection() as conn:
            rows = conn.execute(
                f"SELECT dataset, config, kind, target, technique, code FROM {self.table} "
                f"WHERE {where}",
                [settings[k] for k in SETTINGS],
            ).fetchall()
        current = {tech: code_fingerprint(tech) for tech in {row[4] for row in rows}}
        return {(d, c, k, int(t)) for d, c, k, t, tech, code in rows if code == current[tech]}

    def add(self, row: dict) -> None:
        with self._connection() as conn:
            conn.execute(
                f"INSERT OR REPLACE INTO {self.table} ({', '.join(row)}) VALUES "
                f"({', '.join('?' * len(row))})",
                list(row.values()),
            )

    def games(self, settings: dict | None = None) -> pd.DataFrame:
        with self._connection() as conn:
            frame = pd.read_sql_query(f"SELECT * FROM {self.table}", conn)
        if settings is not None:
            for k in SETTINGS:
                frame = frame[frame[k] == settings[k]]
        current = (
            pd.to_numeric(frame.attack).fillna(1) == ATTACK_VERSIONS[self.game]
        )  # as done() does
        if self.game == "membership":
            current &= frame.ingredients.notna()
        return frame[current].reset_index(drop=True)


def game_settings(sizes: Profile) -> dict:
    """The game sizes of a profile, as stored with every game."""
    return {
        "population": sizes.game_population,
        "train_rows": sizes.game_train_rows,
        "shadow": sizes.game_shadow,
        "releases": sizes.game_releases,
        "seed": sizes.seed,
    }
