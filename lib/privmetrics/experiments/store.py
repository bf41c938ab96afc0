"""The results database (SQLite): one row per dataset, configuration, run and metric.

Two tables. ``cells`` has one row per generated table (dataset, configuration, run), with its
technique, parameters, seed, rows, synthesis time and the library version. ``scores`` has one row
per metric on that table. A finished cell is written in **one transaction** (its cell row and all
its scores), so a run killed at any moment leaves either the whole cell or nothing of it; the
primary keys make a duplicate impossible. The view ``results`` joins the two into the tidy table
the notebooks read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

import pandas as pd

SCHEMA = """
CREATE TABLE IF NOT EXISTS cells (
    dataset TEXT NOT NULL, config TEXT NOT NULL, run INTEGER NOT NULL,
    technique TEXT NOT NULL, params TEXT NOT NULL, seed INTEGER NOT NULL, rows INTEGER NOT NULL,
    synth_seconds REAL, version TEXT NOT NULL, finished TEXT NOT NULL,
    PRIMARY KEY (dataset, config, run)
);
CREATE TABLE IF NOT EXISTS scores (
    dataset TEXT NOT NULL, config TEXT NOT NULL, run INTEGER NOT NULL, metric TEXT NOT NULL,
    category TEXT NOT NULL, score REAL NOT NULL, seconds REAL NOT NULL, finished TEXT NOT NULL,
    PRIMARY KEY (dataset, config, run, metric),
    FOREIGN KEY (dataset, config, run) REFERENCES cells (dataset, config, run)
);
CREATE VIEW IF NOT EXISTS results AS
    SELECT s.dataset, s.config, c.technique, c.params, s.run, c.seed, c.rows, s.metric,
           s.category, s.score, s.seconds, c.synth_seconds, c.version, s.finished
    FROM scores s JOIN cells c USING (dataset, config, run);
"""


class ResultsStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            conn.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=60)
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def done(self) -> dict[tuple[str, str, int], set[str]]:
        """(dataset, config, run) -> the metrics already scored on that cell."""
        out: dict[tuple[str, str, int], set[str]] = {}
        with self._connect() as conn:
            for d, c, r, m in conn.execute("SELECT dataset, config, run, metric FROM scores"):
                out.setdefault((d, c, int(r)), set()).add(m)
        return out

    def write_cell(self, cell: dict, scores: Iterable[dict]) -> None:
        """Record one finished cell and its scores atomically (one transaction).

        ``cell`` holds dataset, config, run, technique, params, seed, rows, synth_seconds;
        ``scores`` one dict per metric with metric, category, score, seconds. A score the cell
        already has is kept and the new one ignored (first writer wins), so two runners on one
        database never duplicate a row.
        """
        now = datetime.now(UTC).isoformat(timespec="seconds")
        key = (cell["dataset"], cell["config"], int(cell["run"]))
        conn = self._connect()
        try:
            with conn:  # commits on success, rolls back on any exception
                conn.execute(
                    "INSERT OR IGNORE INTO cells VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*key, cell["technique"], cell["params"], int(cell["seed"]), int(cell["rows"]),
                     cell.get("synth_seconds"), version("privmetrics"), now),
                )  # fmt: skip
                conn.executemany(
                    "INSERT OR IGNORE INTO scores VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(*key, s["metric"], s["category"], float(s["score"]), float(s["seconds"]), now)
                     for s in scores],
                )  # fmt: skip
        finally:
            conn.close()

    def results(self) -> pd.DataFrame:
        """Every score with its cell's details (the ``results`` view) as a DataFrame."""
        with self._connect() as conn:
            return pd.read_sql_query("SELECT * FROM results", conn)

    def count(self, table: str = "scores") -> int:
        if table not in ("scores", "cells"):
            raise ValueError(f"no table {table!r}")
        with self._connect() as conn:
            return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
