"""Scores from sampled target rows (privmetrics.metrics.sampled): exact neighbours for the targets,
the right rows lined up, the whole table when the targets cover it, and a refusal for metrics
whose score is not an average over rows."""

import numpy as np
import pytest

from privmetrics.compendium.benchmarks.bench import generated_texas_like
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.pair import Pair
from privmetrics.metrics import REGISTRY, evaluate, get_metric
from privmetrics.metrics.sampled import SampledPair, estimable, estimate, sampling_error


@pytest.fixture(scope="module")
def generated():
    real, schema = generated_texas_like(1200, 0)
    synthetic, _ = generated_texas_like(900, 1)
    return real, synthetic, schema


def test_targets_covering_every_row_give_the_exact_scores_bit_for_bit(generated):
    real, synthetic, schema = generated
    sampled = estimate(real, synthetic, schema, targets=5000).set_index("metric")["score"]
    exact = evaluate(real, synthetic, schema, metrics="final").set_index("metric")["score"]
    assert list(sampled.index) == list(exact.index) and len(exact) == 7
    assert (sampled == exact).all(), sampled.compare(exact)


@pytest.mark.parametrize("space", ["mixed", "famd", "entropy"])
def test_each_target_gets_its_exact_neighbours_in_every_direction(generated, space):
    real, synthetic, schema = generated
    full, sampled = Pair(real, synthetic, schema), SampledPair(real, synthetic, schema, targets=300)
    for query in ("real", "synthetic"):
        rows = sampled.target_rows(query)
        assert len(rows) == 300 and len(np.unique(rows)) == 300
        for index in ("real", "synthetic"):
            d_full, i_full = full.neighbours(query, index, 1, space)
            d, i = sampled.neighbours(query, index, 1, space)
            np.testing.assert_array_equal(d, d_full[rows])
            np.testing.assert_array_equal(i, i_full[rows])
            if query == index:
                assert (i[:, 0] != rows).all()  # a target is never its own neighbour


def test_cap_on_sampled_targets_is_the_cap_of_those_real_rows(generated):
    # with exact values (no bins fitted on the real rows) the score is a plain mean over targets
    real, synthetic, schema = generated
    pair = SampledPair(real, synthetic, schema, targets=250, draw=3)
    rows = pair.target_rows("real")
    on_targets = get_metric("CGeneralizedCAP@paper")(Pair(real.iloc[rows], synthetic, schema))
    assert get_metric("CGeneralizedCAP@paper")(pair) == pytest.approx(on_targets, abs=1e-15)


def test_a_metric_that_is_not_an_average_over_rows_is_refused(generated):
    real, synthetic, schema = generated
    pair = SampledPair(real, synthetic, schema, targets=100)
    with pytest.raises(InvalidInputError, match="AttributeInference cannot be estimated"):
        REGISTRY["AttributeInference"](pair)
    assert set(estimable("final")) == {m.name for m in REGISTRY.values() if m.final}
    assert "AttributeInference" not in estimable("all")


def test_draws_differ_and_the_error_is_within_sampling_bounds(generated):
    real, synthetic, schema = generated
    a, b = (SampledPair(real, synthetic, schema, targets=400, draw=d) for d in (0, 1))
    assert not np.array_equal(a.target_rows("real"), b.target_rows("real"))
    error = sampling_error(real, synthetic, schema, targets=600, draws=2).set_index("metric")
    # the detector trained on half the rows: an estimate too, and a weaker detector only
    assert error.loc["DetectionMLP", "at_scale"] == "sampled"
    assert error.loc["DetectionMLP", "largest error"] < 0.2
    # a share estimated from 600 of 1,200 rows: standard error <= 0.5 sqrt((1 - f) / 600) = 0.0144
    for share in ("Authenticity", "MemInf", "HittingRate"):
        assert error.loc[share, "largest error"] <= 4 * 0.0144, share
