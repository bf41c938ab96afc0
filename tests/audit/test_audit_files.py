"""The audit on files as users have them: roles that overlap, columns coded differently, compressed
CSV, Parquet dates, other formats, numbers too large for the Random baseline, and the mistakes a
steward makes (a tiny release, swapped files, a holdout short of a column)."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import privmetrics.__main__ as cli
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError


@pytest.fixture
def files(tmp_path, texas300):
    real, other, _ = texas300
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


def test_the_audit_names_a_column_too_large_for_its_random_baseline(texas300, tmp_path, capsys):
    real, other, schema = texas300
    for name, frame in (("r", real), ("s", other)):
        frame.assign(TOTAL_CHARGES=frame.TOTAL_CHARGES * 1e300).to_csv(tmp_path / f"{name}.csv",
                                                                        index=False)  # fmt: skip
    (tmp_path / "schema.yml").write_text(schema.to_yaml())
    code = cli.main(["audit", str(tmp_path / "r.csv"), str(tmp_path / "s.csv"), "--schema",
                     str(tmp_path / "schema.yml"), "--metrics", "DCR"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "'TOTAL_CHARGES' holds" in err and "rescale the column" in err


# --- mistakes a steward makes (issue 43) -----------------------------------------------------------


def run_audit(real, synthetic, **kw):
    from privmetrics.audit import audit

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = audit(real, synthetic, metrics="DCR", baselines=False, **kw)
    return result, [str(w.message) for w in caught]


def test_a_third_value_of_an_inferred_binary_column_is_a_warning_not_a_refusal(texas300):
    """Texas SEX_CODE: F and M in a sample, U in a DP release of the declared domain."""
    real, other, _ = texas300
    real = real.assign(SEX_CODE=np.where(real.SEX_CODE == "U", "F", real.SEX_CODE))
    assert real.SEX_CODE.nunique() == 2
    other = other.assign(SEX_CODE=["U"] * 5 + list(other.SEX_CODE[5:]))
    table, said = run_audit(real, other)
    assert len(table) == 1
    assert any("['SEX_CODE'] have two values in the real table and more" in s for s in said)


def test_a_few_stray_values_in_a_coded_column_are_unseen_values_not_another_coding():
    """A categorical year: 5 of 158 release values off by 0.01 must not recode the other 153."""
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"year": rng.choice([2001.0, 2002.0, 2003.0], 158),
                         "x": rng.normal(size=158)})  # fmt: skip
    release = real.sample(frac=1, random_state=1).reset_index(drop=True)
    release.loc[:4, "year"] = 2001.01
    table, said = run_audit(real, release)
    assert len(table) == 1 and any("2001.01" in s for s in said)


def test_two_rows_cannot_show_a_columns_type(texas300):
    real, other, _ = texas300
    with pytest.raises(InvalidInputError, match="has 2 row.s., too few to tell a column's type"):
        run_audit(real.iloc[:2], other)


def test_a_holdout_without_a_column_is_named(texas300):
    real, other, _ = texas300
    with pytest.raises(InvalidInputError, match=r"the holdout lacks column\(s\) \['RACE'\]"):
        run_audit(real, other, holdout=other.drop(columns="RACE"))


def test_a_holdout_with_an_extra_column_is_refused_like_one_without(texas300):
    real, other, _ = texas300
    with pytest.raises(InvalidInputError, match=r"the holdout has column\(s\) \['extra'\] that "
                                                r"the real table lacks"):  # fmt: skip
        run_audit(real, other, holdout=other.assign(extra=1))


@pytest.mark.parametrize("sep", [";", "\t"])
def test_a_csv_without_commas_is_read_with_its_own_separator(files, capsys, sep):
    path, real, other = files
    real.to_csv(path / "semi.csv", index=False, sep=sep)
    other.to_csv(path / "semi-synth.csv", index=False, sep=sep)
    from privmetrics.audit.files import read_table

    with pytest.warns(UserWarning, match=re.escape(f"read with the separator {sep!r}")):
        frame = read_table(path / "semi.csv")
    assert list(frame.columns) == list(real.columns) and len(frame) == len(real)
    code, plain = audit_cli(capsys, path / "real.csv", path / "synth.csv")
    code_s, semi = audit_cli(capsys, path / "semi.csv", path / "semi-synth.csv")
    assert code == code_s == 0 and plain.out.splitlines()[-2] == semi.out.splitlines()[-2]


def test_a_comma_file_is_not_sniffed(files):
    from privmetrics.audit.files import read_table

    path, real, _ = files
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no separator warning for an ordinary CSV
        assert read_table(path / "real.csv").shape == real.shape


@pytest.mark.parametrize("kind", ["gzip", "bz2", "xz", "zip"])
def test_a_compressed_file_named_csv_is_named_as_one(files, capsys, kind):
    path, real, _ = files
    real.to_csv(path / "packed.csv", index=False, compression=kind)
    code, out = audit_cli(capsys, path / "packed.csv", path / "synth.csv")
    suffix = {"gzip": ".gz"}.get(kind, f".{kind}")
    assert code == 2 and f"it is a compressed file ({kind}) named .csv" in out.err
    assert f"rename it packed.csv{suffix}" in out.err


def test_a_csv_column_of_iso_dates_is_read_as_days(tmp_path):
    from privmetrics.audit.files import conform, read_table
    from privmetrics.data.schema import infer_schema

    rng = np.random.default_rng(0)
    days = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 400, 300), unit="D")
    frame = pd.DataFrame({"admitted": days.strftime("%Y-%m-%d"), "ward": rng.choice(list("abc"), 300),
                          "code": rng.choice(["2020-x", "2021-y", "z"], 300)})  # fmt: skip
    frame.loc[5, "admitted"] = ""  # a gap stays a gap
    frame.to_csv(tmp_path / "dates.csv", index=False)
    with pytest.warns(UserWarning, match=r"column\(s\) \['admitted'\] hold dates"):
        read = read_table(tmp_path / "dates.csv")
    schema = infer_schema(read)
    assert schema.columns["admitted"] == "numerical" and schema.columns["code"] == "categorical"
    days_read = conform(read, schema, "real data")["admitted"]
    assert days_read.isna().sum() == 1
    assert days_read.iloc[0] == (days[0] - pd.Timestamp("1970-01-01")).days


def test_a_tiny_release_and_swapped_files_are_warned_about(texas300):
    from privmetrics.audit.run import mistakes
    from privmetrics.data.schema import infer_schema
    from privmetrics.geometry.real_side import RealSide

    real, other, schema = texas300

    def said(real, release, holdout):
        return mistakes(RealSide(real, schema), release, holdout)

    assert said(real, other, None) == []
    assert "under a tenth" in said(real, other.iloc[:20], None)[0]
    # without a holdout: a "release" larger than the "real" table that holds its rows
    bigger = pd.concat([real, other], ignore_index=True)
    assert "look swapped" in said(real.iloc[:100], bigger, None)[0]
    # with one: the "release" (in truth the real table) lies nearer to the holdout
    from privmetrics.synthesisers import make_synthesiser

    synthetic = make_synthesiser("random", seed=0).fit_sample(real, schema)
    holdout = pd.concat([other.iloc[:150], real.iloc[:150]], ignore_index=True)
    assert "look swapped" in said(synthetic, real, holdout)[0]
    assert not [m for m in said(real, synthetic, holdout) if "swapped" in m]
    # against a holdout a swap is refused (issue 62, item 5): exit 2 with the reason
    with pytest.raises(InvalidInputError, match="look swapped.*Refused: every score would read"):
        run_audit(synthetic, real, holdout=holdout)
    assert infer_schema(real).names == schema.names


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".parquet"])
def test_holdout_split_writes_two_disjoint_parts_in_the_same_format(texas300, tmp_path, suffix):
    from privmetrics.audit.files import read_table, split_holdout

    frame = texas300[0]
    frame = frame.assign(missing=np.where(np.arange(len(frame)) % 7 == 0, np.nan, 1.0))
    real = tmp_path / f"real{suffix}"
    frame.to_parquet(real, index=False) if suffix == ".parquet" else frame.to_csv(real, index=False)
    train, holdout = split_holdout(real, 0.25, seed=3)
    assert (train.name, holdout.name) == (f"real-train{suffix}", f"real-holdout{suffix}")
    a, b = read_table(train), read_table(holdout)
    assert (len(a), len(b)) == (225, 75)

    # together the two parts are the table's rows, each once, missing values kept
    # (compared as text: a part without the column's one "INVALID" is read as numbers)
    def rows(t):
        return sorted(map(tuple, t.astype(str).to_numpy()))

    assert rows(pd.concat([a, b])) == rows(read_table(real))
    assert b.missing.isna().sum() + a.missing.isna().sum() == frame.missing.isna().sum()
    # seeded: the same split again would overwrite, and is refused
    with pytest.raises(InvalidInputError, match="would overwrite"):
        split_holdout(real, 0.25, seed=3)


def test_holdout_split_on_the_command_line_says_what_comes_next(files, capsys):
    path = files[0]
    code, out = audit_cli(capsys, path / "real.csv", "--holdout-split", "0.2")
    assert code == 0 and (path / "real-holdout.csv").exists()
    assert f"--holdout {path / 'real-holdout.csv'}" in out.out
    assert "train your generator on" in out.out
    for bad in (["--holdout-split", "1.5"], ["--holdout-split", "0.0001"]):
        code, out = audit_cli(capsys, path / "real.csv", *bad)
        assert code == 2 and "--holdout-split" in out.err
    # a release given with it is a mistake: the split comes before training
    code, out = audit_cli(capsys, path / "real.csv", path / "synth.csv", "--holdout-split", "0.3")
    assert code == 2 and "give no release" in out.err
    # and without it, the release is required
    code, out = audit_cli(capsys, path / "real.csv")
    assert code == 2 and "give the release to audit" in out.err
