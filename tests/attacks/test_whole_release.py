"""The whole-release attack (DOMIAS's density ratio and the distance difference): a release that is
its training table gives its members away, one that ignores the rows gives nothing, and the
kernel density is what its formula says on a hand-made sample."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from privmetrics.attacks.whole_release import ReleaseScorer, bandwidth, log_density
from privmetrics.data.datasets import load_dataset


@pytest.fixture(scope="module")
def halves():
    frame, schema = load_dataset("flchain", n=1200, seed=0)
    frame = frame.sample(frac=1, random_state=1)  # the loader keeps the file's order
    return frame.iloc[:400], frame.iloc[400:800], frame.iloc[800:], schema


def test_a_copy_gives_its_members_away_and_noise_gives_nothing(halves):
    reference, members, others, schema = halves
    attack = ReleaseScorer(schema, reference)
    copy = attack.aucs(members, members, others)
    # flchain has near-twins (a non-member can sit on a member): neither is a clean 1
    assert copy["density ratio"] > 0.7 and copy["distance"] > 0.85
    domains = {c: (d.low, d.high) if c in schema.numerical else list(d.values)
               for c, d in schema.domain.items()}  # fmt: skip
    from privmetrics.synthesisers import make_synthesiser

    noise = make_synthesiser("uniform", seed=0, domains=domains).fit_sample(members, schema)
    for name, auc in attack.aucs(noise, members, others).items():
        assert 0.4 < auc < 0.6, (name, auc)
    # members and non-members swapped: the copy now says the opposite (the AUC can fail)
    swapped = attack.aucs(members, others, members)
    assert swapped["distance"] < 0.15


def test_the_kernel_density_by_hand():
    sample = np.array([[0.0], [2.0]])
    width = 0.5
    points = np.array([[0.0], [1.0]])
    # one-dimensional Gaussian kernels: the mean of the two kernels, up to the shared constant
    # log(width * sqrt(2 pi)) of every estimate of this width and dimension
    by_hand = np.log(norm.pdf(points[:, 0, None], sample[:, 0], width).mean(1)) + np.log(
        width * np.sqrt(2 * np.pi)
    )
    np.testing.assert_allclose(log_density(points, sample, width), by_hand)
    # Scott's rule: n^(-1/(d+4)) times the spread
    space = np.array([[0.0, 0.0], [1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    spread = np.mean([np.std([0, 1, 2, 3]), np.std([0, 2, 4, 6])])
    assert bandwidth(space) == pytest.approx(spread * 4 ** (-1 / 6))


def test_scores_are_per_candidate_and_seeded_free(halves):
    reference, members, others, schema = halves
    attack = ReleaseScorer(schema, reference)
    scored = attack.scores(members, pd.concat([members.iloc[:5], others.iloc[:5]]))
    assert {k: v.shape for k, v in scored.items()} == {"density ratio": (10,), "distance": (10,)}
    # a member sits on a released row: its distance score is its distance to the reference
    from privmetrics.geometry.neighbours import knn

    to_reference = knn(attack.encoder.transform(members.iloc[:5]), attack.reference)[0][:, 0]
    np.testing.assert_allclose(scored["distance"][:5], to_reference)


def test_gen_lra_is_the_kernel_likelihood_ratio_with_and_without_the_candidate():
    """Gen-LRA by hand on a tiny table: the closed form equals the two kernel estimates computed
    apart, log p_(R + x)(s) - log p_R(s) summed over the k release rows nearest x, up to the
    constant k log(n / (n + 1))."""
    rows, schema = load_dataset("texas", n=60, seed=5)
    reference, release, candidates = rows.iloc[:30], rows.iloc[30:50], rows.iloc[50:]
    attack = ReleaseScorer(schema, reference)
    got = attack.gen_lra(release, candidates, k=3)
    r, z = attack.reference, attack.encoder.transform(release)
    x = attack.encoder.transform(candidates)
    kernel = lambda a, b: np.exp(-((a[:, None] - b[None]) ** 2).sum(2) / (2 * attack.width**2))  # noqa: E731
    n = len(r)
    for i in range(len(x)):
        near = np.argsort(((z - x[i]) ** 2).sum(1))[:3]
        s = z[near]
        with_x = (kernel(s, r).sum(1) + kernel(s, x[i : i + 1])[:, 0]) / (n + 1)
        without = kernel(s, r).sum(1) / n
        expected = np.log(with_x / without).sum() - 3 * np.log(n / (n + 1))
        assert got[i] == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_gen_lra_finds_planted_copies_and_nothing_in_fresh_rows():
    """On the leakage ladder (Texas, 500 training rows): at dose 0 Gen-LRA's AUC lies within
    0.05 of chance; with 60% of the members planted exactly, well above it."""
    from sklearn.metrics import roc_auc_score

    from privmetrics.synthesisers.planted import make_control

    rows, schema = load_dataset("texas", n=4000, seed=2)
    rows = rows.drop_duplicates().sample(frac=1, random_state=0).reset_index(drop=True)
    train, fresh, unseen, ref = (rows.iloc[a:b] for a, b in
                                 ((0, 500), (500, 1500), (1500, 2000), (2000, 3000)))  # fmt: skip
    attack = ReleaseScorer(schema, ref)
    candidates = pd.concat([train, unseen], ignore_index=True)
    truth = np.r_[np.ones(len(train)), np.zeros(len(unseen))]
    aucs = {}
    for dose in (0.0, 0.6):
        release = make_control("planted", dose=dose, seed=1).fit_sample(train, schema, fresh=fresh)
        aucs[dose] = roc_auc_score(truth, attack.gen_lra(release, candidates))
    assert abs(aucs[0.0] - 0.5) < 0.05 and aucs[0.6] > 0.7, aucs
