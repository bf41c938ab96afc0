"""Experiment 3's games: resumable, keyed by their settings, played again when their attack or
their synthesiser's code changed."""

import pandas as pd
import pytest

from privmetrics.experiments import game_analysis as A
from privmetrics.experiments import game_store as S
from privmetrics.experiments import games as G
from privmetrics.experiments.profiles import get_profile

SMOKE = get_profile("smoke")


def test_games_resume_and_are_keyed_by_their_settings(tmp_path, monkeypatch):
    store = S.GameStore(tmp_path / "smoke.sqlite")
    first = G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"), store=store,
                        n_jobs=1, progress=False)  # fmt: skip
    # two configurations x (1 random + 1 vulnerable target)
    assert len(first) == 4 and set(first.config) == {"Real", "Random"}
    assert set(first.kind) == {"random", "vulnerable"}

    def refuse(*args, **kwargs):
        raise AssertionError("a finished game was played again")

    monkeypatch.setattr(G, "_one_game", refuse)
    again = G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"), store=store,
                        n_jobs=1, progress=False)  # fmt: skip
    pd.testing.assert_frame_equal(first, again)
    # a game of a target that is no longer chosen (an older choice) is kept but not shown
    stray = first.iloc[0].to_dict() | {"target": 10_000}
    store.add({k: v for k, v in stray.items()})
    assert len(store.games()) == 5
    pd.testing.assert_frame_equal(first, G.run_games(SMOKE, datasets=["texas"],
        techniques=("real", "random"), store=store, n_jobs=1, progress=False))  # fmt: skip
    # other settings are other games: nothing of the first run is taken for them
    other = dict(S.game_settings(SMOKE), shadow=99)
    assert store.done(other) == set()
    table = A.attack_table(first, draws=50)
    assert set(table.measure) == {"AUC", "advantage", "TPR at FPR 0.1"}
    assert ((table.value >= -1) & (table.value <= 1)).all()


def test_targets_of_the_two_kinds_are_distinct_and_seeded(make_secret_table):
    frame, schema = make_secret_table(200, 0)
    one = G.choose_targets(frame, schema, 5, seed=3)
    assert one == G.choose_targets(frame, schema, 5, seed=3)
    assert not set(one["random"]) & set(one["vulnerable"])
    assert len(one["random"]) == len(one["vulnerable"]) == 5
    # prefix-stable: more targets only add games (so raising game_targets replays nothing)
    more = G.choose_targets(frame, schema, 8, seed=3)
    assert more["random"][:5] == one["random"] and more["vulnerable"][:5] == one["vulnerable"]
    with pytest.raises(ValueError, match="need more than 200 rows"):
        G.choose_targets(frame, schema, 101, seed=3)


def test_without_compute_the_missing_games_are_counted_not_played(tmp_path, monkeypatch, capsys):
    store = S.GameStore(tmp_path / "smoke.sqlite")
    monkeypatch.setattr(G, "_one_game", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
    games = G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"), store=store,
                        progress=False, compute=False)  # fmt: skip
    assert games.empty
    said = capsys.readouterr().out
    assert "4 membership game(s) of the `smoke` profile are missing" in said
    assert "cannot estimate" in said and "-p compute True" in said


def test_a_membership_game_stored_without_ingredients_is_played_again(tmp_path):
    import sqlite3

    path = tmp_path / "smoke.sqlite"
    first = G.run_games(SMOKE, datasets=["texas"], techniques=("real",), store=S.GameStore(path),
                        n_jobs=1, progress=False)  # fmt: skip
    assert first.ingredients.notna().all()
    with sqlite3.connect(path) as conn:  # as a store from before the column was kept
        conn.execute("UPDATE games SET ingredients = NULL, seconds = -1")
    store = S.GameStore(path)
    assert store.done(S.game_settings(SMOKE)) == set()
    again = G.run_games(SMOKE, datasets=["texas"], techniques=("real",), store=store, n_jobs=1,
                        progress=False)  # fmt: skip
    assert len(again) == 2 and again.ingredients.notna().all() and (again.seconds >= 0).all()
    assert again.scores.tolist() == first.scores.tolist()  # seeded: the same game again
    with sqlite3.connect(path) as conn:  # as a game of an older version of the attack
        conn.execute("UPDATE games SET attack = 1")
    assert S.GameStore(path).done(S.game_settings(SMOKE)) == set()
    assert S.GameStore(path).games().empty  # not shown either


def test_a_game_made_by_other_synthesiser_code_is_played_again(tmp_path, capsys):
    import sqlite3

    path = tmp_path / "smoke.sqlite"
    G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"), store=S.GameStore(path),
                n_jobs=1, progress=False)  # fmt: skip
    settings = S.game_settings(SMOKE)
    assert len(S.GameStore(path).done(settings)) == 4
    with sqlite3.connect(path) as conn:  # Real's code has changed since its games were played
        conn.execute("UPDATE games SET code = 'older code' WHERE technique = 'real'")
    assert {config for _, config, _, _ in S.GameStore(path).done(settings)} == {"Random"}
    G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"), store=S.GameStore(path),
                progress=False, compute=False)  # fmt: skip
    said = capsys.readouterr().out
    assert "2 membership game(s)" in said and "(2 of them stored but played by other code" in said
    again = G.run_games(SMOKE, datasets=["texas"], techniques=("real", "random"),
                        store=S.GameStore(path), n_jobs=1, progress=False)  # fmt: skip
    assert len(again) == 4 and (again.code != "older code").all()


def test_attribute_games_have_their_own_table_and_resume(tmp_path, monkeypatch):
    path = tmp_path / "smoke.sqlite"
    membership = S.GameStore(path)
    attribute = S.GameStore(path, "attribute")
    first = G.run_games(SMOKE, datasets=["texas"], techniques=("real",), store=attribute,
                        n_jobs=1, progress=False, game="attribute")  # fmt: skip
    assert len(first) == 2 and membership.games().empty
    monkeypatch.setattr(G, "_one_game", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
    again = G.run_games(SMOKE, datasets=["texas"], techniques=("real",), store=attribute,
                        n_jobs=1, progress=False, game="attribute")  # fmt: skip
    pd.testing.assert_frame_equal(first, again)
    table = A.attack_table(first, draws=50, game="attribute")
    assert set(table.measure) == {"accuracy", "baseline accuracy", "advantage"}
    with pytest.raises(ValueError, match="unknown game"):
        S.GameStore(path, "reconstruction")
