"""Experiment 3's calibrated verdicts: a reading becomes a dose of the ladder by hand-computed
cases, the rule holds at its boundaries, and the verdicts move only where the calibration says
the attack could (or could not) have seen what the metric reads."""

import numpy as np
import pandas as pd
import pytest

from privmetrics.experiments.games import calibration as C
from privmetrics.experiments.games import game_analysis as G

CURVE = pd.Series({0.0: 0.1, 0.005: 0.1, 0.01: 0.2, 0.02: 0.3, 0.05: 0.5, 0.1: 0.7, 0.25: 0.9})


@pytest.mark.parametrize(
    ("reading", "dose"),
    [
        (0.35, 0.02),
        (0.3, 0.02),  # at the dose's reading: read as that dose
        (0.3 - 1e-12, 0.02),  # within the tolerance
        (0.29, 0.01),
        (0.15, 0.0),  # below the first detected dose's reading
        (0.95, 0.25),
        (np.nan, np.nan),
    ],
)
def test_a_reading_calibrates_to_the_largest_dose_read_at_or_below_it(reading, dose):
    found = C.calibration_dose(reading, CURVE, detected_from=0.01)
    assert found == dose or (np.isnan(found) and np.isnan(dose))


def test_below_the_smallest_detected_dose_a_metric_cannot_tell_a_dose_from_fresh_rows():
    # a metric that reads 0.1 at doses 0 and 0.5% detects from 1%: a reading of 0.12 is dose 0
    assert C.calibration_dose(0.12, CURVE, detected_from=0.01) == 0.0
    # a flat metric detects nothing and calibrates nothing, however high it reads
    flat = pd.Series({0.0: 0.8, 0.05: 0.8, 0.25: 0.8})
    assert np.isnan(C.calibration_dose(0.9, flat, detected_from=np.nan))


def test_the_scan_stops_at_the_first_dose_read_higher():
    dip = pd.Series({0.0: 0.1, 0.01: 0.3, 0.02: 0.2, 0.05: 0.6, 0.1: 0.3})
    assert C.calibration_dose(0.35, dip, detected_from=0.01) == 0.02


def _row(value, low, high, p):
    return {"value": value, "low": low, "high": high, "p": p}


BOUNDS = pd.DataFrame(
    {
        "Real": _row(0.9, 0.85, 0.95, 0.001),
        "Leaky": _row(0.7, 0.62, 0.78, 0.001),  # the attack finds members
        "Quiet": _row(0.5, 0.47, 0.53, 0.5),  # the attack lies at chance
    }
).T


def test_a_false_alarm_needs_the_metric_to_read_a_dose_the_attack_detects():
    place = pd.Series({"Leaky": 0.5, "Quiet": 0.9})
    at = C.judge(place, pd.Series({"Leaky": 0.0, "Quiet": 0.25}), BOUNDS, 0.5, 0.05, 0.25)
    assert at.false == ["Quiet"] and at.points == {"Quiet": 0.25}
    below = C.judge(place, pd.Series({"Leaky": 0.0, "Quiet": 0.1}), BOUNDS, 0.5, 0.05, 0.25)
    assert below.false == [] and below.agreeing == []
    blind = C.judge(place, pd.Series({"Leaky": 0.25, "Quiet": 0.25}), BOUNDS, 0.5, 0.05, np.nan)
    assert blind.false == [] and blind.agreeing == []


def test_agreement_needs_the_same_calibration_and_a_miss_needs_none():
    doses = pd.Series({"Leaky": 0.25, "Quiet": 0.0})
    agreed = C.judge(pd.Series({"Leaky": 0.5, "Quiet": 0.1}), doses, BOUNDS, 0.5, 0.05, 0.25)
    assert agreed.agreeing == ["Leaky"] and agreed.missed == []
    # placed in the safe third (from fresh rows) while the attack finds members: a miss
    missed = C.judge(pd.Series({"Leaky": 0.2, "Quiet": 0.1}), doses, BOUNDS, 0.5, 0.05, 0.25)
    assert missed.missed == ["Leaky"] and missed.agreeing == []


def test_a_cannot_tell_names_its_reason():
    doses = pd.Series({"A": 0.0, "B": 0.02})
    assert "attack detects no dose" in C.reason(doses, np.nan, 0.01)
    assert "metric detects no dose" in C.reason(doses, 0.25, np.nan)
    said = C.reason(doses, 0.25, 0.01)
    assert "(25%)" in said and "at most 2%" in said
    assert "neither finds members nor lies at chance" in C.reason(
        pd.Series({"A": 0.25}), 0.25, 0.01
    )


def _calibration(detectable: float) -> C.Calibration:
    ladder = [{"dataset": "d", "dose": dose, "jitter": 0.0, "run": run, "metric": "M",
               "score": mean + 0.001 * run}
              for dose, mean in CURVE.items() for run in range(3)]  # fmt: skip
    means = {"Real": 1.0, "Random": 0.15, "A": 0.95, "B": 0.25, "C": 0.12, "D": 0.11}
    readings = [{"dataset": "d", "config": c, "run": run, "metric": "M", "score": m}
                for c, m in means.items() for run in range(3)]  # fmt: skip
    return C.Calibration(pd.DataFrame(ladder), pd.DataFrame(readings),
                         {("d", "random"): detectable})  # fmt: skip


