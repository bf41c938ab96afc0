"""Does the built book work offline, and does it read cleanly? Every page opened in headless
Chromium with networking disabled: formulas must be typeset (MathJax, bundled by
``sphinx-mathjax-offline``) and no page may request an external URL. The page's text (outside code
listings and outputs) must show no raw markup: no Sphinx role such as ``:func:`` left unrendered,
no doubled backticks, and no ``NaN`` in a table cell (:func:`text_problems`).

``privmetrics check-book _build/html`` prints one line per page and exits 1 when a page fails. The browser's network log (``--log-net-log``) records every request; requests the page
made carry its (opaque, ``null``) file origin as initiator, while the browser's own background
requests carry none and are not the book's doing. The network is cut with ``unshare -n`` where the
kernel allows it, and by resolving every host name to nothing otherwise.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
INSTALL_HINT = "install Chromium (Debian: apt-get install chromium; `make browser` does it)"

_QUIET_FLAGS = [
    "--headless",
    "--no-sandbox",  # the sandbox needs namespaces that containers and `unshare -n` take away
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--no-first-run",
    "--no-pings",
    "--host-resolver-rules=MAP * ~NOTFOUND",  # no host name resolves: the fallback network cut
]


# raw markup a reader should never see: Sphinx roles, doubled backticks, NaN cells in a table
_ROLE = re.compile(r":(?:func|class|mod|meth|data|attr|term|ref|cite|py:\w+):`")
_LISTINGS = re.compile(r"<(pre|script|style|code)\b.*?</\1>", re.S | re.I)
_NAN_CELL = re.compile(r"<td[^>]*>\s*(?:NaN|nan|None|<NA>)\s*</td>")
# a Markdown table that was not rendered: its delimiter row left as text in an HTML paragraph
# (smart quotes turn --- into an em dash, so both)
_RAW_TABLE = re.compile(r"<p\b[^>]*>(?:(?!</p>).)*?\|\s*:?(?:-{3,}|\u2014+)\s*:?\|", re.S)
# an embedded figure wider than this scrolls or shrinks its type past reading in the ~800 px column
FIGURE_PIXELS = 1000
_PNG = re.compile(r"data:image/png;base64,([A-Za-z0-9+/]{32})")
# a float printed at full precision in prose or a table cell, e.g. 2.718281828459045
_FULL_FLOAT = re.compile(r"(?<![\w.])\d+\.\d{10,}(?![\w.])")


def _png_width(head: str) -> int:
    """The pixel width in a base64 PNG's first bytes (the IHDR chunk, bytes 16-20)."""
    import base64

    return int.from_bytes(base64.b64decode(head)[16:20], "big")


def text_problems(source: str) -> list[str]:
    """Raw markup in a page's HTML, outside code listings and cell outputs (``<pre>``,
    ``<code>``, scripts): unrendered Sphinx roles, doubled backticks, a Markdown table left as
    text, floats at full precision (``2.718281828459045``), figures wider than
    :data:`FIGURE_PIXELS`, and table cells reading NaN, None or <NA> (a missing value should read
    as a word or a dash)."""
    text = _LISTINGS.sub(" ", source)
    found = [f"raw role {m}" for m in sorted(set(_ROLE.findall(text)))]
    if "``" in text:
        found.append("doubled backticks")
    if _RAW_TABLE.search(text):
        found.append("a Markdown table left as raw text")
    floats = sorted(set(_FULL_FLOAT.findall(text)))
    if floats:
        found.append(f"floats at full precision {floats[:3]}")
    wide = [w for w in map(_png_width, _PNG.findall(source)) if w > FIGURE_PIXELS]
    if wide:
        found.append(f"{len(wide)} figure(s) wider than {FIGURE_PIXELS} px: {wide}")
    cells = _NAN_CELL.findall(source)
    if cells:
        found.append(
            f"{len(cells)} table cell(s) reading {sorted(set(c.split('>')[1].split('<')[0].strip() for c in cells))}"
        )
    return found


# Sphinx marks formulas with the class "math" (inline spans and display divs)
_MATH = re.compile(r"""class=["'](?:[^"']*\s)?math(?:\s[^"']*)?["']""")


