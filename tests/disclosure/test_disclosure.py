"""Risk-of-disclosure notions (Chen, Yu and Dargahi, Section 3.2): hand-computed values, the
paper's p-privacy example, and the Voronoi construction checked against scipy's diagram."""

import numpy as np
import pandas as pd
import pytest
from scipy.spatial import Voronoi

from privmetrics.data.schema import Schema
from privmetrics.disclosure import notions as rod
from privmetrics.metrics import compute

O_EXAMPLE = np.array([(3, 5, 1, 2, 3), (8, 1, 2, 3, 4), (2, 2, 3, 4, 5)], float)
D_EXAMPLE = np.array([(4, 5, 1, 2, 3), (8, 7, 2, 3, 4), (3, 1, 2, 3, 4)], float)


def test_p_privacy_worked_example_is_two_27ths():
    result = rod.p_privacy(O_EXAMPLE, D_EXAMPLE, tau=0.9)
    assert result.p == pytest.approx(2 / 27, abs=1e-15)
    assert result.candidates == 18 and result.xi == 2 and not result.estimated
    assert [list(map(int, c)) for c in result.cliques] == [[0], [1], [2, 3, 4]]
    # corr(A1, A2) = 0.866 in D: a threshold below it joins them into one clique
    assert len(rod.dependency_cliques(D_EXAMPLE, tau=0.85)) == 2


def test_p_privacy_estimates_by_sampling_above_the_cap():
    exact = rod.p_privacy(O_EXAMPLE, D_EXAMPLE, tau=0.9)
    sampled = rod.p_privacy(O_EXAMPLE, D_EXAMPLE, tau=0.9, max_candidates=5, seed=1)
    assert sampled.estimated and sampled.candidates == 18
    big = rod.p_privacy(O_EXAMPLE, D_EXAMPLE, tau=0.9, max_candidates=4, seed=2)
    # an unbiased estimate of xi from a sample of F: the mean over seeds approaches 2
    xis = [rod.p_privacy(O_EXAMPLE, D_EXAMPLE, 0.9, 9, seed=s).xi for s in range(400)]
    assert np.mean(xis) == pytest.approx(exact.xi, rel=0.1) and big.estimated


def test_coverage_uses_the_optimal_matching_not_the_greedy_one():
    original = np.array([[0.0], [2.0]])
    synthetic = np.array([[1.0], [3.0]])
    # greedy from the first synthetic row would take 0<->1 or 2<->1 at cost 1 then pay 3 or 1;
    # the optimal matching pairs 1<->0 and 3<->2, both at distance 1
    result = rod.yp_coverage(original, synthetic, y=1.0, p=0.5)
    assert sorted(result.omega) == [1.0, 1.0] and result.p_prime == 1.0 and not result.fulfilled
    tight = rod.yp_coverage(np.array([[0.0], [10.0]]), np.array([[1.0], [10.5]]), y=0.6, p=0.5)
    assert tight.p_prime == 0.5 and tight.fulfilled


def test_coverage_rejects_bad_thresholds():
    with pytest.raises(ValueError, match="y >= 0 and p in"):
        rod.yp_coverage(O_EXAMPLE, D_EXAMPLE, y=-1)


def test_y_privacy_min_and_median_by_hand():
    original = np.array([[0.0, 0.0], [10.0, 0.0]])
    synthetic = np.array([[3.0, 4.0], [10.0, 1.0], [20.0, 0.0]])  # distances 5, 1, 10
    assert rod.y_privacy(original, synthetic, "min") == pytest.approx(1.0)
    assert rod.y_privacy(original, synthetic, "median") == pytest.approx(5.0)
    with pytest.raises(ValueError, match="aggregate must be"):
        rod.y_privacy(original, synthetic, "max")


