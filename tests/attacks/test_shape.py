"""One attack shape (attacks/shape.py): every attack of the package is configured, evaluated with
a seed and gives its outcomes; nothing happens in a constructor; one vocabulary."""

import importlib
import inspect
import pkgutil
import typing

import numpy as np
import pandas as pd
import pytest

import privmetrics.attacks as package
from privmetrics.attacks.outcome import Outcome
from privmetrics.attacks.shape import Attack, AttackResult, attack_classes
from privmetrics.data.datasets import load_dataset
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.real_side import RealSide

# names the attacks used before they shared one vocabulary
RETIRED = {"aux", "unknown", "n_attacks", "max_targets", "sensitive", "synthetic"}


def package_classes() -> list[type]:
    """Every class defined in a module of ``privmetrics.attacks``."""
    found = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found += [c for _, c in inspect.getmembers(module, inspect.isclass)
                  if c.__module__ == module.__name__]  # fmt: skip
    return found


def misfits(classes: list[type]) -> list[str]:
    """Classes that play an attack (an ``evaluate`` method) but are not among the package's
    attacks, and results (an ``outcome`` or ``outcomes`` method) that are no AttackResult."""
    known = set(attack_classes())
    out = [f"{c.__name__}: evaluates but is no listed Attack" for c in classes
           if hasattr(c, "evaluate") and c not in known and not inspect.isabstract(c)]  # fmt: skip
    out += [f"{c.__name__}: gives outcomes but is no AttackResult" for c in classes
            if (hasattr(c, "outcome") or hasattr(c, "outcomes"))
            and not issubclass(c, AttackResult)]  # fmt: skip
    return out


def test_every_attack_and_result_of_the_package_fits_the_base():
    classes = package_classes()
    assert misfits(classes) == []
    assert set(attack_classes()) <= set(classes)
    for attack in attack_classes():
        assert issubclass(attack, Attack), attack
        returned = typing.get_type_hints(attack.evaluate)["return"]
        assert issubclass(returned, AttackResult), (attack, returned)
    # and the check can fail: an attack outside the list, a result without the base
    rogue = type("Rogue", (), {"evaluate": lambda self, seed=0: None})
    loose = type("Loose", (), {"outcomes": lambda self: []})
    assert misfits([rogue, loose]) == [
        "Rogue: evaluates but is no listed Attack",
        "Loose: gives outcomes but is no AttackResult",
    ]


@pytest.mark.parametrize("attack", attack_classes(), ids=lambda c: c.__name__)
def test_a_constructor_keeps_what_it_is_given_and_does_nothing_else(attack):
    """Sentinels pass through untouched: a constructor that checked or copied would fail here
    (scikit-learn's rule; the checks happen in evaluate)."""
    names = attack.parameter_names()
    given = {name: object() for name in names}
    made = attack(**given)
    assert made.get_params().keys() == given.keys()
    assert all(made.get_params()[n] is given[n] for n in names)
    assert not RETIRED & set(names), RETIRED & set(names)


@pytest.fixture(scope="module")
def texas():
    frame, schema = load_dataset("texas", n=900, seed=3)
    return frame.iloc[:300], frame.iloc[300:600], frame.iloc[600:], schema


def test_release_attacks_read_a_copy_as_exposure_and_fresh_rows_as_none(texas):
    """Each release attack on a copy of its training rows against fresh rows of the same file,
    the holdout as control: the copy's finding lies beyond its baseline, the fresh rows' not."""
    from privmetrics.attacks.anonymisation import Inference, Linkability
    from privmetrics.attacks.inference import AnonymityLoss
    from privmetrics.attacks.singling_out import SinglingOut
    from privmetrics.attacks.whole_release import WholeRelease

    real, holdout, fresh, schema = texas
    side = RealSide(real.reset_index(drop=True), schema)
    key, secret = list(schema.key), schema.sensitive[0]
    settings = {
        SinglingOut: {"targets": 200},
        Linkability: {"known": (key[: len(key) // 2], key[len(key) // 2 :]), "targets": 200},
        Inference: {"secret": secret, "known": key, "targets": 200},
        AnonymityLoss: {"secret": secret, "known": key, "targets": 200},
        WholeRelease: {"reference": fresh.iloc[150:], "draws": 200},
    }
    for attack, params in settings.items():
        for release, leaks in ((real.copy(), True), (fresh.iloc[:150], False)):
            result = attack(side, release, holdout, **params).evaluate(seed=1)
            assert isinstance(result, AttackResult)
            outcomes = result.outcomes()
            assert outcomes and all(isinstance(o, Outcome) for o in outcomes)
            beyond = [o.beyond_baseline for o in outcomes]
            assert any(beyond) if leaks else not any(beyond), (attack.__name__, leaks, outcomes)


def test_a_side_and_a_table_with_its_schema_give_the_same_attack(texas):
    from privmetrics.attacks.anonymisation import Inference

    real, holdout, _, schema = texas
    real = real.reset_index(drop=True)
    params = {"secret": schema.sensitive[0], "known": list(schema.key), "targets": 100}
    on_side = Inference(RealSide(real, schema), real.copy(), holdout, **params).evaluate(2)
    on_table = Inference(real, real.copy(), holdout, schema, **params).evaluate(2)
    assert on_side.outcome() == on_table.outcome()
    with pytest.raises(InvalidInputError, match="needs its schema"):
        Inference(real, real, holdout, **params).evaluate()
    with pytest.raises(InvalidInputError, match="RealSide or a DataFrame"):
        Inference(real.to_numpy(), real, holdout, **params).evaluate()


def test_the_whole_release_auc_is_the_rank_auc_and_its_interval_holds_it(texas):
    """The whole-release attack's AUC is scikit-learn's on the same scores, its bootstrap
    interval contains it, and a copy's members stand out by every scoring (not perfectly by the
    distance: it subtracts the distance to the reference, which a far non-member can win)."""
    from sklearn.metrics import roc_auc_score

    from privmetrics.attacks.whole_release import WholeRelease

    real, holdout, fresh, schema = texas
    result = WholeRelease(real, real.copy(), holdout, schema, reference=fresh, draws=100).evaluate()
    truth = np.r_[np.ones(result.members), np.zeros(result.non_members)]
    for name, (auc, low, high) in result.aucs.items():
        assert auc == pytest.approx(roc_auc_score(truth, result.scores[name]), abs=1e-12)
        assert low <= auc <= high
    assert all(low > 0.9 for _, low, _ in result.aucs.values()), result.aucs
    with pytest.raises(InvalidInputError, match="needs control="):
        WholeRelease(real, real, None, schema).evaluate()


def test_the_games_give_their_outcomes_in_the_one_shape():
    from privmetrics.attacks.one_run import TargetGames, choose_targets

    frame, schema = load_dataset("flchain", n=600, seed=0)
    targets = choose_targets(frame, schema, 2, seed=0)
    played = TargetGames(frame, schema, "real", {}, targets, train_rows=100, shadow=4,
                         releases=6).evaluate(seed=0)  # fmt: skip
    table = played.table()
    attacks = set(table.attack.str.split(", ").str[0])
    assert attacks == {"membership", "attribute", "whole release"}
    real_auc = table[(table.attack == "membership, vulnerable") & (table.measure == "AUC")]
    assert real_auc.value.iloc[0] == 1.0 and real_auc.baseline.iloc[0] == 0.5
    assert isinstance(pd.DataFrame(table), pd.DataFrame) and table["beyond baseline"].any()
