"""Missing values (issue 27): one documented treatment for the metrics, the audit and the synthesisers."""

import warnings

import numpy as np
import pandas as pd
import pytest

from privmetrics.data.missing import (
    MISSING_CATEGORY,
    MissingValuesWarning,
    restore_missing,
    treat_missing,
)
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.pair import Pair
from privmetrics.metrics import compute
from privmetrics.synthesisers import make_synthesiser
from privmetrics.synthesisers.with_missing import WithMissing

SCHEMA = Schema(
    columns={"age": "numerical", "sex": "binary", "town": "categorical"},
    key=["age", "sex"],
    sensitive=["town"],
)


def tiny():
    real = pd.DataFrame(
        {"age": [10.0, np.nan, 30.0, 50.0], "sex": ["F", "M", None, "F"],
         "town": ["a", "b", "a", None]}
    )  # fmt: skip
    synthetic = pd.DataFrame(
        {"age": [20.0, 40.0, np.nan, np.nan], "sex": ["F", "F", "M", "M"],
         "town": ["a", "a", "b", "b"]}
    )  # fmt: skip
    return real, synthetic


def test_indicator_rule_by_hand():
    real, synthetic = tiny()
    tables, schema, summary = treat_missing({"real": real, "synthetic": synthetic}, SCHEMA)
    r, s = tables["real"], tables["synthetic"]
    # the median of the real ages present (10, 30, 50) fills every table's gaps
    assert summary.fills == {"age": 30.0}
    assert r.age.tolist() == [10.0, 30.0, 30.0, 50.0] and s.age.tolist() == [20.0, 40.0, 30.0, 30.0]
    assert r["age (missing)"].tolist() == ["no", "yes", "no", "no"]
    assert s["age (missing)"].tolist() == ["no", "no", "yes", "yes"]
    # categorical gaps are a category; a binary column with gaps has three values
    assert r.sex.tolist() == ["F", "M", MISSING_CATEGORY, "F"]
    assert r.town.tolist()[3] == MISSING_CATEGORY
    assert schema.columns["sex"] == "categorical" and schema.columns["age (missing)"] == "binary"
    # the flag takes its column's role
    assert "age (missing)" in schema.key and "age (missing)" not in schema.sensitive
    assert summary.gaps == {"real": {"age": 1, "sex": 1, "town": 1}, "synthetic": {"age": 2}}
    assert "age (missing)" in str(summary) and "missing='indicator'" in str(summary)


def test_tables_without_gaps_come_back_unchanged():
    real, _ = tiny()
    clean = real.dropna()
    tables, schema, summary = treat_missing({"real": clean, "s": clean.copy()}, SCHEMA)
    assert tables["real"] is clean and schema is SCHEMA and not summary.any


def test_drop_rows_and_refuse_say_what_they_did():
    real, synthetic = tiny()
    tables, _, summary = treat_missing({"real": real, "s": synthetic}, SCHEMA, "drop-rows")
    assert summary.dropped == {"real": 3, "s": 2} and len(tables["real"]) == 1
    assert "dropped with their rows" in str(summary)
    with pytest.raises(InvalidInputError, match="missing='indicator'"):
        treat_missing({"real": real, "s": synthetic}, SCHEMA, "refuse")
    with pytest.raises(InvalidInputError, match="missing must be one of"):
        treat_missing({"real": real}, SCHEMA, "impute")


def test_a_column_missing_everywhere_or_holding_the_marker_is_refused():
    real, synthetic = tiny()
    with pytest.raises(InvalidInputError, match="missing in every row"):
        treat_missing({"real": real.assign(age=np.nan), "s": synthetic}, SCHEMA)
    with pytest.raises(InvalidInputError, match="already holds the value"):
        treat_missing({"real": real.assign(town=["a", MISSING_CATEGORY, "b", None])}, SCHEMA)


def test_restore_round_trip():
    real, _ = tiny()
    tables, _, summary = treat_missing({"real": real}, SCHEMA)
    back = restore_missing(tables["real"], summary)
    pd.testing.assert_frame_equal(back.isna(), real.isna())
    assert back.age.tolist()[0] == 10.0 and list(back.columns) == list(real.columns)


def test_the_metrics_take_missing_values_with_a_warning_and_refuse_on_request():
    real, synthetic = tiny()
    with pytest.warns(MissingValuesWarning, match="flagged in \\['age \\(missing\\)'\\]"):
        pair = Pair(real, synthetic, SCHEMA)
    assert pair.missing.any and "age (missing)" in pair.schema.names
    with pytest.raises(InvalidInputError, match="missing='indicator'"):
        compute("DCR", real, synthetic, SCHEMA, missing="refuse")


def test_a_gap_is_its_own_value_for_the_distances():
    """A real row with a missing age has its copy in the release: with the flag, its nearest
    release row is at distance 0; a release row with the median age but no gap is not."""
    real = pd.DataFrame({"age": [10.0, np.nan, 50.0], "sex": ["F", "M", "F"], "town": list("abc")})
    exact = real.copy()
    typical = real.fillna({"age": 30.0})  # the median, present: not the same person
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingValuesWarning)
        same = Pair(real, exact, SCHEMA).nearest_distance("real", "synthetic")
        other = Pair(real, typical, SCHEMA).nearest_distance("real", "synthetic")
    assert same[1] == 0 and other[1] > 0 and other[0] == 0


@pytest.mark.parametrize("technique, params", [("random", {}), ("privbayes", {"epsilon": 5.0}),
                                               ("real", {})])  # fmt: skip
def test_synthesisers_learn_and_give_back_gaps(technique, params):
    rng = np.random.default_rng(0)
    n = 400
    real = pd.DataFrame(
        {
            "age": np.where(rng.random(n) < 0.3, np.nan, rng.normal(50, 10, n)),
            "sex": np.where(rng.random(n) < 0.2, None, rng.choice(["F", "M"], n)),
            "town": rng.choice(list("abc"), n),
        }
    )
    # the DP synthesiser needs the public domain; the flag and "(missing)" join it
    schema = Schema(columns=SCHEMA.columns, key=SCHEMA.key, sensitive=SCHEMA.sensitive,
                    domain={"age": {"low": 0, "high": 120}, "sex": ["F", "M"],
                            "town": ["a", "b", "c"]})  # fmt: skip
    out = WithMissing(make_synthesiser(technique, seed=0, **params)).fit_sample(real, schema)
    assert list(out.columns) == list(real.columns) and len(out) == n
    assert 0 < out.age.isna().mean() < 1 and 0 < out.sex.isna().mean() < 1
    assert MISSING_CATEGORY not in set(out.sex.dropna())
    if technique == "real":
        pd.testing.assert_frame_equal(out.isna(), real.isna())


def test_a_synthesiser_alone_names_the_wrapper():
    real, _ = tiny()
    with pytest.raises(InvalidInputError, match="WithMissing"):
        make_synthesiser("random").fit(real, SCHEMA)


def test_every_metric_scores_a_table_with_gaps_in_both_kinds_of_column():
    from privmetrics.data.datasets import load_dataset
    from privmetrics.metrics import evaluate

    real, schema = load_dataset("flchain", n=300, seed=0)
    synthetic, _ = load_dataset("flchain", n=300, seed=1)
    rng = np.random.default_rng(0)
    for frame in (real, synthetic):
        frame.loc[rng.random(len(frame)) < 0.15, "creatinine"] = np.nan
        frame.loc[rng.random(len(frame)) < 0.15, "chapter"] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = evaluate(Pair(real, synthetic, schema), metrics="all").set_index("metric").score
    assert scores.between(0, 1).all() and np.isfinite(scores).all(), scores
