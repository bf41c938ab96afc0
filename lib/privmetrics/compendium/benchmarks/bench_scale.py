"""How the cost grows with the rows: ``make bench-scale`` (``python -m privmetrics bench-scale``).

For each size (10,000, 25,000, 50,000 and 100,000 rows; one million with ``--million``) the pair is two
independent draws of the Texas-shaped generator (:func:`~privmetrics.compendium.benchmarks.bench.generated_texas_like`:
the real Texas file has too few rows for the larger sizes, and one generator keeps the sizes
comparable). Each measurement runs in its own process, so its peak resident memory is its own:

* the paper's final seven metrics, then every registered measure, sharing one
  :class:`~privmetrics.geometry.pair.Pair` as a full run does;
* at one million rows, the final seven from sampled target rows
  (:mod:`privmetrics.metrics.sampled`: exact neighbours for 20,000 random rows of each table, the score
  their average), and, to say what that costs in accuracy, the sampled estimates against the
  exact scores at 100,000 rows, on a release that copies half of the real rows (three draws of
  targets);
* when the ``crosscheck`` extra is installed, three reference implementations on the same pair,
  beside ours in the same process: SDMetrics' CategoricalZeroCAP, SynthEval's NNAA and its
  median distance to the closest record, up to ``PEER_ROWS`` rows (their loops grow with the
  square of the rows: at 100,000 each would run for most of an hour). A peer that runs past
  ``timeout`` seconds is stopped and reported as such.

The growth exponent b of seconds ~ rows^b is the least-squares slope on log-log axes between the
sizes measured (2 for a quadratic all-pairs search), for the final seven, for every measure and
for each metric alone. ``n log n`` from 10,000 to 100,000 rows has slope about 1.2: a metric above
:data:`NLOGN` is named with the reason its kind gives (:data:`WHY_FASTER`). The run is written to
``results/bench-scale.json`` (``--out``), which ships, and the book's reproduce page shows it
(:func:`scale_markdown`). Targets (issue 18, on the 2-core machine):
final seven on 100,000 rows within 60 s; every measure within 120 s and 8 GB; final seven on
one million rows within 30 minutes.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from privmetrics.compendium.book.timings import in_child, machine_line, peak_resident_mb

if TYPE_CHECKING:  # numpy and pandas load inside the functions: `privmetrics --help` stays light
    import pandas as pd

SIZES = (10_000, 25_000, 50_000, 100_000)
NLOGN = 1.25  # slope of n log n between 10,000 and 100,000 rows (1.2), with a little noise
WHY_FASTER = (  # (how a metric's kind begins, why a metric of that kind grows faster)
    ("distance (optimal matching)", "an optimal one-to-one matching of the rows (cubic)"),
    ("distance", "exact nearest neighbours: every row of one table against every row of the "
     "other, a product of the two (quadratic in the rows)"),
    ("KNN", "exact nearest neighbours (quadratic in the rows)"),
    ("statistical", "every real row against every synthetic row or distinct key tuple on the "
     "key attributes (quadratic when the tuples are mostly distinct)"),
    ("probabilistic", "a classifier or an attack whose fits grow with the rows"),
)  # fmt: skip


def why_faster(kind: str) -> str:
    """The reason :data:`WHY_FASTER` gives for a metric of ``kind``, or ""."""
    return next((why for start, why in WHY_FASTER if kind.startswith(start)), "")


MILLION = 1_000_000
PEERS = (
    "CZeroCAP@paper vs SDMetrics CategoricalZeroCAP",
    "NNAA vs SynthEval nnaa",
    "MDCR@paper vs SynthEval dcr",
)
TARGETS = {  # (what, rows): (seconds, MB or None)
    ("final", 100_000): (60, None),
    ("all", 100_000): (120, 8 * 1024),
    ("sampled", MILLION): (30 * 60, None),
}
ERROR_ROWS = 100_000  # where the sampled estimates are checked against the exact scores
PEER_ROWS = 25_000  # the peers' Python loops grow with the square of the rows: 2 min at 25,000


def _pair(rows: int, seed: int = 0):
    from privmetrics.compendium.benchmarks.bench import generated_texas_like

    real, schema = generated_texas_like(rows, seed)
    synthetic, _ = generated_texas_like(rows, seed + 1)
    return real, synthetic, schema


def measure_metrics(rows: int, metrics: str) -> dict:
    """Seconds and peak memory of ``metrics`` on one pair of ``rows`` rows: "final" or "all",
    exact, or "sampled" (the final seven from sampled target rows, :mod:`privmetrics.metrics.sampled`)."""
    from privmetrics.geometry.pair import Pair
    from privmetrics.metrics import evaluate
    from privmetrics.metrics.sampled import estimate

    real, synthetic, schema = _pair(rows)
    start = time.perf_counter()
    if metrics == "sampled":
        scores = estimate(real, synthetic, schema)
    else:
        scores = evaluate(Pair(real, synthetic, schema), metrics=metrics)
    return {
        "seconds": time.perf_counter() - start,
        "peak MB": peak_resident_mb(),
        "slowest": scores.sort_values("seconds").iloc[-1][["metric", "seconds"]].tolist(),
        "by metric": dict(zip(scores.metric, scores.seconds.astype(float), strict=True)),
    }


def measure_error(rows: int, what: str = "final") -> dict:
    """The sampled estimates of the final seven against their exact scores on one pair of
    ``rows`` rows (:func:`privmetrics.metrics.sampled.sampling_error`)."""
    import pandas as pd

    from privmetrics.metrics.sampled import TARGETS as SAMPLE
    from privmetrics.metrics.sampled import sampling_error

    real, synthetic, schema = _pair(rows)
    # a release that copies half of the real rows: no share sits at 0 or 1, so every error shows
    leaky = pd.concat([real.iloc[: rows // 2], synthetic.iloc[rows // 2 :]], ignore_index=True)
    draws = 3
    table = sampling_error(real, leaky, schema, draws=draws, metrics=what)
    return {"targets": SAMPLE, "draws": draws, "table": table.to_dict("records")}


def measure_peer(rows: int, label: str) -> dict:
    """Our seconds and the peer's on the same pair (one :data:`PEERS` comparison)."""
    from privmetrics.compendium.book.peers import COMPARISONS, crosscheck

    comparison = next(c for c in COMPARISONS if c.label == label)
    real, synthetic, schema = _pair(rows)
    row = crosscheck(real, synthetic, schema, [comparison]).iloc[0]
    if row["version"] == "not installed":
        return {"installed": False}
    return {"installed": True, "ours": row["ours_seconds"], "peer": row["peer_seconds"]}


