"""Attribute inference as a privacy game (Stadler et al., 2022, Section 4.3): the attacker's
guesser, results and statistics; :class:`privmetrics.attacks.one_run.TargetGames` plays it for
many targets on shared releases.

**Threat model.** The attacker knows one target's key attributes (every attribute except the
sensitive one), a reference sample of the population (never the training rows) and the release.
The target *is* in the training data; the attacker guesses its sensitive value.

**The game**, for one target t, one sensitive attribute s and one synthesiser configuration:

1. ``releases`` times, a training table of ``train_rows`` rows is drawn from the evaluation pool
   (rows of the population the attacker never saw), t among them in half of the tables, and the
   synthesiser releases a table from each; the releases that hold t count.
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

from privmetrics.data.schema import Schema
from privmetrics.geometry.encoding import MixedEncoder

BINS = 10  # reference deciles for a numerical sensitive attribute
# stored with every game (experiments.games); games stored without one are version 1.
# 2: one fit serves every target (attacks.one_run): t in a random half of the releases, the
#    guesser fitted once per release for every target it holds
VERSION = 2


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


class Guesser:
    """A random forest from the key attributes (encoded on the reference) to s's class: fitted on
    one table (:meth:`fit`), it guesses every target's class (:meth:`predict`)."""

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
        self.forest = None

    def label(self, values: pd.Series) -> np.ndarray:
        if self.edges is None:
            return values.astype(str).to_numpy()
        return np.searchsorted(self.edges, values.to_numpy(float), side="right")

    def fit(self, table: pd.DataFrame) -> Guesser:
        self.forest = RandomForestClassifier(n_estimators=50, random_state=self.seed, n_jobs=1)
        with warnings.catch_warnings():  # a noisy release may have more classes than rows
            warnings.simplefilter("ignore", UserWarning)
            self.forest.fit(
                self.encoder.transform(table[self.keys]), self.label(table[self.sensitive])
            )
        return self

    def predict(self, targets: pd.DataFrame) -> np.ndarray:
        return self.forest.predict(self.encoder.transform(targets[self.keys]))


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
