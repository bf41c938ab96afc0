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
hundreds of rows; :class:`privmetrics.attacks.one_run.TargetGames` runs it on every evaluation
release of a configuration. :class:`WholeRelease` is the attack in the package's one shape
(:mod:`.shape`) on one release: its training rows (``real``) against a holdout (``control``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from scipy.stats import rankdata
from sklearn.metrics import roc_auc_score

from privmetrics.attacks.outcome import Outcome
from privmetrics.attacks.shape import AttackResult, ReleaseAttack
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.encoding import MixedEncoder
from privmetrics.geometry.neighbours import knn

SCORINGS = ("density ratio", "distance")
# the third scoring, Gen-LRA (ReleaseScorer.gen_lra), played on the leakage ladder so far
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


class ReleaseScorer:
    """The attacker of the module doc, set up once on its reference: :meth:`scores` of candidate
    rows against one release, by each scoring of :data:`SCORINGS` (the engine of
    :class:`WholeRelease` and of the games' whole-release attack)."""

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


def rank_auc_draws(scores: np.ndarray, members: int, draws: np.ndarray) -> np.ndarray:
    """The AUC of the first ``members`` positions of each row of ``draws`` (indices into
    ``scores``) against the rest of the row: Mann-Whitney from the ranks, ties counted half;
    rows taken a few at a time, so that a large bootstrap stays within memory."""
    m, n = members, draws.shape[1] - members
    out = np.empty(len(draws))
    step = max(1, 2**22 // max(1, draws.shape[1]))
    for start in range(0, len(draws), step):
        ranks = rankdata(scores[draws[start : start + step]], axis=1)
        out[start : start + step] = (ranks[:, :m].sum(1) - m * (m + 1) / 2) / (m * n)
    return out


@dataclass(frozen=True)
class WholeReleaseResult(AttackResult):
    """Each scoring's AUC of members against non-members with its bootstrap interval."""

    scores: dict[str, np.ndarray] = field(repr=False)  # per scoring: members first, then the rest
    members: int
    non_members: int
    aucs: dict[str, tuple[float, float, float]]  # per scoring: (AUC, low, high)

    def outcomes(self) -> list[Outcome]:
        """One AUC per scoring, baseline 1/2 (scores that tell members from nobody)."""
        return [Outcome(f"whole release, {name}", "AUC", auc, low, high, 0.5, self.members)
                for name, (auc, low, high) in self.aucs.items()]  # fmt: skip


class WholeRelease(ReleaseAttack):
    """The module doc's attack on one ``release`` in the package's shape (:mod:`.shape`): up to
    ``targets`` of its training rows (``real``) against as many rows the generator never saw
    (``control``), each scored against the attacker's ``reference`` sample of the population by
    the ``scorings`` of :data:`SCORINGS` and Gen-LRA; the interval from ``draws`` bootstrap draws
    of the candidates."""

    def __init__(self, real, release, control=None, schema=None, reference=None,
                 scorings=(*SCORINGS, GEN_LRA), targets=None, draws=500):  # fmt: skip
        super().__init__(real, release, control, schema)
        self.reference = reference
        self.scorings = scorings
        self.targets = targets
        self.draws = draws

    def evaluate(self, seed: int = 0) -> WholeReleaseResult:
        real, schema = self.tables()
        if self.control is None or self.reference is None:
            raise InvalidInputError(
                "the whole-release attack needs control= (rows the generator never saw: the "
                "non-members) and reference= (the attacker's sample of the population)"
            )
        unknown = set(self.scorings) - {*SCORINGS, GEN_LRA}
        if unknown:
            raise InvalidInputError(f"unknown scorings {sorted(unknown)}; choose from "
                                    f"{[*SCORINGS, GEN_LRA]}")  # fmt: skip
        rng = np.random.default_rng(seed)
        n = min(len(real), len(self.control), self.targets or len(real))
        members = real.iloc[np.sort(rng.choice(len(real), n, replace=False))]
        others = self.control.iloc[np.sort(rng.choice(len(self.control), n, replace=False))]
        candidates = pd.concat([members, others], ignore_index=True)
        scorer = ReleaseScorer(schema, self.reference)
        found = scorer.scores(self.release, candidates)
        if GEN_LRA in self.scorings:
            found[GEN_LRA] = scorer.gen_lra(self.release, candidates)
        draws = np.concatenate([rng.integers(0, n, (self.draws, n)),
                                rng.integers(n, 2 * n, (self.draws, n))], axis=1)  # fmt: skip
        whole = np.arange(2 * n)[None, :]
        aucs = {}
        for name in self.scorings:
            point = float(rank_auc_draws(found[name], n, whole)[0])
            low, high = np.percentile(rank_auc_draws(found[name], n, draws), [2.5, 97.5])
            aucs[name] = (point, float(low), float(high))
        return WholeReleaseResult({k: found[k] for k in self.scorings}, n, n, aucs)
