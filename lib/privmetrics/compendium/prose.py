"""Docstrings shown as book prose: :func:`privmetrics.prose.markdown`, here for the notebooks
(it lives at the bottom of the package, so that the audit's report can use it too)."""

from privmetrics.prose import markdown

__all__ = ["markdown"]
