"""The PrivEval definitions offered as options of the same metrics (spec priveval-metric-definitions
sections 4-5): each option changes the number the way its definition says."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from privmetrics.compendium.benchmarks.bench import generated_texas_like
from privmetrics.data.schema import Schema
from privmetrics.geometry.pair import Pair
from privmetrics.metrics import compute


@pytest.fixture(scope="module")
def gaussian():
    """Numerical data only (no ties): a copy, a near copy and an independent sample."""
    rng = np.random.default_rng(0)
    cols = list("abcde")
    real = pd.DataFrame(rng.normal(size=(400, 5)), columns=cols)
    schema = Schema({c: "numerical" for c in cols})
    near = real + rng.normal(0, 0.01, real.shape)
    independent = pd.DataFrame(rng.normal(size=(400, 5)), columns=cols)
    return real, schema, near, independent


def test_nndr_priveval_definition_is_not_monotone(gaussian):
    real, schema, near, independent = gaussian
    ours = [compute("NNDR", real, z, schema) for z in (real, near, independent)]
    theirs = [compute("NNDR", real, z, schema, mode="priveval") for z in (real, near, independent)]
    assert ours[0] == theirs[0] == 1.0
    assert ours[0] > ours[1] > ours[2]  # ours falls as the release moves away
    assert theirs[1] < 0.2 < theirs[2]  # Eq. 23: a near copy looks safer than an independent sample


def test_mdcr_priveval_definition_gives_one_half_for_the_copy(gaussian):
    real, schema, _, independent = gaussian
    assert compute("MDCR", real, real, schema, variant="priveval") == pytest.approx(0.5)
    assert compute("MDCR", real, real, schema) == pytest.approx(expit(3))
    # sigmoid(ratio) rises with privacy: the independent sample scores higher than the copy
    assert compute("MDCR", real, independent, schema, variant="priveval") > 0.6


def test_dcr_natural_log_is_one_over_one_plus_the_mean(gaussian):
    real, schema, _, independent = gaussian
    pair = Pair(real, independent, schema)
    mean = pair.nearest_distance("real", "synthetic", "famd").mean()
    assert compute("DCR", real, independent, schema, log_base=np.e) == pytest.approx(1 / (1 + mean))
    assert compute("DCR", real, independent, schema) == pytest.approx(
        1 / (1 + mean ** (1 / np.log(10)))
    )


def test_global_pair_normalisation_shrinks_distances(gaussian):
    real, schema, _, independent = gaussian
    # d_max over all pairs exceeds the largest nearest distance, so normalised distances shrink:
    # CVP grows, 1 - DVP grows and NSND's score grows (spec: paper CVP >= code CVP)
    for name in ("CloseValueProb", "DistantValueProb", "NearestSynNeighborDistance"):
        nn = compute(name, real, independent, schema, normalise="nn")
        pairs = compute(name, real, independent, schema, normalise="pairs")
        assert pairs > nn, name
    with pytest.raises(ValueError, match="normalise must be one of"):
        compute("CloseValueProb", real, real, schema, normalise="max")


def test_identifiability_without_weights_is_one_minus_authenticity_without_ties(gaussian):
    real, schema, _, independent = gaussian
    plain = compute("IdentifiabilityScore", real, independent, schema, weighting="none")
    assert plain == pytest.approx(compute("Authenticity", real, independent, schema))
    real2, schema2 = generated_texas_like(rows=300, seed=4)
    rng = np.random.default_rng(4)
    noisy = real2.copy()
    for c in schema2.numerical:
        noisy[c] = noisy[c] * rng.uniform(0.5, 1.5, len(noisy))
    for c in schema2.categorical:
        flip = rng.random(len(noisy)) < 0.5
        noisy.loc[flip, c] = rng.permutation(noisy.loc[flip, c].to_numpy())
    # weighting by 1/entropy shrinks the many-valued columns that separate rows: fewer exposed
    weighted = compute("IdentifiabilityScore", real2, noisy, schema2)
    assert (
        weighted < compute("IdentifiabilityScore", real2, noisy, schema2, weighting="none") - 0.05
    )


def test_attribute_inference_record_weights():
    rng = np.random.default_rng(5)
    real = pd.DataFrame({"k": rng.normal(size=300), "s": rng.choice(list("abc"), 300)})
    schema = Schema({"k": "numerical", "s": "categorical"}, key=["k"], sensitive=["s"])
    synth = real.assign(s=rng.choice(list("abc"), 300))
    # one sensitive attribute and distinct rows: uniform record weights = the attribute version
    assert compute("AttributeInference", real, synth, schema, weights="record") == pytest.approx(
        compute("AttributeInference", real, synth, schema)
    )
    # a numerical guess of 101 for a truth of 91: within 10% of the guess, not of the truth
    real2 = pd.DataFrame({"k": [0.0, 1.0], "s": [91.0, 50.0]})
    synth2 = pd.DataFrame({"k": [0.0, 1.0], "s": [101.0, 80.0]})
    schema2 = Schema({"k": "numerical", "s": "numerical"}, key=["k"], sensitive=["s"])
    assert compute("AttributeInference", real2, synth2, schema2) == 0.0
    assert compute("AttributeInference", real2, synth2, schema2, weights="record") == 0.5


def test_membership_classifier_is_a_detector(gaussian):
    real, schema, _, independent = gaussian
    shifted = independent + 10
    assert compute("MemInf", real, shifted, schema, attack="classifier") > 0.95
    assert compute("MemInf", real, shifted, schema) == 0.0  # no synthetic row near a real one
    with pytest.raises(ValueError, match="attack must be"):
        compute("MemInf", real, real, schema, attack="oracle")
