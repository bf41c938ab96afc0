"""One fit serves every target: the membership and attribute-inference games of a whole set of
targets played on the same releases (the idea of Steinke, Nasr and Jagielski, "Privacy auditing
with one training run", NeurIPS 2023, applied to Stadler et al.'s games).

**The design.** The population without its targets is split at random, half each, into the
attacker's *reference* and the challenger's *evaluation pool*. Every target is in exactly half of
the ``shadow`` tables and half of the ``releases`` tables, which half drawn at random for each
target on its own: balanced, so every target has members and non-members in both phases, and
independent, so one target's presence says nothing about another's. A table is the targets it
holds plus rows drawn from its source (the reference for shadow tables, the pool for evaluation
tables) up to ``train_rows``, in shuffled order. Each release then labels every target at once:
a configuration costs ``shadow + releases`` fits whatever the number of targets, where one game
per target cost that many per target.

**Membership** (:mod:`.membership_game`): per target, a random forest learns "in" from its
features (:class:`~.membership_game.FeatureMaker`) over the shadow releases and scores each
evaluation release; ``leaky=True`` scores the shadow releases themselves (the mistake the tests
must catch). **Attribute inference** (:mod:`.attribute_game`): on each evaluation release the
attacker fits one forest from the key attributes to the sensitive one and guesses every target
it holds; the baseline fits the same forest on the reference alone. **The whole-release attack**
(:mod:`.whole_release`): on each evaluation release, its rows from the pool against as many pool
rows it never saw, scored from the release and the reference alone (no shadow model).

**What the design costs.** With many targets a table holds many of them (at 10 of each kind and
200 rows, about one row in twenty is a target, the vulnerable outliers among them): the
synthesiser learns them as part of its data, as an audit with canaries intends. Targets are
chosen by :func:`choose_targets`: never a row with an exact twin in the population (a release
without the row could hold its copy, so membership of that record is not a question a release
can answer), ``count`` random rows and the ``count`` most isolated by Meeus et al.'s rule.
Every random choice comes from ``seed``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score

from privmetrics.attacks.attribute_game import AttributeResult, Guesser, summarise_attribute
from privmetrics.attacks.membership_game import (
    FeatureMaker,
    GameResult,
    summarise,
    vulnerable_targets,
)
from privmetrics.attacks.outcome import Outcome, from_summary
from privmetrics.attacks.shape import Attack, AttackResult
from privmetrics.attacks.whole_release import GEN_LRA, SCORINGS, ReleaseScorer, summarise_release
from privmetrics.synthesisers import make_synthesiser
from privmetrics.synthesisers.planted import CONTROLS, make_control
from privmetrics.threads import limited

# The membership forest's trees. Without bootstrap and with every feature at every split, its
# trees differ only in how they break ties, so more of them change little but the cost: at 100
# trees and at 25 the mean AUC of ten targets of each kind on flchain differed by 0.000 (Real),
# 0.001 (PrivBayes, epsilon 10) and 0.010 (Random), a single target's by at most 0.08, and a
# configuration's play took 4.7-5.0 s against 3.0-3.2 s.
TREES = 25


def choose_targets(population: pd.DataFrame, schema, count: int, seed: int) -> dict[str, list]:
    """``count`` random positions and the ``count`` most vulnerable ones (none twice, none with an
    exact twin in the population), each list in the order it was drawn. Prefix-stable: the first
    k targets of a larger ``count`` are those of ``count`` = k. The most vulnerable decile of the
    twinless rows is reserved for the vulnerable targets and the random ones are drawn from the
    other twinless rows, so that the kinds never overlap at any count."""
    twinned = population.astype(str).duplicated(keep=False).to_numpy()
    order = [i for i in vulnerable_targets(population, schema, len(population)) if not twinned[i]]
    reserved = max(count, len(order) // 10)
    if count + reserved > len(order):
        raise ValueError(
            f"{count} targets of each kind need more than the {len(order)} rows of "
            f"{len(population)} that have no exact twin"
        )
    rest = np.sort(order[reserved:])
    chosen = np.random.default_rng(seed).permutation(rest)[:count]
    return {"random": [int(i) for i in chosen], "vulnerable": [int(i) for i in order[:count]]}


def membership_design(count: int, targets: int, rng: np.random.Generator) -> np.ndarray:
    """(count, targets) booleans: each target in exactly ``count // 2`` of the tables, which ones
    drawn at random for each target independently."""
    return rng.random((count, targets)).argsort(0).argsort(0) < count // 2


ATTACKS = ("membership", "attribute", "whole release")  # what one play plays on its releases


@dataclass
class Played(AttackResult):
    """Every target's membership game and attribute game of one configuration, and the
    whole-release attack's AUC on each evaluation release, per scoring."""

    membership: list[GameResult]
    attribute: list[AttributeResult]
    release: dict[str, list[float]]

    def outcomes(self, draws: int = 500, seed: int = 0) -> list[Outcome]:
        """Per target kind, the membership game's AUC, advantage and TPR at FPR 0.1 and the
        attribute game's accuracy and advantage, and the whole-release attack's mean AUC per
        scoring, each with its bootstrap interval (``draws``) and its chance baseline."""
        found = from_summary(summarise(self.membership, draws, seed, permutations=200),
                             "membership", by=("targets",))  # fmt: skip
        if self.attribute:
            found += from_summary(summarise_attribute(self.attribute, draws, seed), "attribute",
                                  by=("targets",))  # fmt: skip
        played = {("release", name): aucs for name, aucs in self.release.items() if len(aucs)}
        if played:
            found += from_summary(summarise_release(played, draws, seed), "whole release",
                                  by=("kind",))  # fmt: skip
        return found


