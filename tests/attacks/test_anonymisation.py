"""Singling out, linkability and inference with a control set (Giomi et al. 2023): the risk
arithmetic, the Gower distance, predicates and the size model by hand, a copy that must fail and
fresh rows that must pass, refusals, and anonymeter 1.1.0's own results on a shared pair
(issue 43, item 3)."""

import math

import numpy as np
import pandas as pd
import pytest

from privmetrics.attacks.anonymisation import inference, linkability
from privmetrics.attacks.risk import Rate, Risk
from privmetrics.compendium.benchmarks.bench import generated_texas_like
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.gower import gower_coordinates, gower_knn

AUX = (["cat0", "cat1", "cat2", "num0", "num1"], ["cat3", "cat4", "num2", "num3", "num4"])


@pytest.fixture(scope="module")
def population():
    """Training rows, control rows and fresh rows: three disjoint samples of one population."""
    frame, schema = generated_texas_like(rows=1800, seed=1)
    real, control, fresh = (frame.iloc[i : i + 600].reset_index(drop=True) for i in (0, 600, 1200))
    return real, control, fresh, schema


def noisy_copy(real: pd.DataFrame, schema: Schema, seed: int = 0) -> pd.DataFrame:
    """Each number times 1 + N(0, 0.3), each category redrawn half of the time."""
    rng = np.random.default_rng(seed)
    noisy = real.copy()
    for c in schema.numerical:
        noisy[c] = noisy[c] * rng.normal(1, 0.3, len(noisy))
    for c in schema.categorical:
        swap = rng.random(len(noisy)) < 0.5
        noisy.loc[swap, c] = rng.choice(noisy[c].unique(), swap.sum())
    return noisy


def test_rates_and_risk_by_hand():
    """30 of 100: Wilson centre (30 + 1.9208) / 103.8415 = 0.30740, half-width
    1.95996 / 103.8415 * sqrt(30 * 70 / 100 + 0.9604) = 0.08845. Control 10 of 100: 0.11479.
    Risk (0.307399 - 0.114797) / (1 - 0.114797) = 0.21758."""
    main, control = Rate(30, 100), Rate(10, 100)
    assert main.value == pytest.approx(0.30740, abs=1e-5)
    assert main.error == pytest.approx(0.08845, abs=1e-5)
    assert control.value == pytest.approx(0.11479, abs=1e-5)
    risk = Risk("test", main, Rate(5, 100), control)
    assert risk.value == pytest.approx(0.21758, abs=1e-5)
    error = math.hypot(main.error / (1 - control.value),
                       control.error * (main.value - 1) / (1 - control.value) ** 2)  # fmt: skip
    assert risk.interval == pytest.approx((0.21758 - error, 0.21758 + error), abs=1e-5)
    assert not risk.weak and Risk("test", Rate(5, 100), Rate(30, 100)).weak
    # a control attacked better than the targets: negative raw risk, reported as 0
    assert Risk("test", control, Rate(0, 100), main).value == 0.0
    assert Risk("test", main, Rate(0, 100)).value == main.value  # no control: the rate itself


def test_gower_distance_by_hand():
    """Numbers divided by their range over both tables (10 for n), categories 0/1, missing equal
    to missing and 1 from a value: d(q, x0) = 2/10 + 0 = 0.2, d(q, x1) = 0 + 1 = 1,
    d(q, x2) = 1 (missing number) + 0."""
    schema = Schema({"n": "numerical", "c": "categorical"})
    query = pd.DataFrame({"n": [2.0], "c": ["a"]})
    index = pd.DataFrame({"n": [4.0, 2.0, np.nan], "c": ["a", "b", "a"]})
    # the range is over both tables: 2 and 4 here, with a far row below to make it 10
    index = pd.concat([index, pd.DataFrame({"n": [12.0], "c": ["z"]})], ignore_index=True)
    q, i = gower_coordinates(query, index, ["n", "c"], schema)
    distances, nearest = gower_knn(q, i, k=4)
    np.testing.assert_allclose(distances[0], [0.2, 1.0, 1.0, 2.0])
    assert nearest[0].tolist() == [0, 1, 2, 3]  # the tie of rows 1 and 2 goes to the lower row


