"""Editions of one results table (ours, the paper's definitions, PrivEval's) and the variants."""

import pandas as pd
import pytest

from privmetrics.experiments.grid.ways import edition, redefined_metrics
from privmetrics.geometry.pair import Pair
from privmetrics.metrics import REGISTRY, VARIANTS, compute, get_metric, select


def results_table():
    rows = []
    for config, technique in (
        ("Random", "random"),
        ("PATE-GAN ε=1", "pategan"),
        ("PATE-GAN (paper) ε=1", "pategan"),
        ("Real", "real"),
    ):
        for metric, score in (
            ("DCR", 0.1),
            ("DCR@priveval", 0.2),
            ("MDCR", 0.3),
            ("MDCR@paper", 0.4),
        ):
            rows.append({"dataset": "d", "config": config, "technique": technique, "run": 0,
                         "metric": metric, "score": score + (config == "Real")})  # fmt: skip
    return pd.DataFrame(rows)


def test_our_edition_drops_variants_and_the_paper_settings():
    out = edition(results_table(), "ours")
    assert set(out.metric) == {"DCR", "MDCR"}
    assert set(out.config) == {"Random", "PATE-GAN ε=1", "Real"}
    assert out.loc[out.metric == "MDCR", "score"].tolist() == [0.3, 0.3, 1.3]


def test_paper_edition_swaps_definitions_and_pategan():
    out = edition(results_table(), "paper")
    assert set(out.config) == {"Random", "PATE-GAN ε=1", "Real"}  # the paper's PATE-GAN, renamed
    assert len(out) == 6 and not out.duplicated(["config", "metric"]).any()
    assert out.loc[out.metric == "MDCR", "score"].tolist() == [0.4, 0.4, 1.4]  # MDCR@paper
    assert out.loc[out.metric == "DCR", "score"].tolist() == [0.1, 0.1, 1.1]  # no DCR@paper
    assert redefined_metrics(results_table(), "paper") == ["MDCR"]


def test_priveval_edition_keeps_our_pategan():
    out = edition(results_table(), "priveval")
    assert set(out.config) == {"Random", "PATE-GAN ε=1", "Real"}
    assert out.loc[out.metric == "DCR", "score"].tolist() == [0.2, 0.2, 1.2]
    with pytest.raises(ValueError, match="edition must be one of"):
        edition(results_table(), "theirs")


def test_variants_are_their_metric_with_other_parameters(tiny):
    frame, schema = tiny
    synthetic = frame.sample(frac=1, random_state=1).reset_index(drop=True)
    synthetic["age"] += 3.0
    assert set(VARIANTS) >= {"MDCR@paper", "DCR@priveval", "CZeroCAP@paper", "DetectionMLP@paper"}
    pair = Pair(frame, synthetic, schema)
    for name, spec in VARIANTS.items():
        base = REGISTRY[spec.base]
        extra = {k: v for k, v in spec.params.items() if base.params.get(k) != v}
        assert extra, name  # a variant changes something
        assert spec(pair) == base(pair, **extra), name
        assert spec.note and name == f"{spec.base}@{name.split('@')[1]}"
    assert get_metric("mdcr@PAPER").name == "MDCR@paper"
    assert not [m for m in select("paper") if "@" in m.name] and len(select("paper")) == 21
    assert len(select("everything")) == len(REGISTRY) + len(VARIANTS)


def test_exact_cap_matches_only_equal_numerical_values(tiny):
    """CZeroCAP@paper compares numerical keys by value (SDMetrics on label-encoded data); the
    default bins them. Shifting every age by one year breaks every exact key match but no bin."""
    frame, schema = tiny
    synthetic = frame.copy()
    synthetic["age"] += 1.0
    assert compute("CZeroCAP@paper", frame, synthetic, schema) == 0.0
    # 2 quantile bins of the real ages: {30, 40, 50} and {60, 70, 80}; 31..81 stay in their bin,
    # so each real row's (sex, age bin) group in Z holds only its own disease: p = 1 everywhere
    assert compute("CZeroCAP", frame, synthetic, schema, n_bins=2) == 1.0
    # exact: no age matches, so the nearest key tuples are those with y's sex. F rows hold
    # diseases a, a, b and M rows b, c, c: p = 2/3, 1/3, 2/3, 2/3, 1/3, 2/3 (rows 0..5)
    assert compute("CGeneralizedCAP@paper", frame, synthetic, schema) == pytest.approx(10 / 18)
    assert compute("CGeneralizedCAP@paper", frame, frame, schema) == 1.0
