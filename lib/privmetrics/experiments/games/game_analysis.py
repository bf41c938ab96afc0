"""Experiment 3's analysis: how well the attacks succeed, and whether each metric predicts them.

The games are played and stored by :mod:`privmetrics.experiments.games.play` (one row per game: the forest's score and the
truth per evaluation release, or whether each attribute guess was right).

:func:`attack_table` pools each (dataset, configuration, kind)'s games into the attack's success
(membership: AUC, advantage, TPR at FPR 0.1; attribute inference: accuracy, the baseline's
accuracy and the advantage; each with a bootstrap interval over targets and releases).
:func:`predictiveness` then asks, per dataset, target kind and measure, whether the measure
predicts the attack, two ways.

*Configuration by configuration.* The measure places each configuration between Random (0) and
Real (1) by their mean scores (:func:`positions`; no place where the two ends are less than
:data:`~privmetrics.metrics.registry.MIN_SPAN` apart). It **misses a risk** in a configuration
other than Real that it places in the safe third (below 1/3) while the attack finds members
there: the attack's interval lies wholly above chance (an AUC of 0.5, an advantage of 0), its
value at least :data:`MIN_EFFECT` above it and, for membership, its permutation test gives
p <= 0.05 divided by the configurations scanned (Bonferroni). It **raises a false alarm** in a
configuration it places in the top third (from 2/3) while the attack's interval lies within
chance +- :data:`CHANCE_BAND`: a well-powered attack that finds nothing there.

*Across configurations.* Spearman's rho between the measure's mean score and the attack's value,
with a bootstrap interval that resamples the configurations and, in each draw, takes each
configuration's attack value from a bootstrap draw of its own games (so an attack whose values
are mostly noise gives a wide interval): rho >= 0.8 (up to rounding,
:func:`~privmetrics.experiments.paper.analysis.at_least`) with the interval's lower end above 0 **tracks the attack**;
rho <= 0.3 with its upper end below 0.8 **does not track it**. Most configurations sit at
chance, where the attack's order is noise: the rank is read only where the attack ranks the
configurations reproducibly (its :func:`reliability`, how two bootstrap draws of its values
agree in rank, at least 0.8, the bar a measure must clear to track it).

The verdict (:func:`decide`), in this order: **cannot tell at this scale** where the attack is
not shown to work even on Real (the release that is its training table, by the rule above at
level 0.05) or the kind has fewer than :data:`MIN_TARGETS` targets; else **misses a risk** if it
misses one; else **raises a false alarm** if it raises one; else the rank's verdict where it
has one; else **agrees with the attack** where at least one configuration beyond Real is
decided (the attack above chance or within the band) and placed by the measure, and the measure
contradicts none; else cannot tell. (Random is no safe floor for the attack: Algorithm 22 draws each column from the
training table's own observed values and category set, so a target with a value of its own
shows up in the release; a test shows it.) A configuration whose synthesiser did not train at
the games' size (PATE-GAN below ten iterations,
:func:`privmetrics.experiments.studies.pategan_study.untrained`) is left out of every
verdict: its releases are the untrained generator's.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from privmetrics.attacks.attribute_game import AttributeResult, summarise_attribute
from privmetrics.attacks.membership_game import GameResult, rank_auc, summarise
from privmetrics.attacks.outcome import baselines
from privmetrics.attacks.whole_release import summarise_release
from privmetrics.experiments.paper.analysis import at_least
from privmetrics.metrics.registry import MIN_SPAN

TRACKS, DOES_NOT, CANNOT_TELL = (
    "tracks the attack",
    "does not track it",
    "cannot tell at this scale",
)
MISSES, FALSE_ALARM, AGREES = (
    "misses a risk",
    "raises a false alarm",
    "agrees with the attack",
)
# an attack "finds nothing" when its interval lies within chance plus or minus this (an AUC of
# 0.45 to 0.55, an advantage of -0.05 to 0.05): a well-powered coin flip
CHANCE_BAND = 0.05


# how far above chance an attack must be, besides its interval lying wholly above chance, to count
# as working (an AUC of 0.6, an advantage of 0.1): a tight interval around 0.51 finds nothing
MIN_EFFECT = 0.1


# the fewest targets of a kind for a verdict: every interval here resamples targets, and a
# bootstrap over fewer than about ten values cannot bound anything (two targets give three
# distinct draws)
MIN_TARGETS = 10
# the attack's reliability (rank agreement of two bootstrap draws) a rank verdict needs
RELIABLE = 0.8


def finds_members(row, chance: float, alpha: float = 0.05) -> bool:
    """The attack's value is at least :data:`MIN_EFFECT` above ``chance``, its interval lies
    wholly above it, and, where the row has one (membership), its permutation test's p-value
    (:func:`~privmetrics.attacks.membership_game.permutation_p`) is at most ``alpha``: with a
    few releases per target the bootstrap interval alone is too narrow."""
    p = getattr(row, "p", np.nan)
    return bool(row.low > chance and row.value >= chance + MIN_EFFECT and not p > alpha)


def _results(games: pd.DataFrame) -> list[GameResult]:
    return [
        GameResult(
            int(g.target), g.kind, np.array(json.loads(g.scores)), np.array(json.loads(g.truth))
        )
        for g in games.itertuples()
    ]  # one per game (a few dozen), not per row of data


def _attribute_results(games: pd.DataFrame) -> list[AttributeResult]:
    return [
        AttributeResult(
            int(g.target),
            g.kind,
            np.array(json.loads(g.scores), dtype=bool),
            bool(json.loads(g.truth)[0]),
        )  # fmt: skip
        for g in games.itertuples()
    ]


def attack_table(
    games: pd.DataFrame,
    draws: int = 500,
    seed: int = 0,
    game: str = "membership",
    permutations: int = 10_000,
) -> pd.DataFrame:
    """Per (dataset, config, kind, measure): the pooled value with its 95% interval (membership:
    AUC, advantage, TPR at FPR 0.1; attribute: accuracy, baseline accuracy, advantage; the
    whole-release attack: the mean AUC over releases, its kind the scoring, its "n targets" the
    releases), its ``baseline`` (:func:`privmetrics.attacks.outcome.baselines`: what an attacker
    the release tells nothing gets) and the bootstrap values behind it (``draws``, which :func:`predictiveness`
    carries into rho)."""
    columns = [
        "dataset",
        "config",
        "kind",
        "measure",
        "value",
        "low",
        "high",
        "baseline",
        "n targets",
        "draws",
        "p",
    ]
    if games.empty:
        return pd.DataFrame(columns=columns)
    frames = []
    for (dataset, config), part in games.groupby(["dataset", "config"], sort=False):
        if game == "membership":
            table = summarise(_results(part), draws=draws, seed=seed, permutations=permutations)
        elif game == "release":
            aucs = {(config, g.kind): np.array(json.loads(g.scores)) for g in part.itertuples()}
            table = summarise_release(aucs, draws=draws, seed=seed).drop(columns="config")
        else:
            table = summarise_attribute(_attribute_results(part), draws=draws, seed=seed)
        frames.append(
            table.rename(columns={"targets": "kind"}).assign(
                dataset=dataset,
                config=config,
                baseline=baselines(table, "kind" if game == "release" else "targets").to_numpy(),
            )
        )
    return pd.concat(frames, ignore_index=True).reindex(columns=columns)  # attribute: no p


def _spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row pair of ``x`` and ``y`` (average ranks for ties); NaN where a
    row is constant."""
    rx, ry = rankdata(x, axis=1), rankdata(y, axis=1)
    rx -= rx.mean(1, keepdims=True)
    ry -= ry.mean(1, keepdims=True)
    denominator = np.sqrt((rx**2).sum(1) * (ry**2).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (rx * ry).sum(1) / denominator, np.nan)


