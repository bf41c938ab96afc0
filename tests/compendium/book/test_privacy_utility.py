"""The privacy-utility frame and its generated comparison, on hand-built stores."""

import json

import pandas as pd
import pytest

from privmetrics.compendium.book.plots import compare_at_epsilon, privacy_utility

CELLS = [  # technique, config, epsilon, two-way TVD per run
    ("aim", "AIM ε=1", 1.0, [0.07, 0.09]),
    ("privbayes", "PrivBayes ε=1", 1.0, [0.10, 0.12]),
    ("privbayes", "PrivBayes ε=10", 10.0, [0.05, 0.05]),
    ("random", "Random", None, [0.40, 0.40]),
]


def _store(datasets=("texas",), skip=()):
    scores, utility = [], []
    for dataset in datasets:
        for technique, config, epsilon, tvds in CELLS:
            if (dataset, technique) in skip:
                continue
            params = json.dumps({} if epsilon is None else {"epsilon": epsilon})
            for run, tvd in enumerate(tvds):
                cell = {"dataset": dataset, "config": config, "technique": technique, "run": run}
                scores += [{**cell, "metric": "DCR", "score": tvd * 2},
                           {**cell, "metric": "NNDR", "score": 0.99}]  # fmt: skip
                utility.append({**cell, "params": params, "measure": "two-way TVD", "value": tvd})
    return pd.DataFrame(scores), pd.DataFrame(utility)


def test_the_frame_averages_runs_and_reads_only_the_seven():
    frame = privacy_utility(*_store()).set_index("config")
    assert frame.loc["AIM ε=1", "two-way TVD"] == pytest.approx(0.08)
    # NNDR is not among the paper's seven: the risk is DCR's mean alone
    assert frame.loc["PrivBayes ε=1", "privacy risk"] == pytest.approx(0.22)
    assert frame.loc["PrivBayes ε=10", "epsilon"] == 10.0
    assert pd.isna(frame.loc["Random", "epsilon"]) and (frame.runs == 2).all()


def test_the_comparison_names_the_more_useful_release_with_its_baseline():
    sentence = compare_at_epsilon(privacy_utility(*_store()))
    assert (
        "AIM's two-way TVD is 0.080 against PrivBayes's 0.110 (runs: 2 and 2); Random's is 0.400"
        in sentence
    )
    assert "so AIM is the more useful release by 0.030" in sentence
    reverse = compare_at_epsilon(privacy_utility(*_store()), first="privbayes", second="aim")
    assert "so AIM is the more useful" in reverse


def test_the_comparison_says_which_cell_a_dataset_lacks():
    frame = privacy_utility(*_store(("texas", "flchain"), skip={("flchain", "aim")}))
    sentence = compare_at_epsilon(frame)
    assert "On flchain the store holds no AIM cell at ε=1" in sentence
    assert "On texas at ε=1" in sentence
