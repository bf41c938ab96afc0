"""The member / non-member design of attribute inference: the synthesiser is re-fitted without the
targets, so the same attack can be run on a release that contains them and on one that does not.

Francis and Wagner (Sections 3 and 6) contrast two baselines for the ALC:

* **ours** (the paper's): a predictor trained on the *original* data without the targets
  (:class:`privmetrics.attacks.inference.AnonymityLoss`);
* **prior** (Giomi et al., Stadler et al.): the same attack run on a release anonymised *without*
  the targets, D'_anon = anonymise(D_orig minus targets). For a synthesiser this costs one extra
  fit per block of targets.

:class:`RefitAnonymityLoss` (an attack in the package's one shape, :mod:`.shape`) measures both
on the same targets. Each of ``refits`` blocks of
``targets_per_refit`` targets is held out in turn; the synthesiser is fitted once on all rows (the
member release) and once per block without it (the non-member release), every table through the
:class:`~privmetrics.synthesisers.SyntheticCache`. :func:`tradeoff` varies the two parameters and
reports how the estimate and its cost change.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privmetrics.attacks import alc as A
from privmetrics.attacks.forest_baseline import (
    encoded_features,
    forest_predictions,
    forest_predictor,
    select_targets,
)
from privmetrics.attacks.inference import (
    alc_outcome,
    best_row_match,
    halted_measurement,
    unknown_codes,
)
from privmetrics.attacks.outcome import Outcome
from privmetrics.attacks.shape import Attack, OneOutcome, real_table
from privmetrics.data.schema import Schema
from privmetrics.synthesisers.cache import SyntheticCache


@dataclass
class RefitResult(OneOutcome):
    """Both ALCs on the same targets, with what they cost."""

    alc_ours: float  # baseline: the paper's forest on the original data without the block
    alc_prior: float  # baseline: the attack on the synthesiser re-fitted without the block
    alc_prior_recall_1: float  # the prior approach as the paper ran it: recall 1 only
    prc_attack: float
    prc_base_ours: float
    prc_base_prior: float
    targets: int
    fits: int  # synthesiser fits (cache hits included)
    seconds: float
    secret: str = ""
    best_attack: pd.Series | None = field(default=None, repr=False)
    best_base_prior: pd.Series | None = field(default=None, repr=False)

    def summary(self) -> dict:
        """The numbers (the ALCs, PRCs, targets, fits and seconds) as one table row."""
        names = ("alc_ours", "alc_prior", "alc_prior_recall_1", "prc_attack", "prc_base_ours",
                 "prc_base_prior", "targets", "fits", "seconds")  # fmt: skip
        return {name: getattr(self, name) for name in names}

    def outcome(self) -> Outcome:
        """The ALC against the refitted release (the prior approach: what the release tells about
        these people beyond what a release without them tells), baseline 0, its interval from
        the attack's precision interval at its recall (:func:`.inference.alc_outcome`)."""
        return alc_outcome(f"ALC against a refit, {self.secret}", self.alc_prior,
                           self.best_attack, self.best_base_prior, self.targets)  # fmt: skip


