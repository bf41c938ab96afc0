"""Utility per grid cell: stored with the cell in one transaction, resumed like a metric, measured
on a holdout the sample never held, and left out of the profiles that do not ask for it."""

from dataclasses import replace

import pandas as pd
import pytest

from privmetrics.data.datasets import holdout_rows, load_dataset
from privmetrics.experiments.grid import configurations as grid
from privmetrics.experiments.grid import runner
from privmetrics.experiments.grid.store import ResultsStore
from privmetrics.experiments.profiles import PROFILES
from privmetrics.metrics import select
from privmetrics.metrics.release_utility import MEASURES

CELL = {
    "dataset": "toy", "config": "Random", "run": 0, "technique": "random", "params": "{}",
    "seed": 0, "rows": 10, "synth_seconds": 0.1,
}  # fmt: skip
SCORE = [{"metric": "DCR", "category": "c", "score": 0.5, "seconds": 0.1}]


def test_utility_is_written_with_its_cell_and_replaced_with_it(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    store.write_cell(
        CELL, SCORE, utility=[{"measure": "one-way TVD", "value": 0.2, "seconds": 0.01}]
    )
    assert store.done()[("toy", "Random", 0)] == {"DCR", "one-way TVD"}
    assert store.utility()[["technique", "measure", "value"]].values.tolist() == [
        ["random", "one-way TVD", 0.2]
    ]
    with pytest.raises(ValueError):  # a bad utility value: nothing of the new cell remains
        store.write_cell(
            {**CELL, "run": 1},
            SCORE,
            utility=[{"measure": "one-way TVD", "value": "x", "seconds": 0}],
        )
    assert store.count("cells") == 1 and store.count("utility") == 1
    store.write_cell(CELL, SCORE, replace=True)  # recomputed by newer code, without utility
    assert store.count("utility") == 0 and store.count("cells") == 1


def test_a_grid_measures_each_cells_utility_once(tmp_path):
    def run():
        return runner.run_grid(
            PROFILES["smoke"], datasets=["flchain"], techniques=("random", "real"),
            metrics=["DCR", *MEASURES], rows=300, store=ResultsStore(tmp_path / "r.sqlite"),
            cache_root=str(tmp_path / "cache"), n_jobs=1, progress=False,
        )  # fmt: skip

    utility = run().utility()
    assert len(utility) == 2 * PROFILES["smoke"].min_runs * len(MEASURES)
    means = utility.groupby(["config", "measure"]).value.mean()
    assert means["Real", "two-way TVD"] == 0 < means["Random", "two-way TVD"]
    assert means["Real", "TSTR accuracy"] > means["Random", "TSTR accuracy"]
    again = run().utility()
    assert again.value.tolist() == utility.value.tolist()  # resumed: nothing measured again
    assert ResultsStore(tmp_path / "r.sqlite").count("scores") == len(utility) // len(MEASURES)


def test_the_holdout_holds_no_row_of_the_sample():
    sample, _ = load_dataset("flchain", n=2000, seed=0)
    holdout = holdout_rows("flchain", 2000, seed=0, size=3000)
    full, _ = load_dataset("flchain")
    assert len(holdout) == 3000
    together = pd.concat([sample, holdout]).value_counts()
    assert (together <= full.value_counts().reindex(together.index)).all()  # disjoint positions
    assert holdout_rows("flchain", None).empty  # the whole dataset leaves none


def test_which_profiles_measure_utility():
    assert set(MEASURES) <= set(grid.grid_metrics(PROFILES["quick"]))
    # the paper store holds every cell's utility (issue 41), the neural techniques' too
    assert set(MEASURES) <= set(grid.grid_metrics(PROFILES["paper"], technique="ctgan"))
    assert not set(MEASURES) & set(grid.grid_metrics(PROFILES["quick"], ["DCR"]))


def test_mst_and_aim_are_grid_techniques_that_editions_leave_out(tmp_path, monkeypatch):
    from privmetrics.experiments.grid.ways import edition

    labels = [c.label for c in grid.grid_configurations(("aim", "random"))]
    assert labels == ["Random"] + [f"AIM ε={e:g}" for e in grid.EPSILONS]
    # the grid's two ends only: an MST fit costs about 10 s here, nearly all of it JAX compiling
    monkeypatch.setattr(grid, "EPSILONS", (0.2, 10.0))
    assert not {c.technique for c in grid.grid_configurations(None, ())} & {"aim", "mst"}
    one_run = replace(
        PROFILES["smoke"], min_runs=1, max_runs=1, synthesisers={"mst": {"iters": 200}}
    )
    store = runner.run_grid(
        one_run, datasets=["flchain"], techniques=("mst", "real"),
        metrics=["DCR", *MEASURES], rows=200, store=ResultsStore(tmp_path / "r.sqlite"),
        cache_root=str(tmp_path / "cache"), n_jobs=1, progress=False,
    )  # fmt: skip
    results = store.results()
    assert set(results.technique) == {"mst", "real"}
    assert set(edition(results).technique) == {"real"}
    assert set(edition(results, extras=True).technique) == {"mst", "real"}
    tvd = store.utility().query("measure == 'two-way TVD'").groupby("config").value.mean()
    assert tvd["MST ε=10"] < tvd["MST ε=0.2"]  # it learns with more budget


def test_a_profile_can_measure_the_utility_of_some_techniques_only():
    some = replace(PROFILES["paper"], grid_utility=("aim",))
    assert some.measures_utility() and some.measures_utility("aim")
    assert set(MEASURES) <= set(grid.grid_metrics(some, technique="aim"))
    assert not set(MEASURES) & set(grid.grid_metrics(some, technique="ctgan"))
    assert not replace(some, grid_utility=()).measures_utility()


def test_scores_of_another_table_are_not_added_to_a_cell(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    store.write_cell({**CELL, "table_checksum": "aaa"}, SCORE)
    utility = [{"measure": "one-way TVD", "value": 0.2, "seconds": 0.01}]
    with pytest.warns(UserWarning, match="checksums differ"):
        store.write_cell({**CELL, "table_checksum": "bbb"}, [], utility=utility)
    assert store.count("utility") == 0
    store.write_cell({**CELL, "table_checksum": "aaa"}, [], utility=utility)  # the same table
    assert store.count("utility") == 1


def test_a_command_line_list_may_name_utility_measures():
    """``privmetrics run --metrics "DCR,two-way TVD"`` (one string) backfills utility as a list does."""
    asked = grid.grid_metrics(PROFILES["paper"], "DCR, two-way TVD", technique="privbayes")
    assert asked == ["DCR", "two-way TVD"]
    assert grid.grid_metrics(PROFILES["paper"], "final") == grid.grid_metrics(
        PROFILES["paper"], [m.name for m in select("final")]
    )
