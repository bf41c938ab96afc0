"""The timing report of make reproduce: measured per step, kept on failure, rendered for the book."""

import time

import pytest

from privmetrics.compendium.book.timings import NO_REPORT, TimingReport, cpu_seconds


def busy(cpu: float) -> None:
    """Spend ``cpu`` seconds of this process's own CPU time (however loaded the machine is).
    Not :func:`cpu_seconds`: it also counts live descendants, and a worker that an earlier test
    of this process left running (a joblib pool) would end the loop before its wall time."""
    start = time.process_time()
    while time.process_time() - start < cpu:
        pass


def test_steps_record_wall_and_cpu_time(tmp_path, monkeypatch):
    from privmetrics.compendium.book import timings

    # only this process's CPU: cpu_seconds also counts live descendants and reaped children,
    # which is right for the grid, not here; a pool that an earlier test of this worker left
    # alive added its CPU while alive (CI at 17e4d13), and 86.6 CPU-s when its idle workers were
    # reaped during the 0.2 s sleep (CI at 0c1b689)
    monkeypatch.setattr(timings, "cpu_seconds", time.process_time)
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


def test_steps_run_beside_others_are_shown_but_not_counted_twice():
    report = TimingReport("quick", cores=2)
    report.steps.append(
        {
            "step": "notebooks (2 at a time)",
            "wall_seconds": 10.0,
            "cpu_seconds": 19.0,
            "finished": True,
        }
    )
    report.add("notebook exp11", 7.0, 6.5, True, part_of="notebooks (2 at a time)")
    report.add("notebook exp12", 8.0, 7.5, False, part_of="notebooks (2 at a time)")
    assert report.total_wall == 10.0
    text = report.to_markdown()
    assert "10 s wall in all" in text
    assert "| &nbsp;&nbsp;notebook exp12 | 8 s | 8 s | no |" in text


def notebook(tmp_path, name: str, code: str) -> None:
    import nbformat

    book = nbformat.v4.new_notebook()
    book.metadata["kernelspec"] = {
        "name": "python3",
        "language": "python",
        "display_name": "Python 3",
    }
    book.cells = [
        nbformat.v4.new_code_cell('profile = "quick"', metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell(code),
    ]
    (tmp_path / "notebooks").mkdir(exist_ok=True)
    nbformat.write(book, tmp_path / "notebooks" / f"{name}.ipynb")


@pytest.mark.slow
def test_notebooks_run_side_by_side_timed_and_a_failure_named(tmp_path, monkeypatch):
    """Two lanes: both notebooks run although one fails; each is timed with its kernel's CPU,
    the good one is tagged for the book, and the error names the failing one."""
    import nbformat

    from privmetrics.compendium.book import reproduce
    from privmetrics.experiments.profiles import get_profile

    notebook(
        tmp_path,
        "good",
        "import time\nt = time.process_time()\nwhile time.process_time() - t < 1: pass\nprint(profile)",
    )
    notebook(tmp_path, "bad", "raise ValueError('planted')")
    monkeypatch.setattr(reproduce, "checkout_root", lambda: tmp_path)
    report = TimingReport("smoke", cores=2)
    with pytest.raises(reproduce.NotebookFailed, match="notebook bad failed") as failure:
        reproduce.run_notebooks(
            get_profile("smoke"), tmp_path / "out", ["good", "bad"], report, lanes=2
        )
    assert "planted" in str(failure.value) and "good" not in str(failure.value)
    lanes, *notebooks = report.steps
    assert lanes["step"] == "notebooks (2 at a time)"
    timed = {s["step"]: s for s in notebooks}
    assert timed["notebook good"]["finished"] and not timed["notebook bad"]["finished"]
    assert timed["notebook good"]["cpu_seconds"] >= 1.0  # the kernel's busy second is counted
    good = nbformat.read(tmp_path / "out" / "good.ipynb", as_version=4)
    assert "smoke" in good.cells[-1].outputs[0]["text"]  # the profile reached the kernel
    assert "hide-input" in good.cells[-1].metadata["tags"]  # tagged for the book
