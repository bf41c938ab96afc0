"""The audit command on files as users have them: roles that overlap, columns coded differently,
compressed CSV, Parquet dates, other formats, and numbers too large for the Random baseline."""

import numpy as np
import pandas as pd
import pytest

import privmetrics.__main__ as cli
from privmetrics.data.schema import Schema


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
