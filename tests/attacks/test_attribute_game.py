"""The attribute-inference game, played for many targets on shared releases: a release that is
its training table gives the target's secret away, a release of noise does not, and the result is
seeded."""

import numpy as np
import pytest

from privmetrics.attacks.attribute_game import summarise_attribute
from privmetrics.attacks.one_run import TargetGames


@pytest.fixture(scope="module")
def population(make_secret_table):
    # the secret is independent of every known attribute: only a copy of the row reveals it
    return make_secret_table(400, 0)


def games(population, technique, targets=range(6), releases=12, params=None, seed=1):
    """One play: every target in half of the ``releases``, the guesses on those that hold it."""
    frame, schema = population
    return TargetGames(frame, schema, technique, params or {}, {"random": list(targets)},
                       train_rows=120, shadow=2, releases=releases).evaluate(seed).attribute  # fmt: skip


def test_a_copy_gives_the_secret_away_and_noise_does_not(population):
    real = summarise_attribute(games(population, "real")).set_index("measure")
    assert real.loc["accuracy", "value"] >= 0.9
    assert real.loc["advantage", "low"] > 0.3
    noise = summarise_attribute(games(population, "random")).set_index("measure")
    assert noise.loc["accuracy", "value"] <= 0.6  # four equally likely secrets: chance is 0.25
    assert noise.loc["advantage", "low"] <= 0 <= noise.loc["advantage", "high"] + 1e-12


def test_the_game_is_seeded_and_needs_a_secret(population):
    frame, schema = population
    one = games(
        population, "privbayes", targets=[3, 5], releases=6, params={"epsilon": 1.0}, seed=0
    )
    two = games(
        population, "privbayes", targets=[3, 5], releases=6, params={"epsilon": 1.0}, seed=0
    )
    assert [len(r.right) for r in one] == [3, 3]  # each target in half of the six releases
    assert all(np.array_equal(a.right, b.right) and a.baseline_right == b.baseline_right
               for a, b in zip(one, two, strict=True))  # fmt: skip
    played = TargetGames(frame, schema.with_roles(sensitive=()), "real", {}, {"random": [0]},
                         train_rows=120, shadow=2, releases=2).evaluate()  # fmt: skip
    assert played.attribute == [] and len(played.membership) == 1  # no secret, no attribute game
