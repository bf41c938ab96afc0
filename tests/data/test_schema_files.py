"""Schema files validated field by field, far outliers warned about, and pandas dtypes (dates,
categories, nullable integers) turned into plain columns and back exactly."""

import warnings

import numpy as np
import pandas as pd
import pytest

from privmetrics.data.schema import Schema, SchemaError
from privmetrics.data.validation import OutlierWarning
from privmetrics.metrics import compute


def test_a_far_outlier_in_the_real_table_warns(texas300):
    real, other, schema = texas300
    real = real.copy()
    real.loc[0, "TOTAL_CHARGES"] = 1e300
    with pytest.warns(OutlierWarning, match="real values .* TOTAL_CHARGES: 1e\\+300"):
        compute("DCR", real, other, schema)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OutlierWarning)
        compute("DCR", *texas300)  # the clean pair: no such warning


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "columns: {a: numerical}\nsensitve: [a]\n",
            "unknown field 'sensitve' .did you mean 'sensitive'",
        ),
        (
            "columns: {a: numerical, b: categorcal}\n",
            "type 'categorcal' .did you mean 'categorical'",
        ),
        ("columns: {a: numerical, b: binary}\nkey: a\n", "'key' must be a list"),
        (
            "columns: {a: numerical, b: binary}\nkey: [a, b]\nsensitive: [b]\n",
            "both key and sensitive",
        ),
        ("columns: {age: numerical}\nkey: [agee]\n", "'agee' is not a column .did you mean 'age'"),
    ],
)
def test_schema_files_are_validated_field_by_field(tmp_path, text, message):
    (tmp_path / "s.yml").write_text(text)
    with pytest.raises(SchemaError, match=message):
        Schema.from_yaml(tmp_path / "s.yml")


def test_dtypes_round_trip_exactly(make_dated):
    dated, DATED = make_dated
    from privmetrics.data.dtypes import plain, restore

    table = dated(tz="UTC").assign(
        ward=lambda t: pd.Categorical(t.ward, categories=list("abcdz")),
        beds=pd.array(np.arange(200) % 7, dtype="Int64"),
    )
    flat, types = plain(table)
    assert [str(d) for d in flat.dtypes] == ["float64", "float64", "object", "float64"]
    back = restore(flat, types)
    pd.testing.assert_series_equal(back.admitted, table.admitted.astype("datetime64[s, UTC]"))
    assert list(back.ward.cat.categories) == list("abcdz") and (back.ward == table.ward).all()
    assert back.beds.dtype == "Int64" and (back.beds == table.beds).all()
