"""The results database (SQLite): one row per dataset, configuration, run and metric.

Four tables. ``cells`` has one row per generated table (dataset, configuration, run), with its
technique, parameters, seed, rows, synthesis time (``synth_seconds``, wall; ``synth_cpu_seconds``,
the CPU time of every thread of the process that made the table, which neither the machine's load
nor a pause inflates), the cell's wall time, the library version and
the commit that computed it, and what made its table: ``code`` (the technique's code fingerprint,
:func:`~privmetrics.synthesisers.cache.code_fingerprint`), ``cache_key`` (the digest of the full
cache key), ``generator`` (that key in clear: parameters, seed, schema, training-table checksum,
code fingerprint, library versions), ``table_checksum`` (SHA-256 of the generated table) and
``threads`` (the BLAS/torch threads the cell ran with: SDV's preprocessing and torch add in
another order with another count, so a neural table regenerates only with the same count). ``scores`` has one row per metric on that table. A finished cell is
written in **one transaction** (its cell row and all its scores), so a run killed at any moment
leaves either the whole cell or nothing of it; the primary keys make a duplicate impossible.
``utility`` has one row per utility measure of that table
(:mod:`privmetrics.metrics.release_utility`: marginal TVDs, train-on-synthetic accuracy), written
in the same transaction as its scores. ``sessions`` has one row per runner invocation that computed something: profile, commit, start and
end, cores and load, and how many cells it wrote (the provenance of a shipped store); its cell
count, end and wall time are updated with every cell written, so a session that was killed still
says what it did up to its last cell. The view
``results`` joins cells and scores into the tidy table the notebooks read.

Any SQLite failure is raised as :class:`StoreError`, which names the database file and says what
to do.
"""

from __future__ import annotations

import os
import platform
import re
import sqlite3
import subprocess
import warnings
from collections.abc import Iterable
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from textwrap import dedent

import pandas as pd


class StoreError(RuntimeError):
    """The results database cannot be used; the message names the file and what to do."""


def current_commit(root: Path | None) -> str:
    """The git commit of ``root`` ("<sha>+dirty" when lib/ has uncommitted changes), or "unknown"
    (also when there is no checkout)."""
    if root is None:
        return "unknown"
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True, text=True,
            check=True, timeout=10,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "lib"], cwd=root, capture_output=True, text=True,
            timeout=10,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return sha + ("+dirty" if dirty else "")


class Database:
    """A SQLite file that one code defines and migrates: its tables (:attr:`SCHEMA`, ``CREATE
    TABLE IF NOT EXISTS``), the columns added since the first files were written
    (:attr:`ADDED_COLUMNS`) and a view (:attr:`VIEW`). Opening a file that already has them all
    writes nothing (a read-only use, building the book, leaves its bytes as they were); one
    that lacks some gets them. Every use goes through :meth:`_connection`: one transaction, and
    any SQLite failure a :class:`StoreError` naming the file and what to do. The grid's
    :class:`ResultsStore` and the games' :class:`~privmetrics.experiments.games.game_store.GameStore`
    share one file of this kind."""

    SCHEMA = ""
    ADDED_COLUMNS: tuple[tuple[str, str, str], ...] = ()  # (table, column, type)
    VIEW = ""  # "DROP VIEW IF EXISTS name; CREATE VIEW name AS ..."

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"results database {self.path}: cannot create its folder ({exc}); "
                "choose a writable location (--store or PRIVMETRICS_RESULTS)"
            ) from exc
        with self._connection() as conn:
            if self._current(conn):  # nothing to change: opening a store never rewrites it
                return
            conn.executescript(self.SCHEMA)
            for table, column, kind in self.ADDED_COLUMNS:
                if column not in self._columns(conn, table):
                    conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
            if self.VIEW:
                conn.executescript(self.VIEW)

    @staticmethod
    def _columns(conn, table: str) -> set[str]:
        return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}

    def _current(self, conn) -> bool:
        """Whether the file already has every table, column and the view as this code writes
        them."""
        if self.VIEW:
            name = re.search(r"CREATE VIEW (\w+)", self.VIEW).group(1)
            found = conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?", (name,)
            ).fetchone()
            wanted = self.VIEW.split(";", 1)[1].strip().rstrip(";").strip()
            if not found or found[0].strip() != wanted:
                return False
        tables = re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", self.SCHEMA)
        return all(self._columns(conn, table) for table in tables) and all(
            column in self._columns(conn, table) for table, column, _ in self.ADDED_COLUMNS
        )

    @contextmanager
    def _connection(self):
        """A connection in one transaction (committed on success, rolled back on error); any
        SQLite error becomes a :class:`StoreError` naming the file."""
        try:
            conn = sqlite3.connect(self.path, timeout=60)
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        try:
            conn.execute("PRAGMA foreign_keys = ON")
            with conn:
                yield conn
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        finally:
            conn.close()

    def _error(self, exc: sqlite3.Error) -> StoreError:
        if isinstance(exc, sqlite3.DatabaseError) and "not a database" in str(exc):
            advice = "the file is damaged or not a results database: move it away and run again"
        elif "locked" in str(exc):
            advice = "another process holds it: wait for it to finish, or use another --store"
        elif "readonly" in str(exc) or "unable to open" in str(exc):
            advice = "it is not writable here: check its permissions or use another --store"
        else:
            advice = "check the file, or move it away and run again to start a new one"
        return StoreError(f"results database {self.path}: {exc} ({advice})")


