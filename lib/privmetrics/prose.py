"""Docstrings shown as book prose: reStructuredText roles and literals turned into Markdown.

The chapters display some docstrings as they are (the analysis rules, the encoding, each metric's
definition), so that the book and the code say the same thing. Sphinx markup would leak into the
page as text (``:func:`sensitivity```), so :func:`markdown` rewrites it:

* a role ``:func:`~pkg.mod.name``` (also ``:class:``, ``:mod:``, ``:meth:``, ``:data:``,
  ``:attr:``, ``:term:``) becomes the code span `` `name` `` (its last component with ``~`` or a
  leading dot, else the whole target);
* a reST literal ````x```` becomes the Markdown code span `` `x` ``;
* the docstring's common indentation is removed.
"""

from __future__ import annotations

import inspect
import math
import re

ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|data|attr|term|obj|exc):`([^`]+)`")
LITERAL = re.compile(r"``([^`]+)``")


def _target(text: str) -> str:
    text = text.split("<")[-1].rstrip(">").strip() if "<" in text else text
    if text.startswith(("~", ".")):
        return text.lstrip("~.").split(".")[-1]
    return text


def markdown(doc: str) -> str:
    """``doc`` (a docstring) as Markdown without Sphinx markup (module doc)."""
    text = inspect.cleandoc(doc)
    text = ROLE.sub(lambda m: f"`{_target(m.group(1))}`", text)
    return LITERAL.sub(r"`\1`", text)


def setting(value) -> str:
    """One setting's value as a reader writes it: floats to 4 significant digits, Euler's number
    as ``e`` (not ``2.718281828459045``), anything else as its ``repr``."""
    if isinstance(value, float) and math.isclose(value, math.e):
        return "e"
    return format(value, ".4g") if isinstance(value, float) else repr(value)


def settings(params: dict) -> str:
    """Keyword settings as a reader writes them: ``{"log_base": math.e, "tau": 0.9}`` as
    ``log_base=e, tau=0.9`` (each value by :func:`setting`)."""
    return ", ".join(f"{key}={setting(value)}" for key, value in params.items())


def span(values, form: str = "{}") -> str:
    """The range of ``values`` as a sentence writes it: ``"3 to 7"``, or ``"3"`` when every value
    is the same; each end formatted by ``form`` (``"{:.0%}"``)."""
    low, high = min(values), max(values)
    return form.format(low) if low == high else f"{form.format(low)} to {form.format(high)}"
