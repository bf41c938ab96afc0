import numpy as np
import pandas as pd
import pytest

from privmetrics.schema import Schema


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
