import numpy as np
import pandas as pd
import pytest
from sklearn.neighbors import NearestNeighbors

from privmetrics.data.schema import Schema
from privmetrics.geometry.encoding import MixedEncoder, quantile_bins
from privmetrics.geometry.neighbours import knn
from privmetrics.geometry.projection import FAMD


@pytest.mark.parametrize("dims", [2, 40])  # the KD-tree route and the brute-force route
def test_knn_matches_sklearn(dims, rng):
    query, index = rng.random((300, dims)), rng.random((500, dims))
    dist, idx = knn(query, index, k=3)
    ref_dist, _ = NearestNeighbors(n_neighbors=3, algorithm="brute").fit(index).kneighbors(query)
    np.testing.assert_allclose(dist, ref_dist, atol=1e-12)
    np.testing.assert_allclose(
        np.linalg.norm(query[:, None] - index[idx], axis=2), dist, atol=1e-12
    )


@pytest.mark.parametrize("dims", [2, 40])
def test_copies_are_at_distance_exactly_zero(dims, rng):
    index = rng.random((400, dims)) * 1e4
    dist, idx = knn(index[::-1], index, k=1)
    assert (dist == 0).all()
    np.testing.assert_array_equal(idx[:, 0], np.arange(400)[::-1])


@pytest.mark.parametrize("dims", [2, 40])
def test_exclude_self_finds_the_other_rows_and_duplicates(dims, rng):
    data = rng.random((50, dims))
    data[7] = data[3]  # a duplicate: each is the other's neighbour at distance 0
    dist, idx = knn(data, data, k=2, exclude_self=True)
    assert (idx != np.arange(50)[:, None]).all()
    assert dist[3, 0] == 0 and idx[3, 0] == 7 and dist[7, 0] == 0 and idx[7, 0] == 3
    full = np.linalg.norm(data[:, None] - data[None], axis=2)
    np.fill_diagonal(full, np.inf)
    np.testing.assert_allclose(dist[:, 0], full.min(axis=1), atol=1e-12)


def test_ties_go_to_the_lower_index():
    index = np.array([[1.0], [-1.0], [1.0]])
    dist, idx = knn(np.array([[0.0]]), index, k=3)
    assert idx.tolist() == [[0, 1, 2]] and dist.tolist() == [[1.0, 1.0, 1.0]]


def test_knn_rejects_impossible_k(rng):
    with pytest.raises(ValueError, match="k=3 neighbours requested but the index has 2"):
        knn(rng.random((2, 3)), rng.random((2, 3)), k=3)
    with pytest.raises(ValueError, match="same rows"):
        knn(rng.random((2, 3)), rng.random((3, 3)), exclude_self=True)


def test_mixed_encoding_weighs_a_category_like_a_full_range():
    frame = pd.DataFrame({"x": [0.0, 10.0, 0.0], "g": ["a", "a", "b"]})
    coords = MixedEncoder(Schema({"x": "numerical", "g": "categorical"})).fit_transform(frame)
    d = np.linalg.norm(coords[:, None] - coords[None], axis=2) ** 2
    assert d[0, 1] == pytest.approx(1.0)  # full numerical range
    assert d[0, 2] == pytest.approx(1.0)  # one categorical mismatch
    unseen = MixedEncoder(Schema({"x": "numerical", "g": "categorical"})).fit(frame)
    assert unseen.transform(pd.DataFrame({"x": [0.0], "g": ["zzz"]}))[0].tolist() == [0.0, 0.0, 0.0]


def test_quantile_bins_are_fitted_on_real():
    real = pd.Series(np.arange(100.0))
    r, s = quantile_bins(real, pd.Series([-5.0, 50.0, 1e9]), n_bins=10)
    assert sorted(set(r)) == list(range(10))
    assert s.tolist() == [0, 5, 9]


def test_famd_on_numerical_data_is_pca_of_standardised_columns(rng):
    from sklearn.decomposition import PCA

    frame = pd.DataFrame(
        rng.multivariate_normal([0, 0, 0], [[1, 0.8, 0], [0.8, 1, 0], [0, 0, 1]], 500),
        columns=list("abc"),
    )
    schema = Schema({c: "numerical" for c in "abc"})
    coords = FAMD(schema).fit_transform(frame)
    standard = (frame - frame.mean()) / frame.std(ddof=0)
    reference = PCA(2).fit_transform(standard)
    np.testing.assert_allclose(np.abs(coords), np.abs(reference), atol=1e-8)
    np.testing.assert_allclose(coords.mean(axis=0), 0, atol=1e-10)


def test_famd_weighs_categories_by_inverse_share():
    frame = pd.DataFrame({"g": ["a", "a", "a", "b"]})
    model = FAMD(Schema({"g": "categorical"}), n_components=1).fit(frame)
    coords = model.transform(frame)[:, 0]
    # indicator/sqrt(p) - sqrt(p): a -> (1/sqrt(.75) - sqrt(.75), -sqrt(.25)), b -> (-sqrt(.75), 1/sqrt(.25) - sqrt(.25))
    a = np.array([1 / np.sqrt(0.75) - np.sqrt(0.75), -np.sqrt(0.25)])
    b = np.array([-np.sqrt(0.75), 1 / np.sqrt(0.25) - np.sqrt(0.25)])
    assert abs(coords[3] - coords[0]) == pytest.approx(np.linalg.norm(a - b))


