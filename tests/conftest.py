import os

import numpy as np
import pandas as pd
import pytest

from privmetrics.data.schema import Schema
from privmetrics.threads import available_cores, per_worker

# Test files of ``make test-fast`` (marked ``fast``): hand-computed values, properties, inputs and
# the package's shape; no notebook, neural network, cluster, book or benchmark. Under a minute on
# two cores; ``make test`` runs everything.
FAST_FILES = {
    "test_analysis.py", "test_crossref.py", "test_datasets.py", "test_disclosure.py",
    "test_epsilon.py", "test_errata.py", "test_layout.py", "test_membership.py",
    "test_timings.py", "test_validation.py", "test_ways.py", "test_metric_inputs.py",
    "test_schema_files.py", "test_audit_files.py", "test_synthesiser_inputs.py", "test_cli.py",
    "test_dp_synthesisers.py", "test_neighbours.py", "test_alc.py", "test_runner.py",
    "test_games.py", "test_game_analysis.py", "test_prose.py", "test_budgets.py",
}  # fmt: skip


def pytest_configure(config):
    """Each xdist worker gets its share of the cores for BLAS/OpenMP (and passes it on to the
    kernels and processes it starts): two workers each running a machine-wide OpenMP pool make
    both spin, which once made a half-second test take 81 s. And every process of the session
    shares one JAX compilation cache (:func:`_share_jax_compilations`)."""
    _share_jax_compilations()
    # Private-PGM compiles new XLA programs for every fit (its loss closes over the noisy
    # measurements, so neither JAX's cache nor the persistent one finds them again): an MST fit
    # on 40 Texas rows spent 6.7 of its 8 s compiling. Without XLA's backend optimisations
    # (test sessions only; the grid and the book keep XLA's defaults) compiling costs 40% less,
    # and the tests' MST and AIM releases came out identical to the last bit.
    os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers:
        from threadpoolctl import threadpool_limits

        share = per_worker(int(workers)) if available_cores() > 1 else 1
        for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(variable, str(share))
        threadpool_limits(share)


# JAX's persistent compilation cache, shared by the session's workers and the processes they
# start: MST's and AIM's Private-PGM models compile the same programs in many tests (a joblib
# worker, another seed, another corrupted table); test_pgm.py alone took 41.7 s without it and
# 29.3 s with it, starting empty. Made by the first process of the session, removed by it.
JAX_CACHE = "JAX_COMPILATION_CACHE_DIR"
_made_jax_cache = None


def _share_jax_compilations():
    global _made_jax_cache
    if JAX_CACHE not in os.environ:
        import tempfile

        _made_jax_cache = os.environ[JAX_CACHE] = tempfile.mkdtemp(prefix="privmetrics-jax-")
        os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"  # every program
        os.environ["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"


def pytest_unconfigure(config):
    if _made_jax_cache:
        import shutil

        shutil.rmtree(_made_jax_cache, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in FAST_FILES and "slow" not in item.keywords:
            item.add_marker(pytest.mark.fast)


@pytest.fixture
def tiny():
    """A six-row mixed table with its schema (key: sex, age; sensitive: disease)."""
    frame = pd.DataFrame(
        {
            "sex": ["F", "M", "F", "M", "F", "M"],
            "age": [30.0, 40.0, 50.0, 60.0, 70.0, 80.0],
            "disease": ["a", "b", "a", "c", "b", "c"],
            "charge": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
    schema = Schema(
        columns={
            "sex": "binary",
            "age": "numerical",
            "disease": "categorical",
            "charge": "numerical",
        },
        key=("sex", "age"),
        sensitive=("disease",),
    )
    return frame, schema


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def make_secret_table():
    """The factory :func:`_secret_table`, for module-scoped fixtures."""
    return _secret_table


def _secret_table(rows: int, seed: int, shares=(0.25, 0.25, 0.25, 0.25), sex: bool = True):
    """Known attributes (age, region, income and optionally sex) and a categorical ``secret`` drawn
    independently of them with the given value shares: nothing but a copy of the rows reveals it."""
    rng = np.random.default_rng(seed)
    columns = {
        "age": rng.integers(18, 90, rows).astype(float),
        "sex": rng.choice(["F", "M"], rows),
        "region": rng.choice(list("abcdefgh"), rows),
        "income": rng.lognormal(10, 1, rows).round(-2),
        "secret": rng.choice(["p", "q", "r", "s"], rows, p=list(shares)),
    }
    if not sex:
        del columns["sex"]
    types = {"age": "numerical", "sex": "binary", "region": "categorical",
             "income": "numerical", "secret": "categorical"}  # fmt: skip
    domain = {"age": {"low": 0, "high": 120}, "sex": ["F", "M"], "region": list("abcdefgh"),
              "income": {"low": 0, "high": 1e7, "scale": "log"}, "secret": ["p", "q", "r", "s"]}  # fmt: skip
    frame = pd.DataFrame(columns)
    return frame, Schema(
        {c: types[c] for c in frame.columns},
        sensitive=["secret"],
        domain={c: domain[c] for c in frame.columns},
    )


@pytest.fixture(scope="session")
def texas300():
    """Two disjoint-seed 300-row Texas samples and the schema: (real, other, schema)."""
    from privmetrics.data.datasets import load_dataset

    real, schema = load_dataset("texas", n=300, seed=0)
    other, _ = load_dataset("texas", n=300, seed=1)
    return real, other, schema


def dated(n=200, seed=0, tz=None):
    rng = np.random.default_rng(seed)
    start = pd.Timestamp("2020-01-01", tz=tz)
    return pd.DataFrame({
        "admitted": start + pd.to_timedelta(rng.integers(0, 900 * 24, n), unit="h"),
        "age": rng.integers(20, 90, n).astype(float),
        "ward": rng.choice(list("abcd"), n),
    })  # fmt: skip


DATED = Schema({"admitted": "numerical", "age": "numerical", "ward": "categorical"},
               key=("admitted", "age"), sensitive=("ward",))  # fmt: skip


@pytest.fixture(scope="session")
def make_dated():
    """(the factory :func:`dated`, its schema): a table with a date, a number and a category."""
    return dated, DATED


@pytest.fixture(autouse=True)
def _fresh_audit_references():
    """Each test starts without the references a previous test's audit kept
    (:mod:`privmetrics.audit.references`): a test that patches a setting between audits of one
    real table must not read scores from before the patch unless it means to."""
    from privmetrics.audit.references import KEPT

    KEPT.clear()
    yield
    KEPT.clear()
