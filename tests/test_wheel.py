"""The package works as a wheel outside the repository: built from the sources, installed into a
fresh virtual environment, and used from a folder that is no checkout.

The fresh environment sees the test environment's dependencies through a path file (so that no
multi-gigabyte download is needed), but not the editable install of this checkout: a plain path
in a ``.pth`` file is not a site directory, so the editable hook there is never run, and
``privmetrics`` can only come from the wheel.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from privmetrics.paths import checkout_root

pytestmark = pytest.mark.slow


def run(command: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory):
    """(python, privmetrics command, environment, a folder outside any checkout)."""
    root = checkout_root()
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(root / name, source / name)
    shutil.copytree(
        root / "lib", source / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRIVMETRICS", "PYTHON"))}
    built = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
         str(work / "dist"), str(source)], work, env,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = (work / "dist").glob("privmetrics-*.whl")
    target = work / "venv"
    venv.EnvBuilder(with_pip=True).create(target)
    python = target / "bin" / "python"
    site = Path(
        run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            work, env).stdout.strip()
    )  # fmt: skip
    (site / "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)],
                    work, env)  # fmt: skip
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    outside = work / "elsewhere"
    outside.mkdir()
    env["HOME"] = str(work / "home")  # the caches go to this user's ~/.cache, not the checkout
    env["XDG_CACHE_HOME"] = str(work / "home" / ".cache")
    return python, target / "bin" / "privmetrics", env, outside


def test_the_wheel_is_what_gets_imported_and_carries_its_data(wheel_env):
    python, _, env, outside = wheel_env
    code = (
        "import privmetrics, privmetrics.paths as p; from privmetrics.data.datasets import "
        "dataset_names; print(privmetrics.__file__); print(dataset_names()); "
        "print(p.checkout_root(required=False)); print(p.cache_home())"
    )
    result = run([str(python), "-c", code], outside, env)
    assert result.returncode == 0, result.stderr[-2000:]
    where, names, checkout, cache = result.stdout.strip().splitlines()
    assert str(python.parents[1]) in where and str(checkout_root()) not in where
    assert names == "['flchain', 'health', 'randhie', 'texas']"
    assert checkout == "None" and cache.startswith(env["XDG_CACHE_HOME"])


def test_the_command_line_lists_metrics_and_audits_two_csv_files(wheel_env):
    python, command, env, outside = wheel_env
    listed = run([str(command), "list"], outside, env)
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert {"DCR", "NNDR", "AttributeInference"} <= {
        line.split()[0] for line in listed.stdout.splitlines()
    }
    make = (
        "import numpy as np, pandas as pd; rng = np.random.default_rng(0); "
        "f = lambda n: pd.DataFrame({'age': rng.integers(18, 90, n), 'sex': rng.choice(['F', 'M'], n),"
        " 'income': rng.normal(3e4, 8e3, n).round(), 'illness': rng.choice(['a', 'b', 'c'], n)}); "
        "f(120).to_csv('real.csv', index=False); f(120).to_csv('synthetic.csv', index=False)"
    )
    assert run([str(python), "-c", make], outside, env).returncode == 0
    audited = run(
        [str(command), "audit", "real.csv", "synthetic.csv", "--sensitive", "illness",
         "--out", "report.html"], outside, env,
    )  # fmt: skip
    assert audited.returncode == 0, audited.stderr[-3000:]
    assert "DCR" in audited.stdout and (outside / "report.html").stat().st_size > 1000


def test_evaluate_runs_and_a_compendium_command_names_the_variable(wheel_env):
    python, command, env, outside = wheel_env
    code = (
        "import pandas as pd; from privmetrics.data.schema import Schema; "
        "from privmetrics.metrics import evaluate; "
        "r = pd.DataFrame({'x': [1.0, 2, 3, 4, 5, 6], 'c': list('aabbcc')}); "
        "s = Schema({'x': 'numerical', 'c': 'categorical'}, key=['x'], sensitive=['c']); "
        "t = evaluate(r, r.copy(), s, metrics=['DCR', 'NNDR']); print(t.score.round(6).tolist())"
    )
    result = run([str(python), "-c", code], outside, env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[1.0, 1.0]"  # a copy of the real rows: no privacy
    refused = run([str(command), "run", "--profile", "smoke"], outside, env)
    assert refused.returncode == 2
    assert "PRIVMETRICS_HOME" in refused.stderr and "PRIVMETRICS_RESULTS" in refused.stderr
    assert "Traceback" not in refused.stderr