def _in_child(kind: str, rows: int, what: str, timeout: float) -> dict:
    command = [
        sys.executable,
        "-m",
        "privmetrics.compendium.benchmarks.bench_scale",
        kind,
        str(rows),
        what,
    ]
    return in_child(command, timeout)


def growth_exponent(rows, seconds) -> float:
    """Least-squares slope of log(seconds) on log(rows); NaN with fewer than two finite points."""
    import numpy as np

    rows, seconds = np.asarray(rows, float), np.asarray(seconds, float)
    ok = np.isfinite(seconds) & (seconds > 0)
    if ok.sum() < 2:
        return math.nan
    return float(np.polyfit(np.log(rows[ok]), np.log(seconds[ok]), 1)[0])


def run_scale(
    sizes=SIZES, peers: bool = True, timeout: float = 1800, progress: bool = True
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(metrics table, peers table), one row per size."""
    import pandas as pd

    from privmetrics.compendium.book.peers import installed

    metric_rows, peer_rows = [], []
    for rows in sizes:
        entry = {"rows": rows}
        # at a million rows: the final seven from sampled target rows (exact pairs: about an
        # hour and about 10 GB); the added measures' cubic matchings are not run at all
        for what in ("sampled",) if rows >= MILLION else ("final", "all"):
            got = _in_child("metrics", rows, what, timeout)
            entry[f"{what} s"] = got.get("seconds", math.nan)
            entry[f"{what} MB"] = got.get("peak MB", math.nan)
            if what == "all":
                entry["by metric"] = got.get("by metric", {})
            entry[f"{what} slowest"] = (
                f"{got['slowest'][0]} {got['slowest'][1]:.1f} s"
                if "slowest" in got
                else f"stopped after {timeout:.0f} s"
            )
            if progress:
                print(f"  {rows:>9,} rows, {what}: {entry[f'{what} s']:.1f} s", flush=True)
        metric_rows.append(entry)
        if not peers or rows > PEER_ROWS:
            continue
        for label in PEERS:
            package = "sdmetrics" if "SDMetrics" in label else "syntheval"
            if installed(package) is None:
                continue
            got = _in_child("peer", rows, label, timeout)
            peer_rows.append(
                {
                    "rows": rows,
                    "comparison": label,
                    "ours s": got.get("ours", math.nan),
                    "peer s": got.get("peer", math.nan),
                    "note": f"peer stopped after {timeout:.0f} s" if "timed out" in got else "",
                }
            )
            if progress:
                print(f"  {rows:>9,} rows, {label}: {peer_rows[-1]['peer s']:.1f} s", flush=True)
    return pd.DataFrame(metric_rows), pd.DataFrame(peer_rows)


def run_error(rows: int = ERROR_ROWS, timeout: float = 1800) -> dict:
    """:func:`measure_error` in its own process."""
    return _in_child("error", rows, "final", timeout)


def format_scale(metrics: pd.DataFrame, peers: pd.DataFrame, error: dict | None = None) -> str:
    import pandas as pd

    lines = [
        f"{machine_line()} at the end",
        "pair: two independent draws of the Texas-shaped generator, 18 columns",
        "",
        f"{'rows':>9} {'final 7 s':>10} {'MB':>7} {'all s':>9} {'MB':>7}  slowest (all)",
    ]
    for row in metrics.to_dict("records"):
        what = "final" if "final s" in row and math.isfinite(row["final s"]) else "sampled"
        lines.append(
            f"{row['rows']:>9,} {row.get(f'{what} s', math.nan):>9.1f}"
            f"{'*' if what == 'sampled' else ' '} {row.get(f'{what} MB', math.nan):>7.0f} "
            f"{row.get('all s', math.nan):>9.1f} {row.get('all MB', math.nan):>7.0f}  "
            f"{row.get('all slowest') if isinstance(row.get('all slowest'), str) else ''}"
        )
    if "sampled s" in metrics:
        lines.append(
            "* from sampled target rows (privmetrics.metrics.sampled): exact neighbours for a random "
            "sample of each table's rows, the score their average"
        )
    for what in ("final", "all"):
        lines.append(
            f"growth exponent ({what}): seconds ~ rows^"
            f"{growth_exponent(metrics['rows'], metrics.get(f'{what} s', pd.Series(dtype=float))):.2f}"
        )
    for (what, rows), (seconds, mb) in TARGETS.items():
        part = metrics[metrics["rows"] == rows]
        if part.empty or f"{what} s" not in part:
            lines.append(f"target {what} at {rows:,} rows <= {seconds} s: not measured")
            continue
        got, got_mb = float(part[f"{what} s"].iloc[0]), float(part[f"{what} MB"].iloc[0])
        ok = got <= seconds and (mb is None or got_mb <= mb)
        memory = f" and {mb / 1024:.0f} GB ({got_mb / 1024:.1f} GB)" if mb else ""
        how = "final (sampled targets)" if what == "sampled" else what
        lines.append(
            f"target {how} at {rows:,} rows <= {seconds} s{memory}: {got:.1f} s, "
            f"{'met' if ok else 'NOT met'}"
        )
    if error and "table" in error:
        lines += [
            "",
            f"sampled against exact at {error['rows']:,} rows, on a release that copies half "
            f"of the real rows ({error['targets']:,} targets per table, {error['draws']} draws):",
            f"{'metric':<16} {'at scale':<8} {'exact':>8} {'estimate':>9} {'largest error':>14}",
        ]
        for row in error["table"]:
            lines.append(
                f"{row['metric']:<16} {row['at_scale']:<8} {row['exact']:>8.4f} "
                f"{row['estimate (mean)']:>9.4f} {row['largest error']:>14.4f}"
            )
    elif error:
        lines.append(f"sampled against exact: stopped after {error.get('timed out', 0):.0f} s")
    if len(peers):
        lines += ["", f"{'rows':>9} {'ours s':>8} {'peer s':>9}  comparison"]
        for row in peers.to_dict("records"):
            lines.append(
                f"{row['rows']:>9,} {row['ours s']:>8.2f} {row['peer s']:>9.2f}  "
                f"{row['comparison']} {row['note']}".rstrip()
            )
    return "\n".join(lines)


def run(
    sizes: tuple[int, ...] = SIZES,
    million: bool = False,
    peers: bool = True,
    timeout: float = 1800,
    out: Path | None = None,
) -> int:
    """Measure ``sizes`` (and a million rows with ``million``), print the table and save the run
    (``privmetrics bench-scale``)."""
    sizes = (*sizes, MILLION) if million else tuple(sizes)
    metrics, peers = run_scale(sizes, peers=peers, timeout=timeout)
    error = None
    if million:
        error = {"rows": ERROR_ROWS, **run_error(ERROR_ROWS, timeout)}
    print(format_scale(metrics, peers, error))
    out = Path(out) if out else record_path()
    save(metrics, peers, out)
    print(f"written to {out}")
    return 0


def record_path() -> Path:
    """The shipped record of the last ``make bench-scale``."""
    from privmetrics.paths import checkout_root

    return checkout_root() / "results" / "bench-scale.json"


def metric_exponents(metrics: pd.DataFrame) -> dict[str, float]:
    """Each metric's growth exponent over the sizes where every measure ran exactly."""
    exact = [r for r in metrics.to_dict("records") if isinstance(r.get("by metric"), dict)]
    names = sorted({m for r in exact for m in r["by metric"]})
    return {
        m: growth_exponent(
            [r["rows"] for r in exact], [r["by metric"].get(m, math.nan) for r in exact]
        )
        for m in names
    }


def save(metrics: pd.DataFrame, peers: pd.DataFrame, path: Path) -> None:
    """The run as JSON, with the machine, its load and the commit."""
    from datetime import UTC, datetime

    from privmetrics.experiments.grid.store import current_commit
    from privmetrics.paths import checkout_root

    record = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "commit": current_commit(checkout_root()),
        "machine": machine_line(),
        "sizes": json.loads(metrics.to_json(orient="records")),
        "peers": json.loads(peers.to_json(orient="records")) if len(peers) else [],
    }
    path.write_text(json.dumps(record, indent=1) + "\n")


