"""The book's hand-written pages state no measured number or verdict: those are generated from the
results in the notebooks. A number in hand-written prose may only name a table, figure,
algorithm, section, experiment, selection round or epsilon."""

import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[3] / "book"
NAMING = re.compile(
    r"(Tables?|Figures?|Algorithms?|Sections?|Experiments?|Rounds?|epsilon|and|Eqs?\.)\s*$",
    re.IGNORECASE,
)
NUMBER = re.compile(r"(?<![\w.`-])\d+(?:[.,]\d+)*(?![\w`])")


def typed_numbers(text: str) -> list[str]:
    """Numbers in prose (outside code spans and blocks) not preceded by a naming word."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    found = []
    for match in NUMBER.finditer(text):
        before = text[max(0, match.start() - 30) : match.start()]
        if not NAMING.search(before):
            found.append(text[max(0, match.start() - 40) : match.end() + 10].replace("\n", " "))
    return found


def test_the_check_finds_a_typed_number():
    assert typed_numbers("Random lands at 0.96 on JensenShannonDist.")
    assert not typed_numbers("As Tables 7 and 8 show, Algorithm 22 at epsilon 10 (Section 6.4).")


@pytest.mark.parametrize("page", ["discussion.md"])
def test_hand_written_pages_type_no_results(page):
    assert typed_numbers((BOOK / page).read_text()) == []


DURATION = re.compile(
    r"(?<![\w.])\d+(?:[.,]\d+)?\s*(?:s|sec|seconds?|min|minutes?|h|hours?)\b(?!-)", re.IGNORECASE
)


def typed_durations(text: str) -> list[str]:
    """Durations in prose (code blocks, where captured output lives, are left out)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    return [m.group(0) for m in DURATION.finditer(text)]


def test_the_duration_check_finds_a_typed_time():
    assert typed_durations("the whole run took about 1.5 min (grid 56 s)") == ["1.5 min", "56 s"]
    assert typed_durations("epsilon 10, 25,000 rows, 3 runs") == []


@pytest.mark.parametrize("page", ["README.md", *sorted(p.name for p in BOOK.glob("*.md"))], ids=str)
def test_no_page_types_a_duration(page):
    path = BOOK.parent / page if page == "README.md" else BOOK / page
    assert typed_durations(path.read_text()) == []


MEASURED = re.compile(r"(?<![\w.])(?:\d+\.\d{2,}|\d+(?:\.\d+)?\s?%|±)")


def typed_measurements(text: str) -> list[str]:
    """Values that look measured (two or more decimals, a percentage, a ±) in prose; parameters
    such as epsilon 0.2 have one decimal, and code spans and blocks are left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\b(Python|SDV|version)\s+\d+(\.\d+)+", "", text)  # versions, not values
    return [text[max(0, m.start() - 30) : m.end() + 10] for m in MEASURED.finditer(text)]


def test_the_measurement_check_finds_a_typed_result():
    assert len(typed_measurements("falls from 0.304 to 0.249, 50% agree, 0.454 ± 0.003")) == 6
    assert typed_measurements("Python 3.11 and SDV 1.38.5") == []
    assert typed_measurements("at epsilon 0.2, 1, 2 and 10 (`0.125` in code)") == []


@pytest.mark.parametrize("page", ["README.md", *sorted(p.name for p in BOOK.glob("*.md"))], ids=str)
def test_no_page_types_a_measured_value(page):
    path = BOOK.parent / page if page == "README.md" else BOOK / page
    assert typed_measurements(path.read_text()) == []


@pytest.mark.fast
def test_the_book_build_skips_every_environment_the_makefile_creates():
    """`make test` creates .venv-anonymeter, whose packages ship Markdown files: a later
    `make reproduce` read them as book pages and failed under --warningiserror."""
    import yaml

    root = Path(__file__).resolve().parents[3]
    made = set(re.findall(r"^\w+\s*:=\s*(\.venv[\w-]*)\s*$", (root / "Makefile").read_text(), re.M))
    excluded = set(yaml.safe_load((root / "_config.yml").read_text())["exclude_patterns"])
    assert {".venv", ".venv-anonymeter"} <= made
    assert made <= excluded, made - excluded


def test_the_pages_checked_above_are_the_books():
    """The parametrised checks read ``BOOK``: a wrong path would leave them only the README."""
    assert (BOOK / "intro.md").exists() and len(list(BOOK.glob("*.md"))) >= 5


README_LINES = 200  # what a newcomer reads first; the rest lives in the book's pages


def test_the_readme_is_a_first_read_and_the_book_holds_the_rest():
    readme = (BOOK.parent / "README.md").read_text()
    assert len(readme.splitlines()) <= README_LINES
    for section in ("## The two commands", "## Where things are", "## Audit your own"):
        assert section in readme
    # what left the README is in the book: the cluster recipes, the benchmarks, the library's API
    reproduce, library = (BOOK / "reproduce.md").read_text(), (BOOK / "library.md").read_text()
    assert "SLURMCluster" in reproduce and "make bench-scale" in reproduce
    assert "make_synthesiser" in library and "--missing indicator" in library
    toc = (BOOK.parent / "_toc.yml").read_text()
    assert "book/library" in toc and "book/reproduce" in toc
