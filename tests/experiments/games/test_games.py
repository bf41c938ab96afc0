"""Experiment 3's games: resumable, keyed by their settings, played again when their attack or
their synthesiser's code changed."""

import json
from dataclasses import replace

import pandas as pd
import pytest

from privmetrics.attacks.one_run import choose_targets
from privmetrics.experiments.games import game_analysis as A
from privmetrics.experiments.games import game_store as S
from privmetrics.experiments.games import play as G
from privmetrics.experiments.grid.store import StoreError
from privmetrics.experiments.profiles import get_profile

SMOKE = get_profile("smoke")


# the smoke profile's targets: 3 of each kind per dataset, all in one play per configuration
GAMES_PER_CONFIG = 2 * SMOKE.game_targets


def refuse(*args, **kwargs):
    raise AssertionError("a finished configuration was played again")


def test_games_resume_and_are_keyed_by_their_settings(tmp_path, monkeypatch):
    store = S.GameStore(tmp_path / "smoke.sqlite")
    first = G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"), store=store,
                        n_jobs=1, progress=False)  # fmt: skip
    assert len(first) == 2 * GAMES_PER_CONFIG and set(first.config) == {"Real", "Random"}
    assert set(first.kind) == {"random", "vulnerable"}
    # one play served every target: the same design on every row of a configuration
    assert first.groupby("config").design.nunique().eq(1).all()
    # every game came from the one play: the attribute table is full too, the whole-release
    # attack has its two scorings per configuration, and nothing is replayed
    assert len(S.GameStore(store.path, "attribute").games(SMOKE)) == 2 * GAMES_PER_CONFIG
    release = S.GameStore(store.path, "release").games(SMOKE)
    assert sorted(release.kind) == sorted(["density ratio", "distance"] * 2)
    aucs = A.attack_table(release, draws=50, game="release").set_index(["config", "kind"])
    assert (aucs.loc["Real"].value > 0.9).all() and (aucs["n targets"] == SMOKE.game_releases).all()
    assert (aucs.baseline == 0.5).all()  # every attack table carries its chance value
    monkeypatch.setattr(G, "play_configuration", refuse)
    again = G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"), store=store,
                        n_jobs=1, progress=False)  # fmt: skip
    pd.testing.assert_frame_equal(first, again)
    # a game of a target that is no longer chosen (an older choice) is kept but not shown
    store.add([first.iloc[0].to_dict() | {"target": 10_000}])
    assert len(store.games()) == 2 * GAMES_PER_CONFIG + 1
    pd.testing.assert_frame_equal(first, G.run_games(SMOKE, datasets=["texas"],
        techniques=("real", "random"), store=store, n_jobs=1, progress=False))  # fmt: skip
    # other settings are other games: nothing of the first run is taken for them
    assert store.done(replace(SMOKE, game_shadow=98)) == set()
    table = A.attack_table(first, draws=50)
    assert set(table.measure) == {"AUC", "advantage", "TPR at FPR 0.1"}
    assert ((table.value >= -1) & (table.value <= 1)).all()


def test_a_slow_technique_plays_fewer_releases(tmp_path):
    capped = replace(SMOKE, game_release_cap={"random": 2})
    assert S.game_settings(capped, "random")["shadow"] == 2
    assert S.game_settings(capped, "real")["shadow"] == SMOKE.game_shadow
    games = G.run_games(capped, datasets=["texas"], techniques=("real", "random"),
                        store=S.GameStore(tmp_path / "s.sqlite"), n_jobs=1, progress=False)  # fmt: skip
    releases = games.assign(n=games.truth.map(lambda t: len(json.loads(t))))
    assert releases.groupby("config").n.max().to_dict() == {
        "Random": 2,
        "Real": SMOKE.game_releases,
    }


def test_targets_of_the_two_kinds_are_distinct_and_seeded(make_secret_table):
    frame, schema = make_secret_table(200, 0)
    one = choose_targets(frame, schema, 5, seed=3)
    assert one == choose_targets(frame, schema, 5, seed=3)
    assert not set(one["random"]) & set(one["vulnerable"])
    assert len(one["random"]) == len(one["vulnerable"]) == 5
    # prefix-stable: a store's games of fewer targets stay the profile's first targets
    more = choose_targets(frame, schema, 8, seed=3)
    assert more["random"][:5] == one["random"] and more["vulnerable"][:5] == one["vulnerable"]
    with pytest.raises(ValueError, match="need more than the 200 rows of 200"):
        choose_targets(frame, schema, 101, seed=3)


def test_without_compute_the_missing_games_are_counted_not_played(tmp_path, monkeypatch, capsys):
    """The note travels with the table (``attrs["missing"]``); the chapter's set-up prints it."""
    from privmetrics.compendium.book.chapter import shown

    store = S.GameStore(tmp_path / "smoke.sqlite")
    monkeypatch.setattr(G, "play_configuration", refuse)
    games = G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"), store=store,
                        progress=False, compute=False)  # fmt: skip
    assert games.empty
    said = games.attrs["missing"]
    assert "2 configuration(s) of the `smoke` attack games are missing" in said
    assert "cannot estimate" in said and "-p compute True" in said
    assert capsys.readouterr().out == ""  # the library says nothing itself
    shown(games)
    assert capsys.readouterr().out.strip() == said.strip()