def verdict(rho: float, low: float, high: float) -> str:
    """The module doc's rule."""
    if np.isnan(rho):
        return CANNOT_TELL
    if at_least(rho, 0.8) and low > 0:
        return TRACKS
    if rho <= 0.3 + 1e-9 and high < 0.8:
        return DOES_NOT
    return CANNOT_TELL


def _attack_draws(bounds: pd.DataFrame) -> np.ndarray:
    """(bootstrap draws, configurations): the attack's value in each bootstrap draw of each
    configuration's games (``bounds.draws``), or its point value twice when the table has none."""
    if "draws" not in bounds or bounds.draws.isna().any():
        return np.tile(bounds.value.to_numpy(float), (2, 1))
    return np.stack([np.asarray(d, dtype=float) for d in bounds.draws], axis=1)


def reliability(noise: np.ndarray) -> float:
    """How reproducibly the attack ranks the configurations: the median Spearman rho between two
    independent bootstrap draws of its values (:func:`_attack_draws`, first half of the draws
    against the second). Lenient: an attack of pure noise still scores about 0.5, since both
    draws lean towards the same observed values; an attack that ranks by its own noise cannot be
    tracked, or not tracked, at 0.8."""
    half = len(noise) // 2
    rho = _spearman_rows(noise[:half], noise[half : 2 * half])
    return float(np.nanmedian(rho)) if np.isfinite(rho).any() else np.nan


