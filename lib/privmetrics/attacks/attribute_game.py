"""Attribute inference as a privacy game (Stadler et al., 2022, Section 4.3).

**Threat model.** The attacker knows one target's key attributes (every attribute except the
sensitive one), a reference sample of the population (never the training rows) and the release.
The target *is* in the training data; the attacker guesses its sensitive value.

**The game**, for one target t, one sensitive attribute s and one synthesiser configuration:

1. ``releases`` times, a training table of ``train_rows`` rows is drawn from the evaluation pool
   (rows of the population the attacker never saw) with its last row replaced by t, and the
   synthesiser releases a table from it.
2. On each release the attacker fits a random forest from the key attributes to s and predicts
   t's value. The *baseline* attacker fits the same forest on the reference sample alone: what
   the population already tells about t, without any release.
3. A guess is right when it equals t's value (a numerical s is compared in reference deciles).

*Success* is the share of right guesses over releases, and the **advantage** is that share minus
the baseline's (Stadler et al.'s privacy gain, seen from the attacker). :func:`summarise_attribute`
pools targets with bootstrap intervals over targets and releases. Targets are chosen as in
:mod:`privmetrics.attacks.membership_game` (random rows of the evaluation pool, and the most
vulnerable by Meeus et al.'s rule). Every random choice comes from ``seed``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

from privmetrics.attacks.membership_game import split_population
from privmetrics.data.schema import Schema
from privmetrics.geometry.encoding import MixedEncoder
from privmetrics.synthesisers import make_synthesiser
from privmetrics.threads import limited

BINS = 10  # reference deciles for a numerical sensitive attribute
VERSION = 1  # stored with every game (experiments.games); games stored without one are version 1


@dataclass
class AttributeResult:
    """One target's game: whether each release's guess was right, and the baseline's guess."""

    target: int
    kind: str
    right: np.ndarray  # one bool per release
    baseline_right: bool

    @property
    def advantage(self) -> float:
        return float(self.right.mean() - self.baseline_right)


class _Guesser:
    """A random forest from the key attributes (encoded on the reference) to s's class."""

    def __init__(self, schema: Schema, sensitive: str, reference: pd.DataFrame, seed: int):
        keys = [c for c in schema.names if c != sensitive]
        self.keys = keys
        self.encoder = MixedEncoder(Schema({c: schema.columns[c] for c in keys})).fit(reference)
        self.sensitive = sensitive
        self.edges = (
            np.unique(np.quantile(reference[sensitive], np.linspace(0, 1, BINS + 1))[1:-1])
            if sensitive in schema.numerical
            else None
        )
        self.seed = seed

    def label(self, values: pd.Series) -> np.ndarray:
        if self.edges is None:
            return values.astype(str).to_numpy()
        return np.searchsorted(self.edges, values.to_numpy(float), side="right")

    def guess(self, table: pd.DataFrame, target: pd.DataFrame):
        forest = RandomForestClassifier(n_estimators=50, random_state=self.seed, n_jobs=1)
        with warnings.catch_warnings():  # a noisy release may have more classes than rows
            warnings.simplefilter("ignore", UserWarning)
            forest.fit(self.encoder.transform(table[self.keys]), self.label(table[self.sensitive]))
        return forest.predict(self.encoder.transform(target[self.keys]))[0]


def play_attribute(
    population: pd.DataFrame,
    schema: Schema,
    technique: str,
    params: dict,
    target: int,
    sensitive: str | None = None,
    kind: str = "random",
    train_rows: int = 200,
    releases: int = 10,
    seed: int = 0,
    threads: int = 1,
) -> AttributeResult:
    """The module doc's game for the row at position ``target`` of ``population`` and the
    sensitive attribute ``sensitive`` (default: the schema's first); the population without the
    target is split at random into the attacker's reference and the evaluation pool, half each."""
    sensitive = sensitive or (schema.sensitive[0] if schema.sensitive else None)
    if sensitive is None:
        raise ValueError("attribute inference needs a sensitive attribute; the schema names none")
    rng = np.random.default_rng([seed, target, 1])
    target_row = population.iloc[[target]].reset_index(drop=True)
    # the reference only trains the baseline's forest: any size will do
    reference, pool = split_population(
        population, target, rng, train_rows, need=("evaluation pool",)
    )
    guesser = _Guesser(schema, sensitive, reference, seed)
    truth = guesser.label(target_row[sensitive])[0]
    right = []
    with limited(threads):
        baseline_right = bool(guesser.guess(reference, target_row) == truth)
        for r in range(releases):
            train = pool.iloc[rng.choice(len(pool), train_rows, replace=False)].reset_index(
                drop=True
            )
            train.iloc[-1] = target_row.iloc[0].to_numpy()
            model = make_synthesiser(
                technique, seed=seed * 1_000_003 + target * 1_000 + r, **params
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                release = model.fit_sample(train, schema, train_rows)
            right.append(guesser.guess(release, target_row) == truth)
    return AttributeResult(target, kind, np.array(right, dtype=bool), baseline_right)


def _measure(right: list[np.ndarray], base: np.ndarray, picks, inner) -> tuple[float, float, float]:
    """Accuracy, baseline accuracy and advantage over the targets ``picks`` and, within target
    ``picks[k]``, the releases ``inner[k]``."""
    accuracy = float(np.mean([right[i][j].mean() for i, j in zip(picks, inner, strict=True)]))
    baseline = float(base[picks].mean())
    return accuracy, baseline, accuracy - baseline


def summarise_attribute(
    results: list[AttributeResult], draws: int = 500, seed: int = 0
) -> pd.DataFrame:
    """Per target kind: the release's accuracy, the baseline's and the advantage, pooled over
    targets, each with a 95% bootstrap interval (targets resampled, then releases within each)
    and its bootstrap values (``draws``)."""
    rng = np.random.default_rng(seed)
    rows = []
    for kind in sorted({r.kind for r in results}):
        part = [r for r in results if r.kind == kind]
        right = [r.right for r in part]
        base = np.array([r.baseline_right for r in part], dtype=float)

        everything = np.arange(len(part))
        point = _measure(right, base, everything, [np.arange(len(r)) for r in right])
        boot = []
        for _ in range(draws):
            picks = rng.integers(len(part), size=len(part))
            inner = [rng.integers(len(right[i]), size=len(right[i])) for i in picks]
            boot.append(_measure(right, base, picks, inner))
        boot = np.array(boot)
        low, high = np.percentile(boot, [2.5, 97.5], axis=0)
        for j, name in enumerate(("accuracy", "baseline accuracy", "advantage")):
            rows.append({"targets": kind, "measure": name, "value": float(point[j]),
                         "low": float(low[j]), "high": float(high[j]), "n targets": len(part),
                         "draws": boot[:, j]})  # fmt: skip
    return pd.DataFrame(rows)
