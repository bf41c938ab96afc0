"""Re-derivable numbers: tables keyed by the code that made them, stale cells refreshed, and
``privmetrics verify`` finding a score that does not regenerate."""

import sqlite3

import pandas as pd
import pytest

from privmetrics.__main__ import main
from privmetrics.experiments.grid import runner
from privmetrics.experiments.grid.store import ResultsStore
from privmetrics.experiments.grid.verify import choose_cells, verify
from privmetrics.experiments.profiles import get_profile
from privmetrics.synthesisers import SyntheticCache
from privmetrics.synthesisers import cache as cache_module

METRICS = ["DCR", "NNDR"]
SMOKE = get_profile("smoke")


def test_code_digest_ignores_documentation_and_layout_but_not_code():
    base = 'def f(x):\n    """Doc."""\n    return x + 1  # one\n'
    assert cache_module.code_digest(base) == cache_module.code_digest(
        'def f(x):\n    """Other doc."""\n\n    return (x + 1)\n'
    )
    assert cache_module.code_digest(base) != cache_module.code_digest(
        'def f(x):\n    """Doc."""\n    return x + 2\n'
    )


def test_code_digest_ignores_imports_so_a_moved_module_keeps_its_fingerprint():
    here = "from ..domain import Bounds\nimport numpy as np\n\ndef f(x):\n    return Bounds(x)\n"
    moved = (
        "import numpy as np\nfrom ..data.domain import Bounds\n\ndef f(x):\n    return Bounds(x)\n"
    )
    assert cache_module.code_digest(here) == cache_module.code_digest(moved)
    assert cache_module.code_digest("import os\n") == cache_module.EMPTY_MODULE
    assert cache_module.code_digest(here) != cache_module.code_digest(
        here.replace("(x)\n", "(-x)\n")
    )


def test_fingerprints_differ_by_technique_and_cover_the_domain_module():
    fp = {t: cache_module.code_fingerprint(t) for t in ("privbayes", "pategan", "real", "ctgan")}
    assert len(set(fp.values())) == 4


def test_a_table_cached_by_other_synthesiser_code_is_not_reused(
    make_secret_table, tmp_path, monkeypatch
):
    frame, schema = make_secret_table(200, 0)
    cache = SyntheticCache(tmp_path)
    first = cache.fit_sample("toy", "privbayes", {"epsilon": 1.0}, 0, frame, schema)
    again = cache.fit_sample("toy", "privbayes", {"epsilon": 1.0}, 0, frame, schema)
    assert (cache.hits, cache.misses) == (1, 1)
    pd.testing.assert_frame_equal(first, again)
    # the same call under other synthesiser code: a new key, a new fit, a second file
    monkeypatch.setattr(cache_module, "code_fingerprint", lambda technique: "other-code")
    cache.fit_sample("toy", "privbayes", {"epsilon": 1.0}, 0, frame, schema)
    assert (cache.hits, cache.misses) == (1, 2)
    assert len(list(tmp_path.glob("*.parquet"))) == 2
    # and another training table, or another declared domain, is another key too
    cache.fit_sample("toy", "privbayes", {"epsilon": 1.0}, 0, frame.iloc[1:], schema)
    assert cache.misses == 3


@pytest.fixture
def grid(tmp_path):
    return runner.run_grid(
        SMOKE, datasets=["flchain"], techniques=("real", "privbayes"), metrics=METRICS, rows=150,
        store=ResultsStore(tmp_path / "r.sqlite"), cache_root=str(tmp_path / "cache"), n_jobs=1,
        progress=False,
    )  # fmt: skip


def test_cells_record_what_made_them_and_sessions_count_as_they_go(grid):
    cells = grid.cells()
    assert cells.code.notna().all() and cells.table_checksum.str.len().eq(64).all()
    assert (cells.code == cells.technique.map(cache_module.code_fingerprint)).all()
    session = grid.sessions().iloc[0]
    assert session.cells == len(cells) and session.wall_seconds > 0 and session.ended


