"""The long tail of bad input (each case failed on main before this file): one-row tables, real
outliers, pandas category dtypes, schema files, overlapping roles, differently coded files,
compressed files and dates, Ctrl-C."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privmetrics.__main__ as cli
from privmetrics.data.datasets import load_dataset
from privmetrics.data.schema import Schema, SchemaError
from privmetrics.data.validation import InvalidInputError, OutlierWarning
from privmetrics.metrics import compute

ONE_ROW = ["CloseValueProb", "DistantValueProb", "NearestSynNeighborDistance",
           "AttributeInference", "CGeneralizedCAP"]  # fmt: skip


@pytest.fixture(scope="module")
def texas():
    real, schema = load_dataset("texas", n=300, seed=0)
    other, _ = load_dataset("texas", n=300, seed=1)
    return real, other, schema


@pytest.mark.parametrize("name", ONE_ROW)
def test_one_row_each_is_refused_not_scored_as_a_perfect_match(texas, name):
    real, other, schema = texas
    with pytest.raises(InvalidInputError, match=f"{name} needs at least 2 rows"):
        compute(name, real.iloc[:1], other.iloc[:1], schema)
    assert 0 <= compute(name, real.iloc[:2], other.iloc[:2], schema) <= 1


def test_a_far_outlier_in_the_real_table_warns(texas):
    real, other, schema = texas
    real = real.copy()
    real.loc[0, "TOTAL_CHARGES"] = 1e300
    with pytest.warns(OutlierWarning, match="real values .* TOTAL_CHARGES: 1e\\+300"):
        compute("DCR", real, other, schema)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OutlierWarning)
        compute("DCR", *texas)  # the clean pair: no such warning


@pytest.mark.parametrize("name", ["AttributeInference", "IdentifiabilityScore", "NNDR", "DCR",
                                  "HiddenRate"])  # fmt: skip
def test_an_unused_pandas_category_changes_nothing(texas, name):
    real, other, schema = texas
    categories = sorted(set(real.RACE) | set(other.RACE)) + ["never used"]
    as_category = [
        f.assign(RACE=pd.Categorical(f.RACE, categories=categories)) for f in (real, other)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert compute(name, *as_category, schema) == compute(name, real, other, schema)


# --- schema files and roles ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "columns: {a: numerical}\nsensitve: [a]\n",
            "unknown field 'sensitve' .did you mean 'sensitive'",
        ),
        (
            "columns: {a: numerical, b: categorcal}\n",
            "type 'categorcal' .did you mean 'categorical'",
        ),
        ("columns: {a: numerical, b: binary}\nkey: a\n", "'key' must be a list"),
        (
            "columns: {a: numerical, b: binary}\nkey: [a, b]\nsensitive: [b]\n",
            "both key and sensitive",
        ),
        ("columns: {age: numerical}\nkey: [agee]\n", "'agee' is not a column .did you mean 'age'"),
    ],
)
def test_schema_files_are_validated_field_by_field(tmp_path, text, message):
    (tmp_path / "s.yml").write_text(text)
    with pytest.raises(SchemaError, match=message):
        Schema.from_yaml(tmp_path / "s.yml")


@pytest.fixture
def files(tmp_path, texas):
    real, other, _ = texas
    real.to_csv(tmp_path / "real.csv", index=False)
    other.to_csv(tmp_path / "synth.csv", index=False)
    return tmp_path, real, other


def audit_cli(capsys, *args):
    code = cli.main(["audit", *map(str, args), "--no-baselines", "--metrics", "DCR"])
    return code, capsys.readouterr()


def test_a_sensitive_attribute_given_as_a_key_is_refused(files, capsys):
    path, real, _ = files
    code, out = audit_cli(capsys, path / "real.csv", path / "synth.csv", "--key",
                          "ILLNESS_SEVERITY,RACE", "--sensitive", "ILLNESS_SEVERITY")  # fmt: skip
    assert code == 2 and "['ILLNESS_SEVERITY'] are both key (--key) and sensitive" in out.err
    schema = Schema({c: "numerical" if real[c].dtype.kind == "f" else "categorical" for c in real},
                    key=["RACE", "SEX_CODE"])  # fmt: skip
    (path / "s.yml").write_text(schema.to_yaml())
    code, out = audit_cli(capsys, path / "real.csv", path / "synth.csv", "--schema", path / "s.yml",
                          "--sensitive", "RACE")  # fmt: skip
    assert code == 2 and "both key (the schema file's key) and sensitive" in out.err


def test_a_column_coded_differently_in_the_two_files_is_refused(files, capsys):
    path, real, other = files
    real.assign(SEX_CODE=real.SEX_CODE.map({"F": 1, "M": 2, "U": 3})).to_csv(
        path / "coded.csv", index=False
    )
    code, out = audit_cli(capsys, path / "coded.csv", path / "synth.csv")
    assert code == 2 and "column 'SEX_CODE' shares no value between the files" in out.err


@pytest.mark.parametrize("suffix", [".csv.gz", ".csv.bz2", ".csv.xz", ".zip"])
def test_compressed_csv_files_are_read(files, capsys, suffix):
    path, real, other = files
    real.to_csv(path / f"real{suffix}", index=False)
    other.to_csv(path / f"synth{suffix}", index=False)
    code, plain = audit_cli(capsys, path / "real.csv", path / "synth.csv")
    code_c, packed = audit_cli(capsys, path / f"real{suffix}", path / f"synth{suffix}")
    assert code == code_c == 0
    assert plain.out.splitlines()[-2] == packed.out.splitlines()[-2]  # the DCR line


def test_other_formats_are_refused_with_the_supported_list(files, capsys):
    path, *_ = files
    (path / "real.xlsx").write_bytes(b"PK\x03\x04 not really excel")
    code, out = audit_cli(capsys, path / "real.xlsx", path / "synth.csv")
    assert code == 2 and ".xlsx is not a supported format; use one of .csv" in out.err


def test_a_parquet_datetime_column_is_read_as_days(tmp_path, capsys):
    rng = np.random.default_rng(0)
    days = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, 200), unit="D")
    real = pd.DataFrame({"admitted": days, "age": rng.integers(20, 90, 200).astype(float),
                         "ward": rng.choice(list("abcd"), 200)})  # fmt: skip
    synth = real.sample(frac=1, random_state=1).reset_index(drop=True)
    real.to_parquet(tmp_path / "r.parquet")
    synth.to_parquet(tmp_path / "s.parquet")
    code, out = audit_cli(
        capsys, tmp_path / "r.parquet", tmp_path / "s.parquet", "--sensitive", "ward"
    )
    assert code == 0, out.err
    assert "admitted: numerical" in out.out  # the inferred schema
    # a shuffled copy: every row has a twin
    assert any(line.split()[:1] == ["DCR"] and "1.000" in line for line in out.out.splitlines())


def test_ctrl_c_ends_in_one_line(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_list", interrupted)
    assert cli.main(["list"]) == 130
    assert capsys.readouterr().err == "privmetrics list: interrupted\n"


@pytest.mark.parametrize("technique", ["random", "uniform", "privbayes", "pategan", "real"])
def test_a_synthesiser_refuses_numbers_it_cannot_square_and_warns_on_far_ones(texas, technique):
    """Issue 29: with a column times 1e300 Random returned 300 of 300 non-finite values; with one
    1e12 outlier every technique's medians moved by orders of magnitude without a word."""
    from privmetrics.synthesisers import make_synthesiser

    real, _, schema = texas
    schema = schema.with_roles()  # the roles do not matter to a synthesiser
    fast = {"pategan": {"epsilon": 10.0, "max_iterations": 5, "n_teachers": 2, "domain": "data"},
            "privbayes": {"epsilon": 1.0, "domain": "data"}}.get(technique, {})  # fmt: skip
    huge = real.assign(TOTAL_CHARGES=real.TOTAL_CHARGES * 1e300)
    with pytest.raises(InvalidInputError, match="'TOTAL_CHARGES' holds .* overflow"):
        make_synthesiser(technique, seed=0, **fast).fit(huge, schema)
    far = real.copy()
    far.loc[0, "TOTAL_CHARGES"] = 1e12
    with pytest.warns(OutlierWarning, match="TOTAL_CHARGES"):
        make_synthesiser(technique, seed=0, **fast).fit(far, schema)


