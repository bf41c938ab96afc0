"""The audit command and its one-call Python API: end to end, every bad-input path, inference."""

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from privmetrics.__main__ import main
from privmetrics.audit import audit, position, position_interval, reading, relative_reading
from privmetrics.data.schema import infer_schema
from privmetrics.data.validation import InvalidInputError
from privmetrics.metrics import REGISTRY, select

FINAL = [m.name for m in REGISTRY.values() if m.final]


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    n = 120
    real = pd.DataFrame(
        {
            "age": rng.integers(20, 90, n).astype(float),
            "sex": rng.choice(["F", "M"], n),
            "region": rng.choice(["north", "south", "east", "west"], n),
            "charge": rng.lognormal(8, 1, n).round(2),
            "diagnosis": rng.choice(["a", "b", "c"], n),
        }
    )
    synthetic = real.sample(frac=1, random_state=1).reset_index(drop=True)
    synthetic["charge"] = synthetic["charge"] * rng.uniform(0.8, 1.2, n)
    real.to_csv(tmp_path / "real.csv", index=False)
    synthetic.to_csv(tmp_path / "synth.csv", index=False)
    synthetic.to_parquet(tmp_path / "synth.parquet")
    return tmp_path, real, synthetic


def run_cli(*args):
    return main(["audit", *map(str, args)])


