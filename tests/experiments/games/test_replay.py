"""``privmetrics verify-games``: stored attack games played again from scratch and compared."""

import json
import sqlite3

import pandas as pd
import pytest

from privmetrics.__main__ import main
from privmetrics.experiments.games import game_store as S
from privmetrics.experiments.games import play as G
from privmetrics.experiments.games.replay import choose_games, replay_games
from privmetrics.experiments.grid.verify import record, to_markdown
from privmetrics.experiments.profiles import get_profile

TECHNIQUES = ("real", "random")
SMOKE = get_profile("smoke")


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "smoke.sqlite"
    for game in S.TABLES:
        G.run_games(SMOKE, datasets=["texas"], techniques=TECHNIQUES, store=S.GameStore(path, game),
                    n_jobs=1, progress=False, game=game)  # fmt: skip
    return path


def test_replayed_games_are_identical_and_an_edited_outcome_is_found(store, tmp_path, capsys):
    # both games of every target, and the whole-release attack's two scorings, per configuration
    everything = len(TECHNIQUES) * (2 * 2 * SMOKE.game_targets + 2)
    report = replay_games(SMOKE, path=store, sample=everything, n_jobs=2, progress=False)
    assert len(report) == everything and set(report.verdict) == {"identical"}
    assert set(report.game) == {"membership", "attribute", "release"} and set(report.config) == {
        "Real",
        "Random",
    }
    assert set(report["made by"]) == {"current code"}
    assert (report.identical == report["values"]).all() and (report["values"] > 1).all()
    record(report, tmp_path / "g.json", "smoke", 1e-9, what="games")
    text = to_markdown(tmp_path / "g.json")
    assert text.startswith("Last `make verify-games` on the `smoke` store")
    assert f"{everything} games regenerated from scratch: {everything} identical" in text
    assert "`make verify-games` records one" in to_markdown(tmp_path / "none.json", "games")

    # Real's first membership score off, Random's baseline flipped (the stored JSON is packed)
    with sqlite3.connect(store) as conn:
        for table, config, edit in (("games", "Real", lambda v: [v[0] + 1e-6, *v[1:]]),
                                    ("attribute_games", "Random", lambda v: [1 - v[0]])):  # fmt: skip
            column = "scores" if table == "games" else "truth"
            for key, value in conn.execute(
                f"SELECT rowid, {column} FROM {table} WHERE config = ?", (config,)
            ).fetchall():
                edited = json.dumps(edit(json.loads(S.unpacked(value))))
                conn.execute(
                    f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (S.packed(edited), key)
                )
    again = replay_games(SMOKE, path=store, sample=everything, n_jobs=1, progress=False)
    wrong = again[again.verdict == "DIFFERENT"]
    assert set(zip(wrong.game, wrong.config, strict=True)) == {
        ("membership", "Real"),
        ("attribute", "Random"),
    }
    edited = ((again.game == "membership") & (again.config == "Real")) | (
        (again.game == "attribute") & (again.config == "Random")
    )
    assert (again.verdict[edited] == "DIFFERENT").all() and (
        again.verdict[~edited] == "identical"
    ).all()
    assert main(["verify-games", "--profile", "smoke", "--store", str(store), "--sample", "2",
                 "--games", "membership", "--jobs", "1"]) == 1  # fmt: skip
    assert "DIFFERENT" in capsys.readouterr().out


def test_a_game_made_by_other_code_is_reported_stale(store):
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE games SET code = 'older code' WHERE technique = 'random'")
    report = replay_games(
        SMOKE, path=store, games=("membership",), sample=4, n_jobs=1, progress=False
    )
    made = dict(zip(report.config, report["made by"], strict=False))
    assert made == {"Real": "current code", "Random": "other code (stale)"}


def test_the_draw_covers_every_technique_within_the_budget():
    # a game's cost is its play's: its share of the play's time x the play's games (one target:
    # its membership and attribute games, and the whole-release attack's two scorings)
    stored = pd.DataFrame({"technique": ["real"] * 4 + ["ctgan"] * 4,
                           "seconds": [1.25] * 4 + [100.0] * 4, "design": '{"random": [0]}'})  # fmt: skip
    assert choose_games(stored, 4, seed=0, budget_minutes=None, n_jobs=2).technique.value_counts().to_dict() == {
        "real": 2, "ctgan": 2}  # fmt: skip
    cheap = choose_games(stored, 4, seed=0, budget_minutes=5, n_jobs=2)  # 600 core-seconds
    assert cheap.technique.value_counts().to_dict() == {"real": 3, "ctgan": 1}


def test_bad_requests_are_refused(store, tmp_path):
    with pytest.raises(ValueError, match=r"unknown game\(s\) \['reconstruction'\]"):
        replay_games(SMOKE, path=store, games=("reconstruction",), progress=False)
    with pytest.raises(ValueError, match="holds no membership games"):
        replay_games(SMOKE, path=tmp_path / "empty.sqlite", games=("membership",), progress=False)


def test_the_draw_holds_a_game_of_the_size_ladders_and_rebuilds_its_configuration():
    from privmetrics.experiments.grid.configurations import stored_configuration

    stored = pd.DataFrame({"technique": ["real"] * 3 + ["ctgan"] * 3, "seconds": 1.0,
                           "train_rows": [60, 60, 60, 60, 60, 30],
                           "design": '{"random": [0]}'})  # fmt: skip
    drawn = choose_games(stored, 3, seed=0, budget_minutes=None, n_jobs=2, train_rows=60)
    assert sorted(drawn.train_rows) == [30, 60, 60]  # one per technique, and the other size
    assert set(drawn.technique) == {"real", "ctgan"}  # the stratum only draws; names stay
    # a stored label becomes the configuration it was played as, the ladders' included
    assert stored_configuration("PrivBayes ε=10", "privbayes", "{}").epsilon == 10
    overfit = stored_configuration("CTGAN (1,000 epochs)", "ctgan", '{"epochs": 1000}')
    assert (overfit.label, overfit.synthesiser_params()) == ("CTGAN (1,000 epochs)",
                                                            {"epochs": 1000})  # fmt: skip
    planted = stored_configuration("Planted (2%)", "planted", '{"dose": 0.02, "jitter": 0.0}')
    assert planted.technique == "planted" and planted.params["dose"] == 0.02
    with pytest.raises(KeyError, match="no configuration of the grid or of a ladder of ctgan"):
        stored_configuration("TVAE (1,000 epochs)", "ctgan", "{}")


def test_games_of_one_target_at_two_training_sizes_are_replayed_each_as_itself(store):
    """The size ladders play the same targets at every size: a draw holding both games of a
    target replays and compares each against its own size's play."""
    from dataclasses import replace

    smaller = replace(SMOKE, game_train_rows=30)
    G.run_games(smaller, datasets=["texas"], techniques=("random",),
                store=S.GameStore(store, "membership"), n_jobs=1, progress=False)  # fmt: skip
    everything = 2 * 2 * SMOKE.game_targets + 2 * SMOKE.game_targets  # Real, Random x 2 sizes
    report = replay_games(SMOKE, path=store, games=("membership",), sample=everything,
                          n_jobs=1, progress=False)  # fmt: skip
    random = report[report.config == "Random"]
    assert sorted(set(random.rows)) == [30, 60] and len(random) == 4 * SMOKE.game_targets
    assert set(report.verdict) == {"identical"}, report
