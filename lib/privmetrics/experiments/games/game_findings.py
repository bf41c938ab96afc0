"""Experiment 3 in words: the chapter's generated sentences from the attacks' success and the
verdicts of :mod:`.game_analysis` (how many measures miss a risk, raise a false alarm, track or
agree with the attack; where the attack finds members beyond Real; the selections re-read; the
ALC's "no loss" set beside the attack)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privmetrics.experiments.games.game_analysis import (
    AGREES,
    CANNOT_TELL,
    DOES_NOT,
    FALSE_ALARM,
    MIN_TARGETS,
    MISSES,
    TRACKS,
    finds_members,
)

VERDICTS = (MISSES, FALSE_ALARM, TRACKS, DOES_NOT, AGREES, CANNOT_TELL)


# each verdict as the verb of a plural subject ("12 measures miss a risk")
PLURAL = {
    MISSES: "miss a risk",
    FALSE_ALARM: "raise a false alarm",
    TRACKS: "track the attack",
    DOES_NOT: "do not track it",
    AGREES: "agree with the attack",
    CANNOT_TELL: "cannot tell at this scale",
}


def counted(n: int, verdict: str) -> str:
    """``n`` and the verdict as a sentence's predicate: "1 misses a risk", "24 miss a risk"."""
    return f"{n} {verdict if n == 1 else PLURAL[verdict]}"


def counted_verdicts(verdicts: pd.Series, sep: str = ", ") -> str:
    """The verdicts' counts as predicates, in :data:`VERDICTS` order: "12 miss a risk, 1 agrees
    with the attack"."""
    counts = verdicts.value_counts()
    return sep.join(counted(int(counts[v]), v) for v in VERDICTS if counts.get(v))


def findings(
    table: pd.DataFrame, final: list[str], named: tuple[str, ...] = ("ALC", "DCR"),
    kinds: str = "targets", units: str = "targets",
) -> str:  # fmt: skip
    """The chapter's generated sentences: one for the (dataset, kind)s no measure can be judged
    on, and why; per other (dataset, kind), the verdict counts of every measure and of the
    paper's ``final`` seven, the configurations where those miss a risk or raise a false alarm,
    and the ``named`` measures' verdicts. ``kinds`` names what a kind is and ``units`` what the
    attack's intervals resample (for the whole-release attack: "scoring" and "releases")."""
    lines, undecided = [], []
    for (dataset, kind), part in table.groupby(["dataset", "kind"], sort=False):
        targets = int(part.targets.iloc[0])
        if not part["attack works on Real"].any():
            undecided.append(f"{dataset}, {kind} {kinds} (the attack does not catch Real)")
            continue
        if targets < MIN_TARGETS:
            undecided.append(
                f"{dataset}, {kind} {kinds} ({targets} {units}, fewer than {MIN_TARGETS})"
            )
            continue
        steady = float(part["attack reliability"].iloc[0])
        mine = part[part.metric.isin(final)]
        spread = ""
        if "above chance" in part.columns:
            spread = (f"; the attack separates {int(part['above chance'].iloc[0])} of them from "
                      f"chance and shows {int(part['at chance'].iloc[0])} at chance")  # fmt: skip
        line = (
            f"- **{dataset}, {kind} {kinds}** ({targets} {units}, {int(part.configurations.max())} "
            f"configurations{spread}; attack reliability {steady:.2f}): of {len(part)} measures, "
            f"{counted_verdicts(part.verdict)}; of the paper's final seven, {counted_verdicts(mine.verdict)}."
        )
        for column, what in (
            ("missed risks", "miss the risk in"),
            ("false alarms", "raise a false alarm on"),
        ):
            said = [f"{r.metric} ({r[column]})" for _, r in mine.iterrows() if r[column]]
            if said:
                line += (
                    f" Among the seven, these {what} the configurations named: {'; '.join(said)}."
                )
        for name in named:
            row = part[part.metric == name]
            if len(row):
                r = row.iloc[0]
                line += f" {name}: {r.verdict} (rho {r.rho:.2f}, 95% interval {r.low:.2f} to {r.high:.2f})."
        lines.append(line)
    if undecided:
        lines.append(f"- No measure can be judged on {'; '.join(undecided)}: an attack that does not "
                     "work on the release that is its training table, or an interval over too few "
                     f"{units}, decides nothing.")  # fmt: skip
    return "\n".join(lines) + "\n"


def members_found(others: pd.DataFrame) -> list:
    """The rows of ``others`` (one (dataset, kind)'s AUC rows for the configurations other than
    Real) in which the attack finds members: above chance by the module doc's rule, the
    permutation test's level divided by the number of configurations scanned (Bonferroni: one in
    twenty would pass by chance at 0.05)."""
    alpha = 0.05 / max(len(others), 1)
    return [r for _, r in others.iterrows() if finds_members(r, 0.5, alpha)]


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
        found = members_found(part[part.config != "Real"])
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
        above = [r.kind for _, r in part.iterrows() if finds_members(r, 0.5)]
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


def side_by_side(attacks: pd.DataFrame, release: pd.DataFrame) -> pd.DataFrame:
    """Per configuration and dataset, each attack's AUC with its interval: the shadow attack on
    each kind of target and the whole-release attack by each scoring, in one table."""
    shadow = attacks[attacks.measure == "AUC"].assign(
        attack=lambda t: "shadow, " + t.kind + " targets"
    )
    whole = release.assign(attack=lambda t: "whole release, " + t.kind)
    both = pd.concat([shadow, whole], ignore_index=True)
    both["AUC"] = (both.value.map("{:.2f}".format) + " [" + both.low.map("{:.2f}".format) + ", "
                   + both.high.map("{:.2f}".format) + "]")  # fmt: skip
    return both.pivot_table(index="config", columns=["dataset", "attack"], values="AUC",
                            aggfunc="first", sort=False)  # fmt: skip


def verdict_lines(verdicts: pd.DataFrame) -> dict[str, str]:
    """Per metric, one line of its Experiment 3 verdicts: per dataset, each kind of target's
    verdict with the configurations behind a missed risk or a false alarm."""
    lines = {}
    for metric, rows in verdicts.groupby("metric", sort=False):
        parts = []
        for dataset, part in rows.groupby("dataset", sort=False):
            said = []
            for row in part.to_dict("records"):
                behind = {MISSES: row["missed risks"], FALSE_ALARM: row["false alarms"]}
                behind = behind.get(row["verdict"], "")
                said.append(f"{row['kind']} targets *{row['verdict']}*"
                            + (f" (on {behind})" if behind else ""))  # fmt: skip
            parts.append(f"{dataset}: " + "; ".join(said))
        lines[metric] = ". ".join(parts)
    return lines
