"""The book works offline (issue 17): every page of the built book, opened in headless Chromium
with networking cut, typesets its formulas and requests no external URL."""

from pathlib import Path

import pytest

from privmetrics.compendium.book.bookcheck import (
    INSTALL_HINT,
    book_pages,
    check_book,
    check_page,
    find_browser,
    one_of_each_kind,
    text_problems,
)
from privmetrics.compendium.book.reproduce import build_book, stage_unexecuted
from privmetrics.experiments.profiles import get_profile

pytestmark = pytest.mark.slow  # builds the book twice and opens pages in a browser


@pytest.fixture(scope="module")
def browser():
    found = find_browser()
    if found is None:  # not a skip: `make test` installs it, so a missing browser is a setup fault
        pytest.fail(f"no browser for the offline-book test: {INSTALL_HINT}")
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The book built from the unexecuted notebooks (no outputs), once for this module."""
    return build_book(stage_unexecuted(tmp_path_factory.mktemp("book") / "book"))


def test_the_book_renders_math_and_stays_offline(built, browser):
    """Every page of the book's own folders and a few of each generated folder (pages from one
    template) in the browser; ``make reproduce`` opens every page. Every page's text is read."""
    index = built
    every = book_pages(index.parent)
    chosen = one_of_each_kind(every)
    assert len(every) >= 40 and 20 <= len(chosen) < len(every), (len(every), len(chosen))
    assert [(p.name, text_problems(p.read_text())) for p in every
            if text_problems(p.read_text())] == []  # fmt: skip
    checks = check_book(index.parent, browser, pages=chosen)
    assert [c.problem() for c in checks if not c.ok] == []
    with_math = [c for c in checks if c.has_math]
    assert with_math, "no page with formulas: the test would not see MathJax fail"
    assert all(c.typeset > 0 for c in with_math)
    assert (index.parent / "_static" / "mathjax" / "tex-chtml.js").exists()


def test_the_check_sees_an_external_script_and_untypeset_math(tmp_path, browser):
    page = Path(tmp_path / "page.html")
    page.write_text(
        "<html><head><script src='https://cdn.example.org/mathjax.js'></script></head>"
        "<body><span class='math notranslate nohighlight'>\\(x^2\\)</span>"
        "<img src='http://images.example.org/a.png'></body></html>"
    )
    check = check_page(page, browser)
    assert not check.ok
    assert check.has_math and check.typeset == 0
    assert set(check.external) == {
        "https://cdn.example.org/mathjax.js",
        "http://images.example.org/a.png",
    }
    assert "formulas not typeset" in check.problem()


def test_the_check_sees_raw_markup_outside_code_and_nan_cells():
    from privmetrics.compendium.book.bookcheck import text_problems

    page = (
        "<p>see :func:`measurably_above` and ``threshold``</p>"
        "<table><tr><td>NaN</td><td>0.5</td></tr></table>"
        "<pre>:func:`listed` ``fine`` NaN</pre><p><code>:class:`in code`</code></p>"
    )
    assert text_problems(page) == [
        "raw role :func:`", "doubled backticks", "1 table cell(s) reading ['NaN']",
    ]  # fmt: skip
    clean = "<p>see measurably_above</p><table><tr><td>-</td></tr></table><pre>NaN ``x``</pre>"
    assert text_problems(clean) == []


def test_the_student_edition_keeps_the_exercises_and_drops_every_solution(built, tmp_path):
    """Issue 31: solutions behind toggles labelled "Solution" in the full edition; the student
    edition (``reproduce --edition student``) has the exercises and no solution code or output."""
    from privmetrics.compendium.book.reproduce import STUDENT_NOTE, stage_student

    full = (built.parent / "book" / "generated" / "exp11.html").read_text()
    solution = "tag_solution"  # the class of every solution cell's container
    assert "Exercise 1." in full and solution in full and ">Solution<" in full
    generated = built.parent.parent.parent / "book" / "generated"
    student = build_book(stage_student(tmp_path / "student", generated)).parent
    pages = {p.name: p.read_text() for p in (student / "book" / "generated").glob("*.html")}
    assert "Exercise 1." in pages["exp11.html"] and STUDENT_NOTE[1:40] in pages["exp11.html"]
    assert [name for name, text in pages.items() if ">Solution<" in text or solution in text] == []
    # issue 45: no sentence of the student edition speaks of solutions or tutors
    every_page = {p.relative_to(student).as_posix(): p.read_text() for p in student.rglob("*.html")}
    said = {
        name: mentions_of(r"\b(solutions?|tutors?)\b", text) for name, text in every_page.items()
    }
    assert {name: found for name, found in said.items() if found} == {}
    full_teaching = visible_text((built.parent / "book" / "teaching.html").read_text())
    assert "tutor" in full_teaching  # the full edition keeps the passage the student one drops
    # issue 63: the teaching page links to where make book-student puts the student edition
    import re

    page = built.parent / "book" / "teaching.html"
    (href,) = re.findall(r'href="([^"]*student/html/index\.html)"', page.read_text())
    assert (page.parent / href).resolve() == (built.parent.parent / "student" / "html" /
                                              "index.html").resolve()  # fmt: skip


