"""Tiny worked examples for the book and the docs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privmetrics.data.schema import Schema


def five_row_example() -> tuple[pd.DataFrame, dict[str, pd.DataFrame], Schema]:
    """A five-patient table and three anonymised versions: Real (a copy), Noisy and Unrelated."""
    schema = Schema(
        {"sex": "binary", "age": "numerical", "height": "numerical", "disease": "categorical"},
        key=["sex", "age", "height"],
        sensitive=["disease"],
    )
    real = pd.DataFrame(
        {
            "sex": ["M", "M", "F", "F", "M"],
            "age": [34.0, 36.0, 81.0, 52.0, 45.0],
            "height": [180.0, 185.0, 140.0, 165.0, 172.0],
            "disease": ["none", "diabetes", "alzheimers", "asthma", "none"],
        }
    )
    noisy = real.assign(
        age=real["age"] + [2, -3, 1, 4, -2], height=real["height"] + [3, -2, 5, -4, 1]
    )
    noisy.loc[[1, 3], "disease"] = ["none", "diabetes"]
    unrelated = pd.DataFrame(
        {
            "sex": ["F", "F", "M", "M", "F"],
            "age": [20.0, 95.0, 60.0, 27.0, 70.0],
            "height": [199.0, 150.0, 158.0, 191.0, 147.0],
            "disease": ["asthma", "none", "diabetes", "alzheimers", "diabetes"],
        }
    )
    return real, {"Real": real.copy(), "Noisy": noisy, "Unrelated": unrelated}, schema


def leaky_release(real: pd.DataFrame, share: float = 0.05, seed: int = 0) -> pd.DataFrame:
    """The real rows with ``share`` of the cells replaced by another row's value of the same column:
    a release that copies people with a little noise, the case an audit must flag."""
    rng = np.random.default_rng(seed)
    out = real.reset_index(drop=True).copy()
    for col in out.columns:
        rows = np.flatnonzero(rng.random(len(out)) < share)
        out.loc[rows, col] = out[col].to_numpy()[rng.integers(0, len(out), len(rows))]
    return out


def shuffled_release(real: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Every column permuted on its own: the marginals of the real table and no row of anyone,
    the case an audit must not flag (and that Random-anchored positions used to read as risky)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: real[c].to_numpy()[rng.permutation(len(real))] for c in real.columns})


def gaussian_copula_release(real: pd.DataFrame, rows: int, seed: int = 0) -> pd.DataFrame:
    """A release made elsewhere, as a user would make it: SDV's GaussianCopulaSynthesizer with the
    metadata SDV detects from the table, fitted on ``real`` (gaps included: SDV learns and
    reproduces them). Seeded through numpy and torch, which SDV draws from."""
    import warnings

    import torch
    from sdv.metadata import Metadata
    from sdv.single_table import GaussianCopulaSynthesizer

    np.random.seed(seed)  # noqa: NPY002  (SDV draws from the global generator)
    torch.manual_seed(seed)
    with warnings.catch_warnings():  # SDV's notices about detected types and its own upgrades
        warnings.simplefilter("ignore")
        synthesiser = GaussianCopulaSynthesizer(Metadata.detect_from_dataframe(real))
        synthesiser.fit(real)
        return synthesiser.sample(rows)
