"""The DP synthesisers' public domain, and the empirical epsilon that checks it holds."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from privmetrics.attacks.empirical_epsilon import (
    EmpiricalEpsilon,
    clopper_pearson,
    epsilon_lower_bound,
    gdp_epsilon,
    gdp_mu_lower,
    outlier_target,
    release_max_auc,
)
from privmetrics.data.datasets import load, load_dataset
from privmetrics.data.domain import Bounds, Categories, DomainError, dp_bounds, parse_domain
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError
from privmetrics.synthesisers import make_synthesiser
from privmetrics.synthesisers.discretise import DataDomainWarning, Discretiser


def empirical_epsilon(population, schema, technique, params, seed=0, **settings):
    """The empirical epsilon of ``technique`` (:class:`EmpiricalEpsilon`) played with ``seed``."""
    return EmpiricalEpsilon(population, schema, technique, params, **settings).evaluate(seed)


# --- the domain itself -------------------------------------------------------------------------


def test_log_bounds_cut_equal_widths_of_log1p():
    edges = Bounds(0, np.e**2 - 1, "log").edges(2)
    np.testing.assert_allclose(edges, [0, np.e - 1, np.e**2 - 1])
    np.testing.assert_allclose(Bounds(10, 20).edges(2), [10, 15, 20])


@pytest.mark.parametrize(
    "raw, problem",
    [
        ({"x": {"low": 5, "high": 1}}, "finite low < high"),
        ({"x": {"low": 0, "high": 1, "scale": "cubic"}}, "scale must be"),
        ({"x": {"low": 0}}, "low, high"),
        ({"x": {"values": ["a"], "other": "b"}}, "not one of the listed"),
        ({"x": ["a", "a"]}, "repeats"),
        ({"x": 3}, "expected a list"),
    ],
)
def test_malformed_domains_are_refused_naming_the_column(raw, problem):
    with pytest.raises(DomainError, match=rf"column 'x'.*{problem}"):
        parse_domain(raw)


def test_schema_checks_and_round_trips_its_domain():
    columns = {"age": "numerical", "sex": "binary"}
    schema = Schema(columns, domain={"age": {"low": 0, "high": 120}, "sex": ["F", "M"]})
    assert Schema.from_dict(schema.to_dict()) == schema
    assert schema.subset(["sex"]).domain == {"sex": Categories(("F", "M"))}
    with pytest.raises(DomainError, match="lacks"):
        Schema(columns, domain={"height": {"low": 0, "high": 1}})
    with pytest.raises(DomainError, match="needs low/high"):
        Schema(columns, domain={"age": ["young", "old"]})


def test_numbers_are_clipped_and_categories_go_to_other_or_are_refused():
    schema = Schema(
        {"x": "numerical", "c": "categorical", "d": "categorical"},
        domain={
            "x": {"low": 0, "high": 10},
            "c": {"values": ["a", "z"], "other": "z"},
            "d": [1, 2],
        },
    )
    disc = Discretiser(schema, dict(schema.domain), bins=2)
    frame = pd.DataFrame(
        {"x": [-5.0, 4.0, 6.0, 99.0], "c": ["a", "b", "z", "a"], "d": [1, 2, 2, 1]}
    )
    np.testing.assert_array_equal(disc.encode(frame), [[0, 0, 0], [0, 1, 1], [1, 1, 1], [1, 0, 0]])
    decoded = disc.decode(disc.encode(frame), np.random.default_rng(0))
    assert decoded.x.between(0, 10).all() and list(decoded.c) == ["a", "z", "z", "a"]
    with pytest.raises(InvalidInputError, match="column 'd' has 1 value.*outside"):
        disc.encode(frame.assign(d=[1, 2, 3, 1]))


def test_dp_bounds_cover_the_bulk_and_refuse_too_few_rows():
    rng = np.random.default_rng(0)
    bounds = dp_bounds(rng.normal(170, 10, 5000), 1.0, rng)
    assert bounds.low <= 140 and bounds.high >= 200 and bounds.high <= 256
    assert dp_bounds(rng.normal(0, 1, 20), 0.1, rng) is None


# --- the synthesisers' use of it ---------------------------------------------------------------


@pytest.fixture(scope="module")
def texas():
    return load_dataset("texas", n=3000, seed=3)


@pytest.mark.parametrize("name", ["privbayes", "pategan"])
def test_undeclared_domain_is_refused_with_the_options(texas, name):
    frame, schema = texas
    bare = replace(schema, domain={c: d for c, d in schema.domain.items() if c != "SEX_CODE"})
    with pytest.raises(
        InvalidInputError, match=r"public domain for column\(s\) \['SEX_CODE'\].*domain="
    ):
        make_synthesiser(name, epsilon=1.0).fit(frame, bare)


def test_dp_domain_spends_its_share_and_the_ledger_still_adds_up(texas):
    frame, schema = texas
    bare = replace(
        schema, domain={c: d for c, d in schema.domain.items() if c in schema.categorical}
    )
    model = make_synthesiser("privbayes", epsilon=1.0, domain="dp", domain_share=0.2).fit(
        frame, bare
    )
    spends = dict((w, e) for w, e, _ in model.ledger_.entries)
    assert spends["domain: DP bounds of undeclared numerical columns"] == pytest.approx(0.2)
    assert model.ledger_.epsilon == pytest.approx(1.0)
    assert model.discretiser_.edges_["TOTAL_CHARGES"][-1] < 2.0**40  # bounds found, not 2^61


def test_a_data_derived_domain_warns_that_epsilon_does_not_hold(texas):
    frame, schema = texas
    with pytest.warns(DataDomainWarning, match="guarantee does not hold"):
        make_synthesiser("privbayes", domain="data").fit(frame, replace(schema, domain={}))


# --- the audit ------------------------------------------------------------------------------------


def test_clopper_pearson_by_hand():
    # 0 of n: the upper bound solves (1 - p)^n = alpha/2
    low, high = clopper_pearson(0, 10, 0.95)
    assert low == 0 and high == pytest.approx(1 - 0.025 ** (1 / 10))
    # perfect separation on 25 + 25 releases at 95%: log(p / (1 - p)) with p = 0.025^(1/25)
    p = 0.025 ** (1 / 25)
    assert epsilon_lower_bound(25, 0, 0, 25, 0.95) == pytest.approx(np.log(p / (1 - p)))
    assert epsilon_lower_bound(12, 13, 12, 13, 0.95) == 0.0  # no separation, no bound


def test_the_gaussian_dp_reading_by_hand():
    # mu = 1 at delta 1e-5: the epsilon that makes Phi(-eps + 1/2) - e^eps Phi(-eps - 1/2) = delta
    eps = gdp_epsilon(1.0, 1e-5)
    excess = norm.cdf(-eps + 0.5) - np.exp(eps) * norm.cdf(-eps - 0.5)
    assert excess == pytest.approx(1e-5, rel=1e-6) and 4.3 < eps < 4.5
    assert gdp_epsilon(0.0, 1e-5) == 0.0 and gdp_epsilon(2.0, 1e-5) > eps  # more mu, more epsilon
    # the curve through (FPR high, TPR low): mu = Phi^-1(TPR low) - Phi^-1(FPR high)
    tpr_low, _ = clopper_pearson(40, 50, 0.95)
    _, fpr_high = clopper_pearson(10, 50, 0.95)
    assert gdp_mu_lower(40, 10, 10, 40, 0.95) == pytest.approx(
        norm.ppf(tpr_low) - norm.ppf(fpr_high)
    )
    assert gdp_mu_lower(12, 13, 12, 13, 0.95) == 0.0  # no separation, no mu


@pytest.mark.slow
def test_a_small_worst_case_table_buys_the_power_to_refute_the_data_domain_double():
    """Ten rows around the outlier, 300 releases per world: PrivBayes with its domain read from
    the data is refuted beyond 3 (its claim is 1), while with the declared domain it holds."""
    population = load("texas", n=3000, seed=0)
    leaky = empirical_epsilon(population.frame, replace(population.schema, domain={}), "privbayes",
                          {"epsilon": 1.0, "domain": "data"}, releases=300, train_rows=10)  # fmt: skip
    assert leaky.epsilon_lower >= 3 and leaky.max_provable >= leaky.epsilon_lower
    assert leaky.epsilon_gdp >= leaky.epsilon_lower  # the curve's estimate is the tighter
    honest = empirical_epsilon(population.frame, population.schema, "privbayes", {"epsilon": 1.0},
                           releases=300, train_rows=10)  # fmt: skip
    assert honest.holds and honest.max_provable > 3


def test_the_outlier_target_is_the_largest_charge(texas):
    frame, schema = texas
    row, column = outlier_target(frame, schema)
    assert frame[column].iloc[row] == frame[column].max()


AUDITED = [("privbayes", 0.2), ("privbayes", 1.0), ("pategan", 1.0), ("pategan", 10.0)]


@pytest.mark.slow
@pytest.mark.parametrize("name, epsilon", AUDITED)
def test_the_audit_finds_no_more_than_the_claimed_epsilon(texas, name, epsilon):
    frame, schema = texas
    params = {"epsilon": epsilon} | ({"max_iterations": 300} if name == "pategan" else {})
    result = empirical_epsilon(frame, schema, name, params, releases=50, train_rows=500, seed=1)
    assert result.holds, result.per_statistic
    assert result.max_provable > 1.0  # 50 releases can prove more than a claim of 0.2 or 1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["privbayes", "pategan"])
def test_the_audit_fails_a_synthesiser_that_reads_its_range_from_the_data(texas, name):
    """The test double: the same synthesiser with the domain taken from the training rows."""
    frame, schema = texas
    params = {"epsilon": 1.0, "domain": "data"} | (
        {"max_iterations": 300} if name == "pategan" else {}
    )
    result = empirical_epsilon(
        frame, replace(schema, domain={}), name, params, releases=50, train_rows=500, seed=1
    )
    assert not result.holds and result.epsilon_lower > 1.0, result.per_statistic


@pytest.mark.slow
@pytest.mark.parametrize("name, epsilon", [("privbayes", 0.2), ("pategan", 10.0)])
def test_the_release_maximum_no_longer_reveals_the_outlier(name, epsilon):
    """The check that found the leak: Texas, 5,000 rows (seed 3), the largest TOTAL_CHARGES as
    target, 20 training sets of 1,000 rows with the target in every second one."""
    frame, schema = load_dataset("texas", n=5000, seed=3)
    target = int(frame.TOTAL_CHARGES.to_numpy().argmax())
    params = {"epsilon": epsilon}
    declared, _ = release_max_auc(frame, schema, name, params, target, "TOTAL_CHARGES")
    leaky, _ = release_max_auc(
        frame,
        replace(schema, domain={}),
        name,
        params | {"domain": "data"},
        target,
        "TOTAL_CHARGES",
    )
    assert declared <= 0.75 and leaky >= 0.95, (declared, leaky)


@pytest.mark.slow
def test_the_audit_holds_mst_to_its_claim_and_refutes_its_data_domain_double():
    """MST on the small worst-case table (ten Texas rows around the charge outlier, two columns so
    that a fit costs a quarter of a second, most of it compiling), 24 releases per world at
    epsilon 0.3, enough to refute that claim (the largest provable bound is 0.66): with the
    declared domain no statistic shows anything; with the bins read from the data the release's
    extreme gives the target away and the claim is refuted (bound 0.46, above 0.3)."""
    population = load("texas", n=3000, seed=0)
    columns = ["TOTAL_CHARGES", "SEX_CODE"]
    frame, schema = population.frame[columns], population.schema.subset(columns)
    fast = {"epsilon": 0.3, "iters": 50, "bins": 8}  # iterations: post-processing, not privacy
    honest = empirical_epsilon(frame, schema, "mst", fast, releases=24, train_rows=10)
    assert honest.holds and honest.epsilon_lower == 0.0 and honest.max_provable > fast["epsilon"]
    leaky = empirical_epsilon(frame, replace(schema, domain={}), "mst", fast | {"domain": "data"},
                          releases=24, train_rows=10)  # fmt: skip
    assert not leaky.holds and leaky.statistic == "extreme", leaky.per_statistic
