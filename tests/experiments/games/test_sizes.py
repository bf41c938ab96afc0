"""The training-size ladder (experiments/games/sizes.py): the games played again at other sizes
on the same targets, resumed, read per size, and where a leak fades, in generated words."""

from dataclasses import replace

import numpy as np
import pandas as pd

from privmetrics.experiments.games import sizes as Z
from privmetrics.experiments.profiles import get_profile


def _table(found: dict[int, bool], config="CTGAN", kind="vulnerable") -> pd.DataFrame:
    return pd.DataFrame([{"dataset": "texas", "config": config, "kind": kind, "size": size,
                          "value": 0.7 if hit else 0.5, "low": 0.62 if hit else 0.45,
                          "high": 0.78 if hit else 0.55, "found": hit}
                         for size, hit in found.items()])  # fmt: skip


def test_a_leak_fades_at_the_first_size_above_the_largest_that_leaks():
    table = pd.concat([_table({100: True, 200: True, 500: False, 900: False}),
                       _table({100: False, 200: False}, config="Random")])  # fmt: skip
    found = Z.fades(table).set_index("config")
    assert found.loc["CTGAN", "finds up to"] == 200 and found.loc["CTGAN", "fades at"] == 500
    assert np.isnan(found.loc["Random", "finds up to"]) and np.isnan(
        found.loc["Random", "fades at"]
    )
    lines = Z.size_findings(table, {"the quick edition": get_profile("quick"),
                                    "the paper store": get_profile("paper")})  # fmt: skip
    assert (
        "the attack finds members at 100 rows, 200 rows and not at 500 rows, 900 rows" in lines[0]
    )
    assert lines[1] == ("**texas**: the attack finds members at no size in Random (vulnerable); "
                        "their largest AUC is 0.50 (all in the figure).")  # fmt: skip
    assert lines[2] == ("The leak fades with the training size: texas CTGAN, vulnerable "
                        "targets, found up to 200 rows, not from 500 rows.")  # fmt: skip
    assert "At 200 rows, the size of the quick edition's games" in lines[3]
    assert "texas CTGAN, vulnerable targets (AUC 0.70)" in lines[3]
    assert lines[4].endswith("leak members in: none.")


def test_the_games_are_played_at_each_size_on_the_same_targets_and_resumed(tmp_path, monkeypatch):
    from privmetrics.experiments.games import play

    profile = replace(get_profile("smoke"), game_sizes=(30, 60), game_size_techniques=("random",),
                      game_size_datasets=("flchain",))  # fmt: skip
    monkeypatch.setattr(Z, "results_path", lambda p: tmp_path / "s.sqlite")
    Z.play_sizes(profile, progress=False)
    games = Z.size_games(profile)
    assert set(games["size"]) == {30, 60} and set(games.config) == {"Random"}
    assert set(games.ladder) == {"size"} and games.epochs.isna().all()
    targets = games.groupby("size").apply(lambda g: frozenset(zip(g.kind, g.target, strict=True)))
    assert targets[30] == targets[60]  # the same targets at every size

    def refuse(*args):
        raise AssertionError("played again")

    monkeypatch.setattr(play, "play_configuration", refuse)
    Z.play_sizes(profile, progress=False)
    table = Z.size_table(games)
    assert set(table["size"]) == {30, 60} and set(table.measure) == {"AUC"}
    assert Z.size_games(get_profile("smoke")).empty  # a profile without a ladder has none


def test_the_epochs_ladder_reads_ctgan_by_epochs_at_its_own_level():
    # the default CTGAN (300 epochs) on the size ladder, and two longer trainings at 100 rows
    table = pd.concat([_table({100: False, 200: False}).assign(ladder="size", epochs=300.0),
                       _table({100: True}, config="CTGAN (1,000 epochs)").assign(
                           ladder="epochs", epochs=1000.0),
                       _table({100: True}, config="CTGAN (3,000 epochs)").assign(
                           ladder="epochs", epochs=3000.0)], ignore_index=True)  # fmt: skip
    table["p"] = [0.5, 0.5, 0.02, 0.001]  # 0.02 passes 0.05 alone, not 0.05 / 3 epoch counts
    rows = Z.by_epochs(pd.concat([table, _table({100: False}).assign(
        dataset="flchain", ladder="size", epochs=300.0)]))  # fmt: skip
    assert list(rows.epochs) == [300, 1000, 3000] and list(rows.found) == [False, False, True]
    assert set(rows.dataset) == {"texas"}  # a dataset the epochs ladder does not play: none
    assert list(Z.by_size(table).config) == ["CTGAN", "CTGAN"]
    assert Z.fades(table).config.tolist() == ["CTGAN"]  # the epochs' rows are not sizes
    lines = Z.size_findings(table)
    assert lines[-1] == (
        "**texas**, CTGAN by its training epochs on 100 rows, vulnerable targets: AUC 300 epochs "
        "0.50 [0.45, 0.55], 1,000 epochs 0.70 [0.62, 0.78], 3,000 epochs 0.70 [0.62, 0.78]; the "
        "attack finds members at 3,000 epochs."
    )
    # an edition training CTGAN for 3,000 epochs on 100-row tables: the ladder at its settings
    edition = replace(get_profile("quick"), game_train_rows=100,
                      synthesisers={"ctgan": {"epochs": 3000}})  # fmt: skip
    lines = Z.size_findings(table, {"an edition": edition})
    assert "At 100 rows, the size of an edition's games, the paper's synthesiser settings leak " \
           "members in: none." in lines  # fmt: skip
    assert "At 100 rows with an edition's own 3,000 CTGAN epochs, CTGAN leaks members in: texas " \
           "CTGAN (3,000 epochs), vulnerable targets (AUC 0.70)." in lines  # fmt: skip
    assert Z.by_epochs(_table({100: True})).empty  # a table from before the epochs ladder


def test_the_epochs_ladder_plays_ctgan_at_its_sizes_and_epochs(monkeypatch):
    calls = []
    monkeypatch.setattr(Z, "run_games", lambda profile, **kw: calls.append((profile, kw)))
    profile = replace(get_profile("smoke"), game_sizes=(60, 30),
                      game_epochs={30: (50, 200), 60: (2,)})  # fmt: skip
    Z.play_sizes(profile, progress=False)
    assert [p.game_train_rows for p, _ in calls] == [60, 30, 30, 60]
    configs = calls[2][1]["techniques"]
    assert [c.label for c in configs] == ["CTGAN (50 epochs)", "CTGAN (200 epochs)"]
    assert [c.synthesiser_params() for c in configs] == [{"epochs": 50}, {"epochs": 200}]
    assert [c.label for c in calls[3][1]["techniques"]] == ["CTGAN (2 epochs)"]
    assert calls[2][1]["datasets"] == list(profile.game_epoch_datasets)
    assert [kw["techniques"] for _, kw in calls[:2]] == [profile.game_size_techniques] * 2