def test_voronoi_targets_lie_on_scipy_cell_boundaries():
    points = np.random.default_rng(0).normal(size=(60, 2))
    targets = rod.voronoi_targets(points)
    diagram = Voronoi(points)
    neighbours = {i: set() for i in range(len(points))}
    for a, b in diagram.ridge_points:
        neighbours[a].add(b)
        neighbours[b].add(a)
    for i, target in enumerate(targets):
        distances = np.linalg.norm(points - target, axis=1)
        nearest_site = np.argsort(distances)[:2]
        # the midpoint is equidistant from O_i and one Voronoi neighbour, and no site is closer:
        # it lies on the boundary of O_i's cell, and at half the nearest-neighbour distance
        assert i in nearest_site and np.ptp(distances[nearest_site]) < 1e-12
        assert set(nearest_site) - {i} <= neighbours[i]
        spacing = np.sort(np.linalg.norm(points - points[i], axis=1))[1]
        assert np.linalg.norm(target - points[i]) == pytest.approx(spacing / 2)


def test_voronoi_privacy_grows_as_the_release_moves_away():
    rng = np.random.default_rng(1)
    original = rng.normal(size=(300, 3))
    near = rod.voronoi_privacy(original, original + rng.normal(0, 0.05, original.shape))
    far = rod.voronoi_privacy(original, original + 3)
    assert near < far


def test_numeric_arrays_scale_and_refuse_tables_without_numbers():
    frame = pd.DataFrame({"x": [0.0, 5.0, 10.0], "y": [1.0, 1.0, 3.0], "c": list("abc")})
    schema = Schema({"x": "numerical", "y": "numerical", "c": "categorical"})
    o, d = rod.numeric_arrays(frame, frame.assign(x=[20.0, 5.0, 0.0]), schema, "minmax")
    assert o.shape == (3, 2)
    assert o[:, 0] * np.sqrt(2) == pytest.approx([0, 0.5, 1]) and d[0, 0] * np.sqrt(2) == 2
    with pytest.raises(ValueError, match="numerical attributes, and the schema has none"):
        rod.numeric_arrays(frame, frame, Schema({"c": "categorical"}))
    with pytest.raises(ValueError, match="scaling must be one of"):
        rod.numeric_arrays(frame, frame, schema, "log")


def test_registered_measures_order_a_copy_a_noisy_copy_and_noise():
    rng = np.random.default_rng(2)
    n = 400
    real = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n)})
    schema = Schema({c: "numerical" for c in real.columns})
    noisy = real + rng.normal(0, 0.3, real.shape)
    noise = pd.DataFrame(rng.normal(size=real.shape), columns=real.columns)
    for name in ("YPCoverage", "YPrivacy", "VoronoiPrivacy"):
        scores = [compute(name, real, z, schema) for z in (real, noisy, noise)]
        assert scores[0] == pytest.approx(1.0) and scores[0] > scores[1] > scores[2], name


def test_p_privacy_is_one_when_one_clique_holds_every_attribute():
    # three perfectly correlated attributes: one clique, F = the synthetic rows themselves
    x = np.repeat(np.arange(10.0), 3)
    real = pd.DataFrame({"a": x, "b": 2 * x, "c": 3 * x + 1})
    schema = Schema({c: "numerical" for c in real.columns})
    assert compute("PPrivacy", real, real, schema) == pytest.approx(1 / 3)  # xi = 10 of |O| = 30
    independent = real.assign(b=np.random.default_rng(3).permutation(real.b.to_numpy()))
    assert compute("PPrivacy", real, independent, schema) < 0.05


@pytest.mark.parametrize("wide", [False, True])
def test_row_codes_are_equal_exactly_for_equal_rows(wide):
    """p-privacy's membership test numbers rows column by column; with more distinct values than
    an int64 can number (``wide``: 40 columns of 10 values) it falls back to whole rows."""
    from privmetrics.disclosure.notions import row_codes

    rng = np.random.default_rng(0)
    table = rng.integers(0, 10, (500, 40 if wide else 4)).astype(float)
    table[250:] = table[rng.integers(0, 250, 250)]  # every later row repeats an earlier one
    codes = row_codes(table)
    same_code = codes[:, None] == codes[None, :]
    same_row = (table[:, None, :] == table[None, :, :]).all(axis=2)
    np.testing.assert_array_equal(same_code, same_row)
    assert len(np.unique(codes)) == len(np.unique(table, axis=0)) < len(table)