def positions(means: pd.DataFrame, safe: pd.Series | None = None) -> pd.DataFrame:
    """Each configuration's place on each metric's scale between Random (0) and Real (1), by
    their mean scores (configurations x metrics); NaN for a metric whose two ends are less than
    :data:`~privmetrics.metrics.registry.MIN_SPAN` apart (it cannot place a release on this
    data). ``safe``: the safe end's reading per metric instead of Random's (the calibrated rule's
    fresh rows, :mod:`.calibration`)."""
    low = means.loc["Random"] if safe is None else safe.reindex(means.columns)
    high = means.loc["Real"]
    span = (high - low).where((high - low).abs() >= MIN_SPAN)
    return (means - low) / span


def at_chance(row, chance: float) -> bool:
    """The attack's interval lies within chance +- :data:`CHANCE_BAND`: a well-powered attack
    that finds nothing."""
    return bool(
        row.low >= chance - CHANCE_BAND - 1e-12 and row.high <= chance + CHANCE_BAND + 1e-12
    )


def alarms(
    place: pd.Series, bounds: pd.DataFrame, chance: float, alpha: float
) -> tuple[list, list]:
    """(missed risks, false alarms) of one metric (module doc): the configurations other than
    Real where the attack is above chance (permutation level ``alpha``) while the metric places
    the release in the safe third, and those the metric places in the top third while the
    attack's interval lies within chance +- :data:`CHANCE_BAND`."""
    missed, false = [], []
    for config, row in bounds.drop(index="Real", errors="ignore").iterrows():
        where = place.get(config, np.nan)
        if np.isnan(where):
            continue
        if where < 1 / 3 - 1e-12 and finds_members(row, chance, alpha):
            missed.append(config)
        elif where >= 2 / 3 - 1e-12 and at_chance(row, chance):
            false.append(config)
    return missed, false


PREDICTIVENESS = ["dataset", "kind", "metric", "rho", "low", "high", "configurations",
                  "attack works on Real", "attack reliability", "targets", "above chance",
                  "at chance", "missed risks", "false alarms", "verdict", "calibration",
                  "why"]  # fmt: skip


