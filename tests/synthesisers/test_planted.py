"""The leakage ladder's releases (issue 59): fresh rows with a known dose of training rows
planted, exactly or jittered, and the distance attack's AUC on them against its hand-computed
expectation 1/2 + dose/2."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from privmetrics.data.datasets import load_dataset
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.encoding import MixedEncoder
from privmetrics.geometry.neighbours import knn
from privmetrics.synthesisers import SYNTHESISERS
from privmetrics.synthesisers.planted import CONTROLS, expected_distance_auc, make_control


@pytest.fixture(scope="module")
def population():
    rows, schema = load_dataset("texas", n=6000, seed=2)
    # distinct people, distinct records, in random order (a file may be sorted)
    rows = rows.drop_duplicates().sample(frac=1, random_state=0).reset_index(drop=True)
    return rows.iloc[:2000], rows.iloc[2000:4000], rows.iloc[4000:], schema


def hashes(frame):
    return set(pd.util.hash_pandas_object(frame.astype(str), index=False))


def release_of(population, dose, jitter=0.0, seed=0):
    training, fresh, _, schema = population
    model = make_control("planted", dose=dose, jitter=jitter, seed=seed)
    return model, model.fit_sample(training, schema, fresh=fresh)


def test_dose_zero_holds_no_training_row_and_dose_one_copies_every_one(population):
    training, fresh, _, _ = population
    _, safe = release_of(population, 0.0)
    assert len(safe) == len(training) and not hashes(safe) & hashes(training)
    assert hashes(safe) <= hashes(fresh)
    _, copy = release_of(population, 1.0)
    assert hashes(copy) == hashes(training)


@pytest.mark.parametrize("dose", [0.005, 0.05, 0.25])
def test_each_training_row_is_planted_with_the_doses_probability(population, dose):
    training = population[0]
    model, release = release_of(population, dose)
    n = len(training)
    assert abs(model.planted_.mean() - dose) <= 4 * np.sqrt(dose * (1 - dose) / n)
    copied = pd.util.hash_pandas_object(training.astype(str), index=False).isin(hashes(release))
    np.testing.assert_array_equal(copied.to_numpy(), model.planted_)
    # the seed decides: the same seed the same release, another seed another
    assert release.equals(release_of(population, dose)[1])
    assert not release.equals(release_of(population, dose, seed=1)[1])


def test_jittered_rows_move_by_the_stated_amount_and_stay_in_range(population):
    training, _, _, schema = population
    jitter = 0.2
    model, release = release_of(population, 1.0, jitter)
    # every row planted, jittered: few survive unchanged (a row whose 18 values all stay put)
    assert len(hashes(release) & hashes(training)) < 0.01 * len(training)
    moved = model._jittered(training.reset_index(drop=True), np.random.default_rng(5))
    for col in schema.numerical:
        values = training[col]
        assert moved[col].between(values.min(), values.max()).all()
        if (values == values.round()).all():
            assert (moved[col] == moved[col].round()).all()
        spread = (moved[col] - values.to_numpy()).std()
        assert 0.5 * jitter * values.std(ddof=0) < spread < 1.1 * jitter * values.std(ddof=0)
    for col in schema.categorical:
        changed = moved[col].astype(str).to_numpy() != training[col].astype(str).to_numpy()
        if training[col].nunique() > 1:
            assert abs(changed.mean() - jitter) < 4 * np.sqrt(jitter * (1 - jitter) / len(moved))


@pytest.mark.parametrize("dose", [0.0, 0.01, 0.05, 0.25, 0.6])
def test_the_distance_attack_meets_its_hand_computed_auc(population, dose):
    """A member planted exactly is at distance 0 and beats every non-member; the others are
    exchangeable with the non-members: AUC = 1/2 + p/2 for the share p of members planted."""
    training, _, unseen, schema = population
    model, release = release_of(population, dose)
    encoder = MixedEncoder(schema).fit(unseen)
    z = encoder.transform(release)
    members, others = encoder.transform(training), encoder.transform(unseen.iloc[: len(training)])
    score = -np.r_[knn(members, z)[0][:, 0], knn(others, z)[0][:, 0]]
    truth = np.r_[np.ones(len(members)), np.zeros(len(others))]
    auc = roc_auc_score(truth, score)
    # the exchangeable half's AUC has sd about sqrt(1/(3 n)) / 2 at n = 2000: 0.0065
    assert abs(auc - expected_distance_auc(model.planted_.mean())) < 0.03, auc


def test_the_ladder_is_a_control_not_a_synthesiser(population):
    training, fresh, _, schema = population
    assert "planted" in CONTROLS and "planted" not in SYNTHESISERS
    with pytest.raises(InvalidInputError, match="needs fresh rows"):
        make_control("planted", dose=0.1).fit(training, schema)
    with pytest.raises(InvalidInputError, match="dose must be a probability in"):
        make_control("planted", dose=1.5).fit(training, schema, fresh)
    with pytest.raises(InvalidInputError, match=r"fresh rows lack column\(s\) \['RACE'\]"):
        make_control("planted", dose=0.1).fit(training, schema, fresh.drop(columns="RACE"))
    with pytest.raises(InvalidInputError, match="needs 2,000 fresh rows, got 10"):
        make_control("planted").fit(training, schema, fresh.iloc[:10]).sample()
    with pytest.raises(KeyError, match="unknown control"):
        make_control("copies")
