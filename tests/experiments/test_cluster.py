"""The grid on a Dask cluster: the same store as the local runner, score for score, also when a
worker is killed mid-run (the driver alone writes; lost cells are retried elsewhere)."""

import os
import signal
import sqlite3
import threading
import time

import pytest

pytest.importorskip("distributed")

from privmetrics.experiments.cluster import dask_client
from privmetrics.experiments.grid import runner
from privmetrics.experiments.grid.store import ResultsStore
from privmetrics.experiments.profiles import PROFILES

SMOKE = PROFILES["smoke"]
KEY = ["dataset", "config", "run", "metric"]
# one dataset and a technique of each kind (a baseline, the DP one, a neural one, the copy):
# 7 configurations x the smoke profile's runs, enough cells for a worker to die mid-run
TECHNIQUES = ("random", "privbayes", "tvae", "real")
CELLS = 7 * SMOKE.min_runs


def smoke_grid(path, cache, client=None, progress=False):
    """Part of the smoke profile's grid (:data:`TECHNIQUES` on flchain), final seven metrics."""
    return runner.run_grid(
        SMOKE, datasets=["flchain"], techniques=TECHNIQUES, metrics="final",
        store=ResultsStore(path), cache_root=str(cache), n_jobs=2, progress=progress,
        client=client,
    )  # fmt: skip


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    root = tmp_path_factory.mktemp("local")
    return smoke_grid(root / "r.sqlite", root / "cache").results().set_index(KEY).score


@pytest.fixture(scope="module")
def cluster():
    """Two local Dask workers shared by the tests that do not kill one (starting a pair costs
    their imports, several CPU-seconds)."""
    with dask_client(local_workers=2) as client:
        yield client


def scores(store):
    results = store.results()
    assert not results.duplicated(KEY).any()
    return results.set_index(KEY).score


@pytest.mark.slow
def test_a_local_cluster_fills_the_same_store_as_the_local_runner(local, cluster, tmp_path):
    assert len(cluster.scheduler_info()["workers"]) == 2
    store = smoke_grid(tmp_path / "r.sqlite", tmp_path / "cache", cluster)
    assert store.count("cells") == CELLS
    ours = scores(store)
    assert len(ours) == len(local) and (ours.sort_index() == local.sort_index()).all()


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(local, tmp_path):
    path = tmp_path / "r.sqlite"
    killed, errors = {}, []
    with dask_client(local_workers=2) as client:

        def written() -> int:
            """Cells in the store so far, read without writing (the driver holds the writes)."""
            try:
                with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as conn:
                    return conn.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
            except sqlite3.Error:  # not created yet, or busy: ask again
                return 0

        def kill_a_busy_worker():
            deadline = time.time() + 300
            while time.time() < deadline and not killed:
                try:
                    busy = [w for w, keys in client.processing().items() if keys]
                    done = written()
                    if busy and done:  # the grid is under way and this worker holds a cell
                        pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                        os.kill(pid, signal.SIGKILL)
                        killed.update(pid=pid, after=done)
                except Exception as exc:  # a failed look is retried, and said
                    errors.append(repr(exc))
                time.sleep(0.05)

        watcher = threading.Thread(target=kill_a_busy_worker)
        watcher.start()
        store = smoke_grid(path, tmp_path / "cache", client)
        watcher.join()
    assert killed, f"no worker was killed (the grid finished first); errors: {errors[:3]}"
    total = CELLS
    assert killed["after"] < total  # killed while cells were left
    ours = scores(store)  # no duplicate (checked inside), ...
    assert store.count("cells") == total and len(ours) == len(local)  # ... none lost
    assert (ours.sort_index() == local.sort_index()).all()  # and the same scores


@pytest.mark.slow
def test_a_local_cluster_plays_the_same_games_as_the_local_runner(cluster, tmp_path):
    """Experiment 3's plays on two Dask workers: the same games of both kinds, value for value,
    as the local runner's (the driver alone writes the store)."""
    import pandas as pd

    from privmetrics.experiments.games import play as G
    from privmetrics.experiments.games.game_store import TABLES, GameStore

    played = {}
    for where in ("local", "cluster"):
        path = tmp_path / f"{where}.sqlite"
        kw = dict(datasets=["texas"], techniques=("real", "random", "privbayes"), progress=False)
        if where == "local":
            G.run_games(SMOKE, store=GameStore(path), n_jobs=2, **kw)
        else:
            G.run_games(SMOKE, store=GameStore(path), client=cluster, **kw)
        played[where] = {g: GameStore(path, g).games(SMOKE) for g in TABLES}
    columns = ["dataset", "config", "kind", "target", "scores", "truth", "ingredients", "design"]
    for game in TABLES:
        local, cluster = (
            played[w][game][columns].sort_values(columns[:4]).reset_index(drop=True)
            for w in ("local", "cluster")
        )
        per_play = 2 if game == "release" else 2 * SMOKE.game_targets  # scorings, or targets
        assert len(local) == 6 * per_play  # 6 configurations
        pd.testing.assert_frame_equal(local, cluster)
