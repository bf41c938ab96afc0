"""PATE-GAN at the games' size (experiments/studies/pategan_study.py): which configurations did
not train, and so stay out of the metrics' verdicts."""

from privmetrics.experiments.profiles import get_profile
from privmetrics.experiments.studies import pategan_study as P


def test_configurations_that_train_too_few_iterations_are_named_with_their_count(monkeypatch):
    smoke = get_profile("smoke")  # 60 training rows: the accountant allows (almost) nothing
    training = P.pategan_training(smoke, ["flchain"])
    left_out = P.untrained(smoke, ["flchain"])
    assert set(left_out) == {("flchain", c) for c in training.config}
    assert all(n < P.FEW_ITERATIONS for n in left_out.values())
    # the filter can fail: with no minimum, every configuration counts as trained
    monkeypatch.setattr(P, "FEW_ITERATIONS", 0)
    assert P.untrained(smoke, ["flchain"]) == {}
