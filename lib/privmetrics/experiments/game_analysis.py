"""Experiment 3's analysis: how well the attacks succeed, and whether each metric predicts them.

The games are played and stored by :mod:`.games` (one row per game: the forest's score and the
truth per evaluation release, or whether each attribute guess was right).

:func:`attack_table` pools each (dataset, configuration, kind)'s games into the attack's success
(membership: AUC, advantage, TPR at FPR 0.1; attribute inference: accuracy, the baseline's
accuracy and the advantage; each with a bootstrap interval over targets and releases).
:func:`predictiveness` then asks, per dataset, target kind and measure, whether the measure ranks
the configurations as the attack does: Spearman's rho between the measure's mean score and the
attack's AUC across configurations, with a bootstrap interval that resamples the configurations
and, in each draw, takes each configuration's attack value from a bootstrap draw of its own games
(so that an attack whose values are mostly noise gives a wide interval, not a confident "does not
track"), and a verdict:

* **tracks the attack**: rho >= 0.8 (up to rounding, :func:`~.analysis.at_least`) and the
  interval's lower end above 0;
* **does not track it**: rho <= 0.3 and the interval's upper end below 0.8;
* **cannot tell at this scale**: anything else, including a constant measure or attack, and every
  measure where the attack itself is not shown to work: its interval on Real (the release that is
  its training table, the worst case) must lie wholly above chance (an AUC of 0.5, an advantage of
  0), its value be at least :data:`MIN_EFFECT` above it and, for membership, its permutation test
  (labels shuffled within each target's releases) give p <= 0.05. A rank correlation with an
  attack that measures noise decides nothing; and so every measure where the attack does not rank
  the configurations reproducibly (its :func:`reliability`, how two bootstrap draws of its values
  agree in rank, must be at least 0.8, the bar a measure must clear to track it), and every
  measure when the kind has fewer than :data:`MIN_TARGETS` targets. (Random is no safe
  floor here: Algorithm 22 draws each column from the training table's own observed values and
  category set, so a target with a value of its own shows up in the release; a test shows it.)
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from privmetrics.attacks.attribute_game import AttributeResult, summarise_attribute
from privmetrics.attacks.membership_game import GameResult, rank_auc, summarise
from privmetrics.experiments.analysis import at_least

TRACKS, DOES_NOT, CANNOT_TELL = (
    "tracks the attack",
    "does not track it",
    "cannot tell at this scale",
)


# how far above chance an attack must be, besides its interval lying wholly above chance, to count
# as working (an AUC of 0.6, an advantage of 0.1): a tight interval around 0.51 finds nothing
MIN_EFFECT = 0.1


# the fewest targets of a kind for a verdict: every interval here resamples targets, and a
# bootstrap over fewer than about ten values cannot bound anything (two targets give three
# distinct draws)
MIN_TARGETS = 10


def _above_chance(row, chance: float, alpha: float = 0.05) -> bool:
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
    games: pd.DataFrame, draws: int = 500, seed: int = 0, game: str = "membership"
) -> pd.DataFrame:
    """Per (dataset, config, kind, measure): the pooled value with its 95% interval (membership:
    AUC, advantage, TPR at FPR 0.1; attribute: accuracy, baseline accuracy, advantage) and the
    bootstrap values behind it (``draws``, which :func:`predictiveness` carries into rho)."""
    columns = [
        "dataset",
        "config",
        "kind",
        "measure",
        "value",
        "low",
        "high",
        "n targets",
        "draws",
        "p",
    ]
    if games.empty:
        return pd.DataFrame(columns=columns)
    frames = []
    for (dataset, config), part in games.groupby(["dataset", "config"], sort=False):
        if game == "membership":
            table = summarise(_results(part), draws=draws, seed=seed)
        else:
            table = summarise_attribute(_attribute_results(part), draws=draws, seed=seed)
        frames.append(
            table.rename(columns={"targets": "kind"}).assign(dataset=dataset, config=config)
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


def predictiveness(
    attacks: pd.DataFrame,
    results: pd.DataFrame,
    measure: str = "AUC",
    draws: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per (dataset, kind, metric): rho between the metric's mean score and the attack's
    ``measure`` across configurations, its bootstrap interval (module doc), whether the
    attack is shown to work on Real, and the verdict (module doc). ``results`` is the grid's tidy results (dataset, config, metric, score)."""
    means = results.groupby(["dataset", "config", "metric"]).score.mean().unstack("metric")
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
        works = "Real" in bounds.index and _above_chance(bounds.loc["Real"], chance)
        targets = int(bounds["n targets"].min())
        informative = works and at_least(steady, 0.8) and targets >= MIN_TARGETS
        noise = stacked[np.arange(draws) % len(stacked)]
        scores = means.loc[dataset].reindex(attack.index)
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
            rows.append({"dataset": dataset, "kind": kind, "metric": metric, "rho": rho,
                         "low": float(low), "high": float(high), "configurations": len(x),
                         "attack works on Real": works, "attack reliability": steady, "targets": targets,
                         "verdict": verdict(rho, low, high) if informative else CANNOT_TELL})  # fmt: skip
    return pd.DataFrame(rows)


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
        works = bool(len(real)) and _above_chance(real.iloc[0], 0.5)
        rng = np.random.default_rng(seed)
        noise = np.stack([_auc_draws(np.array(json.loads(sc)), t, draws, rng)
                          for sc, t in zip(part.scores, truth, strict=True)], axis=1)  # fmt: skip
        steady = reliability(noise)
        targets = part.target.nunique()
        informative = works and at_least(steady, 0.8) and targets >= MIN_TARGETS
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
    return pd.DataFrame(rows)


