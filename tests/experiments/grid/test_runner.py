"""The results store and the experiment runner: atomic cells, resume without recomputation or
duplicates (also after a killed run), and the SEM rule for extra runs."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace

import pandas as pd
import pytest

from privmetrics.experiments.grid import configurations as grid
from privmetrics.experiments.grid import runner
from privmetrics.experiments.grid.store import ResultsStore
from privmetrics.experiments.profiles import PROFILES
from privmetrics.metrics.release_utility import MEASURES

METRICS = ["DCR", "KSTest", "CommonRowsProportion"]
TECHNIQUES = ("random", "privbayes", "real")  # 1 + 4 + 1 = 6 configurations


def cell(run=0, config="Random"):
    return {
        "dataset": "toy", "config": config, "run": run, "technique": "random", "params": "{}",
        "seed": run, "rows": 10, "synth_seconds": 0.1,
    }  # fmt: skip


def test_store_writes_a_cell_atomically(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    store.write_cell(cell(), [{"metric": "DCR", "category": "c", "score": 0.5, "seconds": 0.1}])
    with pytest.raises(ValueError):  # the second score fails: nothing of this cell may remain
        store.write_cell(
            cell(run=1),
            [
                {"metric": "DCR", "category": "c", "score": 0.5, "seconds": 0.1},
                {"metric": "KSTest", "category": "c", "score": "not a number", "seconds": 0.1},
            ],
        )
    assert store.count("cells") == 1 and store.count("scores") == 1
    # writing the same score again keeps the first one: no duplicate row
    store.write_cell(cell(), [{"metric": "DCR", "category": "c", "score": 0.9, "seconds": 0.1}])
    assert store.count("scores") == 1 and store.results().score.tolist() == [0.5]
    assert store.done() == {("toy", "Random", 0): {"DCR"}}


def small_grid(tmp_path, profile=PROFILES["smoke"], **kw):
    return runner.run_grid(
        profile, datasets=["flchain"], techniques=TECHNIQUES, metrics=METRICS, rows=150,
        store=ResultsStore(tmp_path / "r.sqlite"), cache_root=str(tmp_path / "cache"), n_jobs=1,
        progress=False, **kw,
    )  # fmt: skip


def test_grid_resumes_without_recomputing(tmp_path):
    store = small_grid(tmp_path)
    cells = 6 * PROFILES["smoke"].min_runs
    assert store.count("cells") == cells and store.count("scores") == cells * len(METRICS)
    first = store.results()
    assert set(first.config) == {"Random", "Real"} | {f"PrivBayes ε={e:g}" for e in (0.2, 1, 2, 10)}
    assert first.loc[first.config == "Real", "score"].to_numpy() == pytest.approx(1.0)
    again = small_grid(tmp_path).results()
    assert again.finished.tolist() == first.finished.tolist()  # nothing rewritten
    assert len(again) == len(first)


def test_a_new_metric_is_added_to_finished_cells(tmp_path):
    small_grid(tmp_path)
    store = runner.run_grid(
        PROFILES["smoke"], datasets=["flchain"], techniques=TECHNIQUES, metrics=[*METRICS, "MDCR"], rows=150,
        store=ResultsStore(tmp_path / "r.sqlite"), cache_root=str(tmp_path / "cache"), n_jobs=1,
        progress=False,
    )  # fmt: skip
    assert store.count("scores") == store.count("cells") * 4


def test_sem_rule_adds_runs_only_where_scores_vary(tmp_path, monkeypatch):
    profile = replace(PROFILES["smoke"], min_runs=2, max_runs=4, sem_threshold=0.0)
    runs = small_grid(tmp_path, profile).results().groupby("config").run.nunique()
    assert runs["Real"] == 2  # every run scores exactly 1: SEM 0, no extra run
    assert runs["PrivBayes ε=0.2"] == 4  # noisy: extra runs up to the cap


def test_killed_run_resumes_without_loss_or_duplicates(tmp_path):
    """Kill a running grid (SIGKILL, no clean-up) after its first finished cell, then resume."""
    db = tmp_path / "r.sqlite"
    command = [
        sys.executable, "-m", "privmetrics", "run", "--profile", "smoke", "--datasets", "flchain",
        "--techniques", ",".join(TECHNIQUES), "--metrics", ",".join(METRICS), "--rows", "1000",
        "--store", str(db), "--cache", str(tmp_path / "cache"), "--jobs", "1",
    ]  # fmt: skip
    total = 6 * PROFILES["smoke"].min_runs
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        finished = 0
        while time.time() < deadline and proc.poll() is None:
            if db.exists():
                with sqlite3.connect(db) as conn:
                    try:
                        finished = conn.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
                    except sqlite3.OperationalError:  # tables not created yet
                        finished = 0
                if finished:
                    break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    before = ResultsStore(db).results()
    assert 0 < before[["config", "run"]].drop_duplicates().shape[0] < total, (
        "not interrupted mid-run"
    )
    store = runner.run_grid(
        PROFILES["smoke"], datasets=["flchain"], techniques=TECHNIQUES, metrics=METRICS, rows=1000,
        store=ResultsStore(db), cache_root=str(tmp_path / "cache"), n_jobs=1, progress=False,
    )  # fmt: skip
    after = store.results()
    assert store.count("cells") == total and len(after) == total * len(METRICS)
    assert not after.duplicated(["dataset", "config", "run", "metric"]).any()
    kept = after.merge(before, on=["dataset", "config", "run", "metric"], suffixes=("", "_before"))
    assert len(kept) == len(before)  # nothing finished before the kill was lost ...
    assert (kept.finished == kept.finished_before).all()  # ... or recomputed
    assert (kept.score == kept.score_before).all()


def test_store_records_sessions_and_cell_provenance(tmp_path):
    store = small_grid(tmp_path)
    sessions = store.sessions()
    assert len(sessions) == 1 and sessions.cells[0] == store.count("cells")
    assert sessions.wall_seconds[0] > 0 and sessions.cores[0] >= 1
    assert sessions.commit_id[0] and sessions.profile[0] == "smoke"
    cells = store.cells()
    assert (cells.cell_seconds >= cells.synth_seconds).all()
    assert (cells.synth_cpu_seconds > 0).all()
    assert cells.commit_id.notna().all()
    small_grid(tmp_path)  # nothing left to compute: no new session
    assert len(store.sessions()) == 1
    summary = store.provenance()
    assert summary.cells.sum() == store.count("cells")
    assert (summary.runs >= 1).all() and (summary.cell_hours > 0).all()
    assert (summary.sessions == 1).all() and (summary.versions != "").all()
    assert pd.api.types.is_datetime64_any_dtype(summary["first"])  # the book shows dates
    assert (summary["first"] <= summary["last"]).all()


def test_a_cells_cpu_seconds_leave_out_the_time_it_waited(tmp_path, monkeypatch):
    """``synth_seconds`` is wall time, which a loaded machine or a paused run inflates; the CPU
    seconds beside it count only the work (a generation that waits a second costs no CPU for it)."""
    generate = runner.generated_with_provenance

    def waiting(*args, **kwargs):
        time.sleep(1.0)
        return generate(*args, **kwargs)

    monkeypatch.setattr(runner, "generated_with_provenance", waiting)
    cells = runner.run_grid(
        PROFILES["smoke"], datasets=["flchain"], techniques=("real",), metrics=METRICS, rows=150,
        store=ResultsStore(tmp_path / "r.sqlite"), cache_root=str(tmp_path / "cache"), n_jobs=1,
        progress=False,
    ).cells()  # fmt: skip
    assert len(cells) == 2 and (cells.synth_seconds >= 1.0).all()
    assert (cells.synth_cpu_seconds < 0.5).all(), cells  # copying 150 rows: far below the wait


def test_store_migrates_an_older_database(tmp_path):
    """A store written before the provenance columns existed opens, gains them, and keeps its rows."""
    db = tmp_path / "old.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript(
            "CREATE TABLE cells (dataset TEXT, config TEXT, run INTEGER, technique TEXT, params TEXT,"
            " seed INTEGER, rows INTEGER, synth_seconds REAL, version TEXT, finished TEXT,"
            " PRIMARY KEY (dataset, config, run));"
            "INSERT INTO cells VALUES ('toy', 'Random', 0, 'random', '{}', 0, 10, 0.1, '0.1', 'x');"
        )
    store = ResultsStore(db)
    store.write_cell(
        cell(run=1), [{"metric": "DCR", "category": "c", "score": 0.5, "seconds": 0.1}]
    )
    assert store.count("cells") == 2 and store.results().cell_seconds.isna().all()


def test_store_errors_name_the_file_and_what_to_do(tmp_path):
    from privmetrics.experiments.grid.store import StoreError

    bad = tmp_path / "broken.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match=r"broken\.sqlite.*move it away"):
        ResultsStore(bad)


def test_the_paper_edition_reads_its_grid_from_the_store_and_studies_at_quick_scale():
    from privmetrics.experiments.grid.configurations import EXTRA_TECHNIQUES, grid_configurations
    from privmetrics.experiments.grid.runner import results_path

    paper, quick = PROFILES["paper"], PROFILES["quick"]
    assert paper.study_profile == "quick" and quick.study_profile == "quick"
    assert PROFILES["smoke"].study_profile == "smoke"
    # the shipped store holds the whole capped grid: 3 datasets x 17 configurations (with the
    # Uniform control) x 3 runs, and may hold cells of the DP synthesisers beyond the paper's
    shipped = results_path(paper)
    with sqlite3.connect(f"file:{shipped}?mode=ro", uri=True) as conn:  # read only: it is tracked
        techniques = [t for (t,) in conn.execute("SELECT technique FROM cells")]
    configs = grid_configurations(None, paper.grid_extras)
    cells = sum(t not in EXTRA_TECHNIQUES or t in paper.grid_extras for t in techniques)
    assert paper.max_runs == paper.min_runs == 3
    assert cells == len(paper.datasets) * len(configs) * paper.max_runs
    assert len(paper.datasets) * 17 * 3 == 153 <= cells


def test_the_paper_profile_measures_utility_only_where_every_shipped_cell_holds_it():
    """``make reproduce PROFILE=paper`` measures a missing utility by regenerating the cell's
    table (hours for the neural techniques): the profile measures the utility only of techniques
    whose shipped cells all carry their utility rows (since issue 41, every technique's)."""
    shipped = runner.results_path(PROFILES["paper"])
    with sqlite3.connect(f"file:{shipped}?mode=ro", uri=True) as conn:
        lacking = {t for (t,) in conn.execute(
            "SELECT DISTINCT technique FROM cells c WHERE NOT EXISTS (SELECT 1 FROM utility u"
            " WHERE u.dataset = c.dataset AND u.config = c.config AND u.run = c.run)")}  # fmt: skip
    paper = PROFILES["paper"]
    wrongly = {t for t in lacking if paper.measures_utility(t)}
    assert paper.measures_utility("pategan") and not wrongly, wrongly


def test_every_shipped_cell_is_made_by_todays_code_at_the_paper_settings(tmp_path):
    """Issue 41: each cell of results/paper.sqlite records the current code of its technique and
    the paper profile's settings for it, so the book's numbers regenerate from this checkout. A
    change to a synthesiser's code or to a paper setting fails here until `privmetrics run
    --profile paper --refresh-stale` has recomputed its cells."""
    import shutil

    from privmetrics.experiments.grid.provenance import provenance

    db = tmp_path / "paper.sqlite"
    shutil.copy(runner.results_path(PROFILES["paper"]), db)
    table = provenance(ResultsStore(db), PROFILES["paper"])
    stale = table.drop(columns="current code").sum(axis=1)
    assert not stale.any(), stale[stale > 0].to_dict()  # cells per technique not current
    assert {"aim", "mst", "ctgan", "tvae", "pategan"} <= set(table.index)


def test_opening_the_shipped_store_leaves_its_bytes_as_they_were(tmp_path):
    """Building the book opens results/paper.sqlite to read it: a reviewer's checkout must stay
    clean (issue 31). An older file is still migrated (the test above)."""
    import shutil

    from privmetrics.paths import checkout_root

    db = tmp_path / "paper.sqlite"
    shutil.copy(checkout_root() / "results" / "paper.sqlite", db)
    before = db.read_bytes()
    store = ResultsStore(db)
    assert len(store.results()) > 0
    assert db.read_bytes() == before


def test_each_profile_scores_the_variants_it_names():
    from privmetrics.metrics import REGISTRY, VARIANTS

    quick = grid.grid_metrics(PROFILES["quick"])
    assert set(REGISTRY) <= set(quick)  # every registered measure, whatever the variants
    assert {v for v in VARIANTS if v.endswith("@paper")} <= set(quick)
    assert not [m for m in quick if m.endswith("@priveval")]
    paper = set(grid.grid_metrics(PROFILES["paper"], technique="ctgan"))
    assert paper == set(REGISTRY) | set(VARIANTS) | set(MEASURES)  # every variant, and utility
    assert set(quick) - set(REGISTRY) - set(VARIANTS) == set(MEASURES)  # and the utility


def test_an_edition_the_store_cannot_give_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIVMETRICS_RESULTS", str(tmp_path))
    profile = replace(PROFILES["smoke"], name="toy-profile")
    store = ResultsStore(runner.results_path(profile))
    store.write_cell(cell(), [{"metric": "DCR", "category": "c", "score": 0.5, "seconds": 0.1}])
    store.write_cell(
        cell(run=1), [{"metric": "DCR@paper", "category": "c", "score": 0.4, "seconds": 0.1}]
    )
    paper = runner.load_results(profile, way="paper")  # DCR read as the paper defines it
    assert paper.metric.tolist() == ["DCR"] and paper.score.tolist() == [0.4]
    with pytest.raises(ValueError, match="no `@priveval` readings.*--metrics everything"):
        runner.load_results(profile, way="priveval")


def test_a_cell_frees_the_programs_private_pgm_compiled(tmp_path, monkeypatch):
    """A paper run of AIM cells in one process stopped after five cells with "LLVM compilation
    error: Cannot allocate memory" (JAX keeps every compiled program; the memory maps ran out):
    each cell now clears JAX's caches once its table is made."""
    jax = pytest.importorskip("jax")  # with the private-pgm extra that make setup installs

    cleared = []
    monkeypatch.setattr(jax, "clear_caches", lambda: cleared.append(True))
    config = grid.Configuration("privbayes", 1.0)
    cell = runner.Cell("flchain", 100, config, 0, 0)
    record, scores = runner.compute_cell(cell, ["DCR"], PROFILES["smoke"], str(tmp_path))
    assert cleared == [True] and [s["metric"] for s in scores] == ["DCR"]
