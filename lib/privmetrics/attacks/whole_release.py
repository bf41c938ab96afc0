"""Membership inference over a whole release, without shadow models: every training row against
held-out rows of the same population, scored from the release and the attacker's reference.

**Threat model.** The attacker holds a reference sample of the population (never the training
rows) and one release; for any candidate record they must say whether it was in the release's
training table. Every candidate is scored by how much more the release than the reference
explains it:

* ``"density ratio"`` (DOMIAS, van Breugel et al., AISTATS 2023): log p_release(x) - log
  p_reference(x), each density a Gaussian kernel estimate in the distance space
  (:class:`~privmetrics.geometry.encoding.MixedEncoder`, fitted on the reference), with the
  bandwidth of Scott's rule on the reference's spread (DOMIAS fits a normalising flow; the kernel
  estimate is its simplest instance, and the one the DOMIAS paper reports as a baseline);
* ``"distance"``: the distance from x to its nearest reference row minus that to its nearest
  released row (closer to the release than to the population: a member).

**Success**: the AUC of the scores of the release's training rows (members) against as many
rows of the same population that the release never saw (non-members), one AUC per release. This
is the average-case attack that DCR-style metrics claim to measure, and each release labels
hundreds of rows; :func:`privmetrics.attacks.one_run.play_targets` runs it on every evaluation
release of a configuration.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from sklearn.metrics import roc_auc_score

from privmetrics.geometry.encoding import MixedEncoder
from privmetrics.geometry.neighbours import knn

SCORINGS = ("density ratio", "distance")
# the third scoring, Gen-LRA (WholeReleaseAttack.gen_lra), played on the leakage ladder so far
GEN_LRA = "Gen-LRA"
VERSION = 1  # stored with every whole-release game (experiments.games)


def bandwidth(space: np.ndarray) -> float:
    """Scott's rule for a Gaussian kernel in ``space``: n^(-1/(d+4)) times the mean per-dimension
    standard deviation (at least 1e-3, so a constant table still has a kernel)."""
    n, d = space.shape
    spread = float(np.mean(space.std(axis=0))) if n > 1 else 0.0
    return max(spread, 1e-3) * n ** (-1 / (d + 4))


def log_density(points: np.ndarray, sample: np.ndarray, width: float) -> np.ndarray:
    """The Gaussian kernel density estimate of ``sample`` at ``points``, on the log scale, up to
    a constant shared by every estimate of the same width and dimension."""
    squared = (points**2).sum(1)[:, None] - 2 * points @ sample.T + (sample**2).sum(1)[None, :]
    return logsumexp(-np.maximum(squared, 0) / (2 * width**2), axis=1) - np.log(len(sample))


class WholeReleaseAttack:
    """The attacker of the module doc, set up once on its reference: :meth:`scores` of candidate
    rows against one release, by each scoring of :data:`SCORINGS`."""

    def __init__(self, schema, reference: pd.DataFrame):
        self.encoder = MixedEncoder(schema).fit(reference)
        self.reference = self.encoder.transform(reference)
        self.width = bandwidth(self.reference)

    def scores(self, release: pd.DataFrame, candidates: pd.DataFrame) -> dict[str, np.ndarray]:
        z, x = self.encoder.transform(release), self.encoder.transform(candidates)
        ratio = log_density(x, z, self.width) - log_density(x, self.reference, self.width)
        to_reference = knn(x, self.reference, k=1)[0][:, 0]
        to_release = knn(x, z, k=1)[0][:, 0]
        return {"density ratio": ratio, "distance": to_reference - to_release}

    def gen_lra(self, release: pd.DataFrame, candidates: pd.DataFrame, k: int = 5) -> np.ndarray:
        """Gen-LRA (Ward et al. 2025, the generative likelihood-ratio attack): how much more
        likely the release's ``k`` rows nearest to a candidate x become when x joins the
        attacker's reference, sum over those rows s of log p_(R + x)(s) - log p_R(s), each density
        the Gaussian kernel estimate of this attack (its width, its space). With the kernel
        estimate the ratio is closed-form: (sum_r K(s - r) + K(s - x)) / sum_r K(s - r), times
        n / (n + 1), the same for every candidate and so left out of the score."""
        z, x = self.encoder.transform(release), self.encoder.transform(candidates)
        k = min(k, len(z))
        _, near = knn(x, z, k=k)
        rows = z[near.ravel()]  # (candidates * k, d)
        n = len(self.reference)
        density = log_density(rows, self.reference, self.width) + np.log(n)  # log sum_r K
        own = -((rows - np.repeat(x, k, axis=0)) ** 2).sum(1) / (2 * self.width**2)
        return (np.logaddexp(density, own) - density).reshape(len(x), k).sum(1)

    def aucs(
        self, release: pd.DataFrame, members: pd.DataFrame, others: pd.DataFrame
    ) -> dict[str, float]:
        """The AUC of each scoring: ``members`` (the training rows) against ``others`` (as many
        unseen rows of the population)."""
        truth = np.r_[np.ones(len(members)), np.zeros(len(others))]
        scored = self.scores(release, pd.concat([members, others], ignore_index=True))
        return {name: float(roc_auc_score(truth, s)) for name, s in scored.items()}


def summarise_release(aucs: dict[tuple[str, str], np.ndarray], draws: int = 500, seed: int = 0):
    """Per (configuration, scoring) of ``aucs`` (its per-release AUCs): the mean AUC with a 95%
    bootstrap interval over the releases and its bootstrap values, as rows of the attack table."""
    rng = np.random.default_rng(seed)
    rows = []
    for (config, scoring), values in aucs.items():
        values = np.asarray(values, dtype=float)
        boot = values[rng.integers(len(values), size=(draws, len(values)))].mean(1)
        low, high = np.percentile(boot, [2.5, 97.5])
        rows.append({"config": config, "kind": scoring, "measure": "AUC",
                     "value": float(values.mean()), "low": float(low), "high": float(high),
                     "n targets": len(values), "draws": boot, "p": np.nan})  # fmt: skip
    return pd.DataFrame(rows)
