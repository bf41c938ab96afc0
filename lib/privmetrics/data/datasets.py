"""The project's datasets: each described by a manifest (shipped in the package,
``resources/datasets/<name>.yml``) and loaded by one function.

A manifest states where the data comes from (and how to verify it), the type of every column, the
missing-value policy, and the default key (A_K) and sensitive (A_S) attributes with the reason for
choosing them. :func:`load_dataset` turns it into ``(frame, schema)``:

* categorical and binary columns come back as strings (``"01"`` stays ``"01"``), numerical ones
  as float64, in the manifest's column order;
* the missing-value policy is applied (``fill`` per column first, then ``drop_rows`` drops
  every row that still has a missing value);
* ``rows`` keeps the first rows (Texas: the paper's first 25,000); ``n`` then draws a seeded
  random subsample without replacement (for the ``quick`` profile), which is deterministic.
"""

from __future__ import annotations

import hashlib
import os
import urllib.request
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from io import BytesIO
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from privmetrics.data.schema import ColumnType, Schema
from privmetrics.paths import cache_home, checkout_root, resource


class DatasetUnavailableError(RuntimeError):
    """The dataset's source could not be found or did not verify; the message says what was tried."""


def data_dir() -> Path | Traversable:
    """Folder holding the manifests: ``$PRIVMETRICS_DATA_DIR`` or the package's own."""
    if os.environ.get("PRIVMETRICS_DATA_DIR"):
        return Path(os.environ["PRIVMETRICS_DATA_DIR"])
    return resource("datasets")


def dataset_names() -> list[str]:
    """Names of every dataset with a manifest, sorted."""
    return sorted(p.name[: -len(".yml")] for p in data_dir().iterdir() if p.name.endswith(".yml"))


def load_manifest(name: str) -> dict:
    path = data_dir() / f"{name}.yml"
    if not path.is_file():
        raise KeyError(f"unknown dataset {name!r}; known datasets: {dataset_names()}")
    return yaml.safe_load(path.read_text())


