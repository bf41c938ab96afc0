"""The PrivEval cross-reference file is checked against the registry, so the chapter cannot drift."""

import pytest
import yaml

from privmetrics.compendium.book.crossref import CROSSREF, crossref_table, load_crossref
from privmetrics.metrics import select


def test_crossref_covers_the_papers_metrics_with_valid_options():
    entries = load_crossref()
    assert sorted(entries) == sorted(m.name for m in select("paper"))
    table = crossref_table()
    assert (table.PrivEval != "-").sum() == 17  # PrivEval defines 17 of the 21
    assert set(table.index[table.PrivEval == "-"]) == {
        "ChiSquaredTest", "InvKullbackLieb", "JensenShannonDist", "KSTest",
    }  # fmt: skip
    # every shared metric either offers PrivEval's definition or says why not
    shared = [n for n, e in entries.items() if e["priveval"]]
    assert all(entries[n].get("option") or entries[n].get("why") for n in shared)


def test_crossref_rejects_a_file_that_drifted(tmp_path):
    entries = yaml.safe_load(CROSSREF.read_text())
    broken = dict(entries)
    broken["DCR"] = {**entries["DCR"], "option": {"base": 2}}
    path = tmp_path / "priveval.yml"
    path.write_text(yaml.safe_dump(broken))
    with pytest.raises(ValueError, match=r"DCR has no parameter\(s\) \['base'\]"):
        load_crossref(path)
    del broken["DCR"]
    path.write_text(yaml.safe_dump(broken))
    with pytest.raises(ValueError, match=r"missing \['DCR'\]"):
        load_crossref(path)
