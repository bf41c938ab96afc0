"""A disk cache of generated tables, so that no experiment generates the same table twice.

A table is keyed by everything that determines it: dataset, technique, the technique's
parameters, seed, number of rows, and the package version (a new version may generate
differently). The key is hashed into the file name; a JSON file beside the table records the key
in clear. Writes go to a temporary file that is then renamed, so an interrupted run never leaves
a half-written table that a later run would trust.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import pandas as pd

from ..datasets import REPO_ROOT


def default_root() -> Path:
    return Path(os.environ.get("PRIVMETRICS_CACHE", REPO_ROOT / "data" / "cache" / "synthetic"))


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

    def path(self, key: dict) -> Path:
        digest = hashlib.sha1(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[
            :20
        ]
        return self.root / f"{key['dataset']}-{key['technique']}-{digest}.pkl"

    def fit_sample(
        self, label: str, technique: str, params: dict, seed: int, train: pd.DataFrame, schema
    ) -> pd.DataFrame:
        """The table ``technique`` generates from ``train`` (named ``label`` in the key), from the
        cache or fitted now and stored."""
        from .base import make_synthesiser  # the registry imports this module

        return self.get_or_make(
            self.key(label, technique, params, seed, len(train)),
            lambda: make_synthesiser(technique, seed=seed, **params).fit_sample(train, schema),
        )

    def get_or_make(self, key: dict, make: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        """The cached table for ``key``, or ``make()``'s result, stored before it is returned."""
        path = self.path(key)
        if path.exists():
            self.hits += 1
            return pd.read_pickle(path)
        self.misses += 1
        table = make()
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        table.to_pickle(tmp)
        os.replace(tmp, path)
        path.with_suffix(".json").write_text(json.dumps(key, indent=1, default=str))
        return table
