"""Docstrings shown in the book carry no Sphinx markup."""

import re

from privmetrics.experiments import analysis
from privmetrics.geometry import encoding, projection
from privmetrics.metrics import REGISTRY
from privmetrics.prose import markdown

LEAK = re.compile(r":(func|class|mod|meth|data|attr|term):`|``")


def test_roles_and_literals_become_code_spans():
    doc = """First line.

        See :func:`~privmetrics.experiments.analysis.sensitivity`, :class:`.BlockBaseline`,
        :mod:`privmetrics.geometry.encoding` and ``threshold``."""
    assert markdown(doc) == (
        "First line.\n\nSee `sensitivity`, `BlockBaseline`,\n"
        "`privmetrics.geometry.encoding` and `threshold`."
    )


def test_the_docstrings_the_chapters_show_render_without_markup():
    shown = [analysis.__doc__, encoding.__doc__, projection.__doc__]
    shown += [spec.doc for spec in REGISTRY.values()]
    leaks = [m.group(0) for doc in shown for m in LEAK.finditer(markdown(doc))]
    assert not leaks, leaks[:5]
    assert any(LEAK.search(doc) for doc in shown)  # there was markup to remove