def test_gower_blocks_on_threads_give_the_one_block_answer(monkeypatch):
    """The search runs in blocks of query rows, on threads: any block size and thread count
    gives the distances and neighbours of one block, gaps included, to the bit."""
    from privmetrics.geometry import gower
    from privmetrics.threads import limited

    rng = np.random.default_rng(3)
    num = lambda n: np.where(rng.random((n, 3)) < 0.05, np.nan, rng.integers(0, 4, (n, 3)) / 3)  # noqa: E731
    query = (num(37), rng.integers(0, 3, (37, 4)))
    index = (num(200), rng.integers(0, 3, (200, 4)))
    whole = gower.gower_distances(query, index)
    expected = np.argsort(whole, axis=1, kind="stable")[:, :3]
    for cells, threads in ((10**6, 1), (450, 1), (450, 2), (200, 2)):
        monkeypatch.setattr(gower, "BLOCK_CELLS", cells)
        with limited(threads):
            d, i = gower_knn(query, index, k=3)
        np.testing.assert_array_equal(i, expected)
        np.testing.assert_array_equal(d, np.take_along_axis(whole, expected, 1))


def test_a_copy_is_linked_and_inferred_and_fresh_rows_are_not(population):
    real, control, fresh, schema = population
    for attack in (
        lambda syn: linkability(real, syn, schema, AUX, control=control),
        lambda syn: inference(real, syn, schema, "cat9", control=control),
        lambda syn: inference(real, syn, schema, "num6", control=control),
    ):
        copied, unseen = attack(real), attack(fresh)
        assert copied.interval[0] > 0.9, copied.as_dict()  # must fail: the release is the data
        assert unseen.interval[0] == 0.0 and unseen.value < 0.05, unseen.as_dict()  # must pass


def test_the_same_seed_repeats_and_the_control_changes_the_reading(population):
    real, control, fresh, schema = population
    noisy = noisy_copy(real, schema)
    a = inference(real, noisy, schema, "cat9", control=control, seed=3)
    assert a == inference(real, noisy, schema, "cat9", control=control, seed=3)
    alone = inference(real, noisy, schema, "cat9", seed=3)
    # without a control the risk is the raw success, which also counts what anyone infers
    assert alone.control is None and alone.value == pytest.approx(alone.main.value)
    assert a.value < alone.value


def test_numbers_are_right_within_a_tolerance_relative_to_the_secret():
    """Secrets -100 and 50, released as -104 and 60: within 5% of |secret| only the first."""
    schema = Schema({"k": "categorical", "s": "numerical"})
    real = pd.DataFrame({"k": ["a", "b"], "s": [-100.0, 50.0]})
    release = pd.DataFrame({"k": ["a", "b"], "s": [-104.0, 60.0]})
    risk = inference(real, release, schema, "s", targets=2)
    assert (risk.main.successes, risk.main.attempts) == (1, 2)


def test_bad_input_is_refused_with_the_problem_named(population):
    real, control, _, schema = population
    with pytest.raises(InvalidInputError, match="share columns"):
        linkability(real, real, schema, (["cat0", "num0"], ["num0"]))
    with pytest.raises(InvalidInputError, match=r"control table has no column \['cat0'\]"):
        linkability(real, real, schema, AUX, control=control.drop(columns="cat0"))
    with pytest.raises(InvalidInputError, match="cannot be among the known"):
        inference(real, real, schema, "cat9", known=["cat9", "cat0"])
    with pytest.raises(InvalidInputError, match="every value of the secret 'cat9' is missing"):
        inference(real.assign(cat9=None), real, schema, "cat9")
    with pytest.raises(InvalidInputError, match="n_neighbours=700 exceeds"):
        linkability(real, real, schema, AUX, n_neighbours=700)