def git_blob_id(content: bytes) -> str:
    """The id git gives a file with these bytes: sha1 of ``b"blob <size>\\0" + content``."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


# --- sources -------------------------------------------------------------------------------------
def _verified(content: bytes, source: dict, where: str) -> bytes:
    blob = git_blob_id(content)
    if blob not in source["git_blob_ids"]:
        raise DatasetUnavailableError(
            f"{where} has git blob id {blob}, which is none of the published versions "
            f"{source['git_blob_ids']}; the file is corrupt or a different dataset"
        )
    return content


def _csv_bytes(source: dict) -> bytes:
    """Bytes of a verified CSV: env override, the team's shared copy beside the checkout, the local
    cache (:func:`~privmetrics.paths.cache_home`), then download."""
    env = os.environ.get("PRIVMETRICS_TEXAS_CSV")
    candidates = [Path(env)] if env else []
    checkout = checkout_root(required=False)
    if checkout is not None:
        candidates.append(checkout / source["shared"])
    cache = cache_home() / source["cache"]
    candidates.append(cache)
    for path in candidates:
        if path.exists():
            return _verified(path.read_bytes(), source, str(path))
    try:
        with urllib.request.urlopen(source["url"], timeout=30) as response:
            content = _verified(response.read(), source, source["url"])
    except OSError as err:
        tried = ", ".join(str(p) for p in candidates)
        raise DatasetUnavailableError(
            f"no local copy found (tried {tried}) and the download from {source['url']} failed "
            f"({err}); put the file at one of those paths or set PRIVMETRICS_TEXAS_CSV"
        ) from err
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(content)
    return content


def _read_raw(manifest: dict) -> pd.DataFrame:
    source = manifest["source"]
    kind = source["kind"]
    if kind == "csv":
        return pd.read_csv(
            BytesIO(_csv_bytes(source)), dtype=str, keep_default_na=False, na_values=[""]
        )
    if kind == "sksurv_flchain":
        from sksurv.datasets import load_flchain

        features, outcome = load_flchain()
        frame = features.copy()
        for col in frame.select_dtypes("category"):
            frame[col] = frame[col].astype(object)
        frame["death"] = outcome["death"].astype(int)
        frame["futime"] = outcome["futime"]
        return frame
    if kind == "statsmodels_randhie":
        from statsmodels.datasets import randhie

        return randhie.load_pandas().data
    if kind == "generated_health":
        return health_table(int(source["rows"]), int(source["seed"]))
    raise ValueError(f"manifest {manifest['name']!r} has unknown source kind {kind!r}")


def health_table(rows: int = 100_000, seed: int = 0) -> pd.DataFrame:
    """The 5-attribute health table of Chen, Yu and Dargahi (footnote 1 of Section 3.3.2).

    The paper says only that height and weight are drawn from normal distributions, BMI is
    computed from them, and DBP and SBP come from BMI "with some noise with small magnitude". Our
    parameters (stated here and in resources/datasets/health.yml): HEIGHT ~ N(170, 10) cm, WEIGHT ~ N(70, 12) kg,
    BMI = WEIGHT / (HEIGHT / 100)^2, DBP = 50 + BMI + N(0, 2), SBP = 80 + 1.6 BMI + N(0, 3), every
    value rounded to an integer (so that rows can coincide, as the hitting-rate notions assume).
    """
    rng = np.random.default_rng(seed)
    height = rng.normal(170, 10, rows)
    weight = rng.normal(70, 12, rows)
    bmi = weight / (height / 100) ** 2
    frame = pd.DataFrame(
        {
            "HEIGHT": height,
            "WEIGHT": weight,
            "BMI": bmi,
            "DBP": 50 + bmi + rng.normal(0, 2, rows),
            "SBP": 80 + 1.6 * bmi + rng.normal(0, 3, rows),
        }
    )
    return frame.round().astype(float)


# --- loading -------------------------------------------------------------------------------------
def schema_from_manifest(manifest: dict, attacker: str = "strong") -> Schema:
    """The manifest's schema. ``attacker="strong"`` uses ``key`` (``rest`` = every non-sensitive
    column); ``attacker="demographic"`` uses the weaker ``demographic_key``."""
    sensitive = list(manifest.get("sensitive", ()))
    if attacker == "strong":
        key = manifest.get("key", ())
    elif attacker == "demographic":
        key = manifest["demographic_key"]
    else:
        raise ValueError(f"attacker must be 'strong' or 'demographic', got {attacker!r}")
    if key == "rest":
        key = [c for c in manifest["columns"] if c not in sensitive]
    return Schema(
        columns=manifest["columns"],
        key=key,
        sensitive=sensitive,
        description=manifest.get("title", ""),
        notes={"roles": manifest.get("roles_rationale", "").strip()},
        domain=manifest.get("domain") or {},
    )


def _apply_missing_policy(frame: pd.DataFrame, missing: dict, keep: bool = False) -> pd.DataFrame:
    frame = frame.fillna(missing.get("fill") or {})
    policy = missing.get("policy", "none")
    if keep and policy == "drop_rows":
        return frame.reset_index(drop=True)
    if policy == "drop_rows":
        return frame.dropna().reset_index(drop=True)
    if policy == "none":
        if frame.isna().any().any():
            raise ValueError("manifest says the data has no missing values, but it has some")
        return frame
    raise ValueError(f"unknown missing-value policy {policy!r}")


def _coerce_types(frame: pd.DataFrame, schema: Schema) -> pd.DataFrame:
    out = {}
    for col, kind in schema.columns.items():
        values = frame[col]
        if kind is ColumnType.NUMERICAL:
            out[col] = pd.to_numeric(values).astype("float64")
        else:
            out[col] = values.map(_as_category_string, na_action="ignore").astype(object)
    return pd.DataFrame(out)


def _as_category_string(value) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def sample_rows(frame: pd.DataFrame, n: int | None, seed: int = 0) -> pd.DataFrame:
    """A seeded random subsample of ``n`` rows without replacement (all rows when ``n`` is None or too big)."""
    if n is None or n >= len(frame):
        return frame
    return frame.iloc[_sample_positions(len(frame), n, seed)].reset_index(drop=True)


def _sample_positions(length: int, n: int, seed: int) -> np.ndarray:
    """The sorted row positions :func:`sample_rows` keeps of a table of ``length`` rows."""
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    return np.sort(np.random.default_rng(seed).choice(length, size=n, replace=False))


def holdout_rows(name: str, n: int | None, seed: int = 0, size: int = 2000) -> pd.DataFrame:
    """Up to ``size`` rows of dataset ``name`` that its seeded ``n``-row sample (:func:`load_dataset`
    with the same ``n`` and ``seed``) does not hold: people of the same population a synthesiser
    fitted on that sample never saw. Empty when the sample is the whole dataset (``n`` None or
    too big). Drawn with ``seed`` too, so the same call gives the same rows."""
    data = load(name)
    frame = data.frame
    if n is None or n >= len(frame):
        return frame.iloc[:0]
    rest = np.setdiff1d(np.arange(len(frame)), _sample_positions(len(frame), n, seed))
    keep = np.random.default_rng([seed, 1]).permutation(rest)[:size]
    return frame.iloc[np.sort(keep)].reset_index(drop=True)


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset: the frame, its schema and the manifest it came from."""

    name: str
    frame: pd.DataFrame
    schema: Schema
    manifest: dict