@dataclass
class PageCheck:
    """What one page did in the browser."""

    page: str
    has_math: bool
    typeset: int  # MathJax containers in the rendered page
    external: list[str] = field(default_factory=list)
    markup: list[str] = field(default_factory=list)  # text_problems

    @property
    def ok(self) -> bool:
        return not self.external and not self.markup and (self.typeset > 0 or not self.has_math)

    def problem(self) -> str:
        problems = []
        if self.has_math and not self.typeset:
            problems.append("formulas not typeset")
        if self.external:
            problems.append("requests " + ", ".join(sorted(set(self.external))))
        problems += self.markup
        return "; ".join(problems)


def summary(checks: list[PageCheck]) -> str:
    """One line over a book's checks: pages opened, pages with typeset formulas, pages failing."""
    failed = sum(not c.ok for c in checks)
    typeset = sum(c.typeset > 0 for c in checks)
    return (
        f"{len(checks)} pages opened with networking cut, {typeset} with typeset formulas, "
        f"{failed} failing"
    )


def find_browser() -> str | None:
    """Path of a Chromium-family browser on PATH, or None."""
    for name in BROWSERS:
        if path := shutil.which(name):
            return path
    return None


def _offline_prefix() -> list[str]:
    """``unshare -n`` (or ``-rn`` without root) when it works here, else nothing."""
    unshare = shutil.which("unshare")
    if not unshare:
        return []
    for flags in (["-n"], ["-rn"]):
        probe = subprocess.run([unshare, *flags, "true"], capture_output=True)
        if probe.returncode == 0:
            return [unshare, *flags]
    return []


def _page_requests(netlog: Path) -> list[str]:
    """External URLs the page itself requested, from a Chromium network log."""
    try:
        log = json.loads(netlog.read_text())
    except json.JSONDecodeError:  # the browser ends the file without its closing brackets
        text = netlog.read_text().rstrip().rstrip(",")
        log = json.loads(text + "]}")
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for event in log.get("events", []):
        params = event.get("params") or {}
        url = str(params.get("url", ""))
        if event["type"] != start_job or not url.startswith(("http:", "https:", "ws:", "wss:")):
            continue
        if params.get("initiator") == "not an origin":  # the browser's own, not the page's
            continue
        urls.append(url)
    return urls


def check_page(
    html: Path,
    browser: str | None = None,
    budget_ms: int = 10_000,
    offline: list[str] | None = None,
) -> PageCheck:
    """Open ``html`` offline in headless Chromium; report typeset formulas and external requests."""
    browser = browser or find_browser()
    if browser is None:
        raise FileNotFoundError(
            f"no Chromium-family browser found ({', '.join(BROWSERS)}): {INSTALL_HINT}"
        )
    source = html.read_text(errors="replace")
    has_math = bool(_MATH.search(source))
    with tempfile.TemporaryDirectory() as scratch:
        netlog = Path(scratch) / "net.json"
        command = [
            *(offline if offline is not None else _offline_prefix()),
            browser,
            *_QUIET_FLAGS,
            f"--user-data-dir={scratch}/profile",
            f"--log-net-log={netlog}",
            f"--virtual-time-budget={budget_ms}",
            "--dump-dom",
            html.resolve().as_uri(),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0 or not netlog.exists():
            raise RuntimeError(f"{browser} failed on {html}: {done.stderr.strip()[-500:]}")
        external = _page_requests(netlog)
    return PageCheck(str(html), has_math, done.stdout.count("<mjx-container"), external,
                     text_problems(source))  # fmt: skip


def check_book(html_dir: Path, browser: str | None = None) -> list[PageCheck]:
    """Every HTML page of a built book (search and index pages included), in path order."""
    html_dir = Path(html_dir)
    pages = sorted(p for p in html_dir.rglob("*.html") if "_static" not in p.parts)
    if not pages:
        raise FileNotFoundError(f"no HTML pages under {html_dir}: build the book first")
    browser = browser or find_browser()
    offline = _offline_prefix()
    return [check_page(page, browser, offline=offline) for page in pages]
