"""The timing report of make reproduce: measured per step, kept on failure, rendered for the book."""

import time

import pytest

from privmetrics.compendium.timings import NO_REPORT, TimingReport, cpu_seconds


def busy(cpu: float) -> None:
    """Spend ``cpu`` seconds of CPU time (however loaded the machine is)."""
    start = cpu_seconds()
    while cpu_seconds() - start < cpu:
        pass


def test_steps_record_wall_and_cpu_time(tmp_path):
    report = TimingReport("quick", cores=2, commit="abcdef123")
    with report.step("experiment grid"):
        busy(0.15)
    with report.step("notebook exp11"):
        time.sleep(0.2)  # waiting costs wall time, not CPU
    grid, notebook = report.steps
    assert grid["cpu_seconds"] >= 0.15 and grid["wall_seconds"] >= 0.14
    assert notebook["wall_seconds"] >= 0.2 and notebook["cpu_seconds"] < 0.1
    assert report.total_wall == pytest.approx(grid["wall_seconds"] + notebook["wall_seconds"])
    report.close()
    report.save(tmp_path / "t.json")
    again = TimingReport.load(tmp_path / "t.json")
    assert again.steps == report.steps and again.cores == 2
    text = again.to_markdown()
    assert "| experiment grid |" in text and "| notebook exp11 |" in text
    assert "profile `quick`" in text and "commit `abcdef1`" in text and "2 cores" in text


def test_a_failed_step_is_kept_and_marked():
    report = TimingReport("smoke", cores=1)
    with pytest.raises(RuntimeError), report.step("notebook broken"):
        raise RuntimeError("boom")
    assert report.steps[0]["step"] == "notebook broken" and not report.steps[0]["finished"]
    assert "| no |" in report.to_markdown()


def test_cpu_seconds_grow_with_work():
    before = cpu_seconds()
    busy(0.1)
    assert cpu_seconds() > before
    assert "make reproduce" in NO_REPORT


def test_cpu_of_a_worker_that_outlives_the_step_is_counted():
    """joblib's workers stay alive after the grid step: their CPU must count in it."""
    import subprocess
    import sys

    report = TimingReport("smoke", cores=1)
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5: pass\n"
    code = burn + "print('done', flush=True)\ntime.sleep(30)"
    worker = None
    try:
        with report.step("experiment grid"):
            worker = subprocess.Popen(
                [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True
            )
            assert worker.stdout.readline().strip() == "done"  # burnt, and still alive
        assert report.steps[0]["cpu_seconds"] >= 0.45 and report.steps[0]["wall_seconds"] < 20
    finally:
        if worker is not None:
            worker.kill()
            worker.wait()