def load(
    name: str,
    n: int | None = None,
    seed: int = 0,
    attacker: str = "strong",
    keep_missing: bool = False,
) -> Dataset:
    """Load dataset ``name`` as a :class:`Dataset` (see the module docstring for what is done).
    ``keep_missing``: keep the rows that the manifest's policy would drop for a missing value (the
    ``fill`` values still apply), e.g. flchain's rows without creatinine, for the audit's
    missing-value treatment (:mod:`privmetrics.data.missing`)."""
    manifest = load_manifest(name)
    schema = schema_from_manifest(manifest, attacker)
    frame = _read_raw(manifest)
    missing_cols = [c for c in schema.columns if c not in frame.columns]
    if missing_cols:
        raise DatasetUnavailableError(
            f"{name}: source lacks the manifest's column(s) {missing_cols}"
        )
    frame = frame[schema.names]
    if manifest.get("rows"):
        frame = frame.iloc[: manifest["rows"]]
    frame = _apply_missing_policy(frame, manifest.get("missing", {}), keep_missing)
    frame = _coerce_types(frame, schema)
    return Dataset(name, sample_rows(frame, n, seed), schema, manifest)


def load_dataset(
    name: str,
    n: int | None = None,
    seed: int = 0,
    attacker: str = "strong",
    keep_missing: bool = False,
) -> tuple[pd.DataFrame, Schema]:
    """``(frame, schema)`` of dataset ``name``; ``n`` rows drawn with ``seed`` when given;
    ``keep_missing`` as in :func:`load`."""
    data = load(name, n=n, seed=seed, attacker=attacker, keep_missing=keep_missing)
    return data.frame, data.schema


def describe(data: Dataset) -> pd.DataFrame:
    """One row per column: type, role (key / sensitive / other), distinct values, and a short range."""
    rows = []
    for col, kind in data.schema.columns.items():
        values = data.frame[col]
        role = (
            "key" if col in data.schema.key else "sensitive" if col in data.schema.sensitive else ""
        )
        if kind is ColumnType.NUMERICAL:
            summary = f"{values.min():g} .. {values.max():g} (median {values.median():g})"
        else:
            top = values.value_counts().head(3)
            summary = ", ".join(f"{v} ({c})" for v, c in top.items())
        rows.append(
            {
                "column": col,
                "type": str(kind),
                "role": role,
                "distinct": values.nunique(),
                "summary": summary,
            }
        )
    return pd.DataFrame(rows)
