import numpy as np
import pandas as pd
import pytest

from privmetrics.data.schema import Schema


@pytest.fixture
def tiny():
    """A six-row mixed table with its schema (key: sex, age; sensitive: disease)."""
    frame = pd.DataFrame(
        {
            "sex": ["F", "M", "F", "M", "F", "M"],
            "age": [30.0, 40.0, 50.0, 60.0, 70.0, 80.0],
            "disease": ["a", "b", "a", "c", "b", "c"],
            "charge": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
    schema = Schema(
        columns={
            "sex": "binary",
            "age": "numerical",
            "disease": "categorical",
            "charge": "numerical",
        },
        key=("sex", "age"),
        sensitive=("disease",),
    )
    return frame, schema


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def make_secret_table():
    """The factory :func:`_secret_table`, for module-scoped fixtures."""
    return _secret_table


def _secret_table(rows: int, seed: int, shares=(0.25, 0.25, 0.25, 0.25), sex: bool = True):
    """Known attributes (age, region, income and optionally sex) and a categorical ``secret`` drawn
    independently of them with the given value shares: nothing but a copy of the rows reveals it."""
    rng = np.random.default_rng(seed)
    columns = {
        "age": rng.integers(18, 90, rows).astype(float),
        "sex": rng.choice(["F", "M"], rows),
        "region": rng.choice(list("abcdefgh"), rows),
        "income": rng.lognormal(10, 1, rows).round(-2),
        "secret": rng.choice(["p", "q", "r", "s"], rows, p=list(shares)),
    }
    if not sex:
        del columns["sex"]
    types = {"age": "numerical", "sex": "binary", "region": "categorical",
             "income": "numerical", "secret": "categorical"}  # fmt: skip
    domain = {"age": {"low": 0, "high": 120}, "sex": ["F", "M"], "region": list("abcdefgh"),
              "income": {"low": 0, "high": 1e7, "scale": "log"}, "secret": ["p", "q", "r", "s"]}  # fmt: skip
    frame = pd.DataFrame(columns)
    return frame, Schema(
        {c: types[c] for c in frame.columns},
        sensitive=["secret"],
        domain={c: domain[c] for c in frame.columns},
    )
