"""The attacks chapter's sections on known leaks, as objects to ``display``: the attacks' power on
the leakage ladder (:mod:`privmetrics.experiments.games.ladder`), what the metrics read of it
(:mod:`privmetrics.experiments.games.sensitivity`) and Experiment 3's verdicts calibrated on it
(:mod:`privmetrics.experiments.games.calibration`), the training-size and epochs ladders
(:mod:`privmetrics.experiments.games.sizes`), and :func:`edition_difference`, what those ladders
say of a finding of one edition that the other lacks. Each comes from the edition's own ladder
or, beside another edition, from the shipped paper store's."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privmetrics.experiments.profiles import Profile, get_profile

LADDER_CAPTION = (
    "The leakage ladder on {name}: each attack's membership AUC against the share of training "
    "rows planted in a release of fresh rows, exactly (left) and jittered, with its 95% "
    "interval. Read: dashed, what an attack that sees every exact copy gets (1/2 + dose/2); "
    "dotted, chance; grey, the AUC of 0.6 the chapter's rule asks. A curve that stays at chance "
    "where the dashed line rises is an attack that cannot see that leak."
)


def ladder_section(chapter) -> list:
    """The attacks chapter's section on the leakage ladder, as the objects to ``display``: the
    generated findings (:func:`~privmetrics.experiments.games.ladder.power_findings`) of the edition's
    ladder or the shipped paper store's beside it (:meth:`~.chapter.Chapter.ladder_games`),
    then one captioned power-curve figure per dataset; a sentence when neither holds one."""
    import matplotlib.pyplot as plt
    from IPython.display import Markdown

    from privmetrics.compendium.book.plots import captioned
    from privmetrics.experiments.games.kept_tables import kept_power_curves
    from privmetrics.experiments.games.ladder import power_findings
    from privmetrics.experiments.paper.figures import power_curve

    games, profile = chapter.ladder_games()
    if games.empty:
        return [Markdown("This edition plays no leakage ladder, and no shipped store beside it "
                         "holds one.")]  # fmt: skip
    # the paper store's curves ship (kept_tables); the paper edition's build keeps them
    keep = profile.name == "paper" and profile is chapter.profile
    curves = kept_power_curves(games, chapter.ladder_games("release")[0], profile, keep)
    edition = "this edition's" if profile is chapter.profile else "the shipped paper store's"
    said = (f"From {edition} ladder ({profile.game_train_rows} training rows, "
            f"{profile.game_releases} evaluation releases, {profile.game_targets} targets of each "
            "kind):\n\n" + "\n".join(f"- {line}" for line in power_findings(curves)))  # fmt: skip
    shown = [Markdown(said)]
    for name in dict.fromkeys(curves.dataset):
        power_curve(curves, name)
        shown.append(captioned(plt.gcf(), LADDER_CAPTION.format(name=name),
                               f"line chart of each attack's AUC against the planted dose on {name}"))  # fmt: skip
    return shown


SENSITIVITY_CAPTION = (
    "Which measures see a known leak, from {edition} leakage ladder: per dataset, each measure's "
    "mean reading of fresh rows (dose 0; an asterisk: in the top third of its scale, a false "
    "alarm on fresh rows) and the smallest share of training rows copied exactly, or jittered, "
    "at which all {runs} runs read above every run of fresh rows. Read: '-', no dose detected up "
    "to {largest:.0%}; 'not monotone', the readings fall somewhere along the doses."
)


def sensitivity_section(chapter) -> list:
    """The attacks chapter's section on what the metrics read of the leakage ladder
    (:mod:`~privmetrics.experiments.games.sensitivity`): generated findings and the table, from
    the edition's ladder or the shipped paper store's beside it; a sentence when neither holds
    one."""
    from IPython.display import Markdown

    from privmetrics.compendium.book.plots import table
    from privmetrics.experiments.games.sensitivity import (
        RUNS,
        sensitivity,
        sensitivity_findings,
        sensitivity_table,
    )
    from privmetrics.metrics import select

    readings, profile = chapter.ladder_readings()
    if readings.empty:
        return [Markdown("No ladder has been read by the metrics in this edition or beside it.")]
    found = sensitivity(readings)
    edition = "this edition's" if profile is chapter.profile else "the shipped paper store's"
    lines = sensitivity_findings(found, [m.name for m in select("final")])
    said = (f"From {edition} ladder ({profile.game_train_rows} training rows, {RUNS} runs of "
            "each release):\n\n" + "\n".join(f"- {line}" for line in lines))  # fmt: skip
    caption = SENSITIVITY_CAPTION.format(edition=edition, runs=RUNS,
                                         largest=found["largest dose"].max())  # fmt: skip
    return [Markdown(said), table(sensitivity_table(found), caption)]


CALIBRATED_CAPTION = (
    "Experiment 3's verdicts calibrated on the leakage ladder, from {edition} (the shadow "
    "membership attack; {runs} releases of each configuration read at the games' scale). Read: "
    "a false alarm or an agreement names its configurations; 'cannot tell' says why: the attack "
    "detects no dose of exact copies by the chapter's rule, the metric detects none, or the "
    "metric reads every configuration below the smallest dose the attack detects."
)


def calibrated_section(chapter) -> list:
    """The section's objects to ``display``: the generated sentences and the table, from the
    edition's store when its games play a ladder (its build keeps them when it is the paper
    edition), else from the shipped paper store's kept verdicts; a sentence when neither has a
    complete calibration."""
    from IPython.display import Markdown

    from privmetrics.compendium.book.plots import table
    from privmetrics.experiments.games.calibration import (
        calibrated_sentences,
        calibrated_table,
        load_calibration,
        read_as_doses,
    )
    from privmetrics.experiments.games.kept_tables import kept_findings
    from privmetrics.experiments.games.scale_readings import RUNS

    profile = chapter.profile
    if not profile.game_ladder_doses and profile.beside_paper:
        profile = get_profile("paper")
    calibration = load_calibration(profile)
    if calibration is None:
        return [Markdown("No store of this edition, or shipped beside it, holds a complete "
                         "calibration (the ladder and the configurations read at the games' "
                         "scale): the verdicts above are uncalibrated.")]  # fmt: skip
    keep = profile.name == "paper" and profile is chapter.profile
    before = kept_findings(profile, keep)[1]
    after = kept_findings(profile, keep, calibrated=True)[1]
    edition = "this edition's store" if profile is chapter.profile else "the shipped paper store"
    lines = calibrated_sentences(before, after, calibration.detectable)
    lines += read_as_doses(calibration)
    said = f"From {edition}:\n\n" + "\n".join(f"- {line}" for line in lines)
    caption = CALIBRATED_CAPTION.format(edition=edition, runs=RUNS)
    return [Markdown(said), table(calibrated_table(after), caption)]


SIZES_CAPTION = (
    "The training-size ladder on {name}: the shadow attack's membership AUC against the size of "
    "the training table, at the paper's synthesiser settings, on the same targets at every size, "
    "with its 95% interval. Read: dotted, chance; grey, the AUC of 0.6 the chapter's rule asks."
)
EPOCHS_CAPTION = (
    "The epochs ladder on {name}: the shadow attack's membership AUC against CTGAN's training "
    "epochs (one optimiser step per epoch at these sizes and its batch of 500), one line per "
    "training size, on the same targets, with its 95% interval. Read: dotted, chance; grey, the "
    "AUC of 0.6 the chapter's rule asks."
)


def size_section(chapter) -> list:
    """The attacks chapter's section on the training-size ladder
    (:mod:`~privmetrics.experiments.games.sizes`): generated findings, with what the ladder reads
    at the quick edition's and the paper store's sizes, and one figure per dataset, from the
    edition's own ladder or the shipped paper store's; a sentence when neither holds one."""
    import matplotlib.pyplot as plt
    from IPython.display import Markdown

    from privmetrics.compendium.book.plots import captioned
    from privmetrics.experiments.games.kept_tables import kept_size_table
    from privmetrics.experiments.games.sizes import by_epochs, editions, size_findings
    from privmetrics.experiments.paper.figures import size_curve

    profile = chapter.profile
    if not profile.game_sizes and profile.beside_paper:
        profile = get_profile("paper")
    table = kept_size_table(profile, keep=profile.name == "paper" and profile is chapter.profile)
    table = table[table.dataset.isin(chapter.datasets)] if len(table) else table
    if table.empty:
        return [Markdown("No store of this edition, or shipped beside it, holds the games at "
                         "other training sizes.")]  # fmt: skip
    edition = "this edition's store" if profile is chapter.profile else "the shipped paper store"
    lines = size_findings(table, editions())
    shown = [Markdown(f"From {edition}:\n\n" + "\n".join(f"- {line}" for line in lines))]
    for name in dict.fromkeys(table.dataset):
        size_curve(table, name)
        shown.append(captioned(plt.gcf(), SIZES_CAPTION.format(name=name),
                               f"line chart of the membership AUC against training rows on {name}"))  # fmt: skip
    longer = by_epochs(table)
    for name in dict.fromkeys(longer.dataset if len(longer) else []):
        size_curve(table, name, by="epochs")
        shown.append(captioned(plt.gcf(), EPOCHS_CAPTION.format(name=name),
                               f"line chart of the membership AUC against CTGAN's epochs on {name}"))  # fmt: skip
    return shown


def edition_difference(profile: Profile, sized: Profile, attacks: pd.DataFrame,
                       table: pd.DataFrame) -> str:  # fmt: skip
    """Whether the ladders of ``sized`` explain what ``profile``'s own games find beyond Real on
    the ladders' datasets and configurations, one clause per finding, tried in this order:

    - *the training size's*: the size ladder (at ``sized``'s synthesiser settings) finds the
      same leak at ``profile``'s training size;
    - *the training's*: the epochs ladder (:mod:`~privmetrics.experiments.games.sizes`) finds it
      at that size with the technique trained for ``profile``'s epochs;
    - *within the readings' spread*: the two AUCs at that size differ by less than 1.96 standard
      errors of their difference (each error from its 95% interval, half-width / 1.96), so the
      editions read one effect, which only one of them lifts over the rule's line;
    - else *not explained*, with the other ways the two editions' games differ, read from the
      profiles.

    Empty where ``profile``'s games find nothing the ladders play."""
    from privmetrics.experiments.games.game_findings import members_found
    from privmetrics.experiments.games.sizes import by_epochs, by_size

    size = profile.game_train_rows
    ladder = by_size(table)
    ladder = ladder[ladder["size"] == size]
    epochs = by_epochs(table)
    epochs = epochs[epochs["size"] == size] if len(epochs) else epochs
    auc = attacks[(attacks.measure == "AUC") & attacks.dataset.isin(sized.game_size_datasets)]
    others = auc[auc.config != "Real"]
    found = [r for _, part in others.groupby(["dataset", "kind"]) for r in members_found(part)]
    found = [r for r in found if r.config in set(ladder.config)]
    if not found:
        return ""
    clauses, unexplained = [], []
    for r in found:
        what = f"{r.dataset} {r.config}, {r.kind} targets (AUC {r.value:.2f} [{r.low:.2f}, {r.high:.2f}])"
        key = (ladder.dataset == r.dataset) & (ladder.config == r.config) & (ladder.kind == r.kind)
        there = ladder[key].iloc[0]
        trained = profile.params_for(_configurations([r])[0].technique).get("epochs")
        again = (epochs[(epochs.dataset == r.dataset) & (epochs.kind == r.kind)
                        & (epochs.epochs == trained)
                        & epochs.config.str.startswith(r.config)] if len(epochs) else epochs)  # fmt: skip
        z = (r.value - there.value) / np.hypot((r.high - r.low) / 3.92,
                                               (there.high - there.low) / 3.92)  # fmt: skip
        if there.found:
            clauses.append(f"{what} is the training size's: the size ladder finds it at "
                           f"{size:,} rows too (AUC {there.value:.2f})")  # fmt: skip
        elif len(again) and again.found.iloc[0]:
            clauses.append(
                f"{what} is the training's: at {size:,} rows the `{sized.name}` games find it "
                f"with {r.config} trained for this edition's {trained:,} epochs (AUC "
                f"{again.value.iloc[0]:.2f} [{again.low.iloc[0]:.2f}, {again.high.iloc[0]:.2f}]), "
                f"not with the `{sized.name}` settings' (AUC {there.value:.2f})"
            )
        elif abs(z) < 1.96:
            clauses.append(
                f"{what} lies within the two readings' spread: the size ladder reads "
                f"{there.value:.2f} [{there.low:.2f}, {there.high:.2f}] at {size:,} rows "
                f"(difference {r.value - there.value:+.2f}, {abs(z):.1f} standard errors), one "
                f"effect that only this edition's reading lifts over the rule's line"
            )
        else:
            unexplained.append(r)
            clauses.append(f"{what} is not explained by the ladders: at {size:,} rows they read "
                           f"{there.value:.2f} [{there.low:.2f}, {there.high:.2f}] "
                           f"({abs(z):.1f} standard errors away)")  # fmt: skip
    text = f"The `{profile.name}` edition's findings at {size:,} rows, beside the ladders: " + (
        "; ".join(clauses) + "."
    )
    if unexplained:
        text += " " + _other_differences(profile, sized, unexplained)
    return text