def findings(table: pd.DataFrame, final: list[str], named: tuple[str, ...] = ("ALC", "DCR")) -> str:
    """The chapter's generated sentences: per dataset and target kind, how many measures track
    the attack and which, the verdicts on the paper's ``final`` seven, and the ``named`` ones."""
    lines = []
    for (dataset, kind), part in table.groupby(["dataset", "kind"], sort=False):
        counts = part.verdict.value_counts()
        tracking = sorted(part.metric[part.verdict == TRACKS])
        mine = part[part.metric.isin(final)].verdict.value_counts()
        if not part["attack works on Real"].any():
            lines.append(
                f"- **{dataset}, {kind} targets**: the attack is not shown to work even on Real "
                "(its interval there reaches chance), so no measure can be said to track it or "
                "not at this scale."
            )
            continue
        steady, targets = float(part["attack reliability"].iloc[0]), int(part.targets.iloc[0])
        if targets < MIN_TARGETS:
            lines.append(
                f"- **{dataset}, {kind} targets**: the attack catches Real, but {targets} target(s) "
                f"of this kind are too few for a verdict (at least {MIN_TARGETS}: every interval "
                "here resamples the targets), so no measure can be said to track it or not at "
                "this scale."
            )
            continue
        if not at_least(steady, 0.8):
            lines.append(
                f"- **{dataset}, {kind} targets**: the attack catches Real, but it does not rank "
                f"the configurations reproducibly (reliability {steady:.2f}, below 0.8: two "
                "bootstrap draws of its games disagree on the order), so no measure can be said "
                "to track it or not at this scale."
            )
            continue
        line = (
            f"- **{dataset}, {kind} targets** ({int(part.configurations.max())} configurations, "
            f"attack reliability {steady:.2f}): "
            f"{counts.get(TRACKS, 0)} of {len(part)} measures track the attack"
            + (f" ({', '.join(tracking)})" if tracking else "")
            + f", {counts.get(DOES_NOT, 0)} do not, {counts.get(CANNOT_TELL, 0)} cannot tell at "
            f"this scale. Of the paper's final seven: {mine.get(TRACKS, 0)} track it, "
            f"{mine.get(DOES_NOT, 0)} do not, {mine.get(CANNOT_TELL, 0)} cannot tell."
        )
        for name in named:
            row = part[part.metric == name]
            if len(row):
                r = row.iloc[0]
                line += f" {name}: {r.verdict} (rho {r.rho:.2f}, 95% interval {r.low:.2f} to {r.high:.2f})."
        lines.append(line)
    return "\n".join(lines) + "\n"