def visible_text(html: str) -> str:
    """A page's words as a reader sees them: no scripts, styles or markup."""
    import re

    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S | re.I)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def mentions_of(pattern: str, html: str) -> list[str]:
    import re

    text = visible_text(html)
    return [text[max(0, m.start() - 40) : m.end() + 40] for m in re.finditer(pattern, text, re.I)]


def test_study_time_is_computed_from_the_chapter_by_hand():
    import nbformat

    from privmetrics.compendium.book.sessions import add_study_time

    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_markdown_cell(" ".join(["word"] * 398)),
        nbformat.v4.new_markdown_cell("**Exercise 1.** do"),
    ])  # fmt: skip
    add_study_time(notebook)
    add_study_time(notebook)  # tagging again replaces, never adds
    # 2 + 398 + 3 = 403 words: 2.0 min of reading + 10 per exercise = 12, rounded up to 15
    assert [c.source for c in notebook.cells][1] == (
        "*Study time: about 15 minutes (403 words to read, 1 exercise)*"
    )
    assert len(notebook.cells) == 4


def test_every_chapter_states_objectives_and_its_study_time(built):
    from privmetrics.compendium.book.reproduce import NOTEBOOKS

    generated = built.parent / "book" / "generated"
    for name in NOTEBOOKS:
        page = (generated / f"{name}.html").read_text()
        assert "In this chapter you will learn to" in page, name
        assert "Study time: about" in page, name
    teaching = (built.parent / "book" / "teaching.html").read_text()
    assert "A path in three sessions" in teaching and "book-student" in teaching


def test_the_reviewers_map_lists_every_paper_result_with_a_command_that_names_its_notebook(
    built, tmp_path
):
    import json

    from privmetrics.compendium.book.sources import RESULTS, reviewer_map

    items = {r.item for r in RESULTS}
    for wanted in ("Figure 5", "Figure 6", "Table 7", "Table 8", "Table 9", "Table 10",
                   "Tables 11, 12", "Figure 11", "Figure 12", "Figures 13, 14"):  # fmt: skip
        assert wanted in items
    report = tmp_path / "timings-paper.json"
    report.write_text(json.dumps({"steps": [
        {"step": "notebook exp11", "wall_seconds": 12.4, "finished": True}]}))  # fmt: skip
    table = reviewer_map(get_profile("paper"), report)
    assert "-p profile paper -p dataset texas" in table and "| 12 s |" in table
    assert "not timed here" in table  # exp12 has no step in this report
    valued = reviewer_map(get_profile("paper"), report, values={"Table 7": "7 of 21 agree"})
    assert "| 7 of 21 agree | 12 s |" in valued and "| a figure |" in valued
    both = reviewer_map(get_profile("paper"), report, values={"Table 7": "agrees"},
                        beside=("quick", {"Table 7": "differs"}))  # fmt: skip
    assert "| on the `paper` store | on the `quick` store |" in both
    assert "| agrees | differs | 12 s |" in both
    page = (built.parent / "book" / "sources.html").read_text()
    assert "Where each result comes from" in page and "Figure 5" in page


def test_a_printed_rerun_leaves_nothing_for_git_to_track():
    """Issue 45: the papermill commands wrote out.ipynb into the checkout, untracked."""
    import subprocess

    from privmetrics.compendium.book.sources import RESULTS, command
    from privmetrics.paths import checkout_root

    outputs = {command(r).split(" papermill ")[1].split()[1] for r in RESULTS}
    ignored = subprocess.run(["git", "check-ignore", *sorted(outputs)], cwd=checkout_root(),
                             capture_output=True, text=True).stdout.split()  # fmt: skip
    assert sorted(ignored) == sorted(outputs)
    assert subprocess.run(["git", "check-ignore", "out.ipynb"], cwd=checkout_root()).returncode == 1


def test_the_check_sees_a_raw_markdown_table_and_a_full_precision_float():
    from privmetrics.compendium.book.bookcheck import text_problems

    raw = "<p>| metric | type |\n|\u2014|\u2014|\n| DCR | distance |</p><p>log_base=2.718281828459045</p>"
    assert text_problems(raw) == [
        "a Markdown table left as raw text", "floats at full precision ['2.718281828459045']",
    ]  # fmt: skip
    rendered = (
        "<table><tr><th>metric</th></tr><tr><td>DCR</td></tr></table><p>log_base=e, 0.304</p>"
    )
    assert text_problems(rendered) == []


