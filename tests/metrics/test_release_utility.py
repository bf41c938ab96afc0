"""The utility measures of a release (marginal TVDs and train-on-synthetic / test-on-real
accuracy): hand-computed values on tiny tables, a copy against noise, and bad input."""

import numpy as np
import pandas as pd
import pytest

from privmetrics.data.schema import ColumnType, Schema
from privmetrics.metrics.release_utility import MEASURES, release_utility, tstr_accuracy

C, N = ColumnType.CATEGORICAL, ColumnType.NUMERICAL


def structured(n=400, seed=0):
    """``y`` is a function of ``a`` (a copy of the rule is learnable); ``x`` is noise."""
    rng = np.random.default_rng(seed)
    a = rng.choice(["p", "q", "r"], size=n)
    y = np.where(a == "p", "yes", "no")
    return pd.DataFrame({"a": a, "x": rng.normal(size=n), "y": y})


SCHEMA = Schema({"a": C, "x": N, "y": C}, key=("a",), sensitive=("y",))


def test_tstr_by_hand_on_a_tiny_table():
    # the release teaches "p -> yes, q -> no"; of the four real rows, the last breaks the rule
    release = pd.DataFrame(
        {"a": ["p", "p", "q", "q"], "x": [0.0] * 4, "y": ["yes", "yes", "no", "no"]}
    )
    real = pd.DataFrame({"a": ["p", "q", "q", "p"], "x": [0.0] * 4, "y": ["yes", "no", "no", "no"]})
    assert tstr_accuracy(release, real, SCHEMA) == pytest.approx(3 / 4)


def test_a_copy_is_useful_and_noise_is_not():
    real, holdout = structured(seed=0), structured(seed=1)
    rng = np.random.default_rng(2)
    noise = real.apply(lambda col: rng.permutation(col.to_numpy()))  # marginals kept, links broken
    copy = release_utility(real, real, SCHEMA, holdout)
    shuffled = release_utility(real, noise, SCHEMA, holdout)
    assert set(copy) == set(MEASURES)
    assert copy["one-way TVD"] == 0 and copy["two-way TVD"] == 0
    assert copy["TSTR accuracy"] == pytest.approx(1.0)  # the rule holds in the holdout too
    assert shuffled["one-way TVD"] == 0 < shuffled["two-way TVD"]
    assert shuffled["TSTR accuracy"] < 0.8
    for value in shuffled.values():
        assert 0 <= value <= 1


def test_a_numerical_target_is_predicted_as_quantile_classes():
    rng = np.random.default_rng(0)
    a = rng.choice(["p", "q"], size=500)
    frame = pd.DataFrame({"a": a, "v": np.where(a == "p", 10.0, -10.0) + rng.normal(size=500)})
    schema = Schema({"a": C, "v": N}, key=("a",), sensitive=("v",))
    # "a" tells the lower half from the upper one, not the quintile within it: about 2/5
    accuracy = tstr_accuracy(frame, frame, schema)
    assert 0.3 < accuracy < 0.5


def test_row_order_does_not_matter():
    real, release = structured(seed=0), structured(seed=3)
    shuffled = release.sample(frac=1, random_state=0).reset_index(drop=True)
    assert release_utility(real, release, SCHEMA) == pytest.approx(
        release_utility(real, shuffled, SCHEMA)
    )


def test_an_empty_release_is_refused():
    real = structured()
    with pytest.raises(ValueError, match="no rows"):
        release_utility(real, real.iloc[:0], SCHEMA)
