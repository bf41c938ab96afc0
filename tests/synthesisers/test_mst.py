"""MST on Private-PGM (issue 41, item 1): its privacy conversion by hand and against OpenDP's,
and a fit that stays in the declared domain, learns more with more epsilon and repeats under a
seed."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from privmetrics.data.schema import Schema
from privmetrics.synthesisers.pgm import cdp_delta, cdp_rho


def test_the_zcdp_conversion_by_hand_and_against_opendp():
    """The classic conversion: rho-zCDP gives (rho + 2 sqrt(rho log 1/delta), delta)-DP. At
    epsilon 1, delta 1e-9 (log 1/delta = 20.723): sqrt(rho) = sqrt(21.723) - sqrt(20.723)
    = 4.6608 - 4.5522, rho = 0.01179. The tighter bound of Canonne et al. allows more:
    0.014973057673588 (the value smartnoise-synth's OpenDP search gives)."""
    classic = (math.sqrt(math.log(1e9) + 1) - math.sqrt(math.log(1e9))) ** 2
    assert classic == pytest.approx(0.01179, abs=1e-5)
    assert cdp_rho(1.0, 1e-9) == pytest.approx(0.014973057673588, rel=1e-9)
    for epsilon, delta in ((0.2, 1e-6), (1.0, 1e-9), (10.0, 1e-5)):
        rho = cdp_rho(epsilon, delta)
        assert cdp_delta(rho, epsilon) <= delta < cdp_delta(rho * 1.001, epsilon)
        assert (
            rho >= (math.sqrt(math.log(1 / delta) + epsilon) - math.sqrt(math.log(1 / delta))) ** 2
        )


def structured(n=1000, seed=0):
    """b copies a 90% of the time and num depends on a: MST should find both edges."""
    rng = np.random.default_rng(seed)
    a = rng.choice(list("xyz"), n)
    b = np.where(rng.random(n) < 0.9, a, rng.choice(list("xyz"), n))
    num = np.where(a == "x", rng.normal(20, 3, n), rng.normal(60, 5, n)).clip(0, 100)
    frame = pd.DataFrame({"a": a, "b": b, "c": rng.choice(["u", "v"], n), "num": num})
    schema = Schema(
        {"a": "categorical", "b": "categorical", "c": "categorical", "num": "numerical"},
        domain={"a": ["x", "y", "z", "w"], "b": ["x", "y", "z"], "c": ["u", "v"],
                "num": {"low": 0, "high": 100}},
    )  # fmt: skip
    return frame, schema


@pytest.fixture(scope="module")
def fits():
    pytest.importorskip("mbi", reason="MST needs the dp extra (make setup installs it)")
    from privmetrics.synthesisers import make_synthesiser

    frame, schema = structured()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = {
            (eps, seed): make_synthesiser("mst", epsilon=eps, seed=seed, iters=300).fit(
                frame, schema
            )
            for eps, seed in ((0.2, 0), (10.0, 0), (10.0, 1))
        }
    return frame, schema, models


def test_mst_releases_only_declared_values(fits):
    frame, schema, models = fits
    for model in models.values():
        out = model.sample(len(frame))
        for col in schema.categorical:
            assert set(out[col]) <= set(schema.domain[col].values), col
        assert out.num.between(0, 100).all()


def test_mst_learns_more_with_more_epsilon_and_finds_the_structure(fits):
    from privmetrics.geometry.fidelity import marginal_distance

    frame, schema, models = fits
    distance = {
        key: marginal_distance(frame, m.sample(len(frame)), schema, order=2)
        for key, m in models.items()
    }
    assert distance[10.0, 0] < distance[0.2, 0] / 2, distance
    assert {(0, 1), (0, 3)} <= set(models[10.0, 0].tree_)  # a-b and a-num
    out = models[10.0, 0].sample(len(frame))
    assert (out.a == out.b).mean() > 0.8  # the copy survives sampling


def test_mst_accounts_its_budget_and_repeats_under_a_seed(fits):
    from privmetrics.synthesisers import make_synthesiser

    frame, schema, models = fits
    n = len(frame)
    model = models[10.0, 0]
    assert model.delta_ == pytest.approx(1 / (n * math.sqrt(n)))
    assert model.rho_ == pytest.approx(cdp_rho(10.0, model.delta_))
    assert cdp_delta(model.rho_, 10.0) <= model.delta_
    again = make_synthesiser("mst", epsilon=10.0, seed=0, iters=300).fit(frame, schema)
    pd.testing.assert_frame_equal(again.sample(200), model.sample(200))
    assert not model.sample(200).equals(models[10.0, 1].sample(200))


def test_without_private_pgm_mst_names_the_extra(monkeypatch):
    import sys

    from privmetrics.synthesisers import make_synthesiser

    monkeypatch.setitem(sys.modules, "mbi", None)  # as if the dp extra were not installed
    frame, schema = structured(50)
    with pytest.raises(ImportError, match=r"privmetrics\[dp\]"):
        make_synthesiser("mst").fit(frame, schema)
