"""The ALC chapter's study (``privmetrics.experiments.studies.alc_study``)."""

import pandas as pd
import pytest

from privmetrics.experiments.studies.alc_study import PAPER_PRIOR_MISSES, label_agreement


def test_label_agreement_counts_the_two_kinds_of_disagreement_of_the_papers_table_2():
    table = pd.DataFrame(
        {"alc_ours": [0.6, 0.8, 0.1, 0.9, 0.2], "alc_prior_recall_1": [0.3, 0.2, 0.6, 0.95, 0.0]},
        index=["a", "b", "c", "d", "e"],
    )
    labels = label_agreement(table)
    assert list(labels["ours"]) == ["at risk", "serious", "safe", "serious", "safe"]
    assert list(labels["prior (as run)"]) == ["safe", "safe", "at risk", "serious", "safe"]
    assert list(labels["prior safe, ours not"]) == [True, True, False, False, False]
    assert list(labels["ours safe, prior not"]) == [False, False, True, False, False]
    assert PAPER_PRIOR_MISSES == pytest.approx(0.2548)  # 24.24% at risk + 1.24% serious
