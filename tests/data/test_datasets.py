import hashlib

import pandas as pd
import pytest

from privmetrics.data import datasets
from privmetrics.data.schema import ColumnType
from privmetrics.data.validation import validate
from privmetrics.paths import checkout_root


@pytest.fixture(scope="module")
def loaded():
    return {name: datasets.load(name) for name in datasets.dataset_names()}


EXPECTED = {  # name: (rows, columns, numerical)
    "texas": (25000, 18, 7),
    "flchain": (6524, 11, 5),
    "randhie": (20190, 10, 6),
}


def test_the_three_datasets_have_manifests():
    assert set(EXPECTED) <= set(datasets.dataset_names())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_shape_types_and_schema(loaded, name):
    data = loaded[name]
    rows, cols, numerical = EXPECTED[name]
    assert data.frame.shape == (rows, cols)
    assert list(data.frame.columns) == data.schema.names
    assert len(data.schema.numerical) == numerical
    for col in data.schema.numerical:
        assert data.frame[col].dtype == "float64"
    for col in data.schema.categorical:
        assert data.frame[col].map(type).eq(str).all(), col
    assert data.schema.key and data.schema.sensitive
    assert not data.frame.isna().any().any()
    validate(data.frame, None, data.schema)  # raises on any inconsistency


def test_texas_is_the_first_25000_rows_unprocessed(loaded):
    texas = loaded["texas"].frame
    raw = pd.read_csv(checkout_root() / "../shared/data/texas.csv", dtype=str, nrows=3)
    assert texas.loc[1, "PAT_AGE"] == raw.loc[1, "PAT_AGE"] == "01"  # leading zero kept
    assert texas.loc[0, "TOTAL_CHARGES"] == float(raw.loc[0, "TOTAL_CHARGES"])
    assert "INVALID" in set(texas["RACE"]) | set(texas["PAT_STATUS"]) | set(texas["SEX_CODE"])


def test_flchain_missing_value_policy(loaded):
    flchain = loaded["flchain"].frame
    assert "alive" in set(flchain["chapter"])  # survivors are kept, not dropped
    assert (flchain["chapter"] == "alive").sum() > 4000
    assert len(flchain) == 7874 - 1350  # rows with missing creatinine are dropped


def test_binary_columns_have_two_values(loaded):
    for data in loaded.values():
        for col, kind in data.schema.columns.items():
            if kind is ColumnType.BINARY:
                assert data.frame[col].nunique() == 2, (data.name, col)


def test_subsampling_is_deterministic_and_seeded():
    a, _ = datasets.load_dataset("flchain", n=500, seed=3)
    b, _ = datasets.load_dataset("flchain", n=500, seed=3)
    c, _ = datasets.load_dataset("flchain", n=500, seed=4)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 500 and not a.equals(c)


def test_sample_rows_rejects_nonpositive():
    with pytest.raises(ValueError, match="n must be positive"):
        datasets.sample_rows(pd.DataFrame({"x": [1, 2]}), 0)


def test_unknown_dataset_lists_known_ones():
    with pytest.raises(KeyError, match="unknown dataset 'medonc'.*texas"):
        datasets.load_manifest("medonc")


def test_git_blob_id_matches_git():
    # `printf 'hello\n' | git hash-object --stdin` gives ce0136250e...
    assert datasets.git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_texas_checksum_rejects_a_corrupt_copy(tmp_path, monkeypatch):
    bad = tmp_path / "texas.csv"
    bad.write_bytes(b"DISCHARGE\n2013Q4\n")
    monkeypatch.setenv("PRIVMETRICS_TEXAS_CSV", str(bad))
    with pytest.raises(datasets.DatasetUnavailableError, match="none of the published versions"):
        datasets.load("texas")


def test_texas_unavailable_offline_gives_clear_error(tmp_path, monkeypatch):
    manifest = datasets.load_manifest("texas")
    source = dict(
        manifest["source"],
        shared=str(tmp_path / "absent.csv"),
        cache=str(tmp_path / "c.csv"),
        url="http://127.0.0.1:9/texas.csv",
    )
    with pytest.raises(
        datasets.DatasetUnavailableError, match="no local copy found.*download.*failed"
    ):
        datasets._csv_bytes(source)


def test_shared_texas_copy_is_a_published_version():
    content = (checkout_root() / "../shared/data/texas.csv").read_bytes()
    assert hashlib.sha256(content).hexdigest() == (
        "3290d8e2a6245753b1a45ed2e5ec1c72ff2c0c350bad80a8c26abd6a5cc6237e"
    )
    assert (
        datasets.git_blob_id(content) in datasets.load_manifest("texas")["source"]["git_blob_ids"]
    )


def test_strong_attacker_keys_are_all_non_sensitive_columns(loaded):
    for data in loaded.values():
        assert set(data.schema.key) | set(data.schema.sensitive) == set(data.schema.names)
        assert not set(data.schema.key) & set(data.schema.sensitive)


def test_demographic_attacker_keys():
    _, schema = datasets.load_dataset("texas", n=10, attacker="demographic")
    assert schema.key == ("SEX_CODE", "PAT_AGE", "RACE", "ETHNICITY", "PAT_STATE")
    with pytest.raises(ValueError, match="attacker must be"):
        datasets.load_dataset("texas", n=10, attacker="nosy")


def test_health_table_follows_footnote_1():
    from privmetrics.data.datasets import health_table

    frame = health_table(rows=20_000, seed=3)
    assert list(frame.columns) == ["HEIGHT", "WEIGHT", "BMI", "DBP", "SBP"]
    assert (frame == frame.round()).all().all()  # integers, so rows can coincide
    assert abs(frame.HEIGHT.mean() - 170) < 0.5 and abs(frame.WEIGHT.std() - 12) < 0.5
    # BMI computed from height and weight (before rounding: within rounding error)
    bmi = frame.WEIGHT / (frame.HEIGHT / 100) ** 2
    assert (bmi - frame.BMI).abs().median() < 0.6
    # blood pressures follow BMI with small noise
    assert frame[["BMI", "DBP", "SBP"]].corr().min().min() > 0.8
    assert health_table(rows=100, seed=3).equals(health_table(rows=100, seed=3))