def test_a_membership_game_stored_without_ingredients_is_played_again(tmp_path):
    import sqlite3

    path = tmp_path / "smoke.sqlite"
    first = G.run_games(SMOKE, datasets=["texas"], techniques=("real",), store=S.GameStore(path),
                        n_jobs=1, progress=False)  # fmt: skip
    assert first.ingredients.notna().all()
    with sqlite3.connect(path) as conn:  # as a store from before the column was kept
        conn.execute("UPDATE games SET ingredients = NULL, seconds = -1")
    store = S.GameStore(path)
    assert store.done(SMOKE) == set()
    again = G.run_games(SMOKE, datasets=["texas"], techniques=("real",), store=store, n_jobs=1,
                        progress=False)  # fmt: skip
    assert len(again) == GAMES_PER_CONFIG and again.ingredients.notna().all()
    assert (again.seconds >= 0).all()
    assert again.scores.tolist() == first.scores.tolist()  # seeded: the same play again
    with sqlite3.connect(path) as conn:  # as a game of an older version of the attack
        conn.execute("UPDATE games SET attack = 3")
    assert S.GameStore(path).done(SMOKE) == set()
    assert S.GameStore(path).games().empty  # not shown either


def test_a_game_made_by_other_synthesiser_code_is_played_again(tmp_path, capsys):
    import sqlite3

    path = tmp_path / "smoke.sqlite"
    G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"), store=S.GameStore(path),
                n_jobs=1, progress=False)  # fmt: skip
    assert len(S.GameStore(path).done(SMOKE)) == 2 * GAMES_PER_CONFIG
    with sqlite3.connect(path) as conn:  # Real's code has changed since its games were played
        conn.execute("UPDATE games SET code = 'older code' WHERE technique = 'real'")
    assert {config for _, config, _, _ in S.GameStore(path).done(SMOKE)} == {"Random"}
    noted = G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"),
                        store=S.GameStore(path), progress=False, compute=False)  # fmt: skip
    said = noted.attrs["missing"]
    assert "1 configuration(s)" in said and "(1 of them stored but played by other code" in said
    again = G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"),
                        store=S.GameStore(path), n_jobs=1, progress=False)  # fmt: skip
    assert len(again) == 2 * GAMES_PER_CONFIG and (again.code != "older code").all()


def test_attribute_games_have_their_own_table_and_resume(tmp_path, monkeypatch):
    path = tmp_path / "smoke.sqlite"
    attribute = S.GameStore(path, "attribute")
    first = G.run_games(SMOKE, datasets=["texas"], techniques=("real",), store=attribute,
                        n_jobs=1, progress=False, game="attribute")  # fmt: skip
    assert len(first) == GAMES_PER_CONFIG
    monkeypatch.setattr(G, "play_configuration", refuse)
    again = G.run_games(SMOKE, datasets=["texas"], techniques=("real",), store=attribute,
                        n_jobs=1, progress=False, game="attribute")  # fmt: skip
    pd.testing.assert_frame_equal(first, again)
    table = A.attack_table(first, draws=50, game="attribute")
    assert set(table.measure) == {"accuracy", "baseline accuracy", "advantage"}
    rows = table.set_index(["kind", "measure"])
    for kind in set(table.kind):  # the accuracy's baseline is the guesser's without the release
        assert rows.baseline[kind, "accuracy"] == rows.value[kind, "baseline accuracy"]
        assert rows.baseline[kind, "advantage"] == 0.0
    with pytest.raises(ValueError, match="unknown game"):
        S.GameStore(path, "reconstruction")


def test_a_store_from_before_the_design_column_takes_new_games(tmp_path):
    """The shipped paper store was written before games recorded their play's targets: opening it
    adds the column (once), and new games are written beside the old ones."""
    import sqlite3

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:  # the games table as version 3 wrote it
        conn.executescript(S.GAMES.format(table="games").replace(" design TEXT,", ""))
    assert "design" not in {r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(games)")}
    games = G.run_games(SMOKE, datasets=["texas"], techniques=("real",), store=S.GameStore(path),
                        n_jobs=1, progress=False)  # fmt: skip
    assert len(games) == GAMES_PER_CONFIG and games.design.notna().all()
    before = path.read_bytes()
    S.GameStore(path)  # opening a current store writes nothing
    assert path.read_bytes() == before


def test_a_store_that_refuses_a_play_leaves_no_worker_computing(tmp_path, monkeypatch):
    """The games' driver raised on its store's first write and its two joblib workers went on
    computing, for 25 minutes: now they are stopped before the error reaches the caller."""
    import time

    import psutil

    def refuse(self, rows):
        raise StoreError("refused")

    monkeypatch.setattr(S.GameStore, "add", refuse)
    with pytest.raises(StoreError, match="refused"):
        G.run_games(SMOKE, datasets=["texas", "flchain"], store=S.GameStore(tmp_path / "s.sqlite"),
                    n_jobs=2, progress=False)  # fmt: skip
    time.sleep(0.5)

    def computing(process) -> bool:
        try:
            return process.status() != psutil.STATUS_ZOMBIE and "loky" in " ".join(
                process.cmdline()
            )
        except psutil.Error:  # ended meanwhile
            return False

    assert [p for p in psutil.Process().children(recursive=True) if computing(p)] == []


def test_the_bulky_columns_are_stored_packed_and_read_back_as_text(tmp_path):
    import sqlite3

    path = tmp_path / "s.sqlite"
    games = G.run_games(SMOKE, datasets=["texas"], techniques=("real",), store=S.GameStore(path),
                        n_jobs=1, progress=False)  # fmt: skip
    raw = (
        sqlite3.connect(path)
        .execute("SELECT scores, truth, ingredients, design FROM games")
        .fetchone()
    )
    assert all(isinstance(v, bytes) for v in raw)
    assert json.loads(games.scores.iloc[0]) == json.loads(S.unpacked(raw[0]))
    # text stored before the packing reads as it is
    assert S.unpacked("[1, 2]") == "[1, 2]" and S.unpacked(S.packed("[1, 2]")) == "[1, 2]"
