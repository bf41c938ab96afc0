import numpy as np
import pandas as pd
import pytest

from privmetrics.compendium.benchmarks.bench import generated_texas_like
from privmetrics.data.validation import InvalidInputError
from privmetrics.synthesisers import SYNTHESISERS, make_synthesiser


@pytest.fixture(scope="module")
def table():
    frame, schema = generated_texas_like(rows=300, seed=5)
    frame["flag"] = np.where(frame["num0"] > frame["num0"].median(), "yes", "no").astype(object)
    schema = type(schema)(
        {**schema.columns, "flag": "binary"},
        key=schema.key,
        sensitive=schema.sensitive,
        domain={**schema.domain, "flag": ["no", "yes"]},
    )
    return frame, schema


# Small settings so that every technique fits in about a second on the 300-row table.
FAST = {
    "ctgan": {"epochs": 2, "batch_size": 100},
    "tvae": {"epochs": 2, "batch_size": 100},
    "pategan": {"epsilon": 10.0, "max_iterations": 20},
    "privbayes": {"epsilon": 1.0},
}
# MST and AIM fit on Private-PGM, which compiles (JAX) its model for each shape of marginal: at
# these 18 columns an MST fit costs 15-20 s of compiling, an AIM round about 20 s. The same checks
# (types, declared domain, a seed's repeat, a joblib worker) run in tests/synthesisers/test_pgm
# on a table of four columns instead
GENERIC = sorted(set(SYNTHESISERS) - {"aim", "mst"})


def fast(name: str, seed: int):
    return make_synthesiser(name, seed=seed, **FAST.get(name, {}))


@pytest.mark.parametrize("name", GENERIC)
def test_shape_columns_and_dtypes(table, name):
    frame, schema = table
    out = fast(name, seed=1).fit_sample(frame, schema)
    assert out.shape == frame.shape and list(out.columns) == list(frame.columns)
    for col in schema.numerical:
        assert out[col].dtype == "float64"
    for col in schema.categorical:
        assert out[col].map(type).eq(str).all()
    assert set(out["flag"]) <= {"yes", "no"}  # a binary attribute stays binary
    for col in schema.categorical:  # no technique but Random invents categories
        if name in ("privbayes", "pategan"):  # the DP ones draw from the declared domain
            assert set(out[col]) <= set(schema.domain[col].values), col
        elif name != "random":
            assert set(out[col]) <= set(frame[col]), col


@pytest.mark.parametrize("name", GENERIC)
def test_deterministic_under_a_seed(table, name):
    frame, schema = table
    a = fast(name, seed=3).fit_sample(frame, schema)
    b = fast(name, seed=3).fit_sample(frame, schema)
    pd.testing.assert_frame_equal(a, b)
    if name != "real":
        assert not a.equals(fast(name, seed=4).fit_sample(frame, schema))


@pytest.mark.slow
def test_neural_output_does_not_depend_on_the_callers_thread_count(table):
    """torch sums in another order with another thread count; the synthesiser fixes its own."""
    import torch

    frame, schema = table
    before = torch.get_num_threads()
    outputs = []
    try:
        for threads in (2, 1):
            torch.set_num_threads(threads)
            outputs.append(fast("ctgan", seed=3).fit_sample(frame, schema))
            assert torch.get_num_threads() == threads  # restored after fit and sample
    finally:
        torch.set_num_threads(before)
    pd.testing.assert_frame_equal(*outputs)


def _fit_sample(name, frame, schema):
    trained = {"epsilon": 100.0} if name == "pategan" else {}  # at 10, one iteration on 500 rows
    params = FAST.get(name, {}) | trained
    return make_synthesiser(name, seed=3, **params).fit_sample(frame, schema)


@pytest.mark.slow
@pytest.mark.parametrize("name", GENERIC)
def test_output_is_the_same_inside_a_joblib_worker(name):
    """The grid and the games generate in joblib workers, a reviewer in a plain process. (At 500
    rows ctgan's transformer runs its columns through a nested joblib pool, on threads inside a
    worker, which shared numpy's global generator: each worker task gave another table.)"""
    from joblib import Parallel, delayed

    frame, schema = generated_texas_like(rows=500, seed=5)
    here = _fit_sample(name, frame, schema)
    for there in Parallel(n_jobs=2)(delayed(_fit_sample)(name, frame, schema) for _ in range(2)):
        pd.testing.assert_frame_equal(here, there)


def test_real_is_the_identity(table):
    frame, schema = table
    pd.testing.assert_frame_equal(make_synthesiser("real").fit_sample(frame, schema), frame)
    with pytest.raises(InvalidInputError, match="at most the 300 fitted rows"):
        make_synthesiser("real").fit(frame, schema).sample(301)


def test_random_follows_algorithm_22(table):
    frame, schema = table
    out = make_synthesiser("random", seed=0).fit_sample(frame, schema, n=5000)
    for col in schema.numerical:  # noise of hundreds of ranges: almost everything is outside
        low, high = frame[col].min(), frame[col].max()
        assert ((out[col] < low) | (out[col] > high)).mean() > 0.95
    for col in [c for c in schema.categorical if schema.columns[c] == "categorical"]:
        levels = out[col].nunique()
        assert 50 <= levels <= 160, (col, levels)  # about max(100, nCats) +- Laplace(0, 10)
        assert set(frame[col]) & set(out[col])  # the observed values stay in the pool