@pytest.mark.slow
def test_agrees_with_anonymeter_on_a_shared_pair(population):
    """Every row attacked, so both draw the same targets: the main and control rates must be
    equal (ties aside) and the risks' intervals must meet. Skipped without anonymeter's own
    environment (`make anonymeter`, which `make test` runs)."""
    from privmetrics.compendium.book.anonymeter import MISSING, anonymeter_python, run_anonymeter

    if anonymeter_python() is None:
        pytest.skip(MISSING)
    real, control, _, schema = population
    for release in (real, noisy_copy(real, schema)):
        theirs = run_anonymeter(real, release, control, schema, AUX, "cat9", targets=len(real),
                                singling_out=("multivariate", 3))  # fmt: skip
        ours = {
            "linkability": linkability(real, release, schema, AUX, control, targets=len(real)),
            "inference": inference(real, release, schema, "cat9", control=control,
                                   targets=len(real)),
        }  # fmt: skip
        for name, risk in ours.items():
            other = theirs[name]
            assert risk.main.value == pytest.approx(other["main rate"], abs=0.01), name
            assert risk.control.value == pytest.approx(other["control rate"], abs=0.01), name
            low, high = risk.interval
            assert low <= other["high"] + 1e-9 and other["low"] <= high + 1e-9, (name, other)
        # singling out draws its predicates at random: only the risks' intervals must meet
        from privmetrics.attacks.singling_out import singling_out

        ours = singling_out(real, release, schema, control=control, targets=len(real))
        other = theirs["singling out"]
        low, high = ours.interval
        assert low <= other["high"] + 1e-9 and other["low"] <= high + 1e-9, (ours, other)


def test_predicates_count_their_rows_by_hand():
    """Four rows (number n, category c coded a=0, b=1, missing): n >= 3 and c == a matches rows 2
    and 3 (two rows); n <= 1 matches row 0 only; c is missing matches row 1 only."""
    from privmetrics.attacks.singling_out import EQ, GE, LE, MISSING, counts

    values = np.array([[1.0, 0], [2.0, np.nan], [3.0, 0], [4.0, 0]])
    cols = np.array([[0, 1], [0, 0], [1, 1]])
    ops = np.array([[GE, EQ], [LE, LE], [MISSING, MISSING]])
    levels = np.array([[3.0, 0], [1.0, 1.0], [np.nan, np.nan]])
    assert counts(values, cols, ops, levels).tolist() == [2, 1, 1]


def test_univariate_predicates_are_the_rare_values_and_the_extremes():
    """Release n = 1, 2, 2, 9 and c = x, y, y, y: n == 1, n == 9, n <= 1, n >= 9 and c == x single
    out one row each; n == 2 and c == y do not and are not kept."""
    from privmetrics.attacks.singling_out import counts, univariate_predicates

    values = np.array([[1.0, 0], [2.0, 1], [2.0, 1], [9.0, 1]])
    found = univariate_predicates(values, np.array([True, False]))
    singles = counts(values, *found) == 1
    kept = {
        (int(c), int(o), float(v)) for c, o, v in zip(*(a[singles, 0] for a in found), strict=True)
    }
    assert kept == {(0, 0, 1.0), (0, 0, 9.0), (0, 2, 1.0), (0, 1, 9.0), (1, 0, 0.0)}


def test_the_size_model_by_hand():
    """Successes in n rows of a predicate of weight up to w: (1 - (n w + 1)(1 - w)^n) / (n + 1);
    n = 1, w = 1: (1 - 2 * 0) / 2 = 0.5; n = 2, w = 0.5: (1 - 2 * 0.25) / 3 = 1/6."""
    from privmetrics.attacks.singling_out import _model

    assert _model(1, 1.0, 1.0) == pytest.approx(0.5)
    assert _model(2, 0.5, 6.0) == pytest.approx(1.0)


@pytest.mark.parametrize("mode", ["univariate", "multivariate"])
def test_a_copy_is_singled_out_and_fresh_rows_are_not(population, mode):
    from privmetrics.attacks.singling_out import singling_out

    real, control, fresh, schema = population
    copied = singling_out(real, real, schema, control=control, mode=mode)
    unseen = singling_out(real, fresh, schema, control=control, mode=mode)
    assert copied.interval[0] > 0.9, copied.as_dict()  # must fail
    assert unseen.interval[0] == 0.0 and unseen.value < 0.1, unseen.as_dict()  # must pass
    assert copied == singling_out(real, real, schema, control=control, mode=mode)  # seeded


