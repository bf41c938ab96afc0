"""Attribute inference measured with precision *and* recall (Francis and Wagner): the best-row-match
attack on the anonymised data, the baseline on the original data without the targets, and the
Anonymity Loss Coefficient between them (:mod:`privmetrics.attacks.alc` holds the arithmetic):
:class:`AnonymityLoss`, an attack in the package's one shape (:mod:`.shape`).

Design (Sections 3 and 5 of the paper):

* **targets**: a control block of ``min(targets, 10% of rows)`` real rows, drawn with the seed;
* **attack** (best row match, Eq. 9): for each target, the Gower distance on the known attributes
  to every anonymised row (numerical: |x - y| / range, categorical: 0 if equal else 1, averaged);
  the matches are the rows at the minimum distance G_min (rounded to 3 decimals); the prediction is
  the most frequent secret value among them (ties: the smallest code) and its rank score is
  (1 - G_min) * M / C, M the matches holding that value and C all matches;
* **baseline**: a random forest (the paper's settings: 100 trees, depth 10, min_samples_split 10,
  min_samples_leaf 5, balanced classes) trained on the real data *without the target block*,
  predicting the secret attribute from the known ones; rank score = predicted class probability;
* a numerical secret is compared in 20 equal-width bins over the real range;
* **thresholds and halting** (Sections 3.6, 5.1): three rank-score thresholds per predictor
  (:func:`privmetrics.attacks.alc.thresholds_for`), one more while the PRC keeps improving at low recall;
  predictions are considered 20 at a time from 50 targets on, and the measurement stops at the
  first prefix where :func:`privmetrics.attacks.alc.should_halt` says so. All targets are predicted in one
  vectorised pass; the halting rule decides how many of them the measure uses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privmetrics.attacks import alc as A
from privmetrics.attacks.forest_baseline import (
    BlockBaseline,
    encoded_features,
    forest_predictions,
    forest_predictor,
    select_targets,
)
from privmetrics.attacks.outcome import Outcome
from privmetrics.attacks.shape import OneOutcome, ReleaseAttack
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.fidelity import shared_codes
from privmetrics.geometry.neighbours import in_parallel


@dataclass
class ALCResult(OneOutcome):
    """Everything one measurement produced, not only the final number."""

    secret: str
    known: list[str]
    attack: pd.DataFrame  # every (precision, recall) pair of the attack, with PRC and interval
    base: pd.DataFrame  # the same for the baseline
    best_attack: pd.Series | None
    best_base: pd.Series | None
    alc: float
    targets_used: int
    halt_reason: str
    predictions: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    baseline_fits: int = 0  # random forests the baseline rests on (fitted here or kept from before)
    baseline_models: list[str] = field(default_factory=list)  # the baseline chosen per block

    @property
    def label(self) -> str:
        return A.risk_label(self.alc)

    def outcome(self) -> Outcome:
        """The ALC as an :class:`~.outcome.Outcome` (:func:`alc_outcome`)."""
        return alc_outcome(f"ALC, {self.secret}", self.alc, self.best_attack, self.best_base,
                           self.targets_used)  # fmt: skip


def alc_outcome(label: str, value: float, attack: pd.Series | None, base: pd.Series | None,
                n: int) -> Outcome:  # fmt: skip
    """An ALC as an :class:`~.outcome.Outcome`, baseline 0 (the ALC is the attack's PRC beyond
    the baseline attacker's); its interval from the Wilson interval of the chosen pair's
    precision at its recall (the baseline's PRC taken as measured)."""
    if attack is None or base is None:
        nan = float("nan")
        return Outcome(label, "ALC", nan, nan, nan, 0.0, n)
    low, high = (float(A.alc(base.prc, A.prc(p, attack.recall))) for p in (attack.low, attack.high))
    return Outcome(label, "ALC", value, min(low, value), max(high, value), 0.0, n)


CHUNK_BYTES = 8 * 2**20  # one chunk of the best-row-match distances (float64)


def unknown_codes(real: pd.Series, synthetic: pd.Series, numerical: bool, bins: int = 20):
    """Codes of the unknown attribute on one scale for both tables (20 bins when numerical)."""
    if numerical:
        low, high = float(real.min()), float(real.max())
        edges = np.linspace(low, high if high > low else low + 1, bins + 1)[1:-1]
        return (
            np.searchsorted(edges, real, side="right"),
            np.searchsorted(edges, synthetic, side="right"),
        )
    real_codes, synthetic_codes, _ = shared_codes(real, synthetic, numerical=False, bins=bins)
    return real_codes, synthetic_codes


def best_row_match(
    targets: pd.DataFrame,
    candidates: pd.DataFrame,
    candidate_unknown: np.ndarray,
    numerical: list[str],
    ranges: dict[str, float],
    chunk: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Prediction (a code of ``candidate_unknown``) and rank score per target row (Eq. 9).

    Targets are taken ``chunk`` at a time; by default as many as keep one chunk's distances
    within ``CHUNK_BYTES``, so that the sixteen or so passes over them run in cache (three
    times faster at 100,000 candidates than 256 targets at a time)."""
    known = list(targets.columns)
    if chunk is None:
        chunk = int(np.clip(CHUNK_BYTES // (8 * max(1, len(candidates))), 1, 256))
    classes = int(candidate_unknown.max()) + 1
    predictions = np.empty(len(targets), dtype=np.int64)
    ranks = np.empty(len(targets))
    # categories as shared integer codes and numbers as floats, once: comparing object arrays
    # of strings chunk after chunk cost most of the attack's time
    query, cand = {}, {}
    for c in known:
        if c in numerical:
            query[c], cand[c] = targets[c].to_numpy(float), candidates[c].to_numpy(float)
        else:
            codes, _ = pd.factorize(pd.concat([targets[c], candidates[c]], ignore_index=True))
            query[c], cand[c] = codes[: len(targets)], codes[len(targets) :]
    one_hot = np.eye(classes, dtype=np.float32)[candidate_unknown]  # candidates x classes

    def one_chunk(start: int) -> None:
        stop = min(start + chunk, len(targets))
        g = np.zeros((stop - start, len(candidates)))
        for c in known:  # the same order of summation as the definition: identical rounding
            q = query[c][start:stop]
            if c in numerical:
                g += np.abs(q[:, None] - cand[c][None, :]) / ranges[c]
            else:
                g += q[:, None] != cand[c][None, :]
        g = np.round(g / len(known), 3)
        g_min = g.min(axis=1)
        match = g == g_min[:, None]
        counts = match.astype(np.float32) @ one_hot  # matches per class
        predictions[start:stop] = counts.argmax(1)
        ranks[start:stop] = (1 - g_min) * counts.max(1) / match.sum(1)

    in_parallel(one_chunk, range(0, len(targets), chunk))  # numpy releases the GIL in each step
    return predictions, ranks


def halted_measurement(
    attack_ok: np.ndarray,
    attack_rank: np.ndarray,
    base: Callable[[int], tuple[np.ndarray, np.ndarray]],
    max_width: float = 0.1,
    alpha: float = 3.0,
    r_min: float = 1e-4,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series, pd.Series, int, str]:
    """Thresholds, halting and best pairs over the targets, in their (shuffled) order.

    ``base(size)`` gives the baseline's (correct, rank) arrays for the first ``size`` targets, so
    that baseline blocks are only fitted when needed. Section 5.1: three rank-score thresholds per
    predictor to start with, one more while the PRC keeps improving at low recall; the rule is
    checked every 20 targets from 50 on, and the measurement uses the first prefix where
    :func:`privmetrics.attacks.alc.should_halt` says stop.
    Returns (attack pairs, base pairs, best attack pair, best base pair, targets used, reason).
    """
    n_targets = len(attack_ok)

    def pairs(ok, rank, count):
        return A.precision_recall(ok, rank, A.thresholds_for(rank, count), alpha, r_min)

    halt_reason, used, count = "all targets used", n_targets, 3
    sizes = list(range(min(50, n_targets), n_targets + 1, 20))
    if sizes[-1] != n_targets:
        sizes.append(n_targets)
    for size in sizes:
        base_ok, base_rank = base(size)
        while True:
            attack = pairs(attack_ok[:size], attack_rank[:size], count)
            baseline = pairs(base_ok, base_rank, count)
            halt, reason = A.should_halt(attack, baseline, max_width)
            distinct = len(np.unique(attack_rank[:size]))
            if reason.startswith("PRC still improving") and count < distinct:
                count += 1
                continue
            break
        if halt:
            halt_reason, used = reason, size
            break
    (best_attack, fell_back), (best_base, base_fell_back) = (
        A.best_or_recall_one(attack, max_width),
        A.best_or_recall_one(baseline, max_width),
    )
    if fell_back or base_fell_back:
        halt_reason += "; no pair reached the target width, recall-1 pairs used"
    return attack, baseline, best_attack, best_base, used, halt_reason


ATTACKS = ("brm", "classifier")
BASELINES = ("paper", "best")


class AnonymityLoss(ReleaseAttack):
    """The ALC of an attribute-inference attack on ``release`` for its ``secret`` attribute, in
    the package's shape (:mod:`.shape`; the module doc gives the design).

    The defaults model the same attacker as the registered ``ALC`` metric: it knows the schema's
    key attributes (``known=None``; every other column only when the schema names no key) and
    is measured against the ``"best"`` baseline.

    ``attack="brm"`` is the best-row-match attack (Eq. 9); ``attack="classifier"`` trains the
    paper's random forest on the released rows and predicts each target with it (the ML attack
    of Stadler et al. that the paper discusses), rank score = predicted class probability.
    ``baseline`` is ``"best"`` (our repair, see :class:`~.forest_baseline.BlockBaseline`) or
    ``"paper"`` (the balanced forest on the real rows outside the target's block). Up to
    ``targets`` targets, in blocks of 10% of the rows, fewer when the halting rule
    (``max_width``, ``alpha``, ``r_min``: Section 5.1) stops earlier.

    ``control``: real rows of the same population that the generator never saw (the ALC paper's
    control set, Section 4.1). The baseline is then the *same attack on the same release* aimed at
    control rows: what the release tells about anyone, member or not. ``baseline`` is ignored.

    A secret with a single value in the real data (or whose dominant value leaves no target)
    raises :class:`~privmetrics.data.validation.InvalidInputError`: there is nothing to infer,
    and the ALC, a gain over a perfect baseline, is undefined.
    """

    def __init__(self, real, release, control=None, schema=None, secret=None, known=None,
                 attack="brm", baseline="best", targets=1000, max_width=0.1, alpha=3.0,
                 r_min=1e-4):  # fmt: skip
        super().__init__(real, release, control, schema)
        self.secret = secret
        self.known = known
        self.attack = attack
        self.baseline = baseline
        self.targets = targets
        self.max_width = max_width
        self.alpha = alpha
        self.r_min = r_min

    def evaluate(self, seed: int = 0) -> ALCResult:
        real, schema = self.tables()
        secret, known = self._checked(real, schema)
        rng = np.random.default_rng(seed)
        truth, release_codes, control_truth = self._codes(real, schema, secret)
        targets_at = select_targets(truth, self.targets, rng)
        if len(targets_at) == 0:
            raise InvalidInputError(
                f"no target row for the secret {secret!r}: its dominant value left none of the "
                f"{len(real)} rows (too few rows to measure)"
            )
        target_truth = truth[targets_at]
        predict = _Predictor(real, self.release, known, schema, release_codes, self.attack, seed)
        attack_pred, attack_rank = predict(real.iloc[targets_at], targets_at)
        if self.control is not None:
            control_at = select_targets(control_truth, self.targets, rng)
            control_pred, control_rank = predict(self.control.iloc[control_at])
            control_ok = control_pred == control_truth[control_at]
            blocks = None

            def base(size):
                return control_ok[:size], control_rank[:size]
        else:
            blocks = BlockBaseline(predict.real_features, truth, targets_at,
                                   max(1, len(real) // 10), self.baseline, seed, self.alpha,
                                   self.r_min)  # fmt: skip

            def base(size):
                pred, rank = blocks.upto(size)
                return pred == target_truth[:size], rank

        attack_ok = attack_pred == target_truth
        pairs_attack, pairs_base, best_attack, best_base, used, reason = halted_measurement(
            attack_ok, attack_rank, base, self.max_width, self.alpha, self.r_min
        )
        base_ok, base_rank = base(used)
        predictions = pd.concat(
            [
                pd.DataFrame(
                    {"attack correct": attack_ok[:used], "attack rank": attack_rank[:used]}
                ),
                pd.DataFrame({"base correct": base_ok, "base rank": base_rank}),
            ],
            axis=1,
        )
        return ALCResult(
            secret=secret, known=known, attack=pairs_attack, base=pairs_base,
            best_attack=best_attack, best_base=best_base,
            alc=float(A.alc(best_base.prc, best_attack.prc)), targets_used=used,
            halt_reason=reason, predictions=predictions,
            baseline_fits=blocks.fits if blocks else 0,
            baseline_models=blocks.chosen if blocks else ["control set"],
        )  # fmt: skip

    def _checked(self, real: pd.DataFrame, schema: Schema) -> tuple[str, list[str]]:
        """(the secret, the known attributes), or the reason they cannot be measured."""
        secret = self.secret
        if self.attack not in ATTACKS:
            raise InvalidInputError(f"attack must be one of {ATTACKS}, got {self.attack!r}")
        if self.baseline not in BASELINES:
            raise InvalidInputError(f"baseline must be one of {BASELINES}, got {self.baseline!r}")
        if secret is None or secret not in real.columns:
            raise InvalidInputError(f"the secret {secret!r} is not a column of the real data")
        known = self.known
        if known is None:
            known = list(schema.key) or [c for c in schema.names if c != secret]
        known = list(known)
        if secret in known:
            raise InvalidInputError(f"{secret!r} cannot be both the secret and a known attribute")
        if real[secret].nunique() < 2:
            raise InvalidInputError(
                f"the secret {secret!r} has a single value in the real data: nothing to infer, "
                "the ALC is undefined"
            )
        return secret, known

    def _codes(self, real: pd.DataFrame, schema: Schema, secret: str):
        """The secret's codes in the real rows, the release and the control rows (None without
        one), on one scale."""
        numerical = secret in schema.numerical
        if self.control is None:
            truth, release_codes = unknown_codes(real[secret], self.release[secret], numerical)
            return truth, release_codes, None
        joint, release_codes = unknown_codes(
            pd.concat([real[secret], self.control[secret]], ignore_index=True),
            self.release[secret],
            numerical,
        )
        return joint[: len(real)], release_codes, joint[len(real) :]


class _Predictor:
    """The attack's guesses of the secret (a code and a rank score per row), by best row match
    or by the forest trained on the release."""

    def __init__(self, real, release, known, schema, release_codes, attack, seed):
        self.numerical = [c for c in schema.numerical if c in known]
        self.known, self.release, self.release_codes = known, release, release_codes
        self.levels = {
            c: pd.unique(pd.concat([real[c], release[c]], ignore_index=True))
            for c in known
            if c not in self.numerical
        }
        self.real_features = encoded_features(real, known, self.numerical, self.levels)
        self.ranges = {
            c: float(max(real[c].max(), release[c].max()) - min(real[c].min(), release[c].min()))
            or 1.0
            for c in self.numerical
        }
        self.forest = None
        if attack != "brm":
            features = encoded_features(release, known, self.numerical, self.levels)
            self.forest = forest_predictor(features, release_codes, seed)

    def __call__(self, rows: pd.DataFrame, at_real: np.ndarray | None = None):
        if self.forest is None:
            return best_row_match(rows[self.known], self.release[self.known], self.release_codes,
                                  self.numerical, self.ranges)  # fmt: skip
        features = (self.real_features[at_real] if at_real is not None
                    else encoded_features(rows, self.known, self.numerical, self.levels))  # fmt: skip
        return forest_predictions(self.forest, features)


def alc_score(value: float) -> float:
    """The project's [0, 1] scale (0 private, 1 no privacy): max(0, ALC). ALC <= 0 means the attack
    does no better than the baseline, i.e. no anonymity loss; the raw ALC stays in the result."""
    return float(min(1.0, max(0.0, value)))
