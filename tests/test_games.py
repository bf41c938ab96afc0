"""Experiment 3: the games are resumable and keyed by their settings, and the predictiveness rule
gives the verdict a hand computation gives."""

import numpy as np
import pandas as pd
import pytest

from privmetrics.experiments import games as G


def attacks_and_results(metric_values: dict[str, list[float]], auc: list[float], width=0.05):
    """The first configuration is Random and the last Real; each AUC has an interval of +-width."""
    configs = ["Random", *(f"c{i}" for i in range(1, len(auc) - 1)), "Real"]
    attacks = pd.DataFrame(
        {"dataset": "d", "config": configs, "kind": "random", "measure": "AUC", "value": auc,
         "low": np.array(auc) - width, "high": np.array(auc) + width, "n targets": 2}
    )  # fmt: skip
    results = pd.DataFrame(
        [
            {"dataset": "d", "config": c, "metric": m, "run": r, "score": v}
            for m, values in metric_values.items()
            for c, v in zip(configs, values, strict=True)
            for r in range(2)
        ]
    )
    return attacks, results


def test_a_metric_that_ranks_like_the_attack_tracks_it_and_its_mirror_does_not():
    auc = [0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 0.52, 1.0]
    attacks, results = attacks_and_results(
        {"same": [a * 2 for a in auc], "mirror": [-a for a in auc], "flat": [0.3] * len(auc)}, auc
    )
    table = G.predictiveness(attacks, results).set_index("metric")
    assert table.loc["same", "rho"] == pytest.approx(1.0)
    assert table.loc["same", "verdict"] == G.TRACKS
    assert table.loc["mirror", "rho"] == pytest.approx(-1.0)
    assert table.loc["mirror", "verdict"] == G.DOES_NOT
    assert np.isnan(table.loc["flat", "rho"]) and table.loc["flat", "verdict"] == G.CANNOT_TELL
    assert (table.configurations == len(auc)).all() and table["attack works on Real"].all()
    # the same scores against an attack whose interval on Real reaches chance: no verdict
    attacks, results = attacks_and_results({"same": [a * 2 for a in auc]}, auc, width=0.5)
    table = G.predictiveness(attacks, results)
    assert table.rho.iloc[0] == pytest.approx(1.0) and table.verdict.iloc[0] == G.CANNOT_TELL


def test_the_verdict_rule_at_its_boundaries():
    # one adjacent swap in four points: rho is exactly 0.8, which scipy returns as 0.7999999999999999
    rho = float(G._spearman_rows(np.array([[1.0, 2, 4, 3]]), np.array([[1.0, 2, 3, 4]]))[0])
    assert rho == pytest.approx(0.8)
    rho = np.nextafter(0.8, 0)
    assert G.verdict(rho, 0.1, 1.0) == G.TRACKS
    assert G.verdict(rho, -0.2, 1.0) == G.CANNOT_TELL  # the interval reaches below 0
    assert G.verdict(0.3, -0.5, 0.7) == G.DOES_NOT
    assert G.verdict(0.3, -0.5, 0.9) == G.CANNOT_TELL  # the interval still allows tracking
    assert G.verdict(0.5, 0.1, 0.9) == G.CANNOT_TELL


def test_games_resume_and_are_keyed_by_their_settings(tmp_path, monkeypatch):
    store = G.GameStore(tmp_path / "smoke.sqlite")
    first = G.run_games("smoke", datasets=["texas"], techniques=("real", "random"), store=store,
                        n_jobs=1, progress=False)  # fmt: skip
    # two configurations x (1 random + 1 vulnerable target)
    assert len(first) == 4 and set(first.config) == {"Real", "Random"}
    assert set(first.kind) == {"random", "vulnerable"}

    def refuse(*args, **kwargs):
        raise AssertionError("a finished game was played again")

    monkeypatch.setattr(G, "_one_game", refuse)
    again = G.run_games("smoke", datasets=["texas"], techniques=("real", "random"), store=store,
                        n_jobs=1, progress=False)  # fmt: skip
    pd.testing.assert_frame_equal(first, again)
    # other settings are other games: nothing of the first run is taken for them
    other = dict(G.game_settings("smoke"), shadow=99)
    assert store.done(other) == set()
    table = G.attack_table(first, draws=50)
    assert set(table.measure) == {"AUC", "advantage", "TPR at FPR 0.1"}
    assert ((table.value >= -1) & (table.value <= 1)).all()


def test_targets_of_the_two_kinds_are_distinct_and_seeded(make_secret_table):
    frame, schema = make_secret_table(200, 0)
    one = G.choose_targets(frame, schema, 5, seed=3)
    assert one == G.choose_targets(frame, schema, 5, seed=3)
    assert not set(one["random"]) & set(one["vulnerable"])
    assert len(one["random"]) == len(one["vulnerable"]) == 5


def test_attribute_games_have_their_own_table_and_resume(tmp_path, monkeypatch):
    path = tmp_path / "smoke.sqlite"
    membership = G.GameStore(path)
    attribute = G.GameStore(path, "attribute")
    first = G.run_games("smoke", datasets=["texas"], techniques=("real",), store=attribute,
                        n_jobs=1, progress=False, game="attribute")  # fmt: skip
    assert len(first) == 2 and membership.games().empty
    monkeypatch.setattr(G, "_one_game", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
    again = G.run_games("smoke", datasets=["texas"], techniques=("real",), store=attribute,
                        n_jobs=1, progress=False, game="attribute")  # fmt: skip
    pd.testing.assert_frame_equal(first, again)
    table = G.attack_table(first, draws=50, game="attribute")
    assert set(table.measure) == {"accuracy", "baseline accuracy", "advantage"}
    with pytest.raises(ValueError, match="unknown game"):
        G.GameStore(path, "reconstruction")