def predictiveness(
    attacks: pd.DataFrame,
    results: pd.DataFrame,
    measure: str = "AUC",
    draws: int = 1000,
    seed: int = 0,
    untrained: dict | frozenset = frozenset(),
    calibration=None,
) -> pd.DataFrame:
    """Per (dataset, kind, metric): rho between the metric's mean score and the attack's
    ``measure`` across configurations, its bootstrap interval, the configurations where the
    metric misses a risk the attack finds or raises an alarm the attack does not bear out, and
    the verdict (module doc). ``results`` is the grid's tidy results (dataset, config, metric,
    score); the (dataset, configuration) pairs of ``untrained``
    (:func:`privmetrics.experiments.studies.pategan_study.untrained`) are left out: their
    releases are an untrained generator's. With a ``calibration``
    (:class:`~.calibration.Calibration`) the metric's readings are its readings at the games'
    scale, placed between fresh rows and Real, and the alarms and agreements follow the
    calibrated rule (:func:`~.calibration.judge`): ``calibration`` names each verdict's
    calibration points, ``why`` the reason of a calibrated "cannot tell"."""
    from privmetrics.experiments.games.calibration import calibrated

    attacks = attacks[[(d, c) not in untrained
                       for d, c in zip(attacks.dataset, attacks.config, strict=True)]]  # fmt: skip
    if calibration is None:
        means = results.groupby(["dataset", "config", "metric"]).score.mean().unstack("metric")
    else:
        means = calibration.means()
    rows = []
    chosen = attacks[attacks.measure == measure]
    for (dataset, kind), part in chosen.groupby(["dataset", "kind"], sort=False):
        if dataset not in means.index.get_level_values(0):
            continue
        bounds = part.set_index("config")
        attack = bounds.value
        chance = 0.5 if measure == "AUC" else 0.0
        stacked = _attack_draws(bounds)
        steady = reliability(stacked)
        works = "Real" in bounds.index and finds_members(bounds.loc["Real"], chance)
        targets = int(bounds["n targets"].min())
        usable = works and targets >= MIN_TARGETS
        noise = stacked[np.arange(draws) % len(stacked)]
        scores = means.loc[dataset].reindex(attack.index)
        if calibration is not None:
            safe = calibration.safe_end(dataset)
            placed = positions(means.loc[dataset], safe) if "Real" in scores.index else None
            detectable = calibration.detectable.get((dataset, kind), np.nan)
        else:
            placed = (positions(means.loc[dataset]) if {"Random", "Real"} <= set(scores.index)
                      else None)  # fmt: skip
        # Bonferroni over the configurations scanned for a missed risk
        alpha = 0.05 / max(len(bounds) - 1, 1)
        # how many configurations the attack separates from chance, and how many it shows at
        # chance: where most sit at chance their order is noise and the reliability stays low
        above = sum(finds_members(r, chance, alpha) for _, r in bounds.iterrows())
        level = sum(at_chance(r, chance) for _, r in bounds.iterrows())
        for metric in scores.columns:
            x = scores[metric].to_numpy(float)
            keep = ~np.isnan(x)
            x, y = x[keep], attack.to_numpy(float)[keep]
            if len(x) < 4:
                continue
            rho = float(_spearman_rows(x[None], y[None])[0])
            # configurations resampled with replacement (the same draws for every metric), each
            # with the attack's value in the same bootstrap draw of its own games
            sample = np.random.default_rng(seed).integers(len(x), size=(draws, len(x)))
            boot = _spearman_rows(x[sample], np.take_along_axis(noise[:, keep], sample, 1))
            low, high = (np.nanpercentile(boot, [2.5, 97.5]) if np.isfinite(boot).any()
                         else (np.nan, np.nan))  # fmt: skip
            note = why = ""
            if calibration is not None:
                missed, false, decided, note, why = calibrated(calibration, dataset, metric,
                    scores[metric], placed, bounds, chance, alpha, detectable)  # fmt: skip
            else:
                missed, false = (alarms(placed[metric], bounds, chance, alpha)
                                 if placed is not None else ([], []))  # fmt: skip
                # configurations beyond Real that the attack decides and the metric places
                decided = sum(
                    (finds_members(r, chance, alpha) or at_chance(r, chance))
                    and placed is not None and not np.isnan(placed[metric].get(c, np.nan))
                    for c, r in bounds.iterrows() if c != "Real"
                )  # fmt: skip
            said = decide(usable, steady, rho, low, high, missed, false, decided)
            rows.append({"dataset": dataset, "kind": kind, "metric": metric, "rho": rho,
                         "low": float(low), "high": float(high), "configurations": len(x),
                         "attack works on Real": works, "attack reliability": steady, "targets": targets,
                         "above chance": above, "at chance": level, "missed risks": ", ".join(missed), "false alarms": ", ".join(false),
                         "verdict": said, "calibration": note,
                         "why": why if said == CANNOT_TELL and usable else ""})  # fmt: skip
    return pd.DataFrame(rows, columns=PREDICTIVENESS)


def decide(usable, steady, rho, low, high, missed, false, decided) -> str:
    """The module doc's verdict, in its order: no verdict without a working attack and enough
    targets; a missed risk, then a false alarm; the rank correlation where the attack ranks the
    configurations reproducibly; agreement where some configuration beyond Real is decided."""
    if not usable:
        return CANNOT_TELL
    if missed:
        return MISSES
    if false:
        return FALSE_ALARM
    ranked = verdict(rho, low, high) if at_least(steady, RELIABLE) else CANNOT_TELL
    if ranked != CANNOT_TELL:
        return ranked
    return AGREES if decided else CANNOT_TELL