def _attacks() -> pd.DataFrame:
    rows = [("Real", 0.9, 0.85, 0.95, 0.001)]
    rows += [(c, 0.5, 0.47, 0.53, 0.5) for c in ("Random", "A", "B", "C", "D")]
    return pd.DataFrame([{"dataset": "d", "config": c, "kind": "random", "measure": "AUC",
                          "value": v, "low": lo, "high": hi, "baseline": 0.5, "n targets": 20,
                          "p": p} for c, v, lo, hi, p in rows])  # fmt: skip


def test_predictiveness_calibrated_keeps_a_false_alarm_only_where_the_attack_could_see_it():
    grid = pd.DataFrame(columns=["dataset", "config", "metric", "score"])
    seen = G.predictiveness(_attacks(), grid, calibration=_calibration(0.25)).iloc[0]
    assert seen.verdict == G.FALSE_ALARM and seen["false alarms"] == "A"
    assert "A as 25%" in seen.calibration and seen.why == ""
    blind = G.predictiveness(_attacks(), grid, calibration=_calibration(np.nan)).iloc[0]
    assert blind.verdict == G.CANNOT_TELL and "attack detects no dose" in blind.why
    # uncalibrated, on the same readings as a grid, A (top third from Random) is an alarm
    plain = _calibration(0.25).readings
    assert G.predictiveness(_attacks(), plain).iloc[0].verdict == G.FALSE_ALARM


def test_the_configurations_are_read_on_the_ladders_training_tables_and_resumed(
    tmp_path, monkeypatch
):
    """Real's release is the training table itself: fitted on the ladder's run ``r`` table, it
    shares every row with it; a second call reads nothing again; a profile without a ladder
    reads none."""
    from dataclasses import replace

    from privmetrics.data.datasets import load_dataset
    from privmetrics.experiments.games import scale_readings as R
    from privmetrics.experiments.games.sensitivity import training_table
    from privmetrics.experiments.profiles import get_profile

    profile = replace(get_profile("smoke"), datasets=("flchain",), game_ladder_doses=(0.0, 0.25),
                      game_techniques=("real",))  # fmt: skip
    fitted = []
    made = R.make_synthesiser

    def recording(*args, **kwargs):
        model = made(*args, **kwargs)
        fit_sample = model.fit_sample
        model.fit_sample = lambda table, *a, **k: fitted.append(table) or fit_sample(table, *a, **k)
        return model

    monkeypatch.setattr(R, "make_synthesiser", recording)
    path = tmp_path / "s.sqlite"
    first = R.scale_readings(profile, path=path, n_jobs=1, progress=False)
    population, _schema = load_dataset("flchain", n=profile.game_population, seed=profile.seed)
    ladders = [training_table(population, profile.game_train_rows, profile.seed, r)
               for r in range(R.RUNS)]  # fmt: skip
    assert len(fitted) == R.RUNS
    for table in fitted:
        assert any(table.equals(ladder) for ladder in ladders)
    assert first.groupby(R.KEY).ngroups == R.RUNS and not first.attrs["missing"]
    copies = first[first.metric == "CommonRowsProportion"].score
    assert len(copies) == R.RUNS and np.allclose(copies, 1.0, atol=1e-6)  # its epsilon: 1e-8

    def refuse(*args):
        raise AssertionError("read again")

    read = R.read_configuration
    monkeypatch.setattr(R, "read_configuration", refuse)
    again = R.scale_readings(profile, path=path, n_jobs=1, progress=False)
    pd.testing.assert_frame_equal(first, again)
    assert R.scale_readings(get_profile("smoke"), path=path, progress=False).empty
    # read again from scratch, with a release of the leakage ladder, every score is the same to
    # the bit; an edited one is found
    from privmetrics.experiments.games import sensitivity as S
    from privmetrics.experiments.games.play import ladder_fresh
    from privmetrics.metrics import select

    # one release of the ladder stored, as ladder_readings stores it (every measure)
    fresh = ladder_fresh("flchain", population, profile.seed, profile.game_train_rows)
    S.LadderStore(path).add(S.read_release(
        "flchain", 0.25, 0.0, 0, population, _schema, fresh, profile.game_train_rows,
        profile.seed, [m.name for m in select("all")]))  # fmt: skip
    monkeypatch.setattr(R, "read_configuration", read)
    again = R.verify_readings(profile, path=path, sample=1, n_jobs=1, progress=False,
                              where="workers")  # fmt: skip
    assert list(again.verdict) == ["identical"] * 2 and (again.same == again.measures).all()
    assert again.config.iloc[0] == "Real" and again.config.iloc[1].startswith("Planted (")
    # as make verify reports them beside the grid's cells (privmetrics verify --ladder)
    from privmetrics.experiments.grid.verify import format_report

    cells = R.as_verified_cells(again)
    assert list(cells.columns) == ["dataset", "config", "run", "scores", "identical",
                                   "largest difference", "table", "made by", "within runs",
                                   "verdict", "seconds"]  # fmt: skip
    assert (cells.seconds > 0).all() and (cells.scores == again.measures).all()
    assert format_report(cells).endswith(
        "2 cells verified: 2 identical, 0 within 1e-09, 0 different"
    )
    import sqlite3

    with sqlite3.connect(path) as conn:
        for table in ("scale_scores", "ladder_scores"):
            conn.execute(f"UPDATE {table} SET score = score + 0.001 WHERE metric = 'DCR'")
    edited = R.verify_readings(profile, path=path, sample=1, n_jobs=1, progress=False,
                               where="workers")  # fmt: skip
    assert list(edited.verdict) == ["DIFFERENT"] * 2
    assert edited["largest difference"].to_numpy() == pytest.approx([0.001, 0.001])
