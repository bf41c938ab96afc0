"""The glossary against the code (issue 31): one definition per term, and every fact a definition
states about the metrics or the grid is what the registry and the grid say."""

import re
import warnings

import pytest

from privmetrics.compendium.book.examples import five_row_example
from privmetrics.experiments.grid.configurations import EPSILONS
from privmetrics.geometry.pair import Pair
from privmetrics.metrics import REGISTRY
from privmetrics.metrics.registry import Category
from privmetrics.paths import checkout_root


def glossary() -> dict[str, str]:
    text = (checkout_root() / "book" / "glossary.md").read_text()
    block = text.split("```{glossary}")[1].split("```")[0]
    terms: dict[str, list[str]] = {}
    term = None
    for line in block.splitlines():
        if line and not line.startswith(" "):
            term = line.strip()
            assert term not in terms, f"{term} is defined twice"
            terms[term] = []
        elif line.strip():
            terms[term].append(line.strip())
    return {t: " ".join(lines) for t, lines in terms.items()}


def named_metrics(definition: str) -> set[str]:
    """Registry names and titles a definition mentions ("the Hidden Rate" is HiddenRate)."""
    found = set()
    for name, spec in REGISTRY.items():
        spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
        if re.search(
            rf"\b({re.escape(name)}|{re.escape(spaced)}|{re.escape(spec.title)})\b", definition
        ):
            found.add(name)
    return found


def test_one_definition_per_term_in_one_place():
    terms = glossary()
    assert len(terms) >= 20
    pages = [
        *checkout_root().joinpath("book").glob("*.md"),
        *checkout_root().joinpath("notebooks").glob("*.ipynb"),
    ]
    elsewhere = [p.name for p in pages if "{glossary}" in p.read_text() and p.name != "glossary.md"]
    assert elsewhere == []


@pytest.mark.parametrize(
    "term, category",
    [("Reconstruction attack", Category.RECONSTRUCTION),
     ("Re-identification attack", Category.REIDENTIFICATION),
     ("Tracing attack", Category.TRACING)],
)  # fmt: skip
def test_the_metrics_each_attack_names_are_in_its_category(term, category):
    named = named_metrics(glossary()[term])
    assert named, term
    assert {n for n in named if REGISTRY[n].category != category} == set()


def test_the_famd_metrics_are_those_that_search_in_famd():
    real, candidates, schema = five_row_example()
    in_famd = set()
    for name, spec in REGISTRY.items():
        pair = Pair(real, candidates["Noisy"], schema)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spec(pair)
        if any(space == "famd" for _, _, space in pair._knn):
            in_famd.add(name)
    assert named_metrics(glossary()["FAMD"]) == in_famd


def test_the_epsilons_are_the_grids():
    stated = re.search(r"\\in \\\{([^}]*)\\\}", glossary()["Epsilon"]).group(1)
    assert [float(x) for x in stated.split(",")] == list(EPSILONS)


# technical terms a chapter may use only when the glossary defines them (issue 45, item 4)
TERMS_USED = {
    "AUC": r"\bAUC\b",
    "Shadow model": r"\bshadow\b",
    "Permutation test": r"\bpermutation test",
    "Adjusted Rand index": r"\badjusted Rand",
    "Bootstrap": r"\bbootstrap",
    "Attack reliability": r"\breliability\b",
    "Metric verdict": r"\b(raises a false alarm|misses a risk|does not track it)",
}


def test_the_metric_verdicts_are_defined_in_the_analysis_words():
    """The glossary's Experiment 3 labels are the analysis's own (a renamed label fails here)."""
    from privmetrics.experiments.games import game_analysis as A

    text = glossary()["Metric verdict"]
    labels = (A.TRACKS, A.DOES_NOT, A.CANNOT_TELL, A.MISSES, A.FALSE_ALARM, A.AGREES)
    assert [label for label in labels if f"*{label}*" not in text] == []


def chapter_texts() -> dict[str, str]:
    import json

    root = checkout_root()
    texts = {
        p.name: p.read_text() for p in root.joinpath("book").glob("*.md") if p.name != "glossary.md"
    }
    for nb in root.joinpath("notebooks").glob("*.ipynb"):
        cells = json.loads(nb.read_text())["cells"]
        texts[nb.name] = "\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
        )
    return texts


@pytest.mark.parametrize("term", sorted(TERMS_USED))
def test_a_term_the_chapters_use_is_defined(term):
    users = [
        name for name, text in chapter_texts().items() if re.search(TERMS_USED[term], text, re.I)
    ]
    assert users, f"no chapter uses {term!r}: drop it from TERMS_USED"
    assert term in glossary(), f"{term} is used in {users} but the glossary does not define it"
