"""A disk cache of generated tables, so that no experiment generates the same table twice.

A table is keyed by everything that determines it (:meth:`SyntheticCache.key`): dataset,
technique, the technique's parameters, seed, number of rows, the schema (types, roles and the
declared domain), a checksum of the training table, the **code fingerprint** of the technique
(:func:`code_fingerprint`: a hash of the code of every ``privmetrics`` module its class depends
on) and the versions of the numerical libraries that generate it (numpy, pandas, scipy, torch,
sdv). A table made by other code or other libraries therefore has another key and is never
reused. The key is hashed into the file name, and
:func:`key_digest` is what the results store records beside each cell.

Each table is one Parquet file (never a pickle: reading a cache folder that others can write must
not run their code). The file's own metadata holds the key in clear and a SHA-256 checksum of the
table's contents; on every read both are checked, so a truncated or damaged file, or a file
swapped in from another key, is detected, reported with a warning that names it, and generated
again. Writes go to a temporary file unique to the writer (process id and a random suffix) that is
then renamed, so two writers of one key never collide and an interrupted write leaves nothing
that a later run would trust. A JSON file beside the table repeats the key for people.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import os
import sys
import uuid
import warnings
from collections.abc import Callable
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from privmetrics.paths import cache_home

META_KEY = b"privmetrics.cache"


class CacheWarning(UserWarning):
    """A cached table could not be trusted and is being generated again."""


def default_root() -> Path:
    """``$PRIVMETRICS_CACHE``, else ``synthetic/`` in :func:`~privmetrics.paths.cache_home`."""
    return Path(os.environ.get("PRIVMETRICS_CACHE") or cache_home() / "synthetic")


LIBRARIES = ("numpy", "pandas", "scipy", "torch", "sdv")


def _package_modules(module) -> set[str]:
    """``privmetrics`` modules that ``module`` uses: those it imports and those its names come from."""
    used = set()
    for value in vars(module).values():
        name = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", None)
        if isinstance(name, str) and name.startswith("privmetrics"):
            used.add(name)
    return used


# Modules that only check inputs or describe them: a refusal cannot change a generated table, and
# the schema's content is part of the cache key itself.
NOT_GENERATING = frozenset({"privmetrics.data.validation", "privmetrics.data.schema"})


def code_digest(source: str) -> str:
    """SHA-256 of a module's code without its docstrings, comments, layout and import statements
    (its AST), so that editing documentation, reformatting or moving a module to another package
    does not make every cached table stale; what the imports bring in is hashed on its own."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        kept = [
            statement
            for statement in body
            if not isinstance(statement, ast.Import | ast.ImportFrom)
            and not (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            )
        ]
        node.body = kept or ([] if isinstance(node, ast.Module) else [ast.Pass()])
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


EMPTY_MODULE = code_digest("")


@cache
def _module_digest(path: str) -> str:
    return code_digest(Path(path).read_text())


def code_fingerprint(technique: str) -> str:
    """The first 16 hex digits of a hash over the code (:func:`code_digest`) of the technique's
    module and of every ``privmetrics`` module it reaches through its imports, transitively,
    except :data:`NOT_GENERATING`. Module names are left out (their sorted digests are hashed), so
    the fingerprint follows the code, not where it lives."""
    from privmetrics.synthesisers.base import SYNTHESISERS
    from privmetrics.synthesisers.planted import CONTROLS

    seen, todo = set(), [{**SYNTHESISERS, **CONTROLS}[technique].__module__]
    while todo:
        name = todo.pop()
        if name in seen or name not in sys.modules or name in NOT_GENERATING:
            continue
        seen.add(name)
        todo.extend(_package_modules(sys.modules[name]) - seen)
    digests = sorted(
        _module_digest(path)
        for name in seen
        if (path := getattr(sys.modules[name], "__file__", None))
    )
    digest = hashlib.sha256()
    for code in digests:
        if code != EMPTY_MODULE:
            digest.update(f"{code};".encode())
    return digest.hexdigest()[:16]


def library_versions() -> dict[str, str]:
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "absent"
    return out


def key_text(key: dict) -> str:
    """A cache key in clear, canonical JSON (what a file's metadata and the store record)."""
    return json.dumps(key, sort_keys=True, default=str)


def key_digest(key: dict) -> str:
    """The short hash of a cache key (also the file name's digest)."""
    return hashlib.sha1(key_text(key).encode()).hexdigest()[:20]


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
    def key(
        dataset: str,
        technique: str,
        params: dict,
        seed: int,
        rows: int,
        schema=None,
        train: pd.DataFrame | None = None,
    ) -> dict:
        return {
            "dataset": dataset,
            "technique": technique,
            "params": {k: params[k] for k in sorted(params)},
            "seed": int(seed),
            "rows": int(rows),
            "schema": None if schema is None else schema.to_dict(),
            "train": None if train is None else table_checksum(train)[:16],
            "code": code_fingerprint(technique),
            "libraries": library_versions(),
        }

    def path(self, key: dict) -> Path:
        return self.root / f"{key['dataset']}-{key['technique']}-{key_digest(key)}.parquet"

    def fit_sample(
        self,
        label: str,
        technique: str,
        params: dict,
        seed: int,
        train: pd.DataFrame,
        schema,
        refresh: bool = False,
    ) -> pd.DataFrame:
        """The table ``technique`` generates from ``train`` (named ``label`` in the key), from the
        cache or fitted now and stored; ``refresh`` fits it again even when it is cached."""
        from privmetrics.synthesisers.base import (  # the registry imports this module
            FittedTypes,
            make_synthesiser,
        )

        self.last_key = self.key(label, technique, params, seed, len(train), schema, train)
        table = self.get_or_make(
            self.last_key,
            lambda: make_synthesiser(technique, seed=seed, **params).fit_sample(train, schema),
            refresh,
        )
        # tables cached by an older version may lack the restored types (SDV's "1" for 1)
        return FittedTypes.of(train, schema).restore(table)

    def get_or_make(
        self, key: dict, make: Callable[[], pd.DataFrame], refresh: bool = False
    ) -> pd.DataFrame:
        """The cached table for ``key``, or ``make()``'s result, stored before it is returned
        (``refresh``: always ``make()``, and store the new table)."""
        path = self.path(key)
        if path.exists() and not refresh:
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
            if meta.get("key") != key_text(key):
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
        meta = {"key": key_text(key), "checksum": table_checksum(table)}
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
