"""The attribute-inference game: a release that is its training table gives the target's secret
away, a release of noise does not, and the result is seeded."""

import numpy as np
import pytest

from privmetrics.attacks.attribute_game import play_attribute, summarise_attribute


@pytest.fixture(scope="module")
def population(make_secret_table):
    # the secret is independent of every known attribute: only a copy of the row reveals it
    return make_secret_table(400, 0)


def games(population, technique, targets=range(6), releases=6):
    frame, schema = population
    return [
        play_attribute(frame, schema, technique, {}, t, train_rows=120, releases=releases, seed=1)
        for t in targets
    ]


def test_a_copy_gives_the_secret_away_and_noise_does_not(population):
    real = summarise_attribute(games(population, "real")).set_index("measure")
    assert real.loc["accuracy", "value"] >= 0.9
    assert real.loc["advantage", "low"] > 0.3
    noise = summarise_attribute(games(population, "random")).set_index("measure")
    assert noise.loc["accuracy", "value"] <= 0.6  # four equally likely secrets: chance is 0.25
    assert noise.loc["advantage", "low"] <= 0 <= noise.loc["advantage", "high"] + 1e-12


def test_the_game_is_seeded_and_refuses_a_schema_without_a_secret(population):
    frame, schema = population
    one = play_attribute(
        frame, schema, "privbayes", {"epsilon": 1.0}, 3, train_rows=120, releases=3
    )
    two = play_attribute(
        frame, schema, "privbayes", {"epsilon": 1.0}, 3, train_rows=120, releases=3
    )
    assert np.array_equal(one.right, two.right) and one.baseline_right == two.baseline_right
    with pytest.raises(ValueError, match="needs a sensitive attribute"):
        play_attribute(frame, schema.with_roles(sensitive=()), "real", {}, 0, train_rows=120)
