"""What we found, in sentences: the comparison's headline numbers computed from a results store.

The comparison chapter and the Discussion open with these sentences, so that a reader learns the
result before the tables: how many of the paper's 21 metrics land in the same class as the
paper's in Tables 7 and 8, how many metrics our selection keeps against the paper's seven, how
alike the clusterings are, and how many differences a measured change explains
(:func:`privmetrics.experiments.paper.causes`; the rest are called unexplained, not "the data").
Every number is computed here; the quick edition also states the shipped paper store's, so the
default book shows the paper-scale answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from privmetrics.experiments import analysis, paper
from privmetrics.experiments.profiles import Profile, get_profile
from privmetrics.experiments.runner import load_results, missing_cells, results_path
from privmetrics.experiments.store import ResultsStore
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

    def explained(self, table: str) -> tuple[int, int]:
        """(differences with a measured cause, differences) in ``table``."""
        rows = self.causes[self.causes.table == table]
        return int((rows.cause != paper.UNEXPLAINED).sum()), len(rows)


def compare(profile: Profile) -> Comparison | None:
    """The headline of ``profile``'s store (None when it holds no result)."""
    store_path = results_path(profile)
    if not store_path.exists():
        return None
    raw = ResultsStore(store_path).results()
    raw = raw[raw.dataset.isin(profile.datasets)]
    if raw.empty:
        return None
    names = [m.name for m in select("paper")]
    summary = analysis.summarise(load_results(profile, metrics="paper"))
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
        complete=not missing_cells(profile, ResultsStore(store_path)),
        agree=agree, kept=kept, in_both=int((lists.paper & lists.ours).sum()),
        adjusted_rand=rand, causes=paper.causes(raw, names),
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
    out.append(
        "A measured change (the paper's metric definitions, its PATE-GAN settings, or the rule "
        f"without an effect size) explains {' and '.join(parts)}; the others are unexplained: "
        "they may lie in the data, sample sizes or seeds, which these runs do not separate."
    )
    return " ".join(out)


def what_we_found(profile: Profile) -> str:
    """The block that opens the comparison chapter and the Discussion: ``profile``'s headline,
    and the shipped paper store's beside it when ``profile`` is another one."""
    blocks = []
    for shown in [profile] + ([get_profile("paper")] if profile.name != "paper" else []):
        found = compare(shown)
        lead = "At the paper's scale, from the shipped store" if shown is not profile else None
        if found is None:
            blocks.append(f"Profile `{shown.name}` has no results stored yet.")
        else:
            blocks.append(sentences(found, lead))
    return "\n\n".join(blocks)
