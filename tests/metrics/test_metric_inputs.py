"""Metrics on inputs as users have them: one-row tables (refused), pandas category and nullable
dtypes with gaps, and dates (days since 1970)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privmetrics.data.validation import InvalidInputError
from privmetrics.metrics import compute

ONE_ROW = ["CloseValueProb", "DistantValueProb", "NearestSynNeighborDistance",
           "AttributeInference", "CGeneralizedCAP"]  # fmt: skip


@pytest.mark.parametrize("name", ONE_ROW)
def test_one_row_each_is_refused_not_scored_as_a_perfect_match(texas300, name):
    real, other, schema = texas300
    with pytest.raises(InvalidInputError, match=f"{name} needs at least 2 rows"):
        compute(name, real.iloc[:1], other.iloc[:1], schema)
    assert 0 <= compute(name, real.iloc[:2], other.iloc[:2], schema) <= 1


@pytest.mark.parametrize("name", ["AttributeInference", "IdentifiabilityScore", "NNDR", "DCR",
                                  "HiddenRate"])  # fmt: skip
def test_an_unused_pandas_category_changes_nothing(texas300, name):
    real, other, schema = texas300
    categories = sorted(set(real.RACE) | set(other.RACE)) + ["never used"]
    as_category = [
        f.assign(RACE=pd.Categorical(f.RACE, categories=categories)) for f in (real, other)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert compute(name, *as_category, schema) == compute(name, real, other, schema)


NULLABLE = {  # a dtype a user's table may carry, and the kinds of column it fits
    "Float64": "numerical", "string": "categorical", "category": "categorical",
}  # fmt: skip


@given(data=st.data())
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
def test_nullable_and_category_dtypes_with_gaps_are_scored_like_plain_ones(texas300, data):
    """A column as a pandas nullable or category dtype, with some cells missing (pd.NA) on either
    side: every metric drawn scores in [0, 1], as the plain-dtype table with NaN in those cells."""
    real, other, schema = texas300
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


@pytest.mark.parametrize("tz", [None, "Europe/Copenhagen"])
@pytest.mark.parametrize("name", ["DCR", "CZeroCAP", "KSTest", "HittingRate"])
def test_metrics_score_a_date_as_its_days_since_1970(name, tz, make_dated):
    dated, DATED = make_dated
    from privmetrics.data.dtypes import plain

    real, synth = dated(tz=tz), dated(seed=1, tz=tz)
    days = [t.assign(admitted=(t.admitted.dt.tz_localize(None) if tz is None else
                               t.admitted.dt.tz_convert("UTC").dt.tz_localize(None))
                     - pd.Timestamp("1970-01-01")) for t in (real, synth)]  # fmt: skip
    days = [t.assign(admitted=t.admitted / pd.Timedelta(days=1)) for t in days]
    assert compute(name, real, synth, DATED) == compute(name, *days, DATED)
    plain_real, types = plain(real)
    assert plain_real.admitted.dtype == "float64" and list(types.dates) == ["admitted"]
