"""The budget check of ``make bench-book``: its verdicts at the tolerance's edge, its CPU count of
a child, and its clean clone. (What the commands cost is measured by the command, never here.)"""

import subprocess
import sys

import pytest

from privmetrics.compendium.benchmarks import budgets as B


@pytest.mark.parametrize(
    "measured, budget, expected",
    [
        (500, 600, "ok"),
        (600, 600, "ok"),
        (720, 600, "over (+20%)"),  # exactly the tolerance: still within it
        (726, 600, "OVER BUDGET (+21%)"),
        (10, None, "-"),
    ],
)
def test_a_budget_fails_only_beyond_its_tolerance(measured, budget, expected):
    assert B.verdict(measured, budget) == expected


def test_a_failed_command_or_one_over_budget_fails_the_run():
    ok = B.Measurement("make test", wall=500, cpu=900, exit_code=0)
    assert not B.failed(B.verdicts([ok]))
    assert B.failed(B.verdicts([B.Measurement("make test", 500, 900, exit_code=2)]))
    assert B.failed(B.verdicts([B.Measurement("make test", 500, 18 * 60 * 1.3, exit_code=0)]))
    rows = B.verdicts([B.Measurement("make other", 5, 5, 0)])  # no budget: reported, not judged
    assert rows[0]["wall"] == rows[0]["CPU"] == "-" and not B.failed(rows)


def test_the_cpu_of_a_child_is_counted(tmp_path):
    burn = f"{sys.executable} -c \"import time; t = time.process_time(); exec('while time.process_time() - t < 0.3: pass')\""
    m = B.run_timed(burn, tmp_path, tmp_path / "log")
    assert m.exit_code == 0 and m.cpu >= 0.25 and m.wall >= 0.25


def test_the_clone_is_the_last_commit_with_shared_beside_it(tmp_path):
    source = tmp_path / "team" / "main"
    (tmp_path / "team" / "shared").mkdir(parents=True)
    source.mkdir()
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run([*git, "init", "-q"], cwd=source, check=True)
    (source / "kept.txt").write_text("committed")
    subprocess.run([*git, "add", "."], cwd=source, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=source, check=True)
    (source / "stray.txt").write_text("not committed")
    clone = B.fresh_clone(source, tmp_path / "bench")
    assert (clone / "kept.txt").read_text() == "committed" and not (clone / "stray.txt").exists()
    assert (clone.parent / "shared").resolve() == (tmp_path / "team" / "shared").resolve()
