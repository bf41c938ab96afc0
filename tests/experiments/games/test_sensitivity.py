"""Which metrics see a known leak (experiments/games/sensitivity.py): the metrics read along the
leakage ladder, the detection rule and its boundaries, a resumed reading, and the sentences."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from privmetrics.experiments.games import sensitivity as S
from privmetrics.experiments.profiles import get_profile


def readings(values: dict[tuple[float, float], list[float]], metric="M", dataset="d"):
    """A readings table: per (dose, jitter), one score per run."""
    return pd.DataFrame([
        {"dataset": dataset, "metric": metric, "dose": dose, "jitter": jitter, "run": r,
         "score": score}
        for (dose, jitter), scores in values.items() for r, score in enumerate(scores)
    ])  # fmt: skip


def test_a_dose_is_detected_when_every_run_reads_above_every_fresh_run():
    table = S.sensitivity(readings({
        (0.0, 0.0): [0.10, 0.12, 0.11],
        (0.02, 0.0): [0.12, 0.13, 0.14],  # overlaps the fresh runs' top: not detected
        (0.05, 0.0): [0.121, 0.13, 0.15],  # every run above 0.12: detected
        (0.25, 0.0): [0.5, 0.6, 0.7],
    }))  # fmt: skip
    row = table.iloc[0]
    assert row["smallest detected dose"] == 0.05
    assert row["dose 0"] == pytest.approx(0.11) and (row["dose 0 low"], row["dose 0 high"]) == (
        0.10,
        0.12,
    )
    assert row.monotone and not row["false alarm on fresh rows"]


def test_a_metric_blind_to_copies_falls_or_alarms_on_fresh_rows():
    blind = S.sensitivity(readings({
        (0.0, 0.0): [0.90, 0.95, 0.92], (0.1, 0.0): [0.91, 0.93, 0.94],
        (0.25, 0.0): [0.70, 0.72, 0.71],  # falls by more than the fresh runs' range
    })).iloc[0]  # fmt: skip
    assert np.isnan(blind["smallest detected dose"]) and not blind.monotone
    assert blind["false alarm on fresh rows"]  # 0.92 of 1 for a release that holds no one
    # the boundary: exactly 2/3 is the top third, a hair below is not
    at = S.sensitivity(readings({(0.0, 0.0): [2 / 3] * 3, (0.1, 0.0): [1.0] * 3})).iloc[0]
    below = S.sensitivity(readings({(0.0, 0.0): [0.6666] * 3, (0.1, 0.0): [1.0] * 3})).iloc[0]
    assert at["false alarm on fresh rows"] and not below["false alarm on fresh rows"]


def test_each_jitter_is_its_own_curve_over_the_shared_fresh_rows():
    table = S.sensitivity(readings({
        (0.0, 0.0): [0.1, 0.1, 0.1], (0.1, 0.0): [0.5, 0.5, 0.5], (0.1, 0.2): [0.1, 0.2, 0.1],
    }))  # fmt: skip
    exact, rough = (table[table.jitter == j].iloc[0] for j in (0.0, 0.2))
    assert exact["smallest detected dose"] == 0.1 and np.isnan(rough["smallest detected dose"])
    shown = S.sensitivity_table(table, ["M"])
    assert shown.loc["M", ("d", "copies")] == "10.0%" and shown.loc["M", ("d", "jitter 0.2")] == "-"


def test_the_findings_name_the_blind_and_the_alarmed():
    found = S.sensitivity(pd.concat([
        readings({(0.0, 0.0): [0.1] * 3, (0.05, 0.0): [0.4] * 3}, metric="DCR"),
        readings({(0.0, 0.0): [0.9] * 3, (0.05, 0.0): [0.9] * 3}, metric="KSTest"),
    ]))  # fmt: skip
    lines = S.sensitivity_findings(found, ["DCR", "KSTest"])
    assert "1 of 2 measures detect exact copies at some dose (from 5.0%: DCR)" in lines[0]
    assert "false alarm on fresh rows): KSTest" in lines[0]
    assert "KSTest detects no dose of exact copies" in lines[1]


def test_the_ladder_is_read_stored_and_resumed(tmp_path, monkeypatch):
    """A small ladder on the smoke profile's games scale: every measure read three times per
    release, stored; a copy-counting measure rises with the dose; a second call reads nothing
    again; a profile whose games play no ladder reads none."""
    profile = replace(get_profile("smoke"), datasets=("flchain",), game_ladder_doses=(0.0, 0.25),
                      game_ladder_jitters=(0.0,))  # fmt: skip
    path = tmp_path / "s.sqlite"
    first = S.ladder_readings(profile, path=path, n_jobs=1, progress=False)
    assert first.groupby(S.KEY).ngroups == 2 * S.RUNS and not first.attrs["missing"]
    copies = first[first.metric == "CommonRowsProportion"].groupby("dose").score.min()
    assert copies[0.25] > copies[0.0] == 0.0

    def refuse(*args):
        raise AssertionError("read again")

    monkeypatch.setattr(S, "read_release", refuse)
    again = S.ladder_readings(profile, path=path, n_jobs=1, progress=False)
    pd.testing.assert_frame_equal(first, again)
    none = S.ladder_readings(get_profile("smoke"), path=path, n_jobs=1, progress=False)
    assert none.empty


def test_a_metric_page_line_says_what_it_read_of_fresh_rows_and_copies():
    found = S.sensitivity(pd.concat([
        readings({(0.0, 0.0): [0.9] * 3, (0.05, 0.0): [0.9] * 3}, metric="KSTest", dataset="a"),
        readings({(0.0, 0.0): [0.1] * 3, (0.05, 0.0): [0.4] * 3}, metric="DCR", dataset="a"),
    ]))  # fmt: skip
    lines = S.leak_lines(found)
    assert lines["KSTest"].endswith("a: fresh rows 0.90 (a false alarm), copies never detected.")
    assert lines["DCR"].endswith("a: fresh rows 0.10, copies detected from 5.0%.")
    assert S.leak_lines(found.iloc[:0]) == {}


def test_reading_a_store_without_the_ladder_writes_nothing(tmp_path):
    """A book reads the shipped store read-only: a store from before the ladder's readings stays
    as it was, and the note says what is missing."""
    from privmetrics.experiments.grid.store import ResultsStore

    path = tmp_path / "old.sqlite"
    ResultsStore(path)
    before = path.read_bytes()
    profile = replace(get_profile("smoke"), game_ladder_doses=(0.0, 0.25))
    found = S.ladder_readings(profile, path=path, compute=False)
    assert found.empty and "ladder releases not read yet" in found.attrs["missing"]
    assert path.read_bytes() == before
