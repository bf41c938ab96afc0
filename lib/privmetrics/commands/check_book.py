"""``privmetrics check-book [HTML_DIR]``: the built book opened offline in headless Chromium
(:mod:`privmetrics.compendium.book.bookcheck`); exit 1 when a page fails, 2 without a book or a
browser."""

from __future__ import annotations

import sys
from pathlib import Path

HELP = "open the built book offline in headless Chromium: formulas, requests, raw markup"


def add_arguments(parser) -> None:
    parser.add_argument("html_dir", nargs="?", default="_build/html", help="default: _build/html")


def run(args) -> int:
    from privmetrics.compendium.book.bookcheck import check_book, summary

    try:
        checks = check_book(Path(args.html_dir))
    except (FileNotFoundError, RuntimeError) as error:
        print(f"privmetrics check-book: {error}", file=sys.stderr)
        return 2
    root = Path(args.html_dir)
    for check in checks:
        status = "ok" if check.ok else "FAIL: " + check.problem()
        math = f"{check.typeset} formulas typeset" if check.has_math else "no math"
        print(f"{Path(check.page).relative_to(root)}: {math}; {status}")
    print(summary(checks))
    return 0 if all(c.ok for c in checks) else 1