def test_a_smaller_control_set_is_rescaled_to_the_training_size(population, monkeypatch):
    """The release's predicates match about one row in 600; in a control set of 300 rows they
    match none more often than in 600, so the raw count understates the control's success at the
    training table's size. The rescaled count lands nearer the count on 600 control rows."""
    from privmetrics.attacks import singling_out as module

    real, control, fresh, schema = population
    whole = module.singling_out(real, fresh, schema, control=control).control.value
    with pytest.warns(module.ControlSizeWarning, match="300 rows and the training table 600"):
        half = module.singling_out(real, fresh, schema, control=control.iloc[:300]).control.value
    monkeypatch.setattr(module, "size_correction", lambda *args: 1.0)
    with pytest.warns(module.ControlSizeWarning):
        raw = module.singling_out(real, fresh, schema, control=control.iloc[:300]).control.value
    assert raw < half and abs(half - whole) < abs(raw - whole) / 2, (raw, half, whole)


def test_sizes_are_comparable_within_the_ratio_either_way():
    from privmetrics.attacks.singling_out import SIZE_RATIO, sizes_comparable

    assert sizes_comparable(1000, 1000) and sizes_comparable(1250, 1000)
    assert sizes_comparable(1000, 1250) and not sizes_comparable(1000, 1251)
    assert SIZE_RATIO == 1.25 and sizes_comparable(5, 4) and not sizes_comparable(2, 1)


def test_singling_out_refuses_what_it_cannot_attack(population):
    from privmetrics.attacks.singling_out import singling_out

    real, _, _, schema = population
    with pytest.raises(InvalidInputError, match="mode must be"):
        singling_out(real, real, schema, mode="bivariate")
    with pytest.raises(InvalidInputError, match="n_cols=40 exceeds"):
        singling_out(real, real, schema, n_cols=40)
    same = pd.concat([real.iloc[:1]] * 5, ignore_index=True)
    with pytest.raises(InvalidInputError, match="no predicate singles out a row of the release"):
        singling_out(real, same, schema)


def test_tied_halves_count_the_chance_that_both_choices_meet_by_hand():
    """Issue 62, item 7: a half shared by several release rows leaves a choice among them. Query
    x = (a=0, b=0) against release rows (0,0), (0,0), (0,1), (1,0): on a its ties are rows 0-2,
    on b rows 0, 1 and 3; both choices fall on one row (0 or 1) with chance 2 / (3 x 3)."""
    from privmetrics.geometry.gower import tied_link_share

    schema = Schema(columns={"a": "categorical", "b": "categorical"})
    query = pd.DataFrame({"a": ["0", "1"], "b": ["0", "1"]})
    release = pd.DataFrame({"a": ["0", "0", "0", "1"], "b": ["0", "0", "1", "0"]})
    halves = [gower_coordinates(query, release, [c], schema) for c in ("a", "b")]
    share = tied_link_share(*halves)
    # x2 = (1, 1): on a its one tie is row 3, on b row 2: never the same row
    np.testing.assert_allclose(share, [2 / 9, 0.0])


def test_linkability_does_not_depend_on_the_releases_row_order(population):
    """The first of the ties made the risk move when the release's rows were shuffled (the first
    rows are the nearest of many targets on coarse columns); the expected count does not."""
    real, control, _, schema = population
    coarse = (["cat1", "cat2"], ["cat3", "cat4"])
    shuffled = real.sample(frac=1, random_state=3).reset_index(drop=True)
    ours = linkability(real, real.copy(), schema, coarse, control, targets=len(real))
    again = linkability(real, shuffled, schema, coarse, control, targets=len(real))
    assert ours.main.successes == pytest.approx(again.main.successes, rel=1e-9)
    assert ours.control.successes == pytest.approx(again.control.successes, rel=1e-9)


@pytest.mark.slow
def test_on_coarse_keys_an_exact_copy_links_as_anonymeter_says():
    """Issue 62, item 7: on the fair survey's coded answers an exact copy reads a low
    linkability in both implementations (their intervals meet), because most targets share a
    half with other people; with two-column halves nearly every target does."""
    from privmetrics.compendium.book.anonymeter import (
        MISSING,
        anonymeter_python,
        coarse_keys_comparison,
    )

    if anonymeter_python() is None:
        pytest.skip(MISSING)
    table = coarse_keys_comparison(rows=600)
    assert table["intervals meet"].all(), table
    assert (table["main rate (ours)"] - table["main rate (anonymeter)"]).abs().max() < 0.03, table
    assert table["shared half"].iloc[0] > 0.95 and table.ours.iloc[0] < 0.05, table