def test_the_audit_names_a_column_too_large_for_its_random_baseline(texas, tmp_path, capsys):
    real, other, schema = texas
    for name, frame in (("r", real), ("s", other)):
        frame.assign(TOTAL_CHARGES=frame.TOTAL_CHARGES * 1e300).to_csv(tmp_path / f"{name}.csv",
                                                                        index=False)  # fmt: skip
    (tmp_path / "schema.yml").write_text(schema.to_yaml())
    code = cli.main(["audit", str(tmp_path / "r.csv"), str(tmp_path / "s.csv"), "--schema",
                     str(tmp_path / "schema.yml"), "--metrics", "DCR"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "'TOTAL_CHARGES' holds" in err and "rescale the column" in err


# --- pandas nullable dtypes, drawn (issue 29: keep the new kinds of input fixed) ------------------

NULLABLE = {  # a dtype a user's table may carry, and the kinds of column it fits
    "Float64": "numerical", "string": "categorical", "category": "categorical",
}  # fmt: skip


@given(data=st.data())
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
def test_nullable_and_category_dtypes_with_gaps_are_scored_like_plain_ones(texas, data):
    """A column as a pandas nullable or category dtype, with some cells missing (pd.NA) on either
    side: every metric drawn scores in [0, 1], as the plain-dtype table with NaN in those cells."""
    real, other, schema = texas
    dtype = data.draw(st.sampled_from(sorted(NULLABLE)))
    kind = NULLABLE[dtype]
    columns = schema.numerical if kind == "numerical" else schema.categorical
    column = data.draw(st.sampled_from(sorted(columns)))
    side = data.draw(st.sampled_from(["real", "synthetic"]))
    rows = data.draw(st.lists(st.integers(0, 299), min_size=1, max_size=30, unique=True))
    metric = data.draw(st.sampled_from(["DCR", "MemInf", "CGeneralizedCAP", "NNDR", "HittingRate"]))
    frames = {"real": real.copy(), "synthetic": other.copy()}
    plain = {k: v.copy() for k, v in frames.items()}
    frames[side][column] = frames[side][column].astype(dtype)
    frames[side].loc[rows, column] = pd.NA
    plain[side].loc[rows, column] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        score = compute(metric, frames["real"], frames["synthetic"], schema)
        expected = compute(metric, plain["real"], plain["synthetic"], schema)
    assert 0 <= score <= 1 and score == pytest.approx(expected, abs=1e-12), (dtype, column, metric)


# --- dates and pandas dtypes in the metrics and the synthesisers (issue 29) -----------------------


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


@pytest.mark.parametrize("tz", [None, "Europe/Copenhagen"])
@pytest.mark.parametrize("name", ["DCR", "CZeroCAP", "KSTest", "HittingRate"])
def test_metrics_score_a_date_as_its_days_since_1970(name, tz):
    from privmetrics.data.dtypes import plain

    real, synth = dated(tz=tz), dated(seed=1, tz=tz)
    days = [t.assign(admitted=(t.admitted.dt.tz_localize(None) if tz is None else
                               t.admitted.dt.tz_convert("UTC").dt.tz_localize(None))
                     - pd.Timestamp("1970-01-01")) for t in (real, synth)]  # fmt: skip
    days = [t.assign(admitted=t.admitted / pd.Timedelta(days=1)) for t in days]
    assert compute(name, real, synth, DATED) == compute(name, *days, DATED)
    plain_real, types = plain(real)
    assert plain_real.admitted.dtype == "float64" and list(types.dates) == ["admitted"]


def test_dtypes_round_trip_exactly():
    from privmetrics.data.dtypes import plain, restore

    table = dated(tz="UTC").assign(
        ward=lambda t: pd.Categorical(t.ward, categories=list("abcdz")),
        beds=pd.array(np.arange(200) % 7, dtype="Int64"),
    )
    flat, types = plain(table)
    assert [str(d) for d in flat.dtypes] == ["float64", "float64", "object", "float64"]
    back = restore(flat, types)
    pd.testing.assert_series_equal(back.admitted, table.admitted.astype("datetime64[s, UTC]"))
    assert list(back.ward.cat.categories) == list("abcdz") and (back.ward == table.ward).all()
    assert back.beds.dtype == "Int64" and (back.beds == table.beds).all()


@pytest.mark.parametrize("technique", ["random", "privbayes", "ctgan", "tvae"])
def test_a_bare_technique_names_the_wrapper_and_the_wrapper_takes_dates_and_categories(technique):
    """Issue 29: Random failed on a date column with a DTypePromotionError and turned an unused
    category into NaN (89-97% of the values); CTGAN/TVAE raised SDV's "category type"."""
    from privmetrics.synthesisers import make_synthesiser
    from privmetrics.synthesisers.missing import WithMissing

    params = {"ctgan": {"epochs": 1}, "tvae": {"epochs": 1},
              "privbayes": {"epsilon": 1.0, "domain": "data"}}.get(technique, {})  # fmt: skip
    table = dated().assign(ward=lambda t: pd.Categorical(t.ward, categories=list("abcdz")))
    with pytest.raises(InvalidInputError, match="'admitted' holds dates .*WithMissing"):
        make_synthesiser(technique, seed=0, **params).fit(table, DATED)
    with pytest.raises(
        InvalidInputError, match=r"\['ward'\] have a pandas category dtype.*WithMissing"
    ):
        make_synthesiser(technique, seed=0, **params).fit(table.assign(admitted=1.0), DATED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = WithMissing(make_synthesiser(technique, seed=0, **params)).fit_sample(table, DATED)
    assert out.ward.notna().all() and list(out.ward.cat.categories)[:5] == list("abcdz")
    assert pd.api.types.is_datetime64_any_dtype(out.admitted) and out.admitted.notna().all()
    if technique != "random":  # Random's Laplace noise is hundreds of ranges wide by design
        assert (
            out.admitted.between(pd.Timestamp("2019-06-01"), pd.Timestamp("2023-01-01")).mean()
            > 0.5
        )


@pytest.mark.parametrize("technique", ["ctgan", "tvae"])
def test_sdv_techniques_refuse_numbers_they_cannot_square(texas, technique):
    """Issue 29: CTGAN/TVAE raised "array must not contain infs or NaNs" on huge values."""
    from privmetrics.synthesisers import make_synthesiser

    real, _, schema = texas
    huge = real.assign(TOTAL_CHARGES=real.TOTAL_CHARGES * 1e300)
    with pytest.raises(InvalidInputError, match="'TOTAL_CHARGES' holds .* overflow"):
        make_synthesiser(technique, seed=0, epochs=1).fit(huge, schema.with_roles())
