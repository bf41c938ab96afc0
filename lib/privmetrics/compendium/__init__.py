"""The compendium's own tooling: what builds, checks and times the book, not what a library user calls.

``reproduce`` (papermill over the notebooks, then jupyter-book), ``bookcheck`` (the built book,
offline, in a browser), ``timings`` (the generated timing report), ``bench``, ``bench_scale`` and
``bench_synthesisers`` (the benchmark commands), ``peers`` and ``crossref`` (comparisons with the
field's reference implementations and the PrivEval definitions), ``plots`` and ``examples``
(figures and the shared five-row example of the book).

May import every other package; nothing imports from here except the command line.
"""
