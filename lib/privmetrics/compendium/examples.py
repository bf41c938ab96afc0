"""Tiny worked examples for the book and the docs."""

from __future__ import annotations

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
