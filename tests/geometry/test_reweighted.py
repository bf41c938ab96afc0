"""Nearest-neighbour comparisons in a reweighted space from the mixed space's bounds: the same
answer as the two full searches, row for row, on releases that exercise every branch (twins,
copies, jittered copies, unrelated rows, sampled targets, a side that already searched)."""

import numpy as np
import pandas as pd
import pytest

from privmetrics.compendium.benchmarks.bench import generated_texas_like
from privmetrics.geometry import reweighted
from privmetrics.geometry.pair import Pair
from privmetrics.geometry.real_side import RealSide
from privmetrics.metrics.sampled import SampledPair


def _tables():
    real, schema = generated_texas_like(rows=200, seed=1)
    real = pd.concat([real, real.iloc[:20]], ignore_index=True)  # twins among the real rows
    rng = np.random.default_rng(2)
    jittered = real.sample(frac=1, random_state=3).reset_index(drop=True)
    for col in schema.numerical:
        jittered[col] = jittered[col] * (1 + rng.normal(0, 0.02, len(jittered)))
    shuffled = pd.DataFrame({c: rng.permutation(real[c].to_numpy()) for c in real.columns})
    half = pd.concat([real.iloc[::2], shuffled.iloc[::2]], ignore_index=True)
    releases = {"copy": real.copy(), "jittered": jittered, "shuffled": shuffled, "half": half}
    return real, schema, releases


REAL, SCHEMA, RELEASES = _tables()


def _full(pair) -> np.ndarray:
    return pair.nearest_distance("real", "synthetic", "entropy") < pair.nearest_distance(
        "real", "real", "entropy"
    )


@pytest.mark.parametrize("name", list(RELEASES))
def test_the_bounds_give_the_full_searches_answer_row_for_row(name):
    pair = Pair(REAL, RELEASES[name], SCHEMA)
    found = reweighted.nearer_release(pair, "entropy", pair.entropy_weights)
    expected = _full(Pair(REAL, RELEASES[name], SCHEMA))
    np.testing.assert_array_equal(found, expected)


def test_sampled_targets_and_a_side_that_searched_before_give_the_same_answer():
    side = RealSide(REAL, SCHEMA)
    first = Pair(side, RELEASES["shuffled"])
    _full(first)  # the side now holds the real rows' search in the entropy space
    second = Pair(side, RELEASES["half"])
    assert second.cached("real", "real", "entropy") is not None
    found = reweighted.nearer_release(second, "entropy", second.entropy_weights)
    np.testing.assert_array_equal(found, _full(Pair(REAL, RELEASES["half"], SCHEMA)))
    sampled = SampledPair(REAL, RELEASES["half"], SCHEMA, targets=60)
    found = reweighted.nearer_release(sampled, "entropy", sampled.entropy_weights)
    check = SampledPair(REAL, RELEASES["half"], SCHEMA, targets=60)
    np.testing.assert_array_equal(found, _full(check))


def test_the_bounds_spare_searches_where_they_decide(monkeypatch):
    """A jittered copy is decided by the bounds for most rows: the reweighted space is searched
    for a few rows, not for all of them."""
    searched = []
    knn = reweighted.knn

    def counted(query, index, **kwargs):
        searched.append(len(query))
        return knn(query, index, **kwargs)

    monkeypatch.setattr(reweighted, "knn", counted)
    pair = Pair(REAL, RELEASES["jittered"], SCHEMA)
    reweighted.nearer_release(pair, "entropy", pair.entropy_weights)
    assert sum(searched) < len(REAL) / 2