def test_the_catalogue_is_an_html_table_with_a_link_per_metric():
    """A notebook's Markdown output is read as CommonMark, which has no tables (a Markdown table
    there stays a paragraph of pipes), and MyST would read the metric pages' links as
    cross-references: the catalogue is shown as HTML."""
    from privmetrics.compendium.book.bookcheck import text_problems
    from privmetrics.compendium.book.metric_pages import catalogue_html
    from privmetrics.metrics import REGISTRY

    shown = catalogue_html()
    assert shown.count("<tr>") == len(REGISTRY) + 1
    assert 'href="metric/01-AttributeInference.html"' in shown and text_problems(shown) == []


def test_the_check_sees_a_figure_wider_than_the_column():
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from privmetrics.compendium.book.bookcheck import text_problems

    def page(width_inches):
        fig = plt.figure(figsize=(width_inches, 2), dpi=100)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=100)
        plt.close(fig)
        return f'<img src="data:image/png;base64,{base64.b64encode(buffer.getvalue()).decode()}">'

    assert text_problems(page(13)) == ["1 figure(s) wider than 1000 px: [1300]"]
    assert text_problems(page(7.8)) == []


def test_the_check_measures_what_overflows_the_column_at_1280_px(tmp_path, browser):
    """Issue 63, item 6: a table or code block wider than the text column fails the check, a
    captioned table in a scroll box of its own does not, and a toggle is opened first."""
    wide = "<td>" + "x" * 400 + "</td>"
    page = tmp_path / "page.html"
    page.write_text(
        "<html><body><main style='width:800px'><table><tr><td>fits</td></tr></table>"
        f"<table id='out'><tr>{wide}</tr></table>"
        f"<div style='overflow-x:auto'><table><tr>{wide}</tr></table></div>"
        f"<div style='overflow-x:auto'><table><caption>Wide, captioned</caption><tr>{wide}</tr>"
        "</table></div><pre style='overflow-x:auto'>short</pre>"
        f"<pre style='overflow-x:auto'>{'y' * 400}</pre>"
        f"<details><summary>Show</summary><table><tr>{wide}</tr></table></details>"
        "</main></body></html>"
    )
    check = check_page(page, browser)
    assert not check.ok
    kinds = [(f.split()[0], "scroll box" in f) for f in check.layout]
    # the wide table and the toggle's stick out; the uncaptioned scroll box and the long code
    # line hide part of themselves; the fitting, captioned and short ones are fine
    assert sorted(kinds) == [("pre", True), ("table", False), ("table", False), ("table", True)]
    assert not list(tmp_path.glob(".layout-*")), "the probed copy is left behind"
    page.write_text("<html><body><main style='width:800px'><table><tr><td>fits</td></tr></table>"
                    "<pre style='white-space:pre-wrap'>" + "y " * 400 + "</pre></main></body></html>")  # fmt: skip
    assert check_page(page, browser).layout == []


def test_the_check_sees_stderr_and_the_checkout_path():
    from privmetrics.compendium.book.bookcheck import text_problems
    from privmetrics.paths import checkout_root

    stderr = '<div class="output stderr highlight-myst-ansi notranslate"><pre>warn</pre></div>'
    path = f"<p>see {checkout_root()}/results/quick.sqlite</p>"
    assert text_problems(stderr + stderr) == ["2 stderr output(s)"]
    assert text_problems(path) == [f"the checkout's path {checkout_root()} in the page"]
    assert text_problems('<div class="output stream"><pre>ok</pre></div>') == []


def test_the_layouts_record_is_found_whatever_attributes_the_theme_adds():
    from privmetrics.compendium.book.bookcheck import _LAYOUT

    for tag in ('<pre id="privmetrics-layout">', '<pre id="privmetrics-layout" tabindex="-1">'):
        assert _LAYOUT.search(f"<body>{tag}[]</pre></body>").group(1) == "[]"


def test_the_shipped_paper_timings_fill_every_time_cell_of_the_reviewers_map():
    """Issue 63, item 4: a measured paper build's report ships, so no result reads "not timed"."""
    from privmetrics.compendium.book.sources import reviewer_map
    from privmetrics.compendium.book.timings import report_path

    paper = get_profile("paper")
    assert report_path(paper).exists(), "results/timings-paper.json is not shipped"
    table = reviewer_map(paper)
    assert "not timed here" not in table
    assert table.count(" s |") >= len(table.splitlines()) - 2


def test_one_of_each_kind_keeps_hand_written_pages_and_samples_generated_ones(tmp_path):
    math = "<span class='math notranslate'>x</span>"
    pages = []
    for folder, name, text in [("book", f"p{k}.html", "") for k in range(5)] + [
        ("book/generated/metric", f"m{k}.html", math if k % 2 else "") for k in range(8)
    ]:
        page = tmp_path / folder / name
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"<html><body>{text}</body></html>")
        pages.append(page)
    chosen = [p.relative_to(tmp_path).as_posix() for p in one_of_each_kind(pages, per_folder=2)]
    # the two first pages with formulas (m1, m3) and without (m0, m2) of the generated folder
    assert chosen == sorted([*(f"book/p{k}.html" for k in range(5)), *(
        f"book/generated/metric/m{k}.html" for k in (0, 1, 2, 3))])  # fmt: skip