class ResultsStore(Database):
    """The grid's cells, their scores and the runner's sessions (module doc)."""

    SCHEMA = dedent("""
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
    CREATE TABLE IF NOT EXISTS utility (
        dataset TEXT NOT NULL, config TEXT NOT NULL, run INTEGER NOT NULL, measure TEXT NOT NULL,
        value REAL NOT NULL, seconds REAL NOT NULL, finished TEXT NOT NULL,
        PRIMARY KEY (dataset, config, run, measure),
        FOREIGN KEY (dataset, config, run) REFERENCES cells (dataset, config, run)
    );
    CREATE TABLE IF NOT EXISTS sessions (
        started TEXT NOT NULL, ended TEXT, profile TEXT NOT NULL, commit_id TEXT, version TEXT,
        host TEXT, cores INTEGER, load REAL, n_jobs INTEGER, cells INTEGER, wall_seconds REAL
    );
    """)
    # dedented: the view's text is compared with the stored one (Database._current)
    VIEW = dedent("""
    DROP VIEW IF EXISTS results;
    CREATE VIEW results AS
        SELECT s.dataset, s.config, c.technique, c.params, s.run, c.seed, c.rows, s.metric,
               s.category, s.score, s.seconds, c.synth_seconds, c.cell_seconds, c.version,
               c.commit_id, s.finished
        FROM scores s JOIN cells c USING (dataset, config, run);
    """)
    # columns added after the first stores were written: (table, column, type)
    ADDED_COLUMNS = (
        ("cells", "cell_seconds", "REAL"),
        ("cells", "commit_id", "TEXT"),
        ("cells", "code", "TEXT"),
        ("cells", "cache_key", "TEXT"),
        ("cells", "generator", "TEXT"),
        ("cells", "table_checksum", "TEXT"),
        ("cells", "threads", "INTEGER"),
        ("cells", "synth_cpu_seconds", "REAL"),
    )

    def done(self) -> dict[tuple[str, str, int], set[str]]:
        """(dataset, config, run) -> the metrics and utility measures already scored on that cell."""
        out: dict[tuple[str, str, int], set[str]] = {}
        with self._connection() as conn:
            found = conn.execute(
                "SELECT dataset, config, run, metric FROM scores"
                " UNION ALL SELECT dataset, config, run, measure FROM utility"
            )
            for d, c, r, m in found:
                out.setdefault((d, c, int(r)), set()).add(m)
        return out

    def write_cell(
        self,
        cell: dict,
        scores: Iterable[dict],
        replace: bool = False,
        session: int | None = None,
        wall_seconds: float | None = None,
        utility: Iterable[dict] = (),
    ) -> None:
        """Record one finished cell, its scores and its ``utility`` rows (measure, value, seconds)
        atomically (one transaction).

        ``cell`` holds dataset, config, run, technique, params, seed, rows, synth_seconds and
        optionally synth_cpu_seconds, cell_seconds, commit_id, code, cache_key, generator and
        table_checksum;
        ``scores`` one dict per metric with metric, category, score, seconds. A score the cell
        already has is kept and the new one ignored (first writer wins), so two runners on one
        database never duplicate a row. ``replace``: the cell and all its scores are deleted
        first, in the same transaction (a stale cell recomputed by newer code). Scores added to an
        existing cell whose stored table checksum differs from ``cell``'s are refused with a
        warning: they would describe another table. ``session``: that
        session's cell count grows by one and its end and wall time become now's.
        """
        now = datetime.now(UTC).isoformat(timespec="seconds")
        key = (cell["dataset"], cell["config"], int(cell["run"]))
        rows = [
            (*key, s["metric"], s["category"], float(s["score"]), float(s["seconds"]), now)
            for s in scores
        ]
        measured = [
            (*key, u["measure"], float(u["value"]), float(u["seconds"]), now) for u in utility
        ]
        where = "dataset = ? AND config = ? AND run = ?"
        with self._connection() as conn:
            stored = conn.execute(f"SELECT table_checksum FROM cells WHERE {where}", key).fetchone()
            if (
                not replace
                and stored
                and stored[0]
                and cell.get("table_checksum") not in (None, stored[0])
            ):
                warnings.warn(
                    f"{self.path}: cell {key} was scored on another table than the one just "
                    "generated for it (the table checksums differ), so its new scores and utility "
                    "are not written; recompute it whole with --refresh-stale",
                    stacklevel=2,
                )
                return
            if replace:
                conn.execute(f"DELETE FROM scores WHERE {where}", key)
                conn.execute(f"DELETE FROM utility WHERE {where}", key)
                conn.execute(f"DELETE FROM cells WHERE {where}", key)
            conn.execute(
                "INSERT OR IGNORE INTO cells (dataset, config, run, technique, params, seed, rows,"
                " synth_seconds, version, finished, cell_seconds, commit_id, code, cache_key,"
                " generator, table_checksum, threads, synth_cpu_seconds)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*key, cell["technique"], cell["params"], int(cell["seed"]), int(cell["rows"]),
                 cell.get("synth_seconds"), version("privmetrics"), now,
                 cell.get("cell_seconds"), cell.get("commit_id"), cell.get("code"),
                 cell.get("cache_key"), cell.get("generator"), cell.get("table_checksum"),
                 cell.get("threads"), cell.get("synth_cpu_seconds")),
            )  # fmt: skip
            conn.executemany("INSERT OR IGNORE INTO scores VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            conn.executemany("INSERT OR IGNORE INTO utility VALUES (?, ?, ?, ?, ?, ?, ?)", measured)
            if session is not None:
                conn.execute(
                    "UPDATE sessions SET cells = cells + 1, ended = ?, wall_seconds = ?"
                    " WHERE rowid = ?",
                    (now, wall_seconds, session),
                )

    def set_provenance(self, cell: tuple[str, str, int], fields: dict) -> None:
        """Record what made an existing cell's table (code, cache_key, generator,
        table_checksum), e.g. once ``privmetrics verify`` has regenerated it identically."""
        allowed = {"code", "cache_key", "generator", "table_checksum", "threads"}
        if not set(fields) <= allowed:
            raise ValueError(
                f"only {sorted(allowed)} can be set, not {sorted(set(fields) - allowed)}"
            )
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self._connection() as conn:
            conn.execute(
                f"UPDATE cells SET {assignments} WHERE dataset = ? AND config = ? AND run = ?",
                (*fields.values(), *cell),
            )

    def start_session(self, profile: str, commit_id: str, n_jobs: int, cores: int) -> int:
        """Record the start of a runner session; returns its id (for :meth:`end_session`)."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        with self._connection() as conn:
            cursor = conn.execute(
                "INSERT INTO sessions (started, profile, commit_id, version, host, cores, load,"
                " n_jobs, cells) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)",
                (now, profile, commit_id, version("privmetrics"), platform.node(), cores, load,
                 n_jobs),
            )  # fmt: skip
            return int(cursor.lastrowid)

    def end_session(self, session: int, wall_seconds: float) -> None:
        """Close a session: its end and wall time (its cell count grew with every cell)."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._connection() as conn:
            conn.execute(
                "UPDATE sessions SET ended = ?, wall_seconds = ? WHERE rowid = ?",
                (now, wall_seconds, session),
            )

    def sessions(self) -> pd.DataFrame:
        with self._connection() as conn:
            return pd.read_sql_query("SELECT rowid AS session, * FROM sessions", conn)

    def provenance(self) -> pd.DataFrame:
        """Where the results come from, per dataset: cells, rows, runs, the library versions and
        commits that computed them, the machines' cores and load, and the computing time (sum of
        cell times, hours) next to the first and last finish."""
        cells = self.cells()
        sessions = self.sessions()
        per = cells.groupby("dataset").agg(
            cells=("config", "size"),
            rows=("rows", "max"),
            runs=("run", "nunique"),
            versions=("version", lambda v: ", ".join(sorted(set(v)))),
            commits=("commit_id", lambda c: ", ".join(sorted({str(x)[:7] for x in c.dropna()}))),
            cell_hours=("cell_seconds", lambda t: float(t.sum()) / 3600),
            first=("finished", "min"),
            last=("finished", "max"),
        )
        per["cores"] = ", ".join(str(int(c)) for c in sorted(set(sessions.cores.dropna()))) or "-"
        per["sessions"] = len(sessions)
        for end in ("first", "last"):  # dates, not ISO text
            per[end] = pd.to_datetime(per[end], format="ISO8601", utc=True)
        return per

    def results(self) -> pd.DataFrame:
        """Every score with its cell's details (the ``results`` view) as a DataFrame."""
        with self._connection() as conn:
            return pd.read_sql_query("SELECT * FROM results", conn)

    def utility(self) -> pd.DataFrame:
        """Every utility measure with its cell's technique, parameters and seed, one row each."""
        with self._connection() as conn:
            return pd.read_sql_query(
                "SELECT u.dataset, u.config, c.technique, c.params, u.run, c.seed, c.rows,"
                " u.measure, u.value, u.seconds FROM utility u JOIN cells c"
                " USING (dataset, config, run)",
                conn,
            )

    def cells(self) -> pd.DataFrame:
        with self._connection() as conn:
            return pd.read_sql_query("SELECT * FROM cells", conn)

    def count(self, table: str = "scores") -> int:
        if table not in ("scores", "cells", "utility"):
            raise ValueError(f"no table {table!r}")
        with self._connection() as conn:
            return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])

    def delete_metrics(self, metrics: Iterable[str]) -> int:
        """Remove every score of ``metrics`` (to recompute them after a change of definition);
        returns the number of rows removed."""
        names = list(metrics)
        with self._connection() as conn:
            cursor = conn.executemany("DELETE FROM scores WHERE metric = ?", [(m,) for m in names])
            return int(cursor.rowcount)

    def compact(self) -> None:
        """VACUUM the file (before shipping it)."""
        conn = sqlite3.connect(self.path)
        try:
            conn.execute("VACUUM")
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        finally:
            conn.close()


def missing_note(profile: str, path: Path, what: str, seconds: list[float | None]) -> str:
    """What a notebook says instead of computing in silence: how many ``what`` (e.g. "cell(s) of
    the `quick` grid") are missing from the store at ``path`` and about how long they would take:
    ``seconds`` holds each missing one's expected cost, the mean of the store's own finished ones
    of its technique (None where it has none)."""
    known = all(s is not None and pd.notna(s) for s in seconds)
    cost = (
        f"about {sum(seconds) / 60:.0f} min of computing"
        if known
        else "a time this store cannot estimate (none finished of some technique)"
    )
    return (
        f"{len(seconds)} {what} are missing from `{path}`, {cost}; these pages show what is "
        f"there. To compute them: `make reproduce PROFILE={profile}`, or `-p compute True` with "
        "papermill."
    )
