"""Column types and attacker roles of a tabular dataset.

A :class:`Schema` says, for every column, whether it is numerical, categorical or binary
(the three attribute domains of Section 3 of the paper: R, Sigma* and {0, 1}) and which columns the
reconstruction metrics treat as the attacker's *key* attributes A_K (what the attacker already
knows about a person) and as the *sensitive* attributes A_S (what the attacker tries to infer).
It may also carry the columns' declared public domain (:mod:`privmetrics.data.domain`), which the
differentially private synthesisers need.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from difflib import get_close_matches
from enum import StrEnum

import pandas as pd
import yaml

from privmetrics.data.domain import Bounds, DomainError, domain_to_dict, parse_domain


class SchemaError(ValueError):
    """A schema file or mapping that does not describe a schema; the message says what to fix."""


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """ " (did you mean 'x'?)" for the closest choice, or "" when none is close."""
    close = get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class ColumnType(StrEnum):
    NUMERICAL = "numerical"
    CATEGORICAL = "categorical"
    BINARY = "binary"


@dataclass(frozen=True)
class Schema:
    """Column types plus the key and sensitive attributes used by reconstruction metrics.

    ``columns`` maps each column name to its :class:`ColumnType`, in the frame's column order.
    ``key`` (A_K) and ``sensitive`` (A_S) are disjoint lists of column names. ``domain`` maps
    some or all columns to their public domain (:func:`privmetrics.data.domain.parse_domain` forms).
    """

    columns: Mapping[str, ColumnType]
    key: tuple[str, ...] = ()
    sensitive: tuple[str, ...] = ()
    description: str = ""
    notes: Mapping[str, str] = field(default_factory=dict)
    domain: Mapping = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", {c: ColumnType(t) for c, t in self.columns.items()})
        object.__setattr__(self, "key", tuple(self.key))
        object.__setattr__(self, "sensitive", tuple(self.sensitive))
        domain = parse_domain(self.domain)
        for col, entry in domain.items():
            if col not in self.columns:
                raise DomainError(f"the domain names column {col!r}, which the schema lacks")
            numerical = self.columns[col] is ColumnType.NUMERICAL
            if numerical != isinstance(entry, Bounds):
                expected = "low/high bounds" if numerical else "a list of categories"
                raise DomainError(
                    f"column {col!r} is {self.columns[col]}: its domain needs {expected}"
                )
        object.__setattr__(self, "domain", domain)

    @property
    def names(self) -> list[str]:
        return list(self.columns)

    @property
    def numerical(self) -> list[str]:
        return [c for c, t in self.columns.items() if t is ColumnType.NUMERICAL]

    @property
    def categorical(self) -> list[str]:
        """Categorical *and* binary columns: every metric treats a binary column as a two-level category."""
        return [c for c, t in self.columns.items() if t is not ColumnType.NUMERICAL]

    def with_roles(
        self, key: Iterable[str] | None = None, sensitive: Iterable[str] | None = None
    ) -> Schema:
        """A copy with other key and/or sensitive attributes (validated by :func:`validate`)."""
        return replace(
            self,
            key=tuple(self.key if key is None else key),
            sensitive=tuple(self.sensitive if sensitive is None else sensitive),
        )

    def subset(self, columns: Iterable[str]) -> Schema:
        """The schema restricted to ``columns`` (roles outside them are dropped)."""
        keep = list(columns)
        return replace(
            self,
            columns={c: self.columns[c] for c in keep},
            key=tuple(c for c in self.key if c in keep),
            sensitive=tuple(c for c in self.sensitive if c in keep),
            domain={c: d for c, d in self.domain.items() if c in keep},
        )

    # --- persistence -------------------------------------------------------------------------
    def to_dict(self) -> dict:
        out = {
            "columns": {c: str(t) for c, t in self.columns.items()},
            "key": list(self.key),
            "sensitive": list(self.sensitive),
        }
        if self.domain:
            out["domain"] = domain_to_dict(self.domain)
        return out

    FIELDS = ("columns", "key", "sensitive", "domain")

    @classmethod
    def from_dict(cls, d: Mapping) -> Schema:
        """A schema from its mapping form, checked field by field (unknown fields, wrong types and
        unknown column types are errors that name the field and suggest the closest valid one)."""
        if not isinstance(d, Mapping):
            raise SchemaError(f"a schema is a mapping with fields {list(cls.FIELDS)}, got {d!r}")
        for name in d:
            if name not in cls.FIELDS:
                raise SchemaError(
                    f"unknown field {name!r}{did_you_mean(name, cls.FIELDS)}; a schema has "
                    f"{', '.join(cls.FIELDS)}"
                )
        if not isinstance(d.get("columns"), Mapping) or not d["columns"]:
            raise SchemaError(
                "'columns' must map each column name to numerical, categorical or binary"
            )
        kinds = [str(t) for t in ColumnType]
        for col, kind in d["columns"].items():
            if str(kind) not in kinds:
                raise SchemaError(
                    f"column {col!r} has type {kind!r}{did_you_mean(kind, kinds)}; use one of "
                    f"{', '.join(kinds)}"
                )
        for role in ("key", "sensitive"):
            names = d.get(role) or []
            if isinstance(names, str) or not all(isinstance(n, str) for n in names):
                raise SchemaError(f"'{role}' must be a list of column names, got {names!r}")
            for n in names:
                if n not in d["columns"]:
                    raise SchemaError(
                        f"{role} attribute {n!r} is not a column{did_you_mean(n, d['columns'])}"
                    )
        both = sorted(set(d.get("key") or []) & set(d.get("sensitive") or []))
        if both:
            raise SchemaError(
                f"attribute(s) {both} are both key and sensitive: remove them from one"
            )
        return cls(
            columns=dict(d["columns"]),
            key=d.get("key", ()),
            sensitive=d.get("sensitive", ()),
            domain=d.get("domain") or {},
        )

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    @classmethod
    def from_yaml(cls, path) -> Schema:
        with open(path) as fh:
            return cls.from_dict(yaml.safe_load(fh))


def infer_schema(frame: pd.DataFrame, max_categories: int = 20) -> Schema:
    """Guess column types: two distinct values -> binary, non-numeric or few distinct integers -> categorical.

    A numeric column with at most ``max_categories`` distinct *integer* values is taken as categorical
    (codes such as 1..5); floats with a fractional part are always numerical. A datetime column is
    numerical (the audit reads it as days since 1970-01-01).
    """
    columns = {}
    for name, col in frame.items():
        values = col.dropna()
        n_unique = values.nunique()
        if n_unique <= 2:
            columns[name] = ColumnType.BINARY
        elif pd.api.types.is_datetime64_any_dtype(col):
            columns[name] = ColumnType.NUMERICAL
        elif not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            columns[name] = ColumnType.CATEGORICAL
        elif n_unique <= max_categories and (values == values.round()).all():
            columns[name] = ColumnType.CATEGORICAL
        else:
            columns[name] = ColumnType.NUMERICAL
    return Schema(columns=columns)
