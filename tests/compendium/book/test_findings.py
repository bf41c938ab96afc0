"""What we found (issue 45, item 1): the headline sentences state the numbers the analysis gives,
for this edition's store and the shipped paper store, and say so when a store is empty."""

import re

import numpy as np
import pandas as pd
import pytest

from privmetrics.compendium.book.findings import compare, sentences, what_we_found
from privmetrics.experiments.grid.runner import load_results
from privmetrics.experiments.paper import analysis
from privmetrics.experiments.paper import published as paper
from privmetrics.experiments.profiles import get_profile
from privmetrics.metrics import select


def test_the_paper_stores_sentences_state_the_analysis_numbers():
    profile = get_profile("paper")
    found = compare(profile)
    summary = analysis.summarise(load_results(profile, metrics="paper"))
    same7 = int(paper.compare_classes(analysis.table7(summary), "table7").agree.sum())
    text = sentences(found)
    assert f"{same7} of the paper's 21 metrics fall in the paper's class in Table 7" in text
    kept = int(re.search(r"Our selection keeps (\d+) metrics", text).group(1))
    assert kept == len(found.kept) and 0 < kept <= 21
    for table in ("table7", "table8"):
        explained, differences = found.explained(table)
        assert differences == found.agree[table][1] - found.agree[table][0]
        assert f"{explained} of the {differences} differences in Table {table[-1]}" in text


def test_the_reviewers_map_values_are_the_comparisons_verdicts(tmp_path, monkeypatch):
    from privmetrics.compendium.book.findings import result_values
    from privmetrics.compendium.book.sources import RESULTS

    found = compare(get_profile("paper"))
    values = result_values(get_profile("paper"))
    same, of = found.agree["table8"]
    assert values["Table 8"].endswith(
        f"{same} of {of} metrics in the paper's class (share {same / of:.2f})"
    )
    assert f"Table 12: {len(found.kept)} kept" in values["Tables 11, 12"]
    # issue 63: every paper result of the map has a verdict on the paper store
    assert sorted(values) == sorted(r.item for r in RESULTS)
    assert all(v.split(":")[0] in ("agrees", "partly", "differs") for v in values.values())
    monkeypatch.setenv("PRIVMETRICS_RESULTS", str(tmp_path))  # no store there
    assert result_values(get_profile("paper")) == {}


def test_a_chapters_verdict_lines_name_each_result_for_both_stores():
    from privmetrics.compendium.book.findings import verdict_lines

    text = verdict_lines(get_profile("quick"), ["Figure 5", "Table 7"])
    assert "On the shipped paper store (profile `paper`)" in text
    paper_part = text.split("On the shipped paper store")[1]
    assert re.search(
        r"- \*\*Figure 5\*\*, \*Experiment 1.1 on Texas[^*]*\*: \*\*(agrees|partly|differs)\*\*\. M",
        paper_part,
    )
    assert "**Table 7**" in paper_part and "metrics in the paper's class" in paper_part
    assert "*agrees* when at least 80%" in text


