"""Row-level evidence: which real people the release exposes, so a steward can see who is at risk.

Three signals per real row, each one a reason a data protection officer would accept:

* **copied**: the release holds a row equal to it in every column;
* **closer than a neighbour**: its nearest release row is nearer than its nearest *other* real
  row, or, with a holdout, nearer than its nearest holdout row (a new person of the same
  population). The distance is the metrics' mixed space (:mod:`privmetrics.geometry.encoding`),
  fitted on the real table, so the release and the holdout are measured on one scale;
* **sensitive recovered**: the release row nearest on the key attributes carries the row's exact
  sensitive value (every sensitive attribute; numbers within 1% of the column's range) - the
  attacker of Attribute Inference. With a holdout the same attack is aimed at the holdout rows,
  and the summary gives both rates: recovering values of people who were never in the data is
  inference from the population, not disclosure.

:func:`row_evidence` returns one row per real row with at least one signal (sorted by the number
of signals, then by how much closer the release row is); :func:`evidence_summary` counts them.
With sampled targets (``--targets``) the rows checked are the sampled ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privmetrics.geometry.pair import Pair

SIGNALS = ("copied", "closer than a neighbour", "sensitive recovered")
NUMERIC_MATCH = 0.01  # a recovered number lies within this share of the column's range


def copied_rows(real: pd.DataFrame, release: pd.DataFrame) -> np.ndarray:
    """For each real row, whether the release holds an identical row (hashes of whole rows)."""
    columns = list(real.columns)
    as_text = lambda frame: frame[columns].astype(str)  # noqa: E731  (1 and 1.0 alike per column type)
    hashes = pd.util.hash_pandas_object(as_text(release), index=False)
    return pd.util.hash_pandas_object(as_text(real), index=False).isin(set(hashes)).to_numpy()


def recovered(pair: Pair, rows) -> np.ndarray:
    """For the ``rows`` of ``pair.real``, whether the release row nearest on the key attributes
    carries the row's sensitive values (all of them); False when the schema names none."""
    schema = pair.schema
    if not schema.key or not schema.sensitive:
        return np.zeros(len(pair.real.iloc[rows]), dtype=bool)
    _, nearest = pair.neighbours("real", "synthetic", 1, "keys")
    nearest = nearest[:, 0]
    truth, guess = pair.real.iloc[rows], pair.synthetic.iloc[nearest]
    hit = np.ones(len(truth), dtype=bool)
    for col in schema.sensitive:
        t, g = truth[col].to_numpy(), guess[col].to_numpy()
        if col in schema.numerical:
            span = float(pair.real[col].max() - pair.real[col].min()) or 1.0
            hit &= np.abs(t.astype(float) - g.astype(float)) <= NUMERIC_MATCH * span
        else:
            hit &= t.astype(str) == g.astype(str)
    return hit


def row_evidence(pair: Pair, holdout_pair: Pair | None = None, real_rows=None) -> pd.DataFrame:
    """The exposed real rows of ``pair`` (release) with their signals; ``holdout_pair`` (real,
    holdout) makes "closer than a neighbour" mean closer than any holdout row. ``real_rows``: the
    rows' numbers in the user's file (default: their positions)."""
    rows = pair.target_rows("real")
    positions = pair.target_positions("real")
    to_release = pair.nearest_distance("real", "synthetic")
    if holdout_pair is not None:
        to_neighbour, neighbour = holdout_pair.nearest_distance("real", "synthetic"), "holdout"
    else:
        to_neighbour, neighbour = pair.nearest_distance("real", "real"), "real"
    labels = np.asarray(real_rows if real_rows is not None else np.arange(len(pair.real)))
    table = pd.DataFrame(
        {
            "real row": labels[positions],
            "copied": copied_rows(pair.real.iloc[rows], pair.synthetic),
            "closer than a neighbour": to_release < to_neighbour,
            "sensitive recovered": recovered(pair, rows),
            "distance to release": to_release,
            f"distance to nearest {neighbour} row": to_neighbour,
        }
    )
    table["signals"] = table[list(SIGNALS)].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        closeness = to_release / np.where(to_neighbour > 0, to_neighbour, np.nan)
    table = table.assign(_closeness=closeness)[table["signals"] > 0]
    table = table.sort_values(["signals", "_closeness"], ascending=[False, True], kind="stable")
    return table.drop(columns="_closeness").reset_index(drop=True)


def evidence_summary(
    evidence: pd.DataFrame, checked: int, holdout_recovered: float | None = None
) -> list[str]:
    """One line per signal: how many of the ``checked`` real rows carry it."""
    lines = []
    for signal in SIGNALS:
        count = int(evidence[signal].sum()) if len(evidence) else 0
        line = f"{signal}: {count:,} of {checked:,} real rows ({count / max(checked, 1):.1%})"
        if signal == "sensitive recovered" and holdout_recovered is not None:
            line += f"; for holdout rows, never in the data: {holdout_recovered:.1%}"
        lines.append(line)
    return lines