def test_random_does_not_depend_on_a_single_row(table):
    frame, schema = table
    frame = frame.assign(
        **{c: (frame[c] // 1000) * 1000.0 for c in schema.numerical}
    )  # repeated values
    changed = frame.copy()
    # row 0 becomes a copy of row 1: sets of observed values and ranges are unchanged as long as
    # row 0 held no unique value; pick such a pair of rows
    counts = {c: frame[c].value_counts() for c in frame.columns}
    row = next(
        i for i in range(len(frame)) if all(counts[c][frame.at[i, c]] > 1 for c in frame.columns)
    )
    changed.iloc[row] = frame.iloc[(row + 1) % len(frame)]
    a = make_synthesiser("random", seed=2).fit_sample(frame, schema)
    b = make_synthesiser("random", seed=2).fit_sample(changed, schema)
    pd.testing.assert_frame_equal(a, b)


def test_uniform_stays_inside_the_public_domain(table):
    frame, schema = table
    out = make_synthesiser("uniform", seed=0).fit_sample(frame, schema, n=2000)
    for col in schema.numerical:
        assert out[col].between(frame[col].min(), frame[col].max()).all()
    for col in schema.categorical:
        assert set(out[col]) == set(frame[col])  # uniform draws hit every value at n = 2000
    custom = make_synthesiser("uniform", seed=0, domains={"num0": (0.0, 1.0)}).fit_sample(
        frame, schema
    )
    assert custom["num0"].between(0, 1).all()


def test_bad_use_gives_clear_errors(table):
    frame, schema = table
    with pytest.raises(KeyError, match="unknown synthesiser 'gan'.*random"):
        make_synthesiser("gan")
    with pytest.raises(RuntimeError, match="must be fitted before sampling"):
        make_synthesiser("random").sample(10)
    with pytest.raises(InvalidInputError, match="must be a positive integer, got 0"):
        make_synthesiser("random").fit(frame, schema).sample(0)
    with pytest.raises(InvalidInputError, match="lacks column"):
        make_synthesiser("uniform").fit(frame.drop(columns="num1"), schema)


def test_cache_generates_each_table_once(table, tmp_path):
    from privmetrics.synthesisers import SyntheticCache

    frame, schema = table
    cache = SyntheticCache(tmp_path)
    calls = []

    def make():
        calls.append(1)
        return make_synthesiser("random", seed=1).fit_sample(frame, schema)

    key = cache.key("toy", "random", {"seed": 1}, seed=1, rows=len(frame))
    first = cache.get_or_make(key, make)
    second = SyntheticCache(tmp_path).get_or_make(key, make)  # a new process would see the same
    pd.testing.assert_frame_equal(first, second)
    assert len(calls) == 1 and cache.misses == 1
    other = cache.key("toy", "random", {"seed": 1}, seed=2, rows=len(frame))
    assert cache.path(other) != cache.path(key)
    assert not list(tmp_path.glob("*.tmp"))


def _cached_pair(table, tmp_path):
    from privmetrics.synthesisers import SyntheticCache

    frame, schema = table
    cache = SyntheticCache(tmp_path)
    keys = [cache.key("toy", "random", {}, seed=s, rows=len(frame)) for s in (1, 2)]
    tables = [
        cache.get_or_make(
            k, lambda s=s: make_synthesiser("random", seed=s).fit_sample(frame, schema)
        )
        for k, s in zip(keys, (1, 2), strict=True)
    ]
    return cache, keys, tables


def test_cache_is_parquet_not_pickle(table, tmp_path):
    import pyarrow.parquet as pq

    cache, keys, _ = _cached_pair(table, tmp_path)
    path = cache.path(keys[0])
    assert path.suffix == ".parquet" and pq.read_table(path).num_rows == len(table[0])
    assert not list(tmp_path.glob("*.pkl"))


@pytest.mark.parametrize("damage", ["truncate", "swap", "edit"])
def test_cache_detects_a_damaged_or_swapped_file_and_regenerates(table, tmp_path, damage):
    from privmetrics.synthesisers.cache import CacheWarning, SyntheticCache

    cache, keys, tables = _cached_pair(table, tmp_path)
    path, other = cache.path(keys[0]), cache.path(keys[1])
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:200])
    elif damage == "swap":
        path.write_bytes(other.read_bytes())
    else:  # rewrite the values but keep the metadata of the original
        import pyarrow as pa
        import pyarrow.parquet as pq

        stored = pq.read_table(path)
        edited = tables[0].copy()
        edited.iloc[0, 0] = edited.iloc[1, 0]
        arrow = pa.Table.from_pandas(edited, preserve_index=False)
        pq.write_table(arrow.replace_schema_metadata(stored.schema.metadata), path)
    calls = []

    def make():
        calls.append(1)
        return tables[0]

    with pytest.warns(CacheWarning, match=str(path.name)):
        again = SyntheticCache(tmp_path).get_or_make(keys[0], make)
    assert calls == [1]
    pd.testing.assert_frame_equal(again, tables[0])
    # regenerated and stored again: the next read is a silent hit
    fresh = SyntheticCache(tmp_path)
    pd.testing.assert_frame_equal(fresh.get_or_make(keys[0], make), tables[0])
    assert fresh.hits == 1 and calls == [1]


def test_cache_writers_of_one_key_never_collide(table, tmp_path):
    """Twenty threads writing one key at once: each uses its own temporary file (one shared
    '.tmp' name made 17 of 20 such trials fail with FileNotFoundError)."""
    from concurrent.futures import ThreadPoolExecutor

    from privmetrics.synthesisers import SyntheticCache

    frame, schema = table
    made = make_synthesiser("random", seed=1).fit_sample(frame, schema)
    cache = SyntheticCache(tmp_path)
    key = cache.key("toy", "random", {}, seed=1, rows=len(frame))
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: cache.write(cache.path(key), key, made), range(20)))
    pd.testing.assert_frame_equal(SyntheticCache(tmp_path).get_or_make(key, lambda: None), made)
    assert not list(tmp_path.glob("*.tmp"))