class RefitAnonymityLoss(Attack):
    """ALC of the best-row-match attack with the paper's baseline and with the prior approach's
    (the attack on a synthesiser re-fitted without the targets), on the same targets: the
    ``technique`` with ``params`` fitted on ``real`` (a RealSide or a DataFrame with its
    ``schema``), the attacker knowing ``known`` and wanting ``secret``, ``refits`` blocks of
    ``targets_per_refit`` targets (module doc).

    ``dataset`` names the real table in the cache keys; pass a name that identifies it (rows and
    seed included) when a cache is shared. ``halt=False`` uses every target (three thresholds per
    predictor, no halting rule), so that the number of targets is what the caller asked for.
    """

    def __init__(self, real, schema=None, technique="privbayes", params=None, secret=None,
                 known=None, refits=1, targets_per_refit=200, dataset="data", cache=None,
                 halt=True):  # fmt: skip
        self.real = real
        self.schema = schema
        self.technique = technique
        self.params = params
        self.secret = secret
        self.known = known
        self.refits = refits
        self.targets_per_refit = targets_per_refit
        self.dataset = dataset
        self.cache = cache
        self.halt = halt

    def evaluate(self, seed: int = 0) -> RefitResult:
        if self.refits < 1 or self.targets_per_refit < 1:
            raise ValueError("refits and targets_per_refit must be at least 1")
        start = time.perf_counter()
        real, schema = real_table(self.real, self.schema)
        secret, technique, dataset = (
            self.secret or schema.sensitive[0],
            self.technique,
            self.dataset,
        )
        params = dict(self.params or {})
        cache = self.cache if self.cache is not None else SyntheticCache()
        known = list(self.known if self.known is not None else
                     [c for c in schema.names if c != secret])  # fmt: skip
        numerical = [c for c in schema.numerical if c in known]
        rng = np.random.default_rng(seed)
        member = cache.fit_sample(dataset, technique, params, seed, real, schema)
        truth, member_codes = unknown_codes(
            real[secret], member[secret], secret in schema.numerical
        )
        order = select_targets(truth, self.refits * self.targets_per_refit, rng)
        blocks = np.array_split(order, min(self.refits, len(order)))
        levels = {c: pd.unique(real[c]) for c in known if c not in numerical}
        features = encoded_features(real, known, numerical, levels)
        ranges = {c: float(real[c].max() - real[c].min()) or 1.0 for c in numerical}

        out = {k: [] for k in ("truth", "atk", "atk_rank", "ours", "ours_rank", "prior",
                               "prior_rank")}  # fmt: skip
        for k, block in enumerate(blocks):
            rest = np.setdiff1d(np.arange(len(real)), block)
            label = f"{dataset}-without-block{k}-of{len(blocks)}-seed{seed}"
            outsider = cache.fit_sample(label, technique, params, seed, real.iloc[rest], schema)
            _, outsider_codes = unknown_codes(
                real[secret], outsider[secret], secret in schema.numerical
            )
            targets = real.iloc[block][known]
            atk, atk_rank = best_row_match(targets, member[known], member_codes, numerical, ranges)
            prior, prior_rank = best_row_match(
                targets, outsider[known], outsider_codes, numerical, ranges
            )
            forest = forest_predictor(features[rest], truth[rest], seed)
            ours, ours_rank = forest_predictions(forest, features[block])
            for name, values in zip(
                out, (truth[block], atk, atk_rank, ours, ours_rank, prior, prior_rank), strict=True
            ):
                out[name].append(values)
        v = {name: np.concatenate(parts) for name, parts in out.items()}
        attack_ok = v["atk"] == v["truth"]

        def measured(base_ok, base_rank):
            if self.halt:
                *_, best_attack, best_base, _, _ = halted_measurement(
                    attack_ok, v["atk_rank"], lambda size: (base_ok[:size], base_rank[:size])
                )
                return best_attack, best_base
            return [
                A.best_or_recall_one(A.precision_recall(ok, rank, A.thresholds_for(rank, 3)))[0]
                for ok, rank in ((attack_ok, v["atk_rank"]), (base_ok, base_rank))
            ]

        best_attack, base_ours = measured(v["ours"] == v["truth"], v["ours_rank"])
        _, base_prior = measured(v["prior"] == v["truth"], v["prior_rank"])
        # the prior approach of Section 6: every prediction counts (recall 1), precision only
        n, hits_attack = len(attack_ok), attack_ok.sum()
        hits_prior = (v["prior"] == v["truth"]).sum()
        prior_recall_1 = A.alc(
            A.probabilistic_precision(hits_prior, n), A.probabilistic_precision(hits_attack, n)
        )
        return RefitResult(
            alc_ours=float(A.alc(base_ours.prc, best_attack.prc)),
            alc_prior=float(A.alc(base_prior.prc, best_attack.prc)),
            alc_prior_recall_1=float(prior_recall_1),
            prc_attack=float(best_attack.prc),
            prc_base_ours=float(base_ours.prc),
            prc_base_prior=float(base_prior.prc),
            targets=n,
            fits=1 + len(blocks),
            seconds=time.perf_counter() - start,
            secret=secret,
            best_attack=best_attack,
            best_base_prior=base_prior,
        )


def tradeoff(
    real: pd.DataFrame,
    schema: Schema,
    technique: str,
    secret: str,
    params: dict | None = None,
    refits: tuple[int, ...] = (1, 2, 4),
    targets_per_refit: tuple[int, ...] = (50, 100, 200),
    seeds: tuple[int, ...] = (0, 1, 2),
    **kwargs,
) -> pd.DataFrame:
    """Accuracy against cost: for each (refits, targets per refit), the mean and spread over
    ``seeds`` of both ALCs, the synthesiser fits and the seconds per measurement. The spread over
    seeds is the accuracy the settings buy; the cache makes repeated tables free, so the seconds
    of the first seed are the honest cost."""
    rows = []
    for r in refits:
        for t in targets_per_refit:
            runs = [
                RefitAnonymityLoss(real, schema, technique, params, secret, refits=r,
                                   targets_per_refit=t, halt=False, **kwargs).evaluate(s)
                for s in seeds
            ]  # fmt: skip
            frame = pd.DataFrame([x.summary() for x in runs])
            rows.append(
                {
                    "refits": r,
                    "targets per refit": t,
                    "targets": int(frame.targets.mean()),
                    "synthesiser fits": int(frame.fits.iloc[0]),
                    "ALC ours": frame.alc_ours.mean(),
                    "sd ours": frame.alc_ours.std(ddof=1),
                    "ALC prior": frame.alc_prior.mean(),
                    "sd prior": frame.alc_prior.std(ddof=1),
                    "ALC prior, recall 1": frame.alc_prior_recall_1.mean(),
                    "seconds (first seed)": frame.seconds.iloc[0],
                }
            )
    return pd.DataFrame(rows)