def test_cli_end_to_end_writes_a_report_with_every_selected_metric(files, capsys):
    path, _, _ = files
    code = run_cli(
        path / "real.csv", path / "synth.csv", "--sensitive", "diagnosis", "--out", path / "r.html"
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "inferred schema" in out and "report written" in out
    report = (path / "r.html").read_text()
    for name in FINAL:
        assert name in out and f"<td>{name}</td>" in report
    assert "data:image/png;base64," in report and "version of privmetrics" in report


def test_cli_audits_several_releases_against_references_scored_once(files, capsys, monkeypatch):
    """``privmetrics audit real.csv a.csv folder/``: each release in turn, its files named after
    it, the references built for the first and kept (issue 61); the exit code is the gate's
    worst, and each release reads as it does alone."""
    from privmetrics.audit import run

    path, real, synthetic = files
    folder = path / "releases"
    folder.mkdir()
    real.to_csv(folder / "copy.csv", index=False)  # a copy of the real table: near Real
    synthetic.to_csv(folder / "noisy.csv", index=False)
    (folder / "notes.txt").write_text("not a table")
    built = []
    original = run.reference_pairs
    monkeypatch.setattr(
        run, "reference_pairs", lambda *a, **k: built.append(1) or original(*a, **k)
    )
    common = ["--sensitive", "diagnosis", "--json", path / "r.json", "--fail-on", "near-real"]
    code = run_cli(path / "real.csv", path / "synth.csv", folder, *common)
    out = capsys.readouterr().out
    assert len(built) == 1
    assert [line for line in out.splitlines() if line.startswith("===== release")] == [
        f"===== release {path / 'synth.csv'} =====",
        f"===== release {folder / 'copy.csv'} =====",
        f"===== release {folder / 'noisy.csv'} =====",
    ]
    assert out.count("Random 1, Random 2, Random 3, Real already scored on this real table") == 2
    assert {f.name for f in path.glob("r-*.json")} == {
        "r-synth.json",
        "r-copy.json",
        "r-noisy.json",
    }
    assert code == 1  # the copy meets near-real, with copies proven (exit 1 beats 3 and 0)
    alone = run_cli(path / "real.csv", folder / "noisy.csv", *common[:2], "--json", path / "n.json")
    assert alone == 0
    import json

    one, many = (json.loads((path / n).read_text()) for n in ("n.json", "r-noisy.json"))
    assert one["verdict"] == many["verdict"] and one["scores"] == many["scores"]
    assert one["evidence"] == many["evidence"]
    (path / "empty").mkdir()  # a folder without a table is refused in one line, exit 2
    assert run_cli(path / "real.csv", path / "empty") == 2
    assert "holds no table" in capsys.readouterr().err


def test_cli_all_metrics_from_parquet(files, capsys):
    path, _, _ = files
    code = run_cli(
        path / "real.csv", path / "synth.parquet", "--sensitive", "diagnosis", "--metrics", "all",
        "--out", path / "all.html",
    )  # fmt: skip
    assert code == 0
    report = (path / "all.html").read_text()
    assert all(f"<td>{name}</td>" in report for name in REGISTRY)


def test_installed_entry_point_exits_non_zero_on_bad_input(files):
    path, _, _ = files
    proc = subprocess.run(
        [sys.executable, "-m", "privmetrics", "audit", path / "nope.csv", path / "synth.csv"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "nope.csv: no such file" in proc.stderr


@pytest.mark.parametrize(
    "change, args, message",
    [
        ("missing file", [], "no such file"),
        ("garbage parquet", [], "cannot read"),
        ("extra column", [], "different columns: \\['extra'\\]"),
        ("nan", ["--missing", "refuse"], "missing values \\(NaN\\)"),
        ("none", ["--metrics", "DCR,Nope"], "unknown metric 'Nope'"),
        ("none", ["--key", "age,height"], "key attribute\\(s\\) \\['height'\\] are not columns"),
        (
            "none",
            ["--sensitive", "blood"],
            "sensitive attribute\\(s\\) \\['blood'\\] are not columns",
        ),
        ("bad schema", ["--schema", "SCHEMA"], "cannot read the schema"),
        ("text in numbers", [], "numerical in the schema but holds non-numbers"),
        ("none", ["--targets", "0"], "targets must be"),
    ],
)
def test_cli_bad_input_exits_2_with_a_clear_message(files, capsys, change, args, message):
    path, real, synthetic = files
    synth = path / "synth.csv"
    if change == "missing file":
        synth = path / "absent.csv"
    elif change == "garbage parquet":
        synth = path / "bad.parquet"
        synth.write_bytes(b"not a parquet file")
    elif change == "extra column":
        synthetic.assign(extra=1).to_csv(synth, index=False)
    elif change == "nan":
        synthetic.assign(age=synthetic.age.where(synthetic.index > 2)).to_csv(synth, index=False)
    elif change == "text in numbers":
        synthetic.assign(charge="unknown").to_csv(synth, index=False)
    if "SCHEMA" in args:
        (path / "s.yml").write_text("columns: {age: height}\n")
        args = [a if a != "SCHEMA" else path / "s.yml" for a in args]
    assert run_cli(path / "real.csv", synth, *args) == 2
    err = capsys.readouterr().err
    assert err.startswith("privmetrics audit: error:")
    assert pd.Series([err]).str.contains(message).iloc[0], err


def test_schema_inference_on_mixed_types():
    frame = pd.DataFrame(
        {
            "weight": [61.5, 72.25, 80.0, 55.5, 90.75, 66.0],  # fractional floats
            "stage": [1, 2, 3, 4, 2, 1],  # few integer codes
            "count": [10, 2000, 35, 47, 51, 999],  # integers, but too many for categories ...
            "city": ["a", "b", "c", "a", "b", "c"],  # strings
            "smoker": [True, False, True, True, False, False],  # booleans
            "sex": ["F", "M", "F", "F", "M", "M"],  # two values
        }
    )
    types = {c: str(t) for c, t in infer_schema(frame, max_categories=5).columns.items()}
    assert types == {
        "weight": "numerical",
        "stage": "categorical",
        "count": "numerical",  # ... with max_categories=5
        "city": "categorical",
        "smoker": "binary",
        "sex": "binary",
    }


def test_python_api_returns_a_tidy_table(files, capsys):
    _, real, synthetic = files
    table = audit(real, real.copy(), sensitive=["diagnosis"], baselines=False)
    assert list(table.columns) == ["metric", "category", "score", "reading"]
    assert table.metric.tolist() == FINAL
    assert capsys.readouterr().out == ""  # the API prints nothing; the command shows the schema
    # the identity leaks everything: every selected metric near 1 (MDCR: sigmoid(3) = 0.95)
    assert (table.score > 0.9).all() and table.reading.str.startswith("very high risk").all()
    # without sensitive attributes the reconstruction metric is not run, and says why
    plain = audit(real, synthetic, metrics=["CGeneralizedCAP", "DCR"])
    assert np.isnan(plain.score.iloc[0]) and "needs key and sensitive" in plain.reading.iloc[0]
    assert np.isfinite(plain.score.iloc[1])


def test_readings_are_relative_to_the_baselines_of_the_same_data(files):
    """With baselines (the default) the identity sits at Real (position 1, "near Real") on every
    metric that separates the baselines, and Random's own release at Random (position 0)."""
    _, real, _ = files
    copy = audit(real, real.copy(), sensitive=["diagnosis"])
    assert list(copy.columns) == [
        "metric",
        "category",
        "score",
        "Random",
        "Random SEM",
        "Real",
        "position",
        "position low",
        "position high",
        "reading",
    ]
    informative = copy.dropna(subset=["position"])
    assert len(informative) >= 5
    assert np.allclose(informative.position, 1.0)
    assert informative.reading.str.startswith("near Real (100% of the way").all()
    uninformative = copy[copy.position.isna()]
    assert uninformative.reading.str.startswith("uninformative here").all()


def test_relative_reading_thirds_and_a_flat_metric():
    assert relative_reading(0.2, 0.1, 0.9).startswith("near Random (12%")
    assert relative_reading(0.5, 0.1, 0.9).startswith("between Random and Real (50%")
    assert relative_reading(0.8, 0.1, 0.9).startswith("near Real (88%")
    assert relative_reading(0.5, 0.500, 0.505).startswith("uninformative")
    assert np.isnan(position(0.5, 0.5, 0.505)) and position(0.3, 0.1, 0.5) == pytest.approx(0.5)
    # PPrivacy's references on penguins, 0.000 and 0.017: too close to place anything
    assert relative_reading(0.017, 0.0, 0.017).startswith("uninformative")
    assert not relative_reading(0.03, 0.0, 0.06).startswith("uninformative")


def test_the_position_interval_comes_from_the_spread_of_the_random_draws():
    where, low, high = position_interval(0.5, [0.1, 0.1, 0.1], 0.9)
    assert (where, low, high) == (pytest.approx(0.5),) * 3  # identical draws: no uncertainty
    where, low, high = position_interval(0.5, [0.0, 0.1, 0.2], 0.9)
    sem = 0.1 / np.sqrt(3)  # SD 0.1 over three draws
    assert where == pytest.approx(0.4 / 0.8)
    # Random one SEM higher moves the release towards it (0.4 - sem) / (0.8 - sem), lower away
    assert low == pytest.approx((0.4 - sem) / (0.8 - sem))
    assert high == pytest.approx((0.4 + sem) / (0.8 + sem))
    # an interval across the 2/3 boundary names both bands; inside one band, only that one
    assert relative_reading(0.62, 0.0, 0.9, 0.60, 0.75).startswith(
        "on the border: between Random and Real / near Real (69% of the way from Random to Real, 60%-75%)"
    )
    assert relative_reading(0.5, 0.0, 0.9, 0.50, 0.60).startswith("between Random and Real (56%")


def test_audit_reports_the_spread_of_its_random_draws(files):
    _, real, synthetic = files
    one = audit(real, synthetic, sensitive=["diagnosis"], random_runs=1)
    three = audit(real, synthetic, sensitive=["diagnosis"], random_runs=3)
    assert (one["Random SEM"].fillna(0) == 0).all()
    assert (one["position low"].dropna() == one["position high"].dropna()).all()
    assert (three["Random SEM"].dropna() >= 0).all() and (three["Random SEM"] > 0).any()
    spread = three.dropna(subset=["position"])
    assert (spread["position low"] <= spread.position + 1e-12).all()
    assert (spread.position <= spread["position high"] + 1e-12).all()
    with pytest.raises(InvalidInputError, match="random_runs"):
        audit(real, synthetic, sensitive=["diagnosis"], random_runs=0)


def test_reading_bands():
    assert [reading(s) for s in (0.0, 0.3, 0.6, 0.95, 1.0)] == [
        "low risk",
        "moderate risk",
        "high risk",
        "very high risk",
        "very high risk",
    ]


def test_sampled_targets_covering_every_row_give_the_full_audit(files, capsys):
    """--targets: the same table when the targets are every row; a metric that is not an
    average over rows is not run and says why; the report names the sample."""
    path, real, synthetic = files
    full = audit(real, synthetic, sensitive=["diagnosis"], random_runs=2)
    sampled = audit(real, synthetic, sensitive=["diagnosis"], random_runs=2, targets=1000)
    pd.testing.assert_frame_equal(full, sampled)
    some = audit(
        real, synthetic, sensitive=["diagnosis"], metrics=["NNAA", "MDCR"], targets=50, report=True
    )
    nnaa, mdcr = some.table.iloc[0], some.table.iloc[1]
    assert np.isnan(nnaa.score) and "not an average over rows" in nnaa.reading
    assert np.isfinite(mdcr.score) and np.isfinite(mdcr.Random) and np.isfinite(mdcr.Real)
    assert "scores from 50 random target rows of each table" in some.remarks
    assert (
        run_cli(path / "real.csv", path / "synth.csv", "--targets", "60", "--metrics", "DCR") == 0
    )
    assert "DCR" in capsys.readouterr().out


@pytest.fixture(scope="module")
def with_holdout():
    """Texas rows split into the real table and a holdout of rows a generator never saw; a release
    with every column shuffled on its own (no row of anyone) and a copy."""
    from privmetrics.data.datasets import load_dataset

    frame, schema = load_dataset("texas", n=600, seed=0)
    frame = frame.sample(frac=1, random_state=0).reset_index(drop=True)  # a random split
    real, holdout = frame.iloc[:300].reset_index(drop=True), frame.iloc[300:].reset_index(drop=True)
    rng = np.random.default_rng(0)
    shuffled = real.apply(lambda column: column.to_numpy()[rng.permutation(len(column))])
    return real, holdout, shuffled, schema


DISTANCE = [spec.name for spec in select("all") if str(spec.kind).startswith("distance")]


def test_with_a_holdout_a_shuffled_release_reads_near_holdout_and_a_copy_near_real(with_holdout):
    real, holdout, shuffled, schema = with_holdout
    shuffled_table = audit(real, shuffled, schema=schema, metrics=DISTANCE, holdout=holdout,
                           random_runs=2)  # fmt: skip
    informative = shuffled_table[~shuffled_table.reading.str.startswith("uninformative")]
    assert len(informative) >= len(DISTANCE) - 2, shuffled_table[["metric", "reading"]]
    words = ("no closer than unseen people", "further than unseen people")
    assert informative.reading.str.startswith(words).all(), informative[["metric", "reading"]]
    assert "Holdout" in shuffled_table.columns and "Random" in shuffled_table.columns
    copy_table = audit(real, real.copy(), schema=schema, metrics=DISTANCE, holdout=holdout,
                       random_runs=2)  # fmt: skip
    informative = copy_table[~copy_table.reading.str.startswith("uninformative")]
    assert informative.reading.str.startswith("as close as a copy").all(), informative[
        ["metric", "reading"]
    ]


def test_a_holdout_of_another_size_or_kind_is_named(with_holdout):
    """Issue 62, item 1: a holdout of another size is scored at equal sizes, and the report says
    so instead of a warning that changed nothing."""
    real, holdout, _, schema = with_holdout
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        report = audit(real, real.copy(), schema=schema, metrics=["DCR"],
                       holdout=holdout.iloc[:100], random_runs=2, report=True)  # fmt: skip
    assert not [w for w in said if "rows and the release" in str(w.message)]  # no size warning
    assert any("on 100 random rows each" in remark for remark in report.remarks), report.remarks
    assert report.verdict.level == "high risk"
    with pytest.raises(InvalidInputError, match="holdout data must be a pandas DataFrame"):
        audit(real, real.copy(), schema=schema, metrics=["DCR"], holdout=[1, 2, 3])


def test_cli_reads_a_holdout_and_names_it_in_the_report(with_holdout, tmp_path, capsys):
    real, holdout, shuffled, schema = with_holdout
    for name, frame in (("real", real), ("holdout", holdout), ("release", shuffled)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    # inferred from the real rows alone, SEX_CODE is binary; the holdout also has "U": it is read
    # as categorical, with a warning, and the command shows the schema it inferred
    code = run_cli(tmp_path / "real.csv", tmp_path / "release.csv",
                   "--holdout", tmp_path / "holdout.csv", "--metrics", "DCR")  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "['SEX_CODE'] have two values in the real table and more" in out
    assert "inferred schema" in out and "SEX_CODE: categorical" in out
    (tmp_path / "schema.yml").write_text(schema.to_yaml())
    code = run_cli(
        tmp_path / "real.csv", tmp_path / "release.csv", "--holdout", tmp_path / "holdout.csv",
        "--schema", tmp_path / "schema.yml", "--metrics", "DCR,NNDR", "--out", tmp_path / "r.html",
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "Holdout" in out and "from holdout to Real" in out
    first = out.splitlines()[0]  # which file is which, before anything else
    assert first.startswith(f"real: {tmp_path / 'real.csv'} (300 rows x 18 columns); release: ")
    assert first.endswith(f"holdout: {tmp_path / 'holdout.csv'} (300 rows x 18 columns)")
    assert "holdout file" in (tmp_path / "r.html").read_text()
