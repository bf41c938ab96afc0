"""Every erratum id cited in the library exists, and every erratum names where it is resolved."""

import re
from pathlib import Path

import yaml

from privmetrics.metrics import REGISTRY
from privmetrics.paths import resource

ROOT = Path(__file__).resolve().parents[2]
ERRATA = yaml.safe_load(resource("paper", "errata.yml").read_text())
CITED = re.compile(r"\b(?:HS|PE)-\d+\b")
MODULES = {"data.datasets", "metrics", "experiments.profiles", "experiments.analysis"}


def test_every_cited_erratum_exists():
    cited = {m for p in (ROOT / "lib").rglob("*.py") for m in CITED.findall(p.read_text())}
    assert cited, "the library cites no erratum id"
    assert cited <= set(ERRATA), sorted(cited - set(ERRATA))


def test_every_erratum_is_complete_and_placed():
    for key, entry in ERRATA.items():
        assert CITED.fullmatch(key), key
        assert {"where", "paper", "ours", "why"} <= set(entry), key
        for place in (w.strip() for w in entry["where"].split(",")):
            assert place in REGISTRY or place in MODULES, (key, place)


def test_no_path_to_the_teams_papers_in_the_library():
    for p in (ROOT / "lib").rglob("*.py"):
        assert "shared/papers" not in p.read_text(), p
        assert "spec errat" not in p.read_text(), p