def test_a_killed_session_still_says_what_it_wrote(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    session = store.start_session("smoke", "abc", 1, 2)
    record = {"dataset": "toy", "config": "Real", "run": 0, "technique": "real", "params": "{}",
              "seed": 0, "rows": 10, "synth_seconds": 0.1}  # fmt: skip
    store.write_cell(record, [], session=session, wall_seconds=3.5)  # and then no end_session
    row = store.sessions().iloc[0]
    assert row.cells == 1 and row.wall_seconds == 3.5 and row.ended


def test_stale_cells_are_recomputed_in_place(grid, tmp_path):
    with sqlite3.connect(grid.path) as conn:
        conn.execute("UPDATE cells SET code = 'old' WHERE config = 'Real' AND run = 1")
        conn.execute("UPDATE scores SET score = -1 WHERE config = 'Real' AND run = 1")
    before = grid.results()
    store = runner.run_grid(
        SMOKE, datasets=["flchain"], techniques=("real", "privbayes"), metrics=METRICS, rows=150,
        store=grid, cache_root=str(tmp_path / "cache"), n_jobs=1, progress=False, refresh_stale=True,
    )  # fmt: skip
    after = store.results()
    assert len(after) == len(before) and not after.duplicated(["config", "run", "metric"]).any()
    real1 = after[(after.config == "Real") & (after.run == 1)]
    assert (real1.score == 1.0).all()  # recomputed: Real scores 1 on DCR and NNDR
    others = after[~((after.config == "Real") & (after.run == 1))]
    kept = others.merge(before, on=["config", "run", "metric"], suffixes=("", "_b"))
    assert (kept.finished == kept.finished_b).all()  # every current cell left alone
    assert (store.cells().code != "old").all()


def test_a_cell_made_with_other_settings_than_the_profiles_is_stale_and_refreshed(grid, tmp_path):
    """A profile that changes a synthesiser's setting (AIM's size parameters, PrivBayes's bins)
    no longer describes the cells made before: the provenance report counts them apart, and
    ``--refresh-stale`` recomputes them with the profile's settings."""
    from dataclasses import replace

    from privmetrics.experiments.grid.provenance import made_by, provenance, stale_cells

    assert set(made_by(grid.cells(), SMOKE)) == {"current code"}
    changed = replace(SMOKE, synthesisers={**SMOKE.synthesisers, "privbayes": {"degree": 1}})
    made = made_by(grid.cells(), changed)
    privbayes = grid.cells().technique == "privbayes"
    assert (made[privbayes] == "other settings (stale)").all(), made
    assert (made[~privbayes] == "current code").all()
    table = provenance(grid, changed)
    assert table.loc["privbayes", "other settings (stale)"] == privbayes.sum()
    assert "other settings (stale)" not in provenance(grid).columns  # no profile: not compared
    assert len(stale_cells(grid, changed)) == privbayes.sum()
    store = runner.run_grid(
        changed, datasets=["flchain"], techniques=("real", "privbayes"), metrics=METRICS, rows=150,
        store=grid, cache_root=str(tmp_path / "cache"), n_jobs=1, progress=False, refresh_stale=True,
    )  # fmt: skip
    after = store.cells()
    assert set(made_by(after, changed)) == {"current code"}
    again = made_by(after, SMOKE)  # and for the old profile, the refreshed cells are the stale ones
    assert (again[after.technique == "privbayes"] == "other settings (stale)").all()
    assert (again[after.technique == "real"] == "current code").all()


def test_verify_passes_a_store_that_regenerates_and_fails_one_edited_score(grid, capsys):
    report = verify(SMOKE, store=grid, sample=4, progress=False)
    assert len(report) == 4 and set(report.verdict) == {"identical"}
    assert set(report.table) == {"same checksum"} and set(report["made by"]) == {"current code"}
    assert [w.split(" (")[0] for w in report["within runs"]] == [
        f"{n} of {n}" for n in report.scores
    ]
    assert all(w.endswith("(a new draw: 33%)") for w in report["within runs"])  # 2 runs: 1/3
    assert {"real", "privbayes"} <= set(
        grid.cells()
        .set_index(["config", "run"])
        .loc[list(zip(report.config, report.run, strict=True))]
        .technique
    )
    with sqlite3.connect(grid.path) as conn:
        conn.execute("UPDATE scores SET score = score + 1e-6 WHERE config = 'Real' AND run = 0")
    args = ["verify", "--profile", "smoke", "--store", str(grid.path), "--cells", "flchain/Real/0"]
    assert main(args) == 1
    assert "DIFFERENT" in capsys.readouterr().out
    assert main([*args[:-1], "flchain/PrivBayes ε=1/0"]) == 0


def test_within_runs_counts_the_scores_inside_the_stored_runs_range():
    """A regenerated table that is not the stored one may still be a draw like the others: the
    count of its scores inside the range of the stored runs, edges included, by hand."""
    from privmetrics.experiments.grid.verify import draw_share, machine, within_runs

    runs = pd.DataFrame({"metric": ["a", "a", "a", "b", "b"], "score": [0.1, 0.3, 0.2, 0.5, 0.5],
                         "run": [0, 1, 2, 0, 1]})  # fmt: skip
    assert draw_share(runs) == 0.5 and draw_share(runs[runs.run < 1]) == 0.0
    assert within_runs(pd.Series({"a": 0.3, "b": 0.5}), runs) == 2
    assert within_runs(pd.Series({"a": 0.31, "b": 0.5}), runs) == 1
    assert within_runs(pd.Series({"a": 0.05, "b": 0.49, "c": 0.5}), runs) == 0  # c: no runs
    assert set(machine()) == {"cpu", "torch kernels"}


def test_the_draw_covers_every_technique_and_respects_the_budget():
    cells = pd.DataFrame(
        {"technique": ["real"] * 5 + ["ctgan"] * 5 + ["privbayes"] * 5, "rows": [25_000] * 15}
    )
    chosen = choose_cells(cells, 6, seed=0, budget_minutes=None)
    assert chosen.technique.value_counts().to_dict() == {"real": 2, "ctgan": 2, "privbayes": 2}
    cheap = choose_cells(cells, 6, seed=0, budget_minutes=10)  # a Texas CTGAN cell costs ~17 min
    assert "ctgan" not in set(cheap.technique) and len(cheap) == 6


def test_verify_adopts_an_unrecorded_cell_only_when_it_regenerates(grid, tmp_path):
    with sqlite3.connect(grid.path) as conn:
        conn.execute("UPDATE cells SET code = NULL, table_checksum = NULL WHERE run = 0")
        conn.execute("UPDATE scores SET score = 0.123 WHERE config = 'Real' AND run = 0")
    cells = ["flchain/Real/0", "flchain/PrivBayes ε=2/0"]
    report = verify(SMOKE, store=grid, cells=cells, progress=False, adopt=True)
    assert list(report.verdict) == ["DIFFERENT", "identical"]
    assert set(report["made by"]) == {"code not recorded"}
    recorded = grid.cells().set_index(["config", "run"]).code
    assert pd.isna(recorded["Real", 0])  # an edited score: not shown to come from this code
    assert recorded["PrivBayes ε=2", 0] == cache_module.code_fingerprint("privbayes")
    from privmetrics.experiments.grid.verify import record, to_markdown

    record(report, tmp_path / "v.json", "smoke", 1e-9)
    text = to_markdown(tmp_path / "v.json")
    assert "2 cells regenerated from scratch: 1 identical, 0 within 1e-09, 1 different" in text
    assert text.count("| flchain |") == 2
    assert "No `privmetrics verify` run" in to_markdown(tmp_path / "missing.json")


def test_verify_adopts_a_stale_cell_only_when_its_table_regenerates(grid):
    """A code change that leaves the tables as they were (issue 29's faster PrivBayes search) is
    shown by regenerating: same table checksum and scores -> the current code is recorded."""
    with sqlite3.connect(grid.path) as conn:
        conn.execute("UPDATE cells SET code = 'older code' WHERE config = 'PrivBayes ε=2'")
        conn.execute("UPDATE cells SET table_checksum = 'other table' WHERE config = 'PrivBayes ε=2'"
                     " AND run = 1")  # fmt: skip
    cells = ["flchain/PrivBayes ε=2/0", "flchain/PrivBayes ε=2/1"]
    report = verify(SMOKE, store=grid, cells=cells, progress=False, adopt=True)
    assert set(report["made by"]) == {"other code (stale)"}
    recorded = grid.cells().set_index(["config", "run"]).code
    assert recorded["PrivBayes ε=2", 0] == cache_module.code_fingerprint("privbayes")
    assert recorded["PrivBayes ε=2", 1] == "older code"  # its table is not the stored one


def test_the_provenance_report_counts_current_stale_and_unrecorded_cells(grid, capsys):
    from privmetrics.experiments.grid.provenance import (
        format_provenance,
        provenance,
        provenance_markdown,
    )

    cells = len(grid.cells())
    assert "every one of the" in format_provenance(provenance(grid))
    with sqlite3.connect(grid.path) as conn:
        conn.execute("UPDATE cells SET code = 'older' WHERE config = 'PrivBayes ε=2' AND run = 0")
        conn.execute("UPDATE cells SET code = NULL WHERE config = 'Real' AND run = 1")
    table = provenance(grid)
    assert table.loc["privbayes"].tolist()[1:] == [1, 0]
    assert table.loc["real"].tolist()[1:] == [0, 1]
    assert int(table["current code"].sum()) == cells - 2
    assert f"2 of {cells} cells were made by other or unrecorded code" in format_provenance(table)
    assert "| real | 1 | 0 | 1 |" in provenance_markdown(grid.path)  # the book's page
    main(["verify", "--profile", "smoke", "--store", str(grid.path), "--cells", "flchain/Real/0"])
    assert "2 of" in capsys.readouterr().out  # the command prints it before its sample


def test_named_cells_are_completed_by_a_draw_of_the_others(grid):
    """make verify names the AIM cell that once drifted beside its drawn sample: the named cells
    come first, the draw adds others (none twice) up to the sample, and names alone verify only
    them."""
    named = ["flchain/Real/0"]
    report = verify(SMOKE, store=grid, cells=named, sample=3, progress=False)
    keys = [f"{r.dataset}/{r.config}/{r.run}" for r in report.itertuples()]
    assert keys[0] == named[0] and len(keys) == 3 == len(set(keys))
    assert len(verify(SMOKE, store=grid, cells=named, progress=False)) == 1
