"""``privmetrics bench-scale``: rows against seconds and memory. Its options are declared beside
its measurements (:mod:`privmetrics.compendium.benchmarks.bench_scale`), whose child processes parse them too."""

from __future__ import annotations

from privmetrics.compendium.benchmarks.bench_scale import add_arguments, run

HELP = "rows vs seconds vs memory at 10k, 25k, 100k rows (1M with --million)"
__all__ = ["HELP", "add_arguments", "run"]
