"""What we found (issue 45, item 1): the headline sentences state the numbers the analysis gives,
for this edition's store and the shipped paper store, and say so when a store is empty."""

import re

from privmetrics.compendium.findings import compare, sentences, what_we_found
from privmetrics.experiments import analysis, paper
from privmetrics.experiments.profiles import get_profile
from privmetrics.experiments.runner import load_results


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


def test_the_quick_edition_shows_the_paper_stores_numbers_too(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIVMETRICS_RESULTS", str(tmp_path))  # neither store is there
    text = what_we_found(get_profile("quick"))
    assert text.count("has no results stored yet") == 2
    assert "`quick`" in text and "`paper`" in text
    assert compare(get_profile("quick")) is None
