"""Figures for the book's column, and captions that never confuse the book's figure numbers with
the paper's (issue 45, item 3)."""

import re

import matplotlib
import numpy as np

matplotlib.use("Agg")

from privmetrics.compendium.book import plots
from privmetrics.compendium.book.bookcheck import FIGURE_PIXELS, _png_width
from privmetrics.compendium.book.sources import RESULTS


def test_a_caption_names_the_papers_figure_as_paper_fig():
    assert plots.reproduces("exp11", "texas") == "Reproduces paper Fig. 5."
    assert plots.reproduces("exp11 values", "texas") == "Reproduces paper Fig. 13."
    assert plots.reproduces("exp11 values", "randhie").startswith("Not in the paper")
    # every paper figure the reviewer's map lists is named by some caption
    listed = {
        int(n) for r in RESULTS if r.item.startswith("Figure") for n in re.findall(r"\d+", r.item)
    }
    captioned = {
        int(n) for text in plots.PAPER_FIGURES.values() for n in re.findall(r"\b\d+\b", text)
    }
    assert listed <= captioned


def test_every_heatmap_fits_the_column_however_many_configurations():
    import numpy as np
    import pandas as pd

    from privmetrics.experiments.paper.figures import correlation_heatmap

    names = [f"metric{i}" for i in range(26)]
    rho = pd.DataFrame(np.random.default_rng(0).uniform(-1, 1, (26, 26)), names, names)
    shown = plots.captioned(correlation_heatmap(rho, title="26 metrics"), "caption", "alt").data
    (head,) = re.findall(r"base64,([A-Za-z0-9+/]{32})", shown)
    assert _png_width(head) <= FIGURE_PIXELS
    assert "max-width:100%" in shown and "overflow-x" not in shown


def test_a_captioned_table_reads_as_a_reader_takes_numbers_in_and_no_number_of_its_own():
    import pandas as pd

    frame = pd.DataFrame(
        {"rho": [0.123456789, 1.0], "verdict": ["follows", "does not"]}, ["a", "b"]
    )
    first = plots.table(frame, "Two **metrics** and their rho.")
    second = plots.table(frame["rho"], "The same, as a Series.")
    html = first._repr_html_()
    assert html.count("<caption") == 1 and html.index("<caption") < html.index("<thead")
    assert ">Two <strong>metrics</strong> and their rho.</caption>" in html
    # unnumbered: a page's "Table 1" would read as one of the paper's tables
    assert not re.search(r"Table \d", html)
    # three significant figures, an integral value as an integer, a named index kept
    assert "<td>0.123</td>" in html and "<td>1</td>" in html and "<th>a</th>" in html
    assert repr(second).startswith("The same, as a Series.") and "0.123457" in repr(second)
    # issue 63: no index that only numbers the rows, integers as integers, p-values under
    # 0.001 as such, large numbers whole, dates as dates, gaps as "-"
    raw = pd.DataFrame({
        "configurations": [12.0, 3.0], "p": [0.0, 0.0412], "seconds": [0.030899, 91.192436],
        "rows": [3.29307e06, np.nan], "when": pd.to_datetime(["2026-12-01 10:00", "2026-12-02 00:00"]),
    })  # fmt: skip
    shown = plots.table(raw, "Raw.")._repr_html_()
    assert "<th>0</th>" not in shown and "<td>12</td>" in shown and "12.0" not in shown
    assert "<td>&lt; 0.001</td>" in shown and "<td>0.041</td>" in shown
    assert "<td>0.0309</td>" in shown and "<td>91.2</td>" in shown
    assert "<td>3,293,070</td>" in shown and "<td>-</td>" in shown
    assert "<td>2026-12-01</td>" in shown and "10:00" not in shown
    assert plots.readable(0.00049, p=True) == "< 0.001" and plots.readable(0.001, p=True) == "0.001"
    assert [plots.p_column(c) for c in ("p", "permutation p", "p (rho)", "rho", "p95")] == [
        True, True, True, False, False]  # fmt: skip
    styled = plots.table(frame.style.format("{:.2f}", subset=["rho"]), "Styled.")._repr_html_()
    assert "<caption" in styled and "0.12" in styled


def test_a_gradients_key_is_read_from_its_colour_map():
    """issue 63: the rho table's caption said red for a positive rho on a map whose positive
    end is blue."""
    assert plots.gradient_key("RdBu", "against", "tracks") == "red: against; blue: tracks"
    assert plots.gradient_key("RdBu_r", "against", "tracks") == "blue: against; red: tracks"
    assert plots.gradient_key("RdYlGn_r", "low", "high") == "green: low; red: high"
    assert plots.colour_name((0.5, 0.5, 0.5)) == "grey"


def test_a_markdown_pages_tables_get_their_caption_and_nothing_else_changes():
    from privmetrics.compendium.book.plots import captioned_markdown

    text = "Head line.\n\n| a | `b` |\n|---|---|\n| 1 | 2 |\n\nAfter, with | a pipe."
    shown = captioned_markdown(text, "What it *holds*")
    assert shown.startswith("Head line.\n") and shown.rstrip().endswith("After, with | a pipe.")
    assert shown.count("<table><caption") == 1 and "What it <em>holds</em></caption>" in shown
    assert "<th><code>b</code></th>" in shown and "|---|" not in shown
    assert captioned_markdown("no table here", "x") == "no table here\n"
