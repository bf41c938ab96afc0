"""What we found, in sentences: the comparison's headline numbers computed from a results store.

The comparison chapter and the Discussion open with these sentences, so that a reader learns the
result before the tables: how many of the paper's 21 metrics land in the same class as the
paper's in Tables 7 and 8, how many metrics our selection keeps against the paper's seven, how
alike the clusterings are, and how many differences a measured change explains
(:func:`privmetrics.experiments.paper.published.causes`; the rest are called unexplained, not "the data").
Every number is computed here; the quick edition also states the shipped paper store's, so the
default book shows the paper-scale answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from privmetrics.experiments.grid.runner import load_results, missing_cells, results_path
from privmetrics.experiments.grid.store import ResultsStore
from privmetrics.experiments.grid.ways import edition
from privmetrics.experiments.paper import analysis
from privmetrics.experiments.paper import published as paper
from privmetrics.experiments.paper.agreement import AGREES, PARTLY, VERDICTS, Agreement, agreements
from privmetrics.experiments.profiles import Profile, get_profile
from privmetrics.metrics import select

PAPER_KEEPS = 7  # the paper's final selection, Table 12


@dataclass
class Comparison:
    """The comparison's headline for one profile's store."""

    profile: str
    datasets: list[str]
    complete: bool  # every cell of the profile's grid stored
    agree: dict[str, tuple[int, int]]  # table7 / table8 -> (same class, metrics)
    kept: list[str]  # our selection after round 2
    in_both: int  # of those, in the paper's seven too
    adjusted_rand: dict[str, float]  # table9 / table10 -> adjusted Rand index
    causes: pd.DataFrame  # paper.causes
    controlled: bool  # the store holds the Uniform control, so the Random baseline was tested

    def explained(self, table: str) -> tuple[int, int]:
        """(differences with a measured cause, differences) in ``table``."""
        rows = self.causes[self.causes.table == table]
        return int((rows.cause != paper.UNEXPLAINED).sum()), len(rows)

    def by_random_baseline(self) -> int:
        """Differences (Tables 7 and 8) that the Uniform control in Random's place explains."""
        return int(self.causes.cause.str.contains(paper.RANDOM_BASELINE, regex=False).sum())


