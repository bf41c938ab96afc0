"""Membership inference by shadow modelling: the privacy game of Stadler et al. (2022), Section 4,
its features, results and statistics; :class:`privmetrics.attacks.one_run.TargetGames` plays it
for many targets on shared releases.

**Threat model.** The attacker knows a *reference* sample of the population (rows drawn from it,
but not the training data), the synthesiser with its parameters, and one target record. They see
one release and must say whether the target was in its training data.

**The game**, for one target t and one synthesiser configuration:

1. *Shadow phase (the attacker).* ``shadow`` times, a training table of ``train_rows`` rows is
   drawn from the reference (t excluded), with t in half of them. The synthesiser releases a
   table from each, and :class:`FeatureMaker` summarises it. A random
   forest learns "t was in" from these labelled features. It weighs every feature at every split
   (``max_features=None``) and every tree sees every shadow release (``bootstrap=False``): with
   ten shadow releases, a bootstrap sample holds about six distinct ones, and so many features
   separate them by chance that the trees lose the one that separates in truth (both cost the
   attack its catch on Real, the release that is its training table; version 3's note below).
2. *Evaluation (the challenger).* ``releases`` times, a fresh training table is drawn from the
   *evaluation pool*, rows of the population that the attacker never saw, with t in half of
   them; the forest scores each release.
3. *Success*: the AUC of the scores, the advantage TPR - FPR at the forest's 0.5 threshold, and
   the TPR at FPR <= 0.1; :func:`summarise` pools targets with bootstrap intervals over targets and
   releases.

**Features** of a release Z with respect to t, the target-specific query and distance features
of TAPAS and Groundhog: the distances from t to its ``k`` nearest released rows (in the distance
space of :mod:`privmetrics.geometry.encoding`, fitted on the reference); the share of released
rows equal to t on every attribute (copies); on each attribute alone (numbers: within the same
decile of the reference), which is each column's histogram read at t's own bin; and on random
subsets of three attributes.

*Version 3* dropped the rest of each column's histogram (the shares of the bins t is not in,
some hundred features) that versions 1 and 2 fed the forest. Adding t moves only its own bins;
the other bins carry no signal about t, and with ten shadow releases a few of them separated the
shadow releases by chance and the forest followed them. When version 3 was made, at the paper
profile's sizes on the first two targets of each kind per dataset (12 targets), version 2 caught
Real with an AUC of 1 for 4 of the 12 and version 3 for 10; of the other two, one has five exact
copies in the population, so a release without it can hold its twin.

**Targets**: random rows of the evaluation pool, and the most vulnerable by the rule of Meeus et
al. (2023): the largest mean distance to their 5 nearest neighbours in the population.

**The metrics' per-record ingredients**, kept per evaluation release (:func:`ingredients`) so that
a metric's own per-record quantity can be set beside the attack's success on that target: the
target's closest distance to the release (what DCR, NNDR and the distance measures average), a
hit (an exact copy of the target released: what hitting-rate measures count) and the size of
the target's equivalence class in the release (rows equal to it on the key attributes, numbers
in reference deciles: what k-anonymity style measures count).

Every random choice comes from ``seed``. ``leaky=True`` evaluates the forest on its own shadow
releases instead of fresh ones, the mistake that makes any attack look successful; it exists so
that the test suite can show its sanity checks fail on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import rankdata
from sklearn.metrics import roc_auc_score
from sklearn.neighbors import NearestNeighbors

from privmetrics.data.schema import Schema
from privmetrics.geometry.encoding import MixedEncoder

NEAREST = 5  # distances to this many nearest released rows
# The attack's version, stored with every game (experiments.games): a change to the attack that can
# change a game's result bumps it, and the stored games of older versions are played again.
# 2: the forest weighs every feature at every split (max_features=None).
# 3: target-specific features only (no histogram bins the target is not in), copies counted, and
#    every tree sees every shadow release (bootstrap=False).
# 4: one fit serves every target (attacks.one_run): each target in a random half of the tables,
#    many targets per table, one reference and evaluation pool for all of them; 25 trees.
VERSION = 4
SUBSETS = 3  # random attribute subsets of size 3 whose matches are counted
BINS = 10  # reference deciles for numbers


def vulnerable_targets(population: pd.DataFrame, schema: Schema, count: int) -> np.ndarray:
    """Positions of the ``count`` rows with the largest mean distance to their 5 nearest other
    rows (Meeus et al.'s rule), most vulnerable first."""
    space = MixedEncoder(schema).fit(population).transform(population)
    k = min(NEAREST + 1, len(population))
    distances, _ = NearestNeighbors(n_neighbors=k).fit(space).kneighbors(space)
    score = distances[:, 1:].mean(1)  # the first neighbour is the row itself
    return np.argsort(-score, kind="stable")[:count]


@dataclass
class FeatureMaker:
    """:func:`release_features` with everything fixed by the reference (bins, encoder, subsets)."""

    schema: Schema
    reference: pd.DataFrame
    seed: int = 0

    def __post_init__(self):
        self.encoder = MixedEncoder(self.schema).fit(self.reference)
        self.edges = {
            c: np.unique(np.quantile(self.reference[c], np.linspace(0, 1, BINS + 1))[1:-1])
            for c in self.schema.numerical
        }
        rng = np.random.default_rng(self.seed)
        names = self.schema.names
        size = min(3, len(names))
        self.subsets = [list(rng.choice(names, size, replace=False)) for _ in range(SUBSETS)]

    def _coded(self, release: pd.DataFrame, targets: pd.DataFrame):
        """Released rows and targets as integer codes, column by column, that are equal exactly
        when the values are: (their text, and their reference deciles for numbers, categories as
        text), each (rows, columns)."""
        both = pd.concat([release, targets], ignore_index=True)
        text = np.column_stack([pd.factorize(both[c].astype(str))[0] for c in both.columns])
        coded = np.column_stack([
            np.searchsorted(self.edges[c], both[c].to_numpy(float), side="right")
            if c in self.edges else pd.factorize(both[c].astype(str))[0]
            for c in self.schema.names
        ])  # fmt: skip
        n = len(release)
        return text[:n], text[n:], coded[:n], coded[n:]

    def _compared(self, release: pd.DataFrame, targets: pd.DataFrame):
        """Each target against each released row: the distances (targets, rows), whether the row
        copies the target (targets, rows) and its per-attribute matches (targets, rows, columns)."""
        targets = targets.astype(release.dtypes.to_dict())
        space, points = self.encoder.transform(release), self.encoder.transform(targets)
        distances = np.sqrt(((space[None, :, :] - points[:, None, :]) ** 2).sum(2))
        text, mine, coded, my_codes = self._coded(release, targets)
        copies = (text[None, :, :] == mine[:, None, :]).all(2)
        equal = coded[None, :, :] == my_codes[:, None, :]
        return distances, copies, equal

    def _features(self, distances, copies, equal) -> np.ndarray:
        k = min(NEAREST, distances.shape[1])
        nearest = np.sort(distances, axis=1)[:, :k]
        position = {c: j for j, c in enumerate(self.schema.names)}
        subsets = [equal[:, :, [position[c] for c in s]].all(2).mean(1) for s in self.subsets]
        columns = [nearest, copies.mean(1)[:, None], equal.mean(1), np.column_stack(subsets)]
        return np.hstack(columns).astype(float)

    def _ingredients(self, distances, copies, equal) -> dict[str, np.ndarray]:
        keys = [
            j
            for j, c in enumerate(self.schema.names)
            if c in (self.schema.key or self.schema.names)
        ]
        return {"distance": distances.min(1), "hit": copies.any(1).astype(float),
                "class": equal[:, :, keys].all(2).sum(1).astype(float)}  # fmt: skip

    def table(self, release: pd.DataFrame, targets: pd.DataFrame) -> np.ndarray:
        """(targets, features): every target's features in one release (module doc)."""
        return self._features(*self._compared(release, targets))

    def table_and_ingredients(self, release: pd.DataFrame, targets: pd.DataFrame):
        """:meth:`table` and :meth:`ingredient_table` from one comparison."""
        compared = self._compared(release, targets)
        return self._features(*compared), self._ingredients(*compared)

    def __call__(self, release: pd.DataFrame, target: pd.Series) -> np.ndarray:
        return self.table(release, target.to_frame().T)[0]

    def ingredient_table(
        self, release: pd.DataFrame, targets: pd.DataFrame
    ) -> dict[str, np.ndarray]:
        """The metrics' per-record quantities of every target in ``release`` (module doc): its
        closest distance, whether a released row copies it, and its equivalence class's size on
        the key attributes (every attribute when the schema names no key)."""
        return self._ingredients(*self._compared(release, targets))

    def ingredients(self, release: pd.DataFrame, target: pd.Series) -> dict[str, float]:
        """:meth:`ingredient_table` of one target."""
        return {
            k: float(v[0]) for k, v in self.ingredient_table(release, target.to_frame().T).items()
        }


@dataclass
class GameResult:
    """One target's game: the forest's score and the truth for each evaluation release."""

    target: int
    kind: str  # "random" or "vulnerable"
    scores: np.ndarray
    truth: np.ndarray
    ingredients: dict[str, np.ndarray] | None = None  # per evaluation release (module doc)

    @property
    def auc(self) -> float:
        return float(roc_auc_score(self.truth, self.scores))

    @property
    def advantage(self) -> float:
        guess = self.scores >= 0.5
        return float(guess[self.truth == 1].mean() - guess[self.truth == 0].mean())


def tpr_at(scores: np.ndarray, truth: np.ndarray, fpr: float = 0.1) -> float:
    """The largest TPR over thresholds whose FPR is at most ``fpr`` (NaN without both classes)."""
    positive, negative = np.sort(scores[truth == 1]), np.sort(scores[truth == 0])
    if not len(positive) or not len(negative):
        return np.nan
    thresholds = np.unique(scores)

    def share_at_or_above(values):  # sorted values: the count below t by bisection
        return (len(values) - np.searchsorted(values, thresholds, "left")) / len(values)

    allowed = share_at_or_above(negative) <= fpr + 1e-12
    tprs = share_at_or_above(positive)
    return float(tprs[allowed].max()) if allowed.any() else 0.0


def rank_auc(ranks: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """AUC by the rank-sum formula, row by row along the last axis: ``ranks`` are the scores'
    ranks (average ranks for ties), ``labels`` 1 for members; NaN for a row of one class."""
    # a product with the ranks' vector (half-integers and 0/1 labels: every partial sum is exact,
    # so it equals the elementwise sum), without a draws x scores temporary
    rank_sums = labels @ ranks if np.ndim(ranks) == 1 else (ranks * labels).sum(-1)
    return _auc_of_rank_sums(rank_sums, labels.sum(-1), labels.shape[-1])


def _auc_of_rank_sums(rank_sums, positives, total: int):
    """The rank-sum formula: (R - P (P + 1) / 2) / (P (total - P)), R the members' rank sum."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rank_sums - positives * (positives + 1) / 2) / (positives * (total - positives))


def permutation_p(results: list[GameResult], draws: int = 10_000, seed: int = 0) -> float:
    """The chance of a pooled AUC at least as large as the observed one if membership left no
    trace in the releases: each target's member and non-member labels are shuffled among its own
    releases (the null's exchangeability) and the pooled AUC recomputed, ``draws`` times.

    The bootstrap interval of :func:`summarise` is too narrow for a few releases per target: at
    three members and three non-members it resamples six values, and a coin-flip attack that
    happens to order them well gets an interval above 0.5 (PrivBayes at epsilon 0.2 scored an
    AUC of 0.94 on six releases and 0.56 on forty). This test is exact in that case: a perfect
    ordering of one target's six releases has p = 1/20."""
    scores = np.concatenate([r.scores for r in results])
    truth = np.concatenate([r.truth for r in results]).astype(float)
    if not 0 < truth.mean() < 1:
        return np.nan
    ranks = rankdata(scores)  # the scores stay; only the labels move
    rng = np.random.default_rng(seed)
    # each draw's rank sum of the members, target by target (half-integers: exact in any order);
    # shuffling within a target keeps every draw's count of members
    rank_sums, start = np.zeros(draws), 0
    for r in results:
        n = len(r.truth)
        order = rng.random((draws, n)).argsort(1)
        rank_sums += r.truth.astype(float)[order] @ ranks[start : start + n]
        start += n
    shuffled = _auc_of_rank_sums(rank_sums, truth.sum(), len(truth))
    observed = rank_auc(ranks, truth)
    return float((1 + (shuffled >= observed - 1e-12).sum()) / (1 + draws))


def measure_rows(scores: np.ndarray, truth: np.ndarray, fpr: float = 0.1) -> np.ndarray:
    """AUC, advantage and :func:`tpr_at` of every row (one bootstrap draw each) at once, to the bit
    what each row gives alone; NaN on a row of one class. The AUC is the rank-sum one,
    roc_auc_score's value (ties count half) without its input checks, which cost most of a
    chapter's bootstrap."""
    truth = truth.astype(bool)
    positives = truth.sum(1)
    negatives = truth.shape[1] - positives
    valid = (positives > 0) & (negatives > 0)
    auc = rank_auc(rankdata(scores, axis=1), truth.astype(float))
    guess = scores >= 0.5
    with np.errstate(invalid="ignore", divide="ignore"):
        advantage = (guess & truth).sum(1) / positives - (guess & ~truth).sum(1) / negatives
        # TPR and FPR at every threshold t: the counts at or above t, read at the last of each
        # run of tied scores in descending order (one per distinct score, as tpr_at's thresholds)
        order = np.argsort(-scores, axis=1, kind="stable")
        ranked, member = np.take_along_axis(scores, order, 1), np.take_along_axis(truth, order, 1)
        tprs = np.cumsum(member, 1) / positives[:, None]
        fprs = np.cumsum(~member, 1) / negatives[:, None]
    last = np.ones_like(ranked, dtype=bool)
    last[:, :-1] = ranked[:, :-1] != ranked[:, 1:]
    allowed = last & (fprs <= fpr + 1e-12)
    best = np.where(allowed, tprs, -np.inf).max(1)
    tpr = np.where(allowed.any(1), best, 0.0)
    return np.where(valid[:, None], np.column_stack([auc, advantage, tpr]), np.nan)


def summarise(
    results: list[GameResult], draws: int = 500, seed: int = 0, permutations: int = 10_000
) -> pd.DataFrame:
    """Per target kind: AUC, advantage and TPR at FPR 0.1 pooled over targets, each with a 95%
    bootstrap interval (targets resampled, then releases within each target) and its bootstrap
    values (``draws``, NaN where a draw held one class only); and, in column ``p``, the
    :func:`permutation_p` of the AUC from ``permutations`` shuffles (the same on the kind's three
    rows)."""
    rng = np.random.default_rng(seed)
    rows = []
    for kind in sorted({r.kind for r in results}):
        part = [r for r in results if r.kind == kind]

        def pooled(games):  # the measures of (scores, truth) pairs pooled into one row
            return measure_rows(np.concatenate([s for s, _ in games])[None],
                                np.concatenate([t for _, t in games])[None])[0]  # fmt: skip

        point = pooled([(g.scores, g.truth) for g in part])
        drawn = []  # each draw's games (targets, then releases within each), in the rng's order
        for _ in range(draws):
            games = []
            for g in (part[i] for i in rng.integers(len(part), size=len(part))):
                pick = rng.integers(len(g.truth), size=len(g.truth))
                games.append((g.scores[pick], g.truth[pick]))
            drawn.append(games)
        if len({len(g.truth) for g in part}) == 1:  # one play: every draw has as many releases
            boot = measure_rows(
                np.stack([np.concatenate([s for s, _ in games]) for games in drawn]),
                np.stack([np.concatenate([t for _, t in games]) for games in drawn]),
            )
        else:
            boot = np.array([pooled(games) for games in drawn])
        low, high = np.nanpercentile(boot, [2.5, 97.5], axis=0)
        p = permutation_p(part, draws=permutations, seed=seed)
        for j, name in enumerate(("AUC", "advantage", "TPR at FPR 0.1")):
            rows.append({"targets": kind, "measure": name, "value": point[j], "low": low[j],
                         "high": high[j], "n targets": len(part), "draws": boot[:, j], "p": p})  # fmt: skip
    return pd.DataFrame(rows)