def _reference_knn(query, index, k, exclude_self=False):
    """Exact k-NN by math.dist on every pair (overflow-safe), ties to the lower index."""
    import math

    dist, idx = [], []
    for i, q in enumerate(query):
        d = [(math.dist(q, x), j) for j, x in enumerate(index) if not (exclude_self and i == j)]
        best = sorted(d)[:k]
        dist.append([b[0] for b in best])
        idx.append([b[1] for b in best])
    return np.array(dist), np.array(idx)


@pytest.mark.parametrize("exclude_self", [False, True])
def test_many_near_duplicates_are_ranked_exactly(rng, exclude_self):
    # 300 rows within float32 rounding of one point, some exact copies: the old float32
    # preselection with a margin of 6 candidates lost the copy among them (issue 19)
    base = rng.random(60) * 3
    data = base + rng.normal(0, 1e-7, (300, 60)) * rng.integers(0, 2, (300, 1))
    data[::7] = base
    query = data if exclude_self else data[::-1].copy()
    dist, idx = knn(query, data, k=3, exclude_self=exclude_self)
    ref_dist, ref_idx = _reference_knn(query, data, 3, exclude_self)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(dist, ref_dist, rtol=1e-12, atol=0)
    if not exclude_self:
        assert (dist[:, 0] == 0).all()  # every query row is a row of the index


@pytest.mark.parametrize("dims", [3, 20])  # a 3-D space too: too large for the KD-tree route
def test_exact_neighbours_whatever_the_scale(rng, dims):
    data = rng.random((60, dims))
    data[0, 0] = 1e300
    data[1, 0] = -1e300
    data[2, :] = 1e300  # with a 1e300 everywhere a square overflows float64
    data[3] = data[4] + 1e-12
    data[5, 1] = 1e-300
    query = np.vstack([data[::-1], rng.random((5, dims)) * 1e12])
    dist, idx = knn(query, data, k=2)
    ref_dist, ref_idx = _reference_knn(query, data, 2)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(dist, ref_dist, rtol=1e-12)
    assert (dist[:60, 0] == 0).all()


def test_knn_rejects_non_finite_coordinates(rng):
    bad = rng.random((5, 3))
    bad[2, 1] = np.inf
    with pytest.raises(ValueError, match="finite"):
        knn(bad, rng.random((5, 3)))


@pytest.mark.slow  # the whole of Texas: `make test`, not the quick subset
def test_identity_pair_at_texas_scale_finds_every_copy():
    """Texas 25,000 rows against itself: every real row's nearest synthetic row is its copy at
    distance 0 in both spaces, so IdentifiabilityScore is the share of rows without a duplicate
    (d(y, Y) = 0 exactly for those), counted here by pandas (issue 19: 0.99728 was returned)."""
    from privmetrics.data.datasets import load_dataset
    from privmetrics.geometry.pair import Pair
    from privmetrics.metrics import compute

    real, schema = load_dataset("texas")
    pair = Pair(real, real.copy(), schema)
    for space in ("mixed", "entropy"):
        assert (pair.nearest_distance("real", "synthetic", space) == 0).all(), space
    expected = 1 - real.duplicated(keep=False).mean()
    assert compute("IdentifiabilityScore", real, real.copy(), schema) == pytest.approx(
        expected, abs=1e-12
    )
    assert expected == pytest.approx(0.99968)


def test_equal_mismatch_counts_give_equal_distances(rng):
    """Rows that differ from the query in the same number of categories, in other columns, are
    equally far, to the last bit: NNAA and the Identifiability Score compare such ties with a
    strict inequality (summing in place gave 2.9999999999999996 against ...87 for 3 mismatches
    in Texas' categories, and NNAA differed from SynthEval's)."""
    levels = [4, 4, 2, 7, 2, 3, 2, 7, 12, 4, 4]  # Texas' categorical columns
    columns = [f"c{i}" for i in range(len(levels))]
    schema = Schema(columns={c: "categorical" for c in columns})
    base = pd.DataFrame({c: np.arange(48) % n for c, n in zip(columns, levels, strict=True)})
    encoder = MixedEncoder(schema).fit(base.astype(str))
    query = base.iloc[[0]]
    rows = pd.concat([query] * 300, ignore_index=True)
    for r in range(300):  # three random columns moved to another random category
        for i in rng.choice(len(levels), 3, replace=False):
            rows.iloc[r, i] = (rows.iloc[r, i] + rng.integers(1, levels[i])) % levels[i]
    dist, _ = knn(encoder.transform(query.astype(str)), encoder.transform(rows.astype(str)), k=300)
    assert len(set(dist[0].tolist())) == 1, sorted(set(dist[0].tolist()))
    np.testing.assert_allclose(dist[0], np.sqrt(3), rtol=1e-15)