def paper_summary(
    profile: Profile, datasets: list[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """(raw results, :func:`analysis.summarise` of the paper's 21 metrics in our edition) of
    ``profile``'s store for ``datasets`` (default: the profile's); None when it holds none."""
    store_path = results_path(profile)
    if not store_path.exists():
        return None
    raw = ResultsStore(store_path).results()
    raw = raw[raw.dataset.isin(datasets or profile.datasets)]
    if raw.empty:
        return None
    names = [m.name for m in select("paper")]
    ours = edition(raw, "ours")  # as load_results reads the store, without reading it again
    return raw, analysis.summarise(ours[ours.metric.isin(names)].reset_index(drop=True))


def compare(profile: Profile) -> Comparison | None:
    """The headline of ``profile``'s store (None when it holds no result)."""
    read = paper_summary(profile)
    if read is None:
        return None
    raw, summary = read
    names = [m.name for m in select("paper")]
    store = ResultsStore(results_path(profile))
    t7, t8 = analysis.table7(summary), analysis.table8(summary)
    agree = {}
    for table, ours in (("table7", t7), ("table8", t8)):
        found = paper.compare_classes(ours, table)
        agree[table] = (int(found.agree.sum()), len(found))
    clusters = {
        d: analysis.optics_clusters(summary, d) for d in profile.datasets if d in set(raw.dataset)
    }
    _, kept, _ = analysis.select_metrics(t7, t8, clusters)
    lists = paper.compare_lists(kept, "table12")
    rand = {}
    for table in ("table9", "table10"):
        dataset = paper.paper_tables()[table]["dataset"]
        if dataset in clusters:
            rand[table] = float(
                paper.compare_clusters(clusters[dataset], table)["adjusted rand index"]
            )
    return Comparison(
        profile=profile.name, datasets=sorted(set(raw.dataset)),
        complete=not missing_cells(profile, store),
        agree=agree, kept=kept, in_both=int((lists.paper & lists.ours).sum()),
        adjusted_rand=rand, causes=paper.causes(raw, names),
        controlled=paper.holds_uniform(raw),
    )  # fmt: skip


def sentences(found: Comparison, lead: str | None = None) -> str:
    """The headline of one store as a Markdown paragraph, opening with ``lead`` (default: the
    profile and its datasets)."""
    (a7, n7), (a8, n8) = found.agree["table7"], found.agree["table8"]
    where = f"profile `{found.profile}`: {', '.join(found.datasets)}"
    where += "" if found.complete else "; the store is incomplete"
    out = [
        f"{lead or 'In this edition'} ({where}), {a7} of the paper's {n7} metrics fall in the paper's class in "
        f"Table 7 (which metrics work) and {a8} of {n8} in Table 8 (which follow epsilon).",
        f"Our selection keeps {len(found.kept)} metrics where the paper keeps {PAPER_KEEPS}; "
        f"{found.in_both} of the paper's {PAPER_KEEPS} are among them.",
    ]
    if found.adjusted_rand:
        out.append(
            "The clusterings agree with the paper's to an adjusted Rand index of "
            + " and ".join(
                f"{v:.2f} ({t.replace('table', 'Table ')})" for t, v in found.adjusted_rand.items()
            )
            + ", where 0 is chance and 1 identical."
        )
    parts = []
    for table in ("table7", "table8"):
        explained, differences = found.explained(table)
        parts.append(
            f"{explained} of the {differences} differences in {table.replace('table', 'Table ')}"
        )
    changes = (
        "the paper's metric definitions, its PATE-GAN settings, the rule without an effect size"
    )
    changes += (
        ", or the Uniform control in place of our Random baseline" if found.controlled else ""
    )
    out.append(
        f"A measured change ({changes}) explains {' and '.join(parts)}; the others are "
        "unexplained: they may lie in the data, sample sizes or seeds, which these runs do not "
        "separate."
    )
    if found.controlled:
        n = found.by_random_baseline()
        out.append(
            f"Putting Uniform in Random's place gives the paper's class for {n} "
            f"difference{'' if n == 1 else 's'}: "
            + ("our Random baseline (Algorithm 22) is one cause." if n else
               "our Random baseline (Algorithm 22) does not explain the disagreement.")
        )  # fmt: skip
    else:
        out.append("Our Random baseline is not tested here: this store holds no Uniform control.")
    return " ".join(out)


def result_verdicts(profile: Profile, datasets: list[str] | None = None) -> dict[str, Agreement]:
    """Each paper result's verdict on ``profile``'s store
    (:func:`privmetrics.experiments.paper.agreement.agreements`), keyed as the reviewer's map
    (:data:`privmetrics.compendium.book.sources.RESULTS`) names them; empty without results."""
    read = paper_summary(profile, datasets)
    return {} if read is None else agreements(read[1])


def result_values(profile: Profile) -> dict[str, str]:
    """The reviewer's map's column for ``profile``'s store: each result's verdict line."""
    return {item: found.line() for item, found in result_verdicts(profile).items()}


def verdict_lines(profile: Profile, items: list[str], datasets: list[str] | None = None) -> str:
    """The block that opens an experiment chapter: for each of the paper's ``items`` (as
    :data:`~privmetrics.compendium.book.sources.RESULTS` names them), whether ``profile``'s store
    agrees, partly agrees or differs, with what was measured; the shipped paper store's beside
    it when ``profile`` states it (:attr:`Profile.beside_paper`)."""
    from privmetrics.compendium.book.sources import RESULTS

    what = {r.item: r.what for r in RESULTS}
    blocks = []
    for shown in _shown(profile):
        found = result_verdicts(shown, datasets)
        lead = (
            f"On the shipped paper store (profile `{shown.name}`)" if shown is not profile
            else f"On this edition's store (profile `{shown.name}`)"
        )  # fmt: skip
        lines = [
            f"- **{item}**, *{what.get(item, item)}*: **{found[item].verdict}**. "
            f"{found[item].measured[0].upper()}{found[item].measured[1:]} "
            f"(share {found[item].share:.2f})"
            for item in items if item in found
        ]  # fmt: skip
        blocks.append(f"{lead}:\n\n" + ("\n".join(lines) if lines else "- no result stored yet"))
    rule = (
        f"A result *agrees* when at least {AGREES:.0%} of what can be matched matches, *partly* from "
        f"{PARTLY:.0%}, and *differs* below (the measures: `privmetrics.experiments.paper.agreement`)."
    )
    return "\n\n".join(blocks + [rule])


def headline(profile: Profile) -> str:
    """The introduction's opening finding: how many of the paper's results each shown store
    (:func:`_shown`) agrees with, partly agrees with and differs from, naming them."""
    from privmetrics.compendium.book.sources import RESULTS

    items = [r.item for r in RESULTS if r.item != "Tables 7-12"]
    out = []
    for shown in _shown(profile):
        found = result_verdicts(shown)
        if not found:
            out.append(f"Profile `{shown.name}` has no results stored yet.")
            continue
        by = {v: [i for i in items if i in found and found[i].verdict == v] for v in VERDICTS}
        plural = {"agrees": "agree", "partly": "partly agree", "differs": "differ"}
        counted = " ".join(
            f"{len(by[v])} {v if len(by[v]) == 1 else plural[v]}"
            f"{' agrees' if v == 'partly' and len(by[v]) == 1 else ''}: {'; '.join(by[v])}."
            for v in VERDICTS if by[v]
        )  # fmt: skip
        where = "the shipped paper store" if shown is not profile else f"profile `{shown.name}`"
        out.append(
            f"Of the paper's {sum(len(n) for n in by.values())} results (Figures 5-14, Tables "
            f"7-12), on {where}: {counted}"
        )
    return " ".join(out)


def _shown(profile: Profile) -> list[Profile]:
    """The profile, and the paper profile beside it when ``profile.beside_paper``."""
    return [profile] + (
        [get_profile("paper")] if profile.name != "paper" and profile.beside_paper else []
    )


def what_we_found(profile: Profile) -> str:
    """The block that opens the comparison chapter and the Discussion: ``profile``'s headline,
    and the shipped paper store's beside it when ``profile`` is another one."""
    blocks = []
    for shown in _shown(profile):
        found = compare(shown)
        lead = "At the paper's scale, from the shipped store" if shown is not profile else None
        if found is None:
            blocks.append(f"Profile `{shown.name}` has no results stored yet.")
        else:
            blocks.append(sentences(found, lead))
    return "\n\n".join(blocks)


def attack_sentences(profile: Profile, attacks: pd.DataFrame, verdicts: pd.DataFrame,
                     lead: str | None = None) -> str:  # fmt: skip
    """Experiment 3's headline for one store: whether the membership attack catches Real, where
    beyond Real it finds members (or the strongest AUC it reaches, with why it does not count),
    and how the paper's 21 metrics fare against it, in counts. ``attacks`` is
    :func:`~privmetrics.experiments.games.game_analysis.attack_table`'s membership table and
    ``verdicts`` :func:`~privmetrics.experiments.games.game_analysis.predictiveness`'s."""
    from privmetrics.experiments.games.game_analysis import (
        MIN_EFFECT,
        MIN_TARGETS,
        RELIABLE,
        finds_members,
    )
    from privmetrics.experiments.games.game_findings import counted_verdicts, members_found

    auc = attacks[attacks.measure == "AUC"]
    if auc.empty:
        return (
            f"{lead or 'In this edition'} (profile `{profile.name}`), no attack game is stored yet."
        )
    groups = auc.groupby(["dataset", "kind"]).ngroups
    real = auc[auc.config == "Real"]
    caught = sum(finds_members(r, 0.5) for r in real.itertuples())
    others = auc[auc.config != "Real"]
    found = [r for _, part in others.groupby(["dataset", "kind"]) for r in members_found(part)]
    targets = int(auc["n targets"].min())
    out = [f"{lead or 'In this edition'} (profile `{profile.name}`: {targets} targets of each kind "
           f"per dataset), the membership attack catches Real in {caught} of {groups} "
           "(dataset, kind of target) pairs."]  # fmt: skip
    if found:
        out.append("Beyond Real it finds members in " + "; ".join(
            f"{r.dataset} {r.config}, {r.kind} targets (AUC {r.value:.2f} [{r.low:.2f}, {r.high:.2f}])"
            for r in found) + ".")  # fmt: skip
    elif len(others):
        top = others.loc[others.value.idxmax()]
        out.append(
            f"Beyond Real it finds members in no configuration; its strongest AUC elsewhere is "
            f"{top.value:.2f} [{top.low:.2f}, {top.high:.2f}] ({top.dataset} {top.config}, "
            f"{top.kind} targets, permutation p {'< 0.001' if top.p < 0.001 else f'{top.p:.3f}'}), "
            f"short of the {0.5 + MIN_EFFECT:.1f} "
            "an effect needs here."
        )
    paper21 = verdicts[verdicts.metric.isin([m.name for m in select("paper")])]
    if len(paper21):
        said = counted_verdicts(paper21.verdict, "; ")
        low, high = verdicts["attack reliability"].min(), verdicts["attack reliability"].max()
        out.append(
            f"Read against it, the paper's {paper21.metric.nunique()} metrics over "
            f"{paper21.groupby(['dataset', 'kind']).ngroups} (dataset, kind) pairs give "
            f"{len(paper21)} readings, of which {said}. The attack's reliability is {low:.2f} to {high:.2f}, against the "
            f"{RELIABLE} a rank verdict needs (with at least {MIN_TARGETS} targets); below it only "
            "missed risks and false alarms are read."
        )
    return " ".join(out)


def attack_headline(profile: Profile, attacks: pd.DataFrame, verdicts: pd.DataFrame) -> str:
    """The block that opens the attacks chapter: this edition's headline from its own tables and,
    when ``profile.beside_paper``, the shipped paper store's (its attack table and verdicts as
    the paper edition's build kept them: :func:`~privmetrics.experiments.games.kept_tables.
    kept_findings`)."""
    from privmetrics.experiments.games.calibration import calibrated_sentence
    from privmetrics.experiments.games.kept_tables import kept_findings

    blocks = [attack_sentences(profile, attacks, verdicts)]
    for shown in _shown(profile)[1:]:
        table, verdicts = kept_findings(shown)
        if table.empty:
            blocks.append("The paper store holds no attack game yet.")
            continue
        blocks.append(attack_sentences(shown, table, verdicts,
                                       lead="At the paper's scale, from the shipped store"))  # fmt: skip
    ladder = profile if profile.game_ladder_doses else _shown(profile)[-1]
    if ladder.game_ladder_doses:
        blocks.append(calibrated_sentence(ladder, kept_findings(ladder, calibrated=True)[1]))
    return "\n\n".join(blocks + size_sentences(profile, attacks))


def size_sentences(profile: Profile, attacks: pd.DataFrame | None = None) -> list[str]:
    """What the training-size ladder (the edition's, or the shipped paper store's beside it)
    reads where a leak fades and at the quick edition's and the paper store's training sizes;
    beside another edition's own ``attacks``, whether the ladder explains what that edition
    finds beyond Real (:func:`edition_difference`)."""
    from privmetrics.compendium.book.known_leaks import edition_difference
    from privmetrics.experiments.games.kept_tables import kept_size_table
    from privmetrics.experiments.games.sizes import editions, size_findings

    sized = profile if profile.game_sizes else _shown(profile)[-1]
    if not sized.game_sizes:
        return []
    table = kept_size_table(sized)
    lines = [line for line in size_findings(table, editions())
             if line.startswith(("At ", "The leak fades"))]  # fmt: skip
    if attacks is not None and sized is not profile:
        lines.append(edition_difference(profile, sized, attacks, table))
    return [line for line in lines if line]


def classes_beside_paper(profile: Profile, table: str, ours: pd.Series) -> str:
    """A caption for Table 7 or 8: how many of ``ours``'s metrics fall in each class on
    ``profile``'s store and, when ``profile.beside_paper``, on the shipped paper store (the same
    metrics), and how the paper classed its 21."""
    name = table.replace("table", "Table ")
    classify = analysis.table7 if table == "table7" else analysis.table8

    def counts(classes: pd.Series) -> str:
        found = classes.value_counts()
        return (
            ", ".join(f"{found.get(c, 0)} {c}" for c in analysis.CLASSES) + f" (of {len(classes)})"
        )

    parts = [f"**{name}.** Profile `{profile.name}`: {counts(ours)}"]
    for shown in _shown(profile)[1:]:
        if results_path(shown).exists():
            summary = analysis.summarise(load_results(shown))
            theirs = classify(summary).reindex(ours.index).dropna()
            parts.append(f"the shipped paper store: {counts(theirs)}")
    parts.append(f"the paper: {counts(paper.paper_classes(table))}")
    return "; ".join(parts) + "."
