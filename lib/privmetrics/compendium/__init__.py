"""The compendium's own tooling: what builds, checks and times the book, not what a library user
calls.

- ``book``: the main job (``reproduce``: papermill over the notebooks, then jupyter-book), a
  chapter's set-up, the generated pages and sentences, the figures, the book's offline check
  (``bookcheck``) and timing report, and the comparisons with the field's reference
  implementations (``peers``, ``anonymeter``, ``crossref``);
- ``benchmarks``: the benchmark commands (``bench``, ``bench_audit``, ``bench_scale``,
  ``bench_synthesisers``) and the CPU budgets of the README's commands.

May import every other package; nothing imports from here except the command line.
"""
