"""Figures for the book's column, and captions that never confuse the book's figure numbers with
the paper's (issue 45, item 3)."""

import re

import matplotlib

matplotlib.use("Agg")

from privmetrics.compendium import plots
from privmetrics.compendium.bookcheck import FIGURE_PIXELS, _png_width
from privmetrics.compendium.sources import RESULTS


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

    from privmetrics.experiments.figures import correlation_heatmap

    names = [f"metric{i}" for i in range(26)]
    rho = pd.DataFrame(np.random.default_rng(0).uniform(-1, 1, (26, 26)), names, names)
    shown = plots.captioned(correlation_heatmap(rho, title="26 metrics"), "caption", "alt").data
    (head,) = re.findall(r"base64,([A-Za-z0-9+/]{32})", shown)
    assert _png_width(head) <= FIGURE_PIXELS
    assert "max-width:100%" in shown and "overflow-x" not in shown


def test_a_captioned_table_keeps_pandas_numbers_and_no_number_of_its_own():
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
    # the body is pandas' own rendering: the caption is the only difference
    assert re.sub(r"<caption.*?</caption>", "", html) == frame._repr_html_()
    assert repr(second).startswith("The same, as a Series.") and "0.123457" in repr(second)
    styled = plots.table(frame.style.format("{:.2f}", subset=["rho"]), "Styled.")._repr_html_()
    assert "<caption" in styled and "0.12" in styled
