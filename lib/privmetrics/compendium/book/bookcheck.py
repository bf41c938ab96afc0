"""Does the built book work offline, and does it read cleanly? Every page opened in headless
Chromium with networking disabled, in a window :data:`WIDTH` pixels wide: formulas must be typeset
(MathJax, bundled by ``sphinx-mathjax-offline``) and no page may request an external URL. The
page's text (outside code listings and outputs) must show no raw markup: no Sphinx role such as
``:func:`` left unrendered, no doubled backticks, and no ``NaN`` in a table cell; no cell may show
stderr, and no page the checkout's path (:func:`text_problems`). Laid out, no table, code block,
figure or formula may stick out of the text column, nor hide part of itself in a scroll box, but
for a captioned table (:data:`LAYOUT_PROBE`).

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
from html import unescape
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


# a notebook cell's stderr as myst-nb renders it
_STDERR = re.compile(r"""class=["'][^"']*\boutput stderr\b""")

# the window the layout is measured in: a laptop's screen, as the screenshots
WIDTH = 1280
# Run in the page once laid out (and its formulas typeset), every toggle opened (what a reader
# opens must fit too): every table, code block, figure and display formula of the text column
# that sticks out of the column, or that a scroll box (itself or an ancestor) cuts, but for a
# table with a caption (a captioned scroll box is a table's way to be wide); elements of width 0
# are not shown and are skipped. The findings go into the DOM as JSON, for --dump-dom to carry.
LAYOUT_PROBE = r"""
<script>
function privmetricsLayout() {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  var column = document.querySelector("article.bd-article") || document.querySelector("main")
    || document.body;
  var edge = column.getBoundingClientRect().right;
  var found = [];
  column.querySelectorAll("table, pre, img, svg, mjx-container[display='true']").forEach(
    function (el) {
      var r = el.getBoundingClientRect();
      var name = el.tagName.toLowerCase();
      if (r.width === 0 || el.id === "privmetrics-layout"
          || (name === "svg" && el.parentElement.closest("svg"))) return;
      var cut = null;
      for (var a = el; a && a !== column; a = a.parentElement) {
        if (/auto|scroll|hidden/.test(getComputedStyle(a).overflowX)
            && a.scrollWidth > a.clientWidth + 1) { cut = a; break; }
      }
      var what = name + " '" + (el.textContent || el.getAttribute("alt") || "")
        .replace(/\s+/g, " ").trim().slice(0, 50) + "'";
      if (cut && !(name === "table" && el.querySelector("caption"))) {
        found.push(what + " hides " + (cut.scrollWidth - cut.clientWidth) + " px in a scroll box");
      } else if (!cut && r.right > edge + 1) {
        found.push(what + " sticks " + Math.round(r.right - edge) + " px out of the column");
      }
    });
  var out = document.getElementById("privmetrics-layout") || document.createElement("pre");
  out.id = "privmetrics-layout";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
}
// measured once loaded and again once the formulas have had time to typeset
window.addEventListener("load", function () {
  privmetricsLayout(); setTimeout(privmetricsLayout, 3000);
});
</script>
"""
_LAYOUT = re.compile(
    r'<pre id="privmetrics-layout"[^>]*>(.*?)</pre>', re.S
)  # the theme adds attributes


def _png_width(head: str) -> int:
    """The pixel width in a base64 PNG's first bytes (the IHDR chunk, bytes 16-20)."""
    import base64

    return int.from_bytes(base64.b64decode(head)[16:20], "big")


def text_problems(source: str) -> list[str]:
    """Raw markup in a page's HTML, outside code listings and cell outputs (``<pre>``,
    ``<code>``, scripts): unrendered Sphinx roles, doubled backticks, a Markdown table left as
    text, floats at full precision (``2.718281828459045``), figures wider than
    :data:`FIGURE_PIXELS`, and table cells reading NaN, None or <NA> (a missing value should read
    as a word or a dash); any stderr output of a cell, and the checkout's path anywhere (a
    warning's file name, an absolute results path)."""
    from privmetrics.paths import checkout_root

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
    stderr = len(_STDERR.findall(source))
    if stderr:
        found.append(f"{stderr} stderr output(s)")
    root = checkout_root(required=False)
    if root is not None and f"{root}/" in source:
        found.append(f"the checkout's path {root} in the page")
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
    layout: list[str] = field(default_factory=list)  # LAYOUT_PROBE's findings

    @property
    def ok(self) -> bool:
        return (
            not self.external and not self.markup and not self.layout
            and (self.typeset > 0 or not self.has_math)
        )  # fmt: skip

    def problem(self) -> str:
        problems = []
        if self.has_math and not self.typeset:
            problems.append("formulas not typeset")
        if self.external:
            problems.append("requests " + ", ".join(sorted(set(self.external))))
        problems += self.markup + self.layout
        return "; ".join(problems)


def summary(checks: list[PageCheck]) -> str:
    """One line over a book's checks: pages opened, pages with typeset formulas, elements that
    overflow, stderr outputs, pages failing."""
    failed = sum(not c.ok for c in checks)
    typeset = sum(c.typeset > 0 for c in checks)
    overflowing = sum(len(c.layout) for c in checks)
    stderr = sum(
        int(p.split()[0]) for c in checks for p in c.markup if p.endswith("stderr output(s)")
    )
    return (
        f"{len(checks)} pages opened with networking cut at {WIDTH} px, {typeset} with typeset "
        f"formulas, {overflowing} overflowing elements, {stderr} stderr outputs, {failed} failing"
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
    """Open ``html`` offline in headless Chromium, :data:`WIDTH` px wide; report typeset formulas,
    external requests, raw markup and what overflows. The page is opened as a copy beside it (so
    its relative links hold) with :data:`LAYOUT_PROBE` added, removed afterwards."""
    browser = browser or find_browser()
    if browser is None:
        raise FileNotFoundError(
            f"no Chromium-family browser found ({', '.join(BROWSERS)}): {INSTALL_HINT}"
        )
    source = html.read_text(errors="replace")
    has_math = bool(_MATH.search(source))
    probed = html.with_name(f".layout-{html.name}")
    closing = source.lower().rfind("</body>")
    closing = len(source) if closing < 0 else closing
    probed.write_text(source[:closing] + LAYOUT_PROBE + source[closing:])
    try:
        done, external = _open(probed, browser, budget_ms, offline)
    finally:
        probed.unlink(missing_ok=True)
    found = _LAYOUT.search(done.stdout)
    if found:
        layout = json.loads(unescape(found.group(1)))
    else:  # a page without a body (the index's redirect) has no layout to measure
        layout = ["the layout was not measured"] if "<body" in source.lower() else []
    typeset = _LAYOUT.sub("", done.stdout).count("<mjx-container")
    return PageCheck(str(html), has_math, typeset, external, text_problems(source), layout)


def _open(html: Path, browser: str, budget_ms: int, offline: list[str] | None):
    """``html`` in the browser, offline: (the finished process with the dumped DOM, the external
    URLs the page requested)."""
    with tempfile.TemporaryDirectory() as scratch:
        netlog = Path(scratch) / "net.json"
        command = [
            *(offline if offline is not None else _offline_prefix()),
            browser,
            *_QUIET_FLAGS,
            f"--user-data-dir={scratch}/profile",
            f"--log-net-log={netlog}",
            f"--virtual-time-budget={budget_ms}",
            f"--window-size={WIDTH},900",
            "--dump-dom",
            html.resolve().as_uri(),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0 or not netlog.exists():
            raise RuntimeError(f"{browser} failed on {html}: {done.stderr.strip()[-500:]}")
        return done, _page_requests(netlog)


def book_pages(html_dir: Path) -> list[Path]:
    """Every HTML page of a built book (search and index pages included), in path order."""
    html_dir = Path(html_dir)
    pages = sorted(
        p for p in html_dir.rglob("*.html")
        if "_static" not in p.parts and not p.name.startswith(".layout-")
    )  # fmt: skip
    if not pages:
        raise FileNotFoundError(f"no HTML pages under {html_dir}: build the book first")
    return pages


def one_of_each_kind(pages: list[Path], per_folder: int = 3) -> list[Path]:
    """The pages a quicker check opens: every page of the book's own folders (hand-written) and,
    of a generated folder whose pages come from one template, the first ``per_folder`` pages
    with formulas and the first ``per_folder`` without (the test suite's check; ``make
    reproduce`` opens every page)."""
    chosen = []
    by_folder: dict[Path, list[Path]] = {}
    for page in pages:
        by_folder.setdefault(page.parent, []).append(page)
    for folder, members in by_folder.items():
        if "generated" not in folder.parts:
            chosen += members
            continue
        texts = {p: bool(_MATH.search(p.read_text(errors="replace"))) for p in members}
        chosen += [p for p in members if texts[p]][:per_folder]
        chosen += [p for p in members if not texts[p]][:per_folder]
    return sorted(chosen)


def check_book(
    html_dir: Path, browser: str | None = None, pages: list[Path] | None = None
) -> list[PageCheck]:
    """Every HTML page of a built book (:func:`book_pages`), or the ``pages`` given, in path
    order."""
    pages = sorted(pages) if pages is not None else book_pages(html_dir)
    browser = browser or find_browser()
    offline = _offline_prefix()
    return [check_page(page, browser, offline=offline) for page in pages]