def scale_markdown(path: Path) -> str:
    """The reproduce page's "How cost grows": the table of the last run, the growth exponents,
    and each metric growing faster than n log n with the reason its kind gives."""
    import pandas as pd

    from privmetrics.metrics import REGISTRY

    if not path.exists():
        return "*(No `make bench-scale` record: run it to fill this section.)*\n"
    record = json.loads(path.read_text())
    metrics = pd.DataFrame(record["sizes"])
    lines = [
        f"`make bench-scale` on {record['date']} (commit {record['commit']}; {record['machine']}), "
        "two independent draws of the Texas-shaped generator, 18 columns:",
        "",
        "| rows | final seven (s) | peak MB | every measure (s) | peak MB |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in metrics.to_dict("records"):
        lines.append(
            f"| {row['rows']:,} | {row.get('final s', math.nan):.1f} | "
            f"{row.get('final MB', math.nan):,.0f} | {row.get('all s', math.nan):.1f} | "
            f"{row.get('all MB', math.nan):,.0f} |"
        )
    final = growth_exponent(metrics["rows"], metrics.get("final s", pd.Series(dtype=float)))
    every = growth_exponent(metrics["rows"], metrics.get("all s", pd.Series(dtype=float)))
    lines += [
        "",
        f"Seconds grow as rows to the power {final:.2f} for the final seven and {every:.2f} for "
        f"every measure (n log n would be about 1.2, an all-pairs search 2).",
    ]
    exponents = metric_exponents(metrics)
    faster = {m: b for m, b in exponents.items() if b > NLOGN and m in REGISTRY}
    if faster:
        lines += ["", "Faster than n log n:", ""]
        for name, b in sorted(faster.items(), key=lambda kv: -kv[1]):
            why = why_faster(REGISTRY[name].kind)
            lines.append(f"- {name}: rows^{b:.2f}" + (f", {why}" if why else ""))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # a child of :func:`run`: one measurement, as JSON
    kind, rows, what = sys.argv[1:4]
    measure = {"metrics": measure_metrics, "error": measure_error, "peer": measure_peer}[kind]
    print(json.dumps(measure(int(rows), what)))
