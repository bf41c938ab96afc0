"""The run profiles (``privmetrics.experiments.profiles``): the one place sizes come from."""

import pytest

from privmetrics.experiments.profiles import PROFILES, get_profile


def test_an_unknown_profile_is_refused_naming_the_choices():
    with pytest.raises(KeyError, match=r"unknown profile 'fast'; choose one of \['paper'"):
        get_profile("fast")


def test_a_configurations_own_parameters_override_the_profiles():
    quick = get_profile("quick")
    technique = next(iter(quick.synthesisers))
    (name, value), *_ = quick.params_for(technique).items()
    merged = quick.synthesiser_params(technique, {name: "own", "epsilon": 1.0})
    assert merged[name] == "own" and merged["epsilon"] == 1.0
    assert quick.params_for(technique)[name] == value  # the profile itself is left as it was


def test_the_quick_edition_is_no_larger_than_the_papers():
    quick, paper = PROFILES["quick"], PROFILES["paper"]
    assert set(quick.datasets) <= set(paper.datasets)
    for dataset in quick.datasets:
        assert quick.rows_for(dataset) is not None  # the quick edition samples every table
        assert paper.rows_for(dataset) is None or quick.rows_for(dataset) <= paper.rows_for(dataset)
    assert quick.min_runs <= quick.max_runs <= paper.max_runs
    assert quick.study_profile == "quick" and paper.study_profile == (paper.studies or "paper")
