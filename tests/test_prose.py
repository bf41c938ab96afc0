"""Docstrings shown in the book carry no Sphinx markup."""

import re

from privmetrics.experiments.paper import analysis
from privmetrics.geometry import encoding, projection
from privmetrics.metrics import REGISTRY
from privmetrics.prose import markdown

LEAK = re.compile(r":(func|class|mod|meth|data|attr|term):`|``")


def test_roles_and_literals_become_code_spans():
    doc = """First line.

        See :func:`~privmetrics.experiments.paper.analysis.sensitivity`, :class:`.BlockBaseline`,
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


def test_settings_read_as_a_person_writes_them():
    import math

    from privmetrics.prose import settings

    assert settings({"log_base": math.e, "tau": 0.9, "attack": "brm", "k": 3}) == (
        "log_base=e, tau=0.9, attack='brm', k=3"
    )
    assert settings({"threshold": 1 / 3}) == "threshold=0.3333"


def test_every_metric_summary_is_a_whole_sentence():
    from privmetrics.metrics import REGISTRY

    cut = {name: spec.summary[-40:] for name, spec in REGISTRY.items()
           if not spec.summary.rstrip().endswith((".", ")"))}  # fmt: skip
    assert cut == {}


def test_a_span_says_one_value_once():
    from privmetrics.prose import span

    assert span([3, 7, 5]) == "3 to 7"
    assert span([0.65, 0.65], "{:.0%}") == "65%"
    assert span([0.5, 0.25], "{:.0%}") == "25% to 50%"
