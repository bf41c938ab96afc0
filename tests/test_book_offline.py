"""The book works offline (issue 17): every page of the built book, opened in headless Chromium
with networking cut, typesets its formulas and requests no external URL."""

from pathlib import Path

import pytest

from privmetrics.compendium.bookcheck import INSTALL_HINT, check_book, check_page, find_browser
from privmetrics.compendium.reproduce import build_book, stage_unexecuted


@pytest.fixture(scope="module")
def browser():
    found = find_browser()
    if found is None:  # not a skip: `make test` installs it, so a missing browser is a setup fault
        pytest.fail(f"no browser for the offline-book test: {INSTALL_HINT}")
    return found


def test_every_page_of_the_book_renders_math_and_stays_offline(tmp_path, browser):
    index = build_book(stage_unexecuted(tmp_path / "book"))
    checks = check_book(index.parent, browser)
    assert len(checks) >= 20, [c.page for c in checks]
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