# the metrics' per-record ingredients kept by the membership game (FeatureMaker.ingredients): the
# stored quantity, how a target's exposure is read from it over the releases it is in, and the
# registered measures that aggregate it over records
INGREDIENTS = {
    "closest distance": ("distance", "minus the mean closest distance",
                         ("DCR", "MDCR", "NNDR", "NearestSynNeighborDistance", "IdentifiabilityScore",
                          "Authenticity", "NNAA", "HiddenRate")),
    "copy released": ("hit", "the share of releases with a copy", ("CommonRowsProportion", "HittingRate")),
    "equivalence class": ("class", "the mean of 1 / class size (0 without a match)",
                          ("CZeroCAP", "CGeneralizedCAP")),
}  # fmt: skip


def _exposure(name: str, values: np.ndarray) -> float:
    """A target's exposure by one ingredient over the releases it is in (larger: more exposed)."""
    if name == "distance":
        return -float(values.mean())
    if name == "class":
        return float(np.where(values > 0, 1 / np.maximum(values, 1), 0).mean())
    return float(values.mean())


def _auc_draws(
    scores: np.ndarray, truth: np.ndarray, draws: int, rng: np.random.Generator
) -> np.ndarray:
    """One game's AUC in ``draws`` bootstrap draws of its releases (NaN for a draw of one class),
    by :func:`~privmetrics.attacks.membership_game.rank_auc`."""
    pick = rng.integers(len(truth), size=(draws, len(truth)))
    return rank_auc(rankdata(scores[pick], axis=1), truth[pick])


PER_RECORD = ["dataset", "kind", "ingredient", "measures", "rho", "low", "high", "games",
              "attack works on Real", "attack reliability", "targets", "verdict"]  # fmt: skip


def per_record(
    games: pd.DataFrame, attacks: pd.DataFrame, draws: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Per (dataset, kind, ingredient): Spearman's rho between each target's exposure by the
    ingredient (:data:`INGREDIENTS`, over the releases that hold it) and the attack's AUC on that
    target, across every (target, configuration) game, with a bootstrap interval over games (each
    game's AUC from a bootstrap draw of its releases) and the module doc's verdict (given only
    where the attack is shown to work on Real and its per-game AUCs have a :func:`reliability` of
    at least 0.8)."""
    games = games[games.ingredients.notna()]
    rows = []
    for (dataset, kind), part in games.groupby(["dataset", "kind"], sort=False):
        truth = [np.array(json.loads(t)) for t in part.truth]
        auc = np.array([GameResult(0, kind, np.array(json.loads(sc)), t).auc
                        for sc, t in zip(part.scores, truth, strict=True)])  # fmt: skip
        stored = [json.loads(i) for i in part.ingredients]
        real = attacks[(attacks.dataset == dataset) & (attacks.kind == kind)
                       & (attacks.measure == "AUC") & (attacks.config == "Real")]  # fmt: skip
        works = bool(len(real)) and finds_members(real.iloc[0], 0.5)
        rng = np.random.default_rng(seed)
        noise = np.stack([_auc_draws(np.array(json.loads(sc)), t, draws, rng)
                          for sc, t in zip(part.scores, truth, strict=True)], axis=1)  # fmt: skip
        steady = reliability(noise)
        targets = part.target.nunique()
        informative = works and at_least(steady, RELIABLE) and targets >= MIN_TARGETS
        sample = rng.integers(len(part), size=(draws, len(part)))
        for ingredient, (key, _, measures) in INGREDIENTS.items():
            x = np.array(
                [
                    _exposure(key, np.array(g[key])[t == 1])
                    for g, t in zip(stored, truth, strict=True)
                ]
            )
            rho = float(_spearman_rows(x[None], auc[None])[0])
            boot = _spearman_rows(x[sample], np.take_along_axis(noise, sample, 1))
            low, high = (np.nanpercentile(boot, [2.5, 97.5]) if np.isfinite(boot).any()
                         else (np.nan, np.nan))  # fmt: skip
            rows.append({"dataset": dataset, "kind": kind, "ingredient": ingredient,
                         "measures": ", ".join(measures), "rho": rho, "low": float(low),
                         "high": float(high), "games": len(part), "attack works on Real": works,
                         "attack reliability": steady, "targets": targets,
                         "verdict": verdict(rho, low, high) if informative else CANNOT_TELL})  # fmt: skip
    return pd.DataFrame(rows, columns=PER_RECORD)
