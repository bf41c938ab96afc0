"""The attacks' power, measured on the leakage ladder: how much known leakage each attack sees.

The games (:mod:`privmetrics.experiments.games.play`) play the ladder's releases (:mod:`privmetrics.synthesisers.planted`:
fresh population rows with each training row planted with probability ``dose``, exactly or
jittered) as controls beside the twelve configurations. :func:`power_curves` reads them into
one row per (dataset, attack, target kind, jitter, dose): the attack's AUC with its 95% interval,
and for the shadow attack the TPR at a false-positive rate of 1% and 0.1% of its scores pooled
over targets, with Clopper-Pearson intervals (a TPR is read only where the non-members' scores
allow that rate: 1% of 200 non-members is two false positives, 0.1% needs 1,000);
:func:`minimum_detectable_dose` the smallest dose at which each attack *finds members* by the
chapter's own rule (:func:`.game_analysis.finds_members`: its interval wholly above chance and
its value at least ``MIN_EFFECT`` above it, and for the shadow attack its permutation test's
p-value at most 0.05 divided by the doses scanned).

**The hand-computed expectation.** An exactly planted member lies at distance 0 from the
release; an unplanted member and a non-member are exchangeable (neither is in the release). So
an attack that scores a member by its closeness to the release alone has E[AUC] = 1/2 + dose/2
(:func:`~privmetrics.synthesisers.planted.expected_distance_auc`, tested on the releases
themselves), and no attack that sees only the release does better on average: the ``expected``
column, beside the whole-release distance scoring at jitter 0. That scoring subtracts the
distance to the attacker's reference, so it reaches the expectation only where a copy's distance
to the reference outweighs a non-member's margin (on the paper store: Texas at every dose;
flchain and randhie fall short by 0.02-0.03 at 25%, randhie also through its twins, a third of
its rows).

Two doses per curve: the **minimum detectable dose** by the chapter's rule (an AUC of at least
0.6 with its interval above chance: no attack can meet it below a dose of 20%), and the smallest
dose whose interval alone lies above chance (``above chance``: the attack's resolution, what a
rule without a minimum effect would read).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from privmetrics.attacks.empirical_epsilon import clopper_pearson
from privmetrics.attacks.membership_game import tpr_at
from privmetrics.experiments.games.game_analysis import _results, attack_table, finds_members
from privmetrics.synthesisers.planted import expected_distance_auc

# the false-positive rates the power curves read the shadow attack's TPR at
LOW_FPRS = (0.01, 0.001)
CURVE = ["dataset", "attack", "kind", "jitter", "dose", "measure", "value", "low", "high",
         "expected", "releases", "found", "above chance"]  # fmt: skip


def doses(games: pd.DataFrame) -> pd.DataFrame:
    """``games`` with the ladder's ``dose`` and ``jitter`` read from their parameters."""
    params = games.params.map(json.loads)
    return games.assign(dose=params.map(lambda p: float(p["dose"])),
                        jitter=params.map(lambda p: float(p["jitter"])))  # fmt: skip


def tpr_at_low_fpr(scores: np.ndarray, truth: np.ndarray, fpr: float) -> tuple[float, ...]:
    """(TPR, low, high, non-members): the membership game's TPR at ``fpr``
    (:func:`~privmetrics.attacks.membership_game.tpr_at`) with its 95% Clopper-Pearson interval;
    NaN where fewer than 1 / ``fpr`` non-members make that rate unreadable."""
    negatives, positives = int((truth == 0).sum()), int((truth == 1).sum())
    if negatives * fpr < 1 or not positives:
        return np.nan, np.nan, np.nan, negatives
    hits = int(round(tpr_at(scores, truth, fpr) * positives))
    low, high = clopper_pearson(hits, positives, 0.95)
    return hits / positives, low, high, negatives


# the shadow attack's permutation test on the ladder: p resolved to 1 / 2,001, below the
# Bonferroni level 0.05 / 7 of a seven-dose curve (the chapters' 10,000 cost 4x the time)
PERMUTATIONS = 2_000


def power_curves(membership: pd.DataFrame, release: pd.DataFrame, draws: int = 200):
    """The module doc's table from the ladder's ``membership`` and ``release`` games (as
    :func:`~privmetrics.experiments.games.play.run_games` returns them with ``ladder=True``); ``draws``: the bootstrap's."""
    rows = []
    for attack, games, game in (("shadow", membership, "membership"),
                                ("whole release", release, "release")):  # fmt: skip
        if games.empty:
            continue
        games = doses(games)
        table = attack_table(games, draws=draws, game=game, permutations=PERMUTATIONS)
        table = table[table.measure == "AUC"].rename(columns={"n targets": "n"})
        table = table.merge(games.drop_duplicates(["dataset", "config"])[
            ["dataset", "config", "dose", "jitter"]])  # fmt: skip
        # Bonferroni over the doses of each (dataset, kind, jitter) curve
        scanned = table.groupby(["dataset", "kind", "jitter"]).dose.transform("size")
        for row, tests in zip(table.itertuples(), scanned, strict=True):
            exact = attack == "whole release" and row.kind == "distance" and row.jitter == 0
            rows.append({
                "dataset": row.dataset, "attack": attack if attack == "shadow"
                else f"whole release ({row.kind})", "kind": row.kind if attack == "shadow"
                else "all members", "jitter": row.jitter, "dose": row.dose, "measure": "AUC",
                "value": row.value, "low": row.low, "high": row.high,
                "expected": expected_distance_auc(row.dose) if exact else np.nan,
                "releases": row.n, "found": finds_members(row, 0.5, 0.05 / tests),
                "above chance": bool(row.low > 0.5 and not getattr(row, "p", 0) > 0.05 / tests),
            })  # fmt: skip
        if game == "membership":
            rows += _low_fpr_rows(games)
    curves = pd.DataFrame(rows, columns=CURVE)
    # dose 0 plants nothing, whatever the jitter: the start of every jitter's curve
    start = curves[curves.dose == 0]
    jittered = [start.assign(jitter=j) for j in sorted(set(curves.jitter) - {0.0})]
    return pd.concat([curves, *jittered], ignore_index=True)


