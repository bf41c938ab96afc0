import numpy as np
import pandas as pd
import pytest

from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError, validate


def test_valid_triple_has_no_remarks(tiny):
    frame, schema = tiny
    report = validate(frame, frame.copy(), schema)
    assert report.ok and report.unseen_categories == {}


def test_missing_column_is_named(tiny):
    frame, schema = tiny
    with pytest.raises(InvalidInputError, match=r"synthetic data lacks column\(s\) \['charge'\]"):
        validate(frame, frame.drop(columns="charge"), schema)


def test_extra_column_is_named(tiny):
    frame, schema = tiny
    with pytest.raises(InvalidInputError, match=r"real data has column\(s\) \['extra'\]"):
        validate(frame.assign(extra=1), frame, schema)


def test_nan_is_reported_with_counts(tiny):
    frame, schema = tiny
    synth = frame.copy()
    synth.loc[[0, 2], "age"] = np.nan
    with pytest.raises(
        InvalidInputError, match=r"missing values \(NaN\) in column\(s\) \{'age': 2\}"
    ):
        validate(frame, synth, schema)


def test_empty_frame(tiny):
    frame, schema = tiny
    with pytest.raises(InvalidInputError, match="synthetic data is empty"):
        validate(frame, frame.iloc[:0], schema)


def test_wrong_numeric_dtype(tiny):
    frame, schema = tiny
    with pytest.raises(InvalidInputError, match="'age' is declared numerical but has dtype object"):
        validate(frame.assign(age=frame["age"].astype(str)), frame, schema)


def test_binary_with_three_values(tiny):
    frame, schema = tiny
    with pytest.raises(
        InvalidInputError, match="'sex' is declared binary but has 3 distinct values"
    ):
        validate(frame, frame.assign(sex=["F", "M", "U", "F", "M", "F"]), schema)


def test_not_a_dataframe(tiny):
    frame, schema = tiny
    with pytest.raises(InvalidInputError, match="must be a pandas DataFrame, got ndarray"):
        validate(frame, frame.to_numpy(), schema)


def test_schema_must_be_schema(tiny):
    frame, _ = tiny
    with pytest.raises(InvalidInputError, match="schema must be a privmetrics Schema"):
        validate(frame, frame, {"sex": "binary"})


@pytest.mark.parametrize("role", ["key", "sensitive"])
def test_role_that_is_not_a_column(tiny, role):
    frame, schema = tiny
    bad = schema.with_roles(**{role: ["zipcode"]})
    if role == "sensitive":
        bad = bad.with_roles(key=["sex"])
    with pytest.raises(
        InvalidInputError, match=rf"{role} attribute\(s\) \['zipcode'\] are not columns"
    ):
        validate(frame, frame, bad)


def test_key_and_sensitive_must_be_disjoint(tiny):
    frame, schema = tiny
    with pytest.raises(InvalidInputError, match=r"\['sex'\] are both key and sensitive"):
        validate(frame, frame, schema.with_roles(sensitive=["sex"]))


def test_unseen_categories_are_reported_not_raised(tiny):
    frame, schema = tiny
    synth = frame.assign(disease=["a", "z", "a", "y", "b", "c"])
    report = validate(frame, synth, schema)
    assert report.unseen_categories == {"disease": ["y", "z"]}
    assert "disease" in str(report)


def test_synthetic_may_be_omitted(tiny):
    frame, schema = tiny
    assert validate(frame, None, schema).ok


def test_schema_round_trips_through_yaml(tiny, tmp_path):
    _, schema = tiny
    path = tmp_path / "schema.yml"
    path.write_text(schema.to_yaml())
    again = Schema.from_yaml(path)
    assert (
        again.columns == schema.columns
        and again.key == schema.key
        and again.sensitive == schema.sensitive
    )


def test_schema_views(tiny):
    _, schema = tiny
    assert schema.numerical == ["age", "charge"]
    assert schema.categorical == ["sex", "disease"]
    sub = schema.subset(["sex", "disease"])
    assert sub.key == ("sex",) and sub.names == ["sex", "disease"]


def test_infer_schema_on_mixed_types():
    from privmetrics.data.schema import infer_schema

    frame = pd.DataFrame(
        {
            "flag": [0, 1, 0, 1, 1, 0],
            "code": [1, 2, 3, 4, 5, 1],
            "name": list("abcdea"),
            "amount": [1.5, 2.25, 3.0, 4.75, 5.0, 6.1],
        }
    )
    schema = infer_schema(frame, max_categories=5)
    assert dict(schema.columns) == {
        "flag": "binary",
        "code": "categorical",
        "name": "categorical",
        "amount": "numerical",
    }
