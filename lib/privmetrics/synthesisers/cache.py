"""A disk cache of generated tables, so that no experiment generates the same table twice.

A table is keyed by everything that determines it: dataset, technique, the technique's
parameters, seed, number of rows, and the package version (a new version may generate
differently). The key is hashed into the file name.

Each table is one Parquet file (never a pickle: reading a cache folder that others can write must
not run their code). The file's own metadata holds the key in clear and a SHA-256 checksum of the
table's contents; on every read both are checked, so a truncated or damaged file, or a file
swapped in from another key, is detected, reported with a warning that names it, and generated
again. Writes go to a temporary file unique to the writer (process id and a random suffix) that is
then renamed, so two writers of one key never collide and an interrupted write leaves nothing
that a later run would trust. A JSON file beside the table repeats the key for people.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
import warnings
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..datasets import REPO_ROOT

META_KEY = b"privmetrics.cache"


class CacheWarning(UserWarning):
    """A cached table could not be trusted and is being generated again."""


def default_root() -> Path:
    return Path(os.environ.get("PRIVMETRICS_CACHE", REPO_ROOT / "data" / "cache" / "synthetic"))


def table_checksum(table: pd.DataFrame) -> str:
    """SHA-256 of a table's column names, dtypes and values (not of the file's bytes, which
    depend on the Parquet writer)."""
    digest = hashlib.sha256()
    digest.update(json.dumps([[str(c), str(t)] for c, t in table.dtypes.items()]).encode())
    digest.update(pd.util.hash_pandas_object(table, index=False).to_numpy().tobytes())
    return digest.hexdigest()


class SyntheticCache:
    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root is not None else default_root()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(dataset: str, technique: str, params: dict, seed: int, rows: int) -> dict:
        return {
            "dataset": dataset,
            "technique": technique,
            "params": {k: params[k] for k in sorted(params)},
            "seed": int(seed),
            "rows": int(rows),
            "version": version("privmetrics"),
        }

    @staticmethod
    def _clear(key: dict) -> str:
        return json.dumps(key, sort_keys=True, default=str)

    def path(self, key: dict) -> Path:
        digest = hashlib.sha1(self._clear(key).encode()).hexdigest()[:20]
        return self.root / f"{key['dataset']}-{key['technique']}-{digest}.parquet"

    def fit_sample(
        self, label: str, technique: str, params: dict, seed: int, train: pd.DataFrame, schema
    ) -> pd.DataFrame:
        """The table ``technique`` generates from ``train`` (named ``label`` in the key), from the
        cache or fitted now and stored."""
        from .base import FittedTypes, make_synthesiser  # the registry imports this module

        table = self.get_or_make(
            self.key(label, technique, params, seed, len(train)),
            lambda: make_synthesiser(technique, seed=seed, **params).fit_sample(train, schema),
        )
        # tables cached by an older version may lack the restored types (SDV's "1" for 1)
        return FittedTypes.of(train, schema).restore(table)

    def get_or_make(self, key: dict, make: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        """The cached table for ``key``, or ``make()``'s result, stored before it is returned."""
        path = self.path(key)
        if path.exists():
            table = self.read(path, key)
            if table is not None:
                self.hits += 1
                return table
        self.misses += 1
        table = make()
        self.write(path, key, table)
        return table

    def read(self, path: Path, key: dict) -> pd.DataFrame | None:
        """The table stored at ``path`` if it is intact and was stored for ``key``; else None,
        with a :class:`CacheWarning` naming the file and the problem."""
        try:
            stored = pq.read_table(path)
            meta = json.loads((stored.schema.metadata or {})[META_KEY])
            table = stored.to_pandas()
        except Exception as exc:  # truncated, not Parquet, no metadata: all mean "regenerate"
            problem = f"it cannot be read ({type(exc).__name__}: {exc})"
        else:
            if meta.get("key") != self._clear(key):
                problem = f"it was stored for another key ({meta.get('key')})"
            elif meta.get("checksum") != table_checksum(table):
                problem = "its contents do not match their checksum (damaged or edited)"
            else:
                return table
        warnings.warn(
            f"cached table {path} is not used and will be generated again: {problem}",
            CacheWarning,
            stacklevel=3,
        )
        return None

    def write(self, path: Path, key: dict, table: pd.DataFrame) -> None:
        """Store ``table`` for ``key`` atomically (a temporary file unique to this writer, renamed)."""
        self.root.mkdir(parents=True, exist_ok=True)
        meta = {"key": self._clear(key), "checksum": table_checksum(table)}
        arrow = pa.Table.from_pandas(table, preserve_index=False)
        arrow = arrow.replace_schema_metadata(
            {**(arrow.schema.metadata or {}), META_KEY: json.dumps(meta).encode()}
        )
        tmp = path.with_name(f"{path.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")
        try:
            pq.write_table(arrow, tmp)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        info = path.with_suffix(".json")
        info_tmp = info.with_name(f"{info.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")
        info_tmp.write_text(json.dumps(key, indent=1, default=str))
        os.replace(info_tmp, info)