def test_the_quick_edition_shows_the_paper_stores_numbers_too(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIVMETRICS_RESULTS", str(tmp_path))  # neither store is there
    text = what_we_found(get_profile("quick"))
    assert text.count("has no results stored yet") == 2
    assert "`quick`" in text and "`paper`" in text
    assert compare(get_profile("quick")) is None


def attack_rows(rows):
    import pandas as pd

    columns = ["dataset", "config", "kind", "value", "low", "high", "p"]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.assign(measure="AUC", **{"n targets": 20})


def test_the_attack_headline_counts_what_the_tables_hold():
    import pandas as pd

    from privmetrics.compendium.book.findings import attack_sentences

    attacks = attack_rows([
        ("texas", "Real", "random", 1.0, 1.0, 1.0, 0.0001),
        ("texas", "Random", "random", 0.52, 0.45, 0.6, 0.3),
        ("texas", "CTGAN", "random", 0.75, 0.66, 0.83, 0.0001),   # finds members
        ("flchain", "Real", "random", 0.55, 0.48, 0.62, 0.1),     # does not catch Real
        ("flchain", "TVAE", "random", 0.5, 0.4, 0.6, 0.5),
    ])  # fmt: skip
    verdicts = pd.DataFrame({
        "metric": ["DCR", "MDCR", "ALC"], "dataset": "texas", "kind": "random",
        "verdict": ["agrees with the attack", "raises a false alarm", "agrees with the attack"],
        "attack reliability": [0.5, 0.5, 0.5],
    })  # fmt: skip
    text = attack_sentences(get_profile("paper"), attacks, verdicts)
    assert "catches Real in 1 of 2 (dataset, kind of target) pairs" in text
    assert "finds members in texas CTGAN, random targets (AUC 0.75 [0.66, 0.83])" in text
    # ALC is not one of the paper's 21: only DCR and MDCR are counted
    assert "the paper's 2 metrics over 1 (dataset, kind) pairs" in text
    assert "give 2 readings, of which 1 raises a false alarm; 1 agrees with the attack." in text


def test_without_a_finding_the_headline_names_the_strongest_auc_and_why_it_does_not_count():
    import pandas as pd

    from privmetrics.compendium.book.findings import attack_sentences

    attacks = attack_rows([
        ("texas", "Real", "vulnerable", 1.0, 1.0, 1.0, 0.0001),
        ("texas", "Random", "vulnerable", 0.59, 0.54, 0.66, 0.0001),  # above chance, too small
    ])  # fmt: skip
    text = attack_sentences(get_profile("paper"), attacks, pd.DataFrame(columns=["metric"]))
    assert "finds members in no configuration" in text
    assert "0.59 [0.54, 0.66] (texas Random, vulnerable targets, permutation p < 0.001)" in text


def test_a_table_caption_counts_the_classes_beside_the_papers():
    import pandas as pd

    from privmetrics.compendium.book.findings import classes_beside_paper
    from privmetrics.experiments.paper.analysis import CLASSES

    adequate, sometimes, inadequate = CLASSES
    ours = pd.Series({"DCR": adequate, "MDCR": adequate, "NNAA": inadequate})
    paper_counts = paper.paper_classes("table7").value_counts()
    text = classes_beside_paper(get_profile("smoke"), "table7", ours)  # smoke: no paper store
    assert text == (
        f"**Table 7.** Profile `smoke`: 2 {adequate}, 0 {sometimes}, 1 {inadequate} (of 3); "
        f"the paper: {paper_counts[adequate]} {adequate}, {paper_counts[sometimes]} {sometimes}, "
        f"{paper_counts[inadequate]} {inadequate} (of 21)."
    )
    beside = classes_beside_paper(get_profile("quick"), "table7", ours)
    assert "the shipped paper store: " in beside and beside.count("(of 3)") == 2


def test_the_random_baseline_sentence_counts_the_uniform_controls_causes():
    from dataclasses import replace

    found = compare(get_profile("paper"))
    assert found.controlled  # the shipped store holds the Uniform control
    n = int(found.causes.cause.str.contains(paper.RANDOM_BASELINE, regex=False).sum())
    text = sentences(found)
    assert f"Putting Uniform in Random's place gives the paper's class for {n} difference" in text
    untested = sentences(replace(found, controlled=False))
    assert "not tested here: this store holds no Uniform control" in untested
    assert "Putting Uniform" not in untested


@pytest.mark.slow
def test_the_ladder_section_reads_the_shipped_paper_store_beside_the_quick_edition():
    """The attacks chapter's ladder section: the quick edition plays no ladder and shows the
    shipped paper store's, its findings generated and one captioned figure per dataset; an
    edition without the paper beside it says it has none."""
    from privmetrics.compendium.book.chapter import Chapter
    from privmetrics.compendium.book.known_leaks import ladder_section

    shown = ladder_section(Chapter(get_profile("quick"), ["texas"]))
    assert len(shown) == 2
    said = shown[0].data
    assert said.startswith("From the shipped paper store's ladder (500 training rows")
    assert "**texas**, whole release (distance): finds members among exact copies" in said
    assert "The leakage ladder on texas" in shown[1].data
    alone = ladder_section(Chapter(get_profile("smoke"), ["texas"]))
    assert len(alone) == 1 and "plays no leakage ladder" in alone[0].data


PAPER21 = [m.name for m in select("paper")]


def test_the_calibrated_verdicts_section_reads_the_shipped_paper_store_beside_the_quick_edition():
    """The quick edition shows the paper store's calibrated verdicts: per dataset, the counts
    before and after calibration (generated from the kept verdicts, which agree with them) and
    a table of every metric; an edition without the paper beside it says it has none."""
    from privmetrics.compendium.book.chapter import Chapter
    from privmetrics.compendium.book.known_leaks import calibrated_section
    from privmetrics.experiments.games.game_findings import counted_verdicts
    from privmetrics.experiments.games.kept_tables import kept_calibrated

    shown = calibrated_section(Chapter(get_profile("quick"), ["texas"]))
    said = shown[0].data
    assert said.startswith("From the shipped paper store:")
    after = kept_calibrated(get_profile("paper"))
    texas = after[(after.dataset == "texas") & after.metric.isin(PAPER21)]
    assert f"On texas, of the paper's metrics' {len(texas)} verdicts" in said
    assert f"calibrated {counted_verdicts(texas.verdict)}." in said
    assert "verdicts calibrated on the leakage ladder" in shown[1].caption
    assert set(PAPER21) <= set(shown[1].table.index) and len(shown[1].table.columns) == 6
    alone = calibrated_section(Chapter(get_profile("smoke"), ["texas"]))
    assert len(alone) == 1 and "uncalibrated" in alone[0].data


def test_the_size_section_reads_the_shipped_paper_store_beside_the_quick_edition(monkeypatch):
    """The quick edition shows the paper store's training-size ladder, kept in
    results/sizes-paper.json (read, not computed: its permutation tests cost a CPU-minute), with
    what it reads at each edition's size; an edition without the paper beside it has none."""
    from privmetrics.compendium.book.chapter import Chapter
    from privmetrics.compendium.book.known_leaks import size_section
    from privmetrics.experiments.games import kept_tables, sizes

    def computed(*args, **kwargs):
        raise AssertionError("the kept size table was computed again: make reproduce PROFILE=paper")

    monkeypatch.setattr(sizes, "size_table", computed)
    paper = get_profile("paper")
    table = kept_tables.kept_size_table(paper)
    assert set(table["size"]) == set(paper.game_sizes)
    shown = size_section(Chapter(get_profile("quick"), ["texas"]))
    said = shown[0].data
    assert said.startswith("From the shipped paper store:")
    assert f"At {get_profile('quick').game_train_rows} rows, the size of the quick edition" in said
    assert "The training-size ladder on texas" in shown[1].data
    # the epochs ladder: a sentence per kind of target at each of its sizes, and its figure
    for size in paper.game_epochs:
        assert f"CTGAN by its training epochs on {size:,} rows, vulnerable targets" in said
    # the chapter's datasets only: texas's size figure, then its epochs ladder's
    assert len(shown) == 3 and "The epochs ladder on texas" in shown[2].data
    assert "flchain" not in said and "randhie" not in said
    everywhere = size_section(Chapter(get_profile("quick"), list(paper.game_size_datasets)))
    for name in paper.game_size_datasets:
        assert sum(f"The training-size ladder on {name}" in s.data for s in everywhere[1:]) == 1
    alone = size_section(Chapter(get_profile("smoke"), ["texas"]))
    assert len(alone) == 1 and "other training sizes" in alone[0].data


def test_the_introductions_headline_counts_the_verdicts_of_every_result():
    from privmetrics.compendium.book.findings import headline, result_verdicts

    profile = get_profile("paper")
    text = headline(profile)
    found = result_verdicts(profile)
    counts = {
        v: sum(a.verdict == v for k, a in found.items() if k != "Tables 7-12")
        for v in ("agrees", "partly", "differs")
    }
    assert f"Of the paper's {sum(counts.values())} results" in text and sum(counts.values()) == 12
    for verdict, n in counts.items():
        if n:
            assert re.search(rf"\b{n} (partly )?{verdict[:5]}", text), (verdict, n, text)
    assert "Tables 7-12" not in text.split("(Figures 5-14, Tables 7-12)")[1]


def test_an_editions_finding_is_set_against_the_ladders():
    """The quick edition's games find a leak beyond Real at its size: the paper store's size
    ladder explains it where it finds the same leak at that size, the epochs ladder where it
    finds it with the quick edition's epochs, the spread where the two AUCs lie within 1.96
    standard errors; else the sentence names how the editions' games differ."""
    from privmetrics.compendium.book.known_leaks import edition_difference

    quick, paper = get_profile("quick"), get_profile("paper")
    rows = [("CTGAN", 0.70, 0.62, 0.78, 1e-4), ("Random", 0.5, 0.45, 0.55, 0.5),
            ("PrivBayes ε=1", 0.5, 0.45, 0.55, 0.5)]  # fmt: skip
    attacks = pd.DataFrame([{"dataset": "texas", "config": c, "kind": "vulnerable",
                             "measure": "AUC", "value": v, "low": lo, "high": hi, "p": p}
                            for c, v, lo, hi, p in rows])  # fmt: skip

    def read(config="CTGAN", value=0.5, low=0.45, high=0.55, p=0.5, ladder="size", epochs=300.0):
        return {"dataset": "texas", "config": config, "kind": "vulnerable", "size": 200,
                "value": value, "low": low, "high": high, "p": p, "found": False,
                "ladder": ladder, "epochs": epochs}  # fmt: skip

    ladder = pd.DataFrame([read(), read("Random", epochs=np.nan)])
    # 0.70 [0.62, 0.78] against 0.50 [0.45, 0.55]: 0.20 / hypot(0.16, 0.10) x 3.92 = 4.2 errors
    said = edition_difference(quick, paper, attacks, ladder)
    assert said.startswith("The `quick` edition's findings at 200 rows, beside the ladders: "
                           "texas CTGAN, vulnerable targets (AUC 0.70 [0.62, 0.78]) is not "
                           "explained by the ladders: at 200 rows they read 0.50 [0.45, 0.55] "
                           "(4.2 standard errors away).")  # fmt: skip
    assert "a population of 1,000 against 2,000" in said and "ctgan with" in said
    assert "ctgan's evaluation releases 10 against 20" in said  # the neural fits' cap
    # 0.08 / hypot(0.16, 0.20) x 3.92 = 1.2 errors: one effect, read on both sides of the line
    near = pd.DataFrame([read(value=0.62, low=0.52, high=0.72), read("Random", epochs=np.nan)])
    said = edition_difference(quick, paper, attacks, near)
    assert "lies within the two readings' spread: the size ladder reads 0.62 [0.52, 0.72] at " \
           "200 rows (difference +0.08, 1.2 standard errors)" in said  # fmt: skip
    assert "differ in" not in said
    # the epochs ladder finds it at the quick edition's 10 epochs (p 1e-4 <= 0.05 / 2 counts)
    longer = pd.concat([ladder, pd.DataFrame([read("CTGAN (10 epochs)", 0.68, 0.6, 0.76, 1e-4,
                                                   "epochs", 10.0)])])  # fmt: skip
    said = edition_difference(quick, paper, attacks, longer)
    assert ("is the training's: at 200 rows the `paper` games find it with CTGAN trained for "
            "this edition's 10 epochs (AUC 0.68 [0.60, 0.76]), not with the `paper` settings' "
            "(AUC 0.50).") in said  # fmt: skip
    ladder.loc[ladder.config == "CTGAN", "found"] = True
    assert edition_difference(quick, paper, attacks, ladder).endswith(
        "is the training size's: the size ladder finds it at 200 rows too (AUC 0.50)."
    )
    nothing = attacks.assign(low=0.45, p=0.5)
    assert edition_difference(quick, paper, nothing, ladder) == ""