def _other_differences(profile: Profile, sized: Profile, found: list) -> str:
    """The ways ``profile``'s games differ from ``sized``'s besides the training size, read from
    the profiles, for the techniques of ``found``."""
    from privmetrics.experiments.games.game_store import game_settings

    differ = [f"{what} {getattr(profile, field):,} against {getattr(sized, field):,}"
              for what, field in (("a population of", "game_population"),
                                  ("targets of each kind", "game_targets"))
              if getattr(profile, field) != getattr(sized, field)]  # fmt: skip
    for technique in sorted({c.technique for c in _configurations(found)}):
        mine, theirs = game_settings(profile, technique), game_settings(sized, technique)
        if mine["releases"] != theirs["releases"]:
            differ.append(f"{technique}'s evaluation releases {mine['releases']:,} against "
                          f"{theirs['releases']:,}")  # fmt: skip
        mine, theirs = profile.params_for(technique), sized.params_for(technique)
        if mine != theirs:
            differ.append(f"{technique} with {mine} against {theirs}")
    return ("The two editions' games also differ in "
            + ("; ".join(differ) if differ else "nothing else the profiles record") + ".")  # fmt: skip


def _configurations(rows) -> list:
    """The configurations named by the ``config`` labels of ``rows``."""
    from privmetrics.experiments.grid.configurations import paper_configurations

    labels = {c.label: c for c in paper_configurations()}
    return [labels[r.config] for r in rows if r.config in labels]
