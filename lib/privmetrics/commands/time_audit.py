"""``privmetrics bench-audit``: the steward's audit at 50,000 rows. Its options are declared beside
its measurements (:mod:`privmetrics.compendium.benchmarks.bench_audit`), whose child processes parse them too."""

from __future__ import annotations

from privmetrics.compendium.benchmarks.bench_audit import add_arguments, run

HELP = "the steward's audit at 50,000 rows: default, with a holdout, sampled"
__all__ = ["HELP", "add_arguments", "run"]