def _low_fpr_rows(games: pd.DataFrame) -> list[dict]:
    """The shadow attack's TPR at :data:`LOW_FPRS`, its scores pooled over each kind's targets."""
    rows = []
    for (dataset, kind, jitter, dose), part in games.groupby(["dataset", "kind", "jitter", "dose"]):
        results = _results(part)
        scores = np.concatenate([r.scores for r in results])
        truth = np.concatenate([r.truth for r in results])
        for fpr in LOW_FPRS:
            value, low, high, negatives = tpr_at_low_fpr(scores, truth, fpr)
            rows.append({"dataset": dataset, "attack": "shadow", "kind": kind, "jitter": jitter,
                         "dose": dose, "measure": f"TPR at FPR {fpr:g}", "value": value,
                         "low": low, "high": high, "expected": np.nan, "releases": negatives,
                         "found": bool(low > fpr) if np.isfinite(low) else False,
                         "above chance": bool(low > fpr) if np.isfinite(low) else False})  # fmt: skip
    return rows


def minimum_detectable_dose(curves: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, attack, kind, jitter): the smallest dose above 0 whose AUC finds members
    (NaN when none does), the largest dose played, and whether the AUC rises with the dose
    (each dose's interval reaching above the previous dose's value, allowing for noise)."""
    auc = curves[curves.measure == "AUC"].sort_values("dose")
    rows = []
    for (dataset, attack, kind, jitter), part in auc.groupby(
        ["dataset", "attack", "kind", "jitter"]
    ):
        found = part[(part.dose > 0) & part.found.astype(bool)]
        above = part[(part.dose > 0) & part["above chance"].astype(bool)]
        rising = bool((part.high.to_numpy()[1:] >= part.value.to_numpy()[:-1]).all())
        rows.append({"dataset": dataset, "attack": attack, "kind": kind, "jitter": jitter,
                     "minimum_detectable_dose": found.dose.min() if len(found) else np.nan,
                     "above_chance_from": above.dose.min() if len(above) else np.nan,
                     "largest_dose": part.dose.max(), "rises": rising})  # fmt: skip
    return pd.DataFrame(rows)


def _dose(value: float) -> str:
    return f"{value:.1%}".replace(".0%", "%")


def _jitter(value: float) -> str:
    return "exact copies" if value == 0 else f"copies jittered by {value:g}"


def power_findings(curves: pd.DataFrame) -> list[str]:
    """One sentence per (dataset, attack and kind): the minimum detectable dose of each jitter
    level, with the AUC there and at the largest dose, generated from :func:`power_curves`."""
    found = minimum_detectable_dose(curves)
    auc = curves[curves.measure == "AUC"].set_index(["dataset", "attack", "kind", "jitter", "dose"])
    lines = []
    for (dataset, attack, kind), part in found.groupby(["dataset", "attack", "kind"], sort=False):
        who = attack if kind == "all members" else f"{attack} attack on {kind} targets"
        parts = []
        for row in part.itertuples():
            top = auc.loc[(dataset, attack, kind, row.jitter, row.largest_dose)]
            if np.isfinite(row.minimum_detectable_dose):
                at = auc.loc[(dataset, attack, kind, row.jitter, row.minimum_detectable_dose)]
                parts.append(f"{_jitter(row.jitter)} from a dose of "
                             f"{_dose(row.minimum_detectable_dose)} (AUC {at.value:.2f} "
                             f"[{at.low:.2f}, {at.high:.2f}])")  # fmt: skip
            else:
                parts.append(f"{_jitter(row.jitter)} at no dose up to {_dose(row.largest_dose)} "
                             f"(AUC {top.value:.2f} [{top.low:.2f}, {top.high:.2f}] there)")  # fmt: skip
            if np.isfinite(row.above_chance_from) and not (
                row.above_chance_from == row.minimum_detectable_dose
            ):
                parts[-1] += f", above chance from {_dose(row.above_chance_from)}"
        lines.append(f"**{dataset}**, {who}: finds members among " + "; ".join(parts) + ".")
    return lines