def _releases(technique, params, source, targets, member, schema, train_rows, rng, seed0,
              fresh=None):  # fmt: skip
    """One (release, its source rows' positions) per row of ``member``: the targets it marks plus
    rows of ``source``. A control of :data:`~privmetrics.synthesisers.planted.CONTROLS` (the
    leakage ladder) fills its release with ``fresh`` rows."""
    out = []
    for r, inside in enumerate(member):
        held = targets[inside]
        if len(held) >= train_rows:
            raise ValueError(f"{len(held)} targets fill a table of {train_rows} rows")
        at = rng.choice(len(source), train_rows - len(held), replace=False)
        table = pd.concat([source.iloc[at], held], ignore_index=True)
        table = table.iloc[rng.permutation(len(table))].reset_index(drop=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if technique in CONTROLS:
                model = make_control(technique, seed=seed0 + r, **params)
                release = model.fit_sample(table, schema, train_rows, fresh=fresh)
            else:
                model = make_synthesiser(technique, seed=seed0 + r, **params)
                release = model.fit_sample(table, schema, train_rows)
            out.append((release, at))
    return out


class TargetGames(Attack):
    """The module doc's games for the rows at ``targets`` (kind -> positions in ``population``),
    in the package's shape (:mod:`.shape`): ``technique`` with ``params`` fitted on tables of
    ``train_rows`` rows, ``shadow`` of them the attacker's and ``releases`` the challenger's, and
    the attribute game on ``secret`` (default: the schema's first sensitive attribute; no
    attribute game without one). ``attacks``: the ones to play on the same releases, of
    :data:`ATTACKS` (the membership game is always played); the others' results are left empty.
    ``leaky=True`` scores the shadow releases themselves (the mistake the tests must catch).
    ``fresh``: for a control of the leakage ladder (``technique`` ``"planted"``), rows of the
    population outside ``population`` (never a member, never a non-member): a random half fills
    the attacker's shadow releases (people they know, as they know their reference), the other
    half the evaluation releases; each half needs ``train_rows`` rows. The fits run on
    ``threads`` BLAS and torch threads."""

    def __init__(self, population, schema, technique, params, targets, train_rows=200, shadow=20,
                 releases=20, secret=None, attacks=ATTACKS, leaky=False, fresh=None,
                 threads=1):  # fmt: skip
        self.population = population
        self.schema = schema
        self.technique = technique
        self.params = params
        self.targets = targets
        self.train_rows = train_rows
        self.shadow = shadow
        self.releases = releases
        self.secret = secret
        self.attacks = attacks
        self.leaky = leaky
        self.fresh = fresh
        self.threads = threads

    def evaluate(self, seed: int = 0) -> Played:
        unknown = set(self.attacks) - set(ATTACKS)
        if unknown:
            raise ValueError(f"unknown attacks {sorted(unknown)}; choose from {ATTACKS}")
        shadow_fresh, release_fresh = self._fresh_halves(seed)
        kinds = [kind for kind, positions in self.targets.items() for _ in positions]
        at = [int(t) for positions in self.targets.values() for t in positions]
        rng = np.random.default_rng([seed, 4])
        population, schema, train_rows = self.population, self.schema, self.train_rows
        target_rows = population.iloc[at].reset_index(drop=True)
        others = population.drop(index=population.index[at]).reset_index(drop=True)
        order = rng.permutation(len(others))
        reference = others.iloc[order[: len(others) // 2]].reset_index(drop=True)
        pool = others.iloc[order[len(others) // 2 :]].reset_index(drop=True)
        for name, part in (("reference", reference), ("evaluation pool", pool)):
            if len(part) < train_rows:
                raise ValueError(
                    f"the {name} has {len(part)} rows, fewer than train_rows={train_rows}"
                )
        in_shadow = membership_design(self.shadow, len(at), rng)
        in_release = membership_design(self.releases, len(at), rng)
        features = FeatureMaker(schema, reference, seed)
        secret = self.secret or (schema.sensitive[0] if schema.sensitive else None)
        technique, params = self.technique, self.params
        with limited(self.threads):
            shadows = [z for z, _ in _releases(technique, params, reference, target_rows,
                                               in_shadow, schema, train_rows, rng,
                                               seed * 1_000_003, shadow_fresh)]  # fmt: skip
            made = _releases(technique, params, pool, target_rows, in_release, schema, train_rows,
                             rng, seed * 1_000_003 + self.shadow, release_fresh)  # fmt: skip
            evaluated = [z for z, _ in made]
            tested, truth = (shadows, in_shadow) if self.leaky else (evaluated, in_release)
            membership = _membership(features, shadows, in_shadow, tested, truth, target_rows,
                                     at, kinds, seed)  # fmt: skip
            attribute = []
            if secret is not None and "attribute" in self.attacks:
                guesser = Guesser(schema, secret, reference, seed)
                truths = guesser.label(target_rows[secret])
                baseline = guesser.fit(reference).predict(target_rows) == truths
                guesses = np.stack([guesser.fit(z).predict(target_rows) for z in evaluated])
                right = guesses == truths[None, :]
                for j, (target, kind) in enumerate(zip(at, kinds, strict=True)):
                    inside = in_release[:, j]
                    attribute.append(
                        AttributeResult(target, kind, right[inside, j], bool(baseline[j]))
                    )
            release = (
                _whole_release(
                    schema,
                    reference,
                    pool,
                    made,
                    np.random.default_rng([seed, 5]),
                    gen_lra=self.technique in CONTROLS,
                )  # fmt: skip
                if "whole release" in self.attacks
                else {name: [] for name in SCORINGS}
            )
        return Played(membership, attribute, release)

    def _fresh_halves(self, seed: int):
        """The ladder's fresh rows split in the attacker's half and the challenger's, or (None,
        None) for a synthesiser."""
        if self.technique not in CONTROLS:
            return None, None
        fresh, train_rows = self.fresh, self.train_rows
        if fresh is None or len(fresh) < 2 * train_rows:
            raise ValueError(
                f"{self.technique!r} releases need at least {2 * train_rows} fresh rows outside "
                f"the population (fresh=), got {0 if fresh is None else len(fresh)}"
            )
        halves = np.random.default_rng([seed, 6]).permutation(len(fresh))
        return (fresh.iloc[halves[: len(fresh) // 2]].reset_index(drop=True),
                fresh.iloc[halves[len(fresh) // 2 :]].reset_index(drop=True))  # fmt: skip


def _membership(features, shadows, in_shadow, tested, truth, target_rows, at, kinds, seed):
    """Every target's membership game: its forest learns "in" over the shadow releases and
    scores the ``tested`` ones."""
    x_shadow = np.stack([features.table(z, target_rows) for z in shadows], axis=1)
    both = [features.table_and_ingredients(z, target_rows) for z in tested]
    x_tested = np.stack([x for x, _ in both], axis=1)
    kept = [ingredients for _, ingredients in both]
    games = []
    for j, (target, kind) in enumerate(zip(at, kinds, strict=True)):
        # every feature at every split, every shadow release in every tree (membership_game)
        forest = RandomForestClassifier(n_estimators=TREES, max_features=None, bootstrap=False,
                                        random_state=seed, n_jobs=1)  # fmt: skip
        forest.fit(x_shadow[j], in_shadow[:, j].astype(int))
        scores = forest.predict_proba(x_tested[j])[:, 1]
        ingredients = {name: np.array([k[name][j] for k in kept]) for name in kept[0]}
        games.append(GameResult(target, kind, scores, truth[:, j].astype(int), ingredients))
    return games


def _whole_release(schema, reference, pool, made, rng, gen_lra: bool = False):
    """The whole-release attack (:mod:`.whole_release`) on each evaluation release: its pool
    rows (members) against as many pool rows it never saw; the AUCs of each scoring, and with
    ``gen_lra`` of :meth:`~.whole_release.ReleaseScorer.gen_lra` too (the leakage ladder's
    plays: the configurations' stored games predate it, and a scoring more would make every one
    of them incomplete, to be played again with its fits)."""
    attack = ReleaseScorer(schema, reference)
    out = {name: [] for name in (*SCORINGS, *((GEN_LRA,) if gen_lra else ()))}
    for release, at in made:
        unseen = np.setdiff1d(np.arange(len(pool)), at)
        n = min(len(at), len(unseen))
        members = pool.iloc[rng.choice(at, n, replace=False)]
        others = pool.iloc[rng.choice(unseen, n, replace=False)]
        for name, auc in attack.aucs(release, members, others).items():
            out[name].append(auc)
        if gen_lra:
            truth = np.r_[np.ones(n), np.zeros(n)]
            scores = attack.gen_lra(release, pd.concat([members, others], ignore_index=True))
            out[GEN_LRA].append(float(roc_auc_score(truth, scores)))
    return out
