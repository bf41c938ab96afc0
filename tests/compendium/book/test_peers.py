"""Our metrics beside SDMetrics and SynthEval (the ``crosscheck`` extra): exact agreement where the
definitions coincide, and each known difference pinned with the value that shows it. Skipped when
the peers are not installed."""

from __future__ import annotations

import warnings
from dataclasses import replace

import pandas as pd
import pytest

pytest.importorskip("sdmetrics")
pytest.importorskip("syntheval")

from privmetrics.compendium.book.peers import (
    COMPARISONS,
    TOLERANCE,
    agreement_summary,
    crosscheck,
    crosscheck_all,
)
from privmetrics.data.datasets import load_dataset
from privmetrics.synthesisers import make_synthesiser
from privmetrics.synthesisers.discretise import DataDomainWarning

DEMOGRAPHIC = ["SEX_CODE", "PAT_AGE", "RACE", "ETHNICITY", "PAT_STATE"]


@pytest.fixture(scope="module")
def results():
    """Every comparison on every reference pair, with the full key and the demographic key."""
    real, schema = load_dataset("texas", n=200, seed=0)
    release = make_synthesiser("privbayes", epsilon=1.0, seed=0).fit_sample(real, schema)
    keys = {"full key": None, "demographic key": DEMOGRAPHIC}
    every = crosscheck_all(real, release, schema, keys)
    return {
        (key, pair): part.set_index("comparison")
        for (key, pair), part in every.groupby(["key", "pair"])
    }


def test_the_summary_counts_agreement_per_comparison(results):
    every = pd.concat([t.reset_index() for t in results.values()])
    summary = agreement_summary(every)
    assert len(summary) == len(COMPARISONS)
    same = summary[summary.coincide]  # on every pair
    assert (same.agree == same.pairs).all() and (same.pairs == 10).all() and len(same) == 3
    assert (summary[~summary.coincide].agree < 10).all()  # each difference shows on some pair


def test_where_definitions_coincide_the_numbers_agree(results):
    checked = 0
    for (key, pair), table in results.items():
        same = table[table.coincide]
        assert len(same) >= sum(c.coincide for c in COMPARISONS) - 1  # NNAA: seen categories only
        for label, row in same.iterrows():
            assert abs(row.ours_value - row.peer_value) <= TOLERANCE, (key, pair, label, row)
            checked += 1
    assert checked >= 10 * 3 + 6  # 5 pairs x 2 keys x 3 always, NNAA on the copies


def test_an_unseen_category_parts_the_nnaa_definitions(results):
    """The release draws categories from the declared domain that the 200 real rows lack: ours
    counts such a category as half a mismatch, SynthEval's Gower as a full one."""
    row = results["full key", "release"].loc["NNAA (categorical columns) vs SynthEval nnaa"]
    assert not row.coincide and abs(row.ours_value - row.peer_value) > TOLERANCE
    copy = results["full key", "shuffled copy"].loc["NNAA (categorical columns) vs SynthEval nnaa"]
    assert copy.coincide


def test_the_agreement_is_not_trivial(results):
    """Values strictly inside (0, 1) on the half copy, so agreement is not 0 = 0 or 1 = 1."""
    table = results["full key", "half copy"]
    inside = table[table.coincide & (table.ours_value > 0.01) & (table.ours_value < 0.99)]
    assert len(inside) >= 3, table[["ours_value", "peer_value"]]  # NNAA: unseen categories


def value(results, key, pair, label, side):
    return results[key, pair].loc[label, f"{side}_value"]


def test_binned_keys_find_a_perturbed_copy_that_exact_matching_misses(results):
    label = "CZeroCAP vs SDMetrics CategoricalZeroCAP"
    assert value(results, "full key", "perturbed copy", label, "ours") == 1.0
    assert value(results, "full key", "perturbed copy", label, "peer") == 0.0
    # with categorical keys the binning has nothing to do and the two agree
    assert value(results, "demographic key", "perturbed copy", label, "peer") == pytest.approx(
        value(results, "demographic key", "perturbed copy", label, "ours"), abs=TOLERANCE
    )


def test_syntheval_drops_the_twin_when_the_tables_are_equal(results):
    """On the identity SynthEval excludes each row's copy, so a copy looks private to its
    eps_risk (0) and NNDR (far from 1); on the shuffled copy (same rows) it agrees with ours."""
    eps = "IdentifiabilityScore vs SynthEval eps_risk"
    assert value(results, "full key", "identity", eps, "ours") == 1.0
    assert value(results, "full key", "identity", eps, "peer") == 0.0
    assert value(results, "full key", "shuffled copy", eps, "peer") == 1.0
    nndr = "NNDR vs SynthEval nndr"
    assert value(results, "full key", "identity", nndr, "ours") == 1.0
    assert value(results, "full key", "identity", nndr, "peer") < 0.5
    assert value(results, "full key", "shuffled copy", nndr, "peer") == 1.0


def test_gower_and_euclidean_distances_part_with_numerical_columns(results):
    """NNAA agrees on the categorical columns and differs once numbers enter the distance, on a
    release whose categories the real table all has (PrivBayes with the data's own categories)."""
    same = "NNAA (categorical columns) vs SynthEval nnaa"
    mixed = "NNAA vs SynthEval nnaa"
    real, schema = load_dataset("texas", n=300, seed=0)
    bare = replace(schema, domain={})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataDomainWarning)
        seen_only = make_synthesiser("privbayes", epsilon=1.0, domain="data").fit_sample(real, bare)
    nnaa = [c for c in COMPARISONS if c.ours == "NNAA"]
    table = crosscheck(real, seen_only, schema, nnaa).set_index("comparison")
    assert table.loc[same, "coincide"] and abs(table.loc[same, "difference"]) <= TOLERANCE
    assert abs(table.loc[mixed, "difference"]) > 0.005
    release = results["full key", "release"]
    assert abs(release.loc[mixed, "difference"]) > 0.005
    mdcr = "MDCR@paper vs SynthEval dcr"
    assert abs(release.loc[mdcr, "difference"]) > 0.05


def test_the_holdout_reading_beside_sdmetrics_fails_a_copy_and_passes_fresh_rows():
    """Issue 62, item 9: SDMetrics' holdout-based DCR measures beside the audit on releases
    whose answer is known."""
    from privmetrics.compendium.book.peers import holdout_comparison, holdout_releases
    from privmetrics.data.datasets import load_dataset

    population, schema = load_dataset("texas", n=600, seed=0)
    train, holdout, releases = holdout_releases(population, schema, 200, seed=0)
    assert set(releases) == {"copy", "jittered copy (5%)", "columns shuffled", "fresh rows"}
    assert len(train) == len(holdout) == 200 and not train.equals(releases["fresh rows"])
    read = holdout_comparison(
        train, holdout, {k: releases[k] for k in ("copy", "fresh rows")}, schema
    )
    copy, fresh = read.loc["copy"], read.loc["fresh rows"]
    assert copy["SDMetrics DCROverfittingProtection"] == 0.0
    assert copy["release rows closer to training (SDMetrics)"] == 1.0
    assert (
        copy["audit verdict"] == "high risk"
        and copy["real rows closer than a non-member (audit)"] > 0.9
    )
    assert fresh["audit verdict"] == "low risk"
    assert fresh["real rows closer than a non-member (audit)"] < 0.1  # chance is 5%
    assert 0 <= fresh["SDMetrics DCRBaselineProtection"] <= 1
