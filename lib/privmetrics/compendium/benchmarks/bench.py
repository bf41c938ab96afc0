"""Benchmark: all registered metrics on one Texas-sized pair, next to the paper's own times.

``python -m privmetrics bench`` (``make bench``). The real side is the Texas data (first 25,000
rows) or, when it is absent, a generated table of the same shape and types; the synthetic side is
the real table with every column shuffled independently (same marginals, no copied rows, no
synthesiser needed). All metrics share one :class:`~privmetrics.geometry.pair.Pair`, as a full-suite run
does, so a metric's time includes any shared neighbour query it was the first to need.
Seconds come from a pass with nothing traced; peak memory (the largest allocation traced by
``tracemalloc`` while the metric ran) from a second pass on a fresh pair. Targets (issue 61, 2
cores): the paper's 21 within 10 s, every measure within 15 s, and each of the paper's metrics
at least as fast as the paper's own time (column ``paper s / ours s`` at least 1).
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pandas as pd

from privmetrics.compendium.book.timings import machine_line, peak_resident_mb
from privmetrics.data.datasets import DatasetUnavailableError, load_dataset
from privmetrics.data.schema import Schema
from privmetrics.geometry.pair import Pair
from privmetrics.metrics import REGISTRY


def generated_texas_like(rows: int = 25_000, seed: int = 0) -> tuple[pd.DataFrame, Schema]:
    """A stand-in with Texas's shape: 11 categorical columns (3-23 levels) and 7 skewed numericals.

    The schema declares the generator's public domain (every level; amounts in [0, 10^7] on a log
    scale), as the DP synthesisers need."""
    rng = np.random.default_rng(seed)
    columns, data, domain = {}, {}, {}
    for i, levels in enumerate([9, 7, 9, 23, 4, 6, 3, 7, 23, 5, 5]):
        p = rng.dirichlet(np.ones(levels))
        domain[f"cat{i}"] = [f"c{j}" for j in range(levels)]
        data[f"cat{i}"] = rng.choice(domain[f"cat{i}"], size=rows, p=p).astype(object)
        columns[f"cat{i}"] = "categorical"
    for i in range(7):
        data[f"num{i}"] = np.round(rng.lognormal(8, 1.5, size=rows), 2)
        columns[f"num{i}"] = "numerical"
        domain[f"num{i}"] = {"low": 0, "high": 1e7, "scale": "log"}
    sensitive = ["cat9", "cat10"]
    return pd.DataFrame(data), Schema(
        columns, key=[c for c in columns if c not in sensitive], sensitive=sensitive, domain=domain
    )


def benchmark_pair(
    rows: int = 25_000, seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame, Schema, str]:
    try:
        real, schema = load_dataset("texas", n=rows if rows < 25_000 else None, seed=seed)
        source = "texas"
    except DatasetUnavailableError:
        real, schema = generated_texas_like(rows, seed)
        source = "generated (Texas data unavailable)"
    rng = np.random.default_rng(seed)
    synthetic = pd.DataFrame({c: rng.permutation(real[c].to_numpy()) for c in real.columns})
    return real, synthetic, schema, source


def run_benchmark(
    rows: int = 25_000, seed: int = 0, dataset: str = "texas", memory: bool = True
) -> pd.DataFrame:
    """Every registered metric on one pair: its score, seconds, peak traced memory and the
    paper's own time.

    The seconds come from a pass with nothing traced: ``tracemalloc`` hooks every allocation and
    slowed DetectionMLP's network by half (14.1 s traced against 8.5 s untimed on one run). The
    peak memory comes from a second pass on a fresh pair (``memory=False`` skips it), so that its
    shared neighbour queries are paid, and measured, by the same metric as in the first."""
    real, synthetic, schema, source = benchmark_pair(rows, seed)
    print(
        f"pair: {source}, real {real.shape[0]} x {real.shape[1]}, synthetic {synthetic.shape[0]} x {synthetic.shape[1]}"
    )
    timed = _one_pass(Pair(real, synthetic, schema, seed=seed), traced=False)
    peaks = _one_pass(Pair(real, synthetic, schema, seed=seed), traced=True) if memory else {}
    rows_out = []
    for spec in REGISTRY.values():
        score, seconds = timed[spec.name]
        paper = spec.paper_seconds.get(dataset)
        rows_out.append(
            {
                "metric": spec.name,
                "score": score,
                "seconds": seconds,
                "peak MB": peaks[spec.name][1] if memory else np.nan,
                "paper s (Texas)": paper,
                "paper s / ours s": paper / seconds if paper else np.nan,
            }
        )
    return pd.DataFrame(rows_out)


def _one_pass(pair: Pair, traced: bool) -> dict[str, tuple[float, float]]:
    """Each metric in the registry's order on ``pair``: (score, seconds), or with ``traced``
    (score, peak MB traced while it ran)."""
    out = {}
    if traced:
        tracemalloc.start()
    try:
        for spec in REGISTRY.values():
            if traced:
                tracemalloc.reset_peak()
            start = time.perf_counter()
            score = spec(pair)
            seconds = time.perf_counter() - start
            out[spec.name] = (
                score,
                tracemalloc.get_traced_memory()[1] / 2**20 if traced else seconds,
            )
    finally:
        if traced:
            tracemalloc.stop()
    return out


TARGETS = {"all registered measures": 15, "the paper's 21 metrics": 10}  # issue 61, 2 cores


def slower_than_paper(table: pd.DataFrame) -> list[str]:
    """The paper's metrics that took longer here than in the paper's own timing (Tables 2-4)."""
    timed = table.dropna(subset=["paper s (Texas)"])
    return list(timed.loc[timed["paper s / ours s"] < 1, "metric"])


def subtotals() -> list[tuple[str, list[str], float | None]]:
    """(label, metric names, target seconds) for the registered set, the paper's 21 and its
    final seven."""
    from privmetrics.metrics import select

    return [
        (label, [m.name for m in select(which)], TARGETS.get(label))
        for label, which in (
            ("all registered measures", "all"),
            ("the paper's 21 metrics", "paper"),
            ("the paper's final seven", "final"),
        )
    ]


def format_table(table: pd.DataFrame) -> str:
    lines = [
        f"{'metric':<28} {'score':>6} {'seconds':>8} {'peak MB':>8} {'paper s':>8} {'paper/ours':>11}"
    ]
    for r in table.itertuples(index=False):
        lines.append(
            f"{r.metric:<28} {r.score:6.3f} {r.seconds:8.2f} {r[3]:8.0f} {r[4]:8.2f} {r[5]:10,.1f}x"
        )
    paper_total = table["paper s (Texas)"].sum()
    total = table["seconds"].sum()
    lines.append(
        f"{'all metrics':<28} {'':>6} {total:8.2f} {table['peak MB'].max():8.0f} {paper_total:8.0f} {paper_total / total:8.0f}x"
    )
    lines.append(f"process peak resident memory: {peak_resident_mb():.0f} MB")
    lines.append(machine_line())
    for label, names, target in subtotals():
        seconds = table.loc[table.metric.isin(names), "seconds"].sum()
        verdict = (
            f"target <= {target} s: {'met' if seconds <= target else 'NOT met'}" if target else ""
        )
        lines.append(f"{label:<40} {seconds:8.2f} s  {verdict}")
    slower = slower_than_paper(table)
    lines.append("slower than the paper's own time: " + (", ".join(slower) if slower else "none"))
    lines.append(f"TOTAL {total:.2f}")
    return "\n".join(lines)
