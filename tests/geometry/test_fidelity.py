import pandas as pd
import pytest

from privmetrics.data.schema import Schema
from privmetrics.geometry.fidelity import column_tvd, marginal_distance


def test_total_variation_by_hand():
    real = pd.Series(["a", "a", "b", "b"])
    # p = (1/2, 1/2), q = (3/4, 1/4): TVD = (1/4 + 1/4) / 2
    assert column_tvd(real, pd.Series(["a", "a", "a", "b"]), numerical=False) == 0.25
    assert column_tvd(real, pd.Series(["c", "d"]), numerical=False) == 1.0
    assert column_tvd(real, real.sample(frac=1, random_state=0), numerical=False) == 0.0


def test_two_way_marginals_see_what_one_way_marginals_miss():
    schema = Schema({"u": "categorical", "v": "categorical"})
    real = pd.DataFrame({"u": ["a", "b"] * 50, "v": ["x", "y"] * 50})
    swapped = pd.DataFrame(
        {"u": ["a", "b"] * 50, "v": ["y", "x"] * 50}
    )  # same columns, pairs broken
    assert marginal_distance(real, swapped, schema) == 0.0
    assert marginal_distance(real, swapped, schema, order=2) == 1.0
    with pytest.raises(ValueError, match="order must be 1 or 2"):
        marginal_distance(real, swapped, schema, order=3)


def test_numerical_values_outside_the_real_range_fall_in_the_end_bins():
    schema = Schema({"x": "numerical"})
    real = pd.DataFrame({"x": [float(i) for i in range(100)]})
    far = pd.DataFrame({"x": [1e9] * 100})  # everything in the top bin of 20: TVD = 1 - 1/20
    assert marginal_distance(real, far, schema) == pytest.approx(0.95)