def found_members(attacks: pd.DataFrame, results: pd.DataFrame, final: list[str]) -> str:
    """Generated sentences: per dataset and target kind, the configurations other than Real in
    which the membership attack finds members (its AUC above chance by the module doc's rule, the
    permutation test's level divided by the number of configurations scanned),
    each beside the mean score the ``final`` metrics give it (Real scores 1, a release that
    carries nothing of its rows 0): where the two disagree, the metrics miss a risk."""
    auc = attacks[attacks.measure == "AUC"]
    chosen = results[results.metric.isin(final)]
    lines = []
    for (dataset, kind), part in auc.groupby(["dataset", "kind"], sort=False):
        scores = chosen[chosen.dataset == dataset].groupby("config").score.mean()
        others = part[part.config != "Real"]
        # Bonferroni over the configurations scanned: one in twenty would pass by chance at 0.05
        found = [
            r for _, r in others.iterrows() if _above_chance(r, 0.5, 0.05 / max(len(others), 1))
        ]
        if not found:
            lines.append(f"- **{dataset}, {kind} targets**: beyond Real, the attack finds members "
                         "in no configuration.")  # fmt: skip
            continue
        said = [f"{r.config} (AUC {r.value:.2f} [{r.low:.2f}, {r.high:.2f}]; the final metrics' "
                f"mean score {scores.get(r.config, np.nan):.2f})" for r in found]  # fmt: skip
        lines.append(f"- **{dataset}, {kind} targets**: beyond Real, the attack finds members in "
                     f"{'; '.join(said)}. Real's mean score: {scores.get('Real', np.nan):.2f}.")  # fmt: skip
    return "\n".join(lines) + "\n" if lines else "No membership games to read.\n"


def reread(table: pd.DataFrame, selections: dict[str, list[str]]) -> pd.DataFrame:
    """The selection chapter re-read with the attack: one row per metric of any of ``selections``
    (name -> metrics), the selections it belongs to, and its verdict per (dataset, kind) of
    ``table`` (:func:`predictiveness`)."""
    names = list(dict.fromkeys(m for chosen in selections.values() for m in chosen))
    verdicts = table[table.metric.isin(names)].pivot_table(
        index="metric", columns=["dataset", "kind"], values="verdict", aggfunc="first", sort=False
    )
    verdicts = verdicts.reindex(names)
    verdicts.columns = [f"{dataset}, {kind} targets" for dataset, kind in verdicts.columns]
    verdicts.insert(
        0,
        "selected by",
        [", ".join(s for s, chosen in selections.items() if m in chosen) for m in names],
    )
    return verdicts.fillna("not measured")


def no_loss_check(results: pd.DataFrame, attacks: pd.DataFrame, metric: str = "ALC",
                  config: str = "CTGAN") -> str:  # fmt: skip
    """Is ``metric``'s reading of ``config`` borne out by the membership attack? One generated
    sentence per dataset: the metric's mean score there (0 = no loss, as Real scores 1) beside
    the attack's AUC on that configuration, per kind of target, and what follows."""
    lines = []
    auc = attacks[(attacks.measure == "AUC") & (attacks.config == config)]
    for dataset, part in auc.groupby("dataset", sort=False):
        scores = results[
            (results.dataset == dataset) & (results.config == config) & (results.metric == metric)
        ]
        if scores.empty:
            continue
        score = float(scores.score.mean())
        found = [
            f"{r.kind} targets {r.value:.2f} [{r.low:.2f}, {r.high:.2f}]" for r in part.itertuples()
        ]
        above = [r.kind for _, r in part.iterrows() if _above_chance(r, 0.5)]
        low = score < 0.5  # nearer to "no loss" (0) than to Real (1)
        if above and low:
            reading = (f"the attack finds members ({', '.join(above)} targets, interval above "
                       f"chance) where {metric} reads nearer to no loss than to Real: {metric} "
                       "understates this risk")  # fmt: skip
        elif above:
            reading = f"both see a risk ({', '.join(above)} targets above chance)"
        elif low:
            reading = "the attack finds no member beyond chance either: the two agree at this scale"
        else:
            reading = f"{metric} reads more risk than the attack measures at this scale"
        lines.append(
            f"- **{dataset}**: {metric} scores {config} {score:.3f} (Real: 1); membership "
            f"AUC on {config}: {'; '.join(found)}: {reading}."
        )
    return (
        "\n".join(lines) + "\n" if lines else f"No {config} games or {metric} scores to compare.\n"
    )
