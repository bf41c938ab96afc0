"""The member / non-member design: the synthesiser re-fitted without the targets, through the cache."""

import pytest

from privmetrics.attacks.membership import RefitAnonymityLoss, tradeoff
from privmetrics.synthesisers.cache import SyntheticCache


def refit_alc(frame, schema, technique, secret, seed=0, **params):
    """The refit ALC attack (:class:`RefitAnonymityLoss`) played with ``seed``."""
    return RefitAnonymityLoss(frame, schema, technique, secret=secret, **params).evaluate(seed)


@pytest.fixture(scope="module")
def table(make_secret_table):
    return make_secret_table(1500, seed=21, sex=False)


def test_real_release_loses_anonymity_under_both_baselines(table, tmp_path):
    frame, schema = table
    cache = SyntheticCache(tmp_path)
    result = refit_alc(frame, schema, "real", "secret", refits=2, cache=cache)
    # the member release holds every target; without them, the attack finds only neighbours
    assert result.alc_ours > 0.8 and result.alc_prior > 0.8
    assert result.prc_base_prior < 0.5 and result.targets == 400 and result.fits == 3
    assert cache.misses == 3  # one member table and one per held-out block


def test_random_release_shows_no_loss_and_the_cache_serves_the_refits(table, tmp_path):
    frame, schema = table
    cache = SyntheticCache(tmp_path)
    first = refit_alc(frame, schema, "random", "secret", refits=2, cache=cache)
    # the same attack on two unrelated releases: the prior baseline equals the attack
    assert abs(first.alc_prior) < 0.15 and first.alc_ours < 0.1
    again = refit_alc(frame, schema, "random", "secret", refits=2, cache=cache)
    assert cache.misses == 3 and cache.hits == 3 and again.alc_ours == first.alc_ours


def test_tradeoff_uses_the_requested_targets(table, tmp_path):
    frame, schema = table
    cache = SyntheticCache(tmp_path)
    out = tradeoff(frame, schema, "real", "secret", refits=(1, 2), targets_per_refit=(50,),
                   seeds=(0, 1), cache=cache)  # fmt: skip
    assert out["targets"].tolist() == [50, 100] and out["synthesiser fits"].tolist() == [2, 3]
    assert (out["ALC ours"] > 0.5).all() and out["sd ours"].notna().all()


def test_bad_parameters_are_named(table):
    frame, schema = table
    with pytest.raises(ValueError, match="refits and targets_per_refit"):
        refit_alc(frame, schema, "real", "secret", refits=0)
