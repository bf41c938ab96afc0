"""One verdict per paper result (issue 63, item 1): the rule at its boundaries, each measure by
hand on small inputs, and every result of the reviewer's map measured on the shipped store."""

import numpy as np
import pandas as pd
import pytest

from privmetrics.experiments.paper import agreement
from privmetrics.experiments.paper.agreement import (
    Agreement,
    category_correlation,
    count_share,
    selection,
    verdict_of,
)


def test_the_rule_at_its_boundaries():
    assert verdict_of(0.8) == "agrees" and verdict_of(0.7999999999999999) == "agrees"
    assert verdict_of(0.79) == "partly" and verdict_of(0.5) == "partly"
    assert verdict_of(0.49) == "differs" and verdict_of(0.0) == "differs"
    assert Agreement("Table 7", 17 / 21, "17 of 21").line() == "agrees: 17 of 21 (share 0.81)"


def test_a_count_is_scored_by_its_distance_from_the_papers():
    assert count_share(13, 13) == 1.0
    assert verdict_of(count_share(15, 13)) == "agrees"  # within 2 of 21
    assert verdict_of(count_share(16, 13)) == "partly"
    assert verdict_of(count_share(18, 13)) == "partly"  # within 5
    assert verdict_of(count_share(19, 13)) == "differs"
    assert count_share(21, 0) == 0.0 and count_share(None, 5) == 0.0


def test_the_selection_is_scored_by_its_overlap_with_the_papers():
    seven = [
        "CGeneralizedCAP",
        "DetectionMLP",
        "DCR",
        "Authenticity",
        "MDCR",
        "MemInf",
        "HittingRate",
    ]
    nine = [*seven, "InvKullbackLieb", "KSTest"]
    same = selection({"table11": nine, "table12": seven})
    assert same.share == 1.0 and same.verdict == "agrees"
    # keeping all 21 metrics after both rounds: 9/21 and 7/21
    everything = [f"m{i}" for i in range(12)] + nine
    found = selection({"table11": everything, "table12": everything})
    assert found.share == pytest.approx((9 / 21 + 7 / 21) / 2) and found.verdict == "differs"
    assert "Table 12: 21 kept, 7 of the paper's 7" in found.measured


def test_the_category_means_by_hand():
    # CZeroCAP and CGeneralizedCAP share the reconstruction category, DCR another
    names = ["CZeroCAP", "CGeneralizedCAP", "DCR"]
    rho = pd.DataFrame([[1, 0.9, 0.1], [0.9, 1, 0.3], [0.1, 0.3, 1]], index=names, columns=names)
    within, across = category_correlation(rho)
    assert within == pytest.approx(0.9) and across == pytest.approx(0.2)


def test_every_result_of_the_map_has_a_verdict_on_the_shipped_paper_store():
    from privmetrics.compendium.book.findings import paper_summary
    from privmetrics.compendium.book.sources import RESULTS
    from privmetrics.experiments.profiles import get_profile

    _, summary = paper_summary(get_profile("paper"))
    found = agreement.agreements(summary)
    assert sorted(found) == sorted(r.item for r in RESULTS)
    assert all(0 <= a.share <= 1 for a in found.values())
    # Figure 11 (Texas) states three claims, Figure 12 two; Figures 9, 10 two statements
    assert "of 3 claims" in found["Figure 11"].measured
    assert "of 2 claims" in found["Figure 12"].measured
    assert found["Figures 9, 10"].measured.count("(the paper: ") == 2
    tables = [
        found[k].share for k in ("Table 7", "Table 8", "Table 9", "Table 10", "Tables 11, 12")
    ]
    assert found["Tables 7-12"].share == pytest.approx(np.mean(tables))


def test_a_summary_of_one_dataset_drops_the_other_datasets_figures():
    from privmetrics.compendium.book.findings import paper_summary
    from privmetrics.experiments.profiles import get_profile

    _, summary = paper_summary(get_profile("paper"), ["texas"])
    found = agreement.agreements(summary)
    assert {"Figure 5", "Figures 7, 8", "Figure 11"} <= set(found)
    assert not {"Figure 6", "Figures 9, 10", "Figure 12", "Table 10"} & set(found)


def test_metrics_between_the_ends_counted_by_hand():
    """Figure 9's statement: a metric lies between Random and Real when PrivBayes's mean at every
    epsilon does (as printed, ends included)."""
    from privmetrics.experiments.grid.configurations import EPSILONS
    from privmetrics.experiments.paper.published import STATEMENT_MEASURES

    configs = ["Random", *(f"PrivBayes ε={e:g}" for e in EPSILONS), "Real"]
    means = {
        "DCR": [0.1, 0.2, 0.3, 0.4, 0.5, 0.9],  # inside
        "MDCR": [0.1, 0.1, 0.3, 0.4, 0.9, 0.9],  # at the ends: inside
        "NNDR": [0.1, 0.2, 0.3, 0.95, 0.5, 0.9],  # one epsilon above Real
        "KSTest": [0.5, 0.2, 0.3, 0.4, 0.5, 0.9],  # below Random
    }
    rows = [
        {"dataset": "texas", "config": c, "metric": m, "mean": v, "sem": 0.0, "n": 3}
        for m, values in means.items() for c, v in zip(configs, values, strict=True)
    ]  # fmt: skip
    summary = pd.DataFrame(rows).set_index(["dataset", "config", "metric"])
    assert STATEMENT_MEASURES["privbayes_between"](summary, "texas") == 2