@pytest.mark.parametrize("dims", [3, 30])  # the KD-tree route and the tiled scan
def test_one_scan_both_ways_and_within_a_table_match_the_reference(rng, dims):
    """nearest_both / nearest_other give what separate exact searches give, with duplicates
    across and within the tables and ties on a coarse grid; sizes span several tiles."""
    from privmetrics.geometry.neighbours import TILE_COLS, nearest_both, nearest_other

    # ties on a grid for the scan; continuous values for the tree, which breaks exact ties its own way
    a = rng.integers(0, 3, (TILE_COLS + 700, dims)) * 0.5 if dims > 8 else rng.random((2748, dims))
    b = (
        rng.integers(0, 3, (TILE_COLS // 2 + 300, dims)) * 0.5
        if dims > 8
        else rng.random((1324, 3))
    )
    b[:50] = a[100:150]  # copies across the tables
    a[7] = a[3]  # a duplicate within a
    (d_ab, i_ab), (d_ba, i_ba) = nearest_both(a, b)
    d_aa, i_aa = nearest_other(a)
    for (d, i), (query, index, excl) in (
        ((d_ab, i_ab), (a, b, False)),
        ((d_ba, i_ba), (b, a, False)),
        ((d_aa, i_aa), (a, a, True)),
    ):
        sample = np.arange(0, len(query), 37)  # the pure-Python reference is slow
        ref_d, ref_i = _reference_knn(query[sample], index, 1)
        if excl:  # the reference has no exclusion for a subset: drop self by hand
            ref_d, ref_i = zip(*[_best_other(query, index, s) for s in sample], strict=True)
            ref_d, ref_i = np.array(ref_d)[:, None], np.array(ref_i)[:, None]
        np.testing.assert_array_equal(i[sample], ref_i)
        np.testing.assert_allclose(d[sample], ref_d, rtol=1e-12, atol=0)
    assert (d_ba[:50, 0] == 0).all() and d_aa[3, 0] == 0 and i_aa[3, 0] == 7 and i_aa[7, 0] == 3


def _best_other(query, index, row):
    import math

    return min((math.dist(query[row], x), j) for j, x in enumerate(index) if j != row)


@pytest.mark.parametrize("dims", [3, 30])
def test_own_positions_keep_a_subset_of_rows_from_finding_themselves(rng, dims):
    data = rng.integers(0, 4, (3000, dims)) * 0.5 if dims > 8 else rng.random((3000, dims))
    data[11] = data[2900]
    every = knn(data, data, k=2, exclude_self=True)
    rows = rng.permutation(np.r_[11, 2900, rng.choice(np.arange(12, 2900), 500, replace=False)])
    some = knn(data[rows], data, k=2, own=rows)
    np.testing.assert_array_equal(some[1], every[1][rows])
    np.testing.assert_array_equal(some[0], every[0][rows])
    with pytest.raises(ValueError, match="one position in the index for every query row"):
        knn(data[:5], data, own=np.array([0, 1, 2]))


def test_a_copys_neighbours_are_known_without_a_search_and_equal_the_searched_ones(monkeypatch):
    """Against the real table itself (the Real reference) the nearest row of each real row is at
    distance 0, the first row with the same coordinates: the shortcut gives what the search
    gives, in every space and both directions, duplicates included, and every metric's score is
    the same to the bit."""
    import warnings

    from privmetrics.compendium.benchmarks.bench import generated_texas_like
    from privmetrics.geometry.pair import Pair
    from privmetrics.metrics import evaluate

    real, schema = generated_texas_like(rows=200, seed=2)
    real = pd.concat([real, real.iloc[[5, 5, 17]]], ignore_index=True)  # twins, after their first
    real.loc[3, "cat9"] = real.loc[150, "cat9"]  # rows alike on the keys only
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast, slow = Pair(real, real.copy(), schema), Pair(real, real.copy(), schema)
        assert fast.is_copy and not Pair(real, real.iloc[::-1], schema).is_copy
        monkeypatch.setattr(Pair, "is_copy", False)  # the searched answer
        searched = {(q, i, s): slow.neighbours(q, i, 1, s) for s in ("mixed", "famd", "keys", "entropy")
                    for q, i in (("real", "synthetic"), ("synthetic", "real"))}  # fmt: skip
        slow_scores = evaluate(slow, metrics="all").score.to_numpy()
        monkeypatch.undo()
        for (q, i, s), (d, idx) in searched.items():
            got_d, got_idx = fast.neighbours(q, i, 1, s)
            np.testing.assert_array_equal(got_idx, idx, err_msg=f"{q}->{i} {s}")
            np.testing.assert_array_equal(got_d, d, err_msg=f"{q}->{i} {s}")
        assert fast.neighbours("real", "synthetic")[1][200, 0] == 5  # a twin finds the first
        np.testing.assert_array_equal(evaluate(fast, metrics="all").score.to_numpy(), slow_scores)
