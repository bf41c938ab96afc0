"""Singling out, the first of the three risks by which European practice judges anonymisation
(Article 29 Working Party, Opinion 05/2014), as Giomi et al.'s attack with a control set
(PoPETs 2023, Section 4.1; the anonymeter framework; Cohen and Nissim, PNAS 2020, for the
notion of a predicate that singles out). :class:`SinglingOut` is the attack in the package's one
shape (:mod:`.shape`); :func:`singling_out` does the work.

The attacker writes predicates from the release alone, each one that the release matches for
exactly one row, and bets that it singles out someone in the training data too:

* **univariate**: for every column, each value that occurs once in the release (``column ==
  value``), the smallest and largest number (``<= min``, ``>= max``) and, when one value is
  missing, ``is missing``;
* **multivariate** (the default): a random release row and ``n_cols`` random columns; each
  condition takes the row's value, as ``==`` for a category and, for a number, ``>=`` when it
  lies above the release's median and ``<=`` otherwise (the rarer side), ``is missing`` for a
  gap. Batches are drawn until ``targets`` distinct predicates single out in the release or
  ``max_attempts`` rows have been tried.

A predicate succeeds when it matches exactly one row of the training data (main attack) or of
the control set (control). Baseline: random predicates over the release's values and random
operators. The control set's successes are rescaled to the training table's size when the two
differ, by Giomi et al.'s model: a predicate that matches a random person with probability w
singles out in n rows with probability n w (1 - w)^(n - 1); the successes of the predicates on
subsamples of the control set, at ten sizes, fix an effective w and a scale, and the control's
count is multiplied by the model's ratio at the two sizes.

That rescaling is the method's weak point: on generated tables, a release of *new* people from the
same population, with a control set a fifth of the training table's size, read a singling-out
risk of about 0.2 with an interval clear of 0, in anonymeter as here; at equal sizes (no
rescaling) it reads 0. A control set far from the training table's size therefore gets a warning
(:data:`SIZE_RATIO`), and the audit does not measure singling out then.

Our choices where anonymeter differs (anonymeter 1.1.0): rows are counted as they are (anonymeter
drops duplicate rows first, so two identical people can be "singled out"); the rates are over the
predicates actually found (anonymeter divides by ``n_attacks`` even when it found fewer, which
biases the risk low, LeakPro #182); a category is compared by its code, a number by value, and a
missing value satisfies only ``is missing``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.optimize import curve_fit

from privmetrics.attacks.risk import Rate, Risk
from privmetrics.attacks.shape import ReleaseAttack
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError, check_count

EQ, GE, LE, MISSING = 0, 1, 2, 3  # the operators of a condition
# the largest ratio of the training table's and the control set's sizes (either way) at which a
# release of new people read no singling-out risk on generated tables (1.5 already did, twice)
SIZE_RATIO = 1.25


class ControlSizeWarning(UserWarning):
    """The control set's size is far from the training table's (module doc)."""


def sizes_comparable(training_rows: int, control_rows: int) -> bool:
    """Whether a control set of ``control_rows`` can stand beside ``training_rows`` rows."""
    larger, smaller = max(training_rows, control_rows), min(training_rows, control_rows)
    return larger <= SIZE_RATIO * smaller + 1e-9


BLOCK_CELLS = 2**24  # (predicates x rows) booleans evaluated at once


def _values(tables: list[pd.DataFrame], columns: list[str], schema: Schema) -> list[np.ndarray]:
    """Every table as one float matrix: numbers as they are, categories as shared codes; NaN
    for a missing value."""
    out = [np.empty((len(t), len(columns))) for t in tables]
    for j, col in enumerate(columns):
        if col in schema.numerical:
            for matrix, table in zip(out, tables, strict=True):
                matrix[:, j] = table[col].to_numpy(float)
            continue
        values = pd.concat([t[col] for t in tables], ignore_index=True).astype(object)
        codes = pd.factorize(values)[0].astype(float)  # -1 for missing
        codes[codes < 0] = np.nan
        start = 0
        for matrix, table in zip(out, tables, strict=True):
            matrix[:, j] = codes[start : start + len(table)]
            start += len(table)
    return out


TESTS = {  # a slot's operator as a comparison of a column's values with its level
    EQ: np.equal,
    GE: np.greater_equal,
    LE: np.less_equal,
    MISSING: lambda column, _: np.isnan(column),
}


def counts(values: np.ndarray, cols: np.ndarray, ops: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """How many rows of ``values`` each predicate matches: predicate i is the conjunction over
    its slots j of (column ``cols[i, j]``, operator ``ops[i, j]``, value ``levels[i, j]``).

    Each slot is evaluated once per operator, on the predicates that use it (a comparison with
    NaN is False, so a missing value matches only ``MISSING``)."""
    n = len(cols)
    by_column = np.ascontiguousarray(values.T)  # (columns, rows): a slot gathers whole rows
    block = max(1, BLOCK_CELLS // max(1, len(values)))
    found = np.empty(n, dtype=np.int64)
    for start in range(0, n, block):
        c, o, v = (a[start : start + block] for a in (cols, ops, levels))
        match = np.ones((len(c), len(values)), dtype=bool)
        for j in range(c.shape[1]):
            for op, test in TESTS.items():
                which = np.flatnonzero(o[:, j] == op)
                if len(which):
                    with np.errstate(invalid="ignore"):
                        match[which] &= test(by_column[c[which, j]], v[which, j, None])
        found[start : start + block] = match.sum(1)
    return found


def _distinct(cols, ops, levels) -> np.ndarray:
    """Positions of the first occurrence of each distinct predicate (slots in column order)."""
    order = np.argsort(cols, axis=1)
    key = np.concatenate(
        [np.take_along_axis(a, order, 1).astype(float) for a in (cols, ops, levels)], axis=1
    )
    key = np.where(np.isnan(key), -np.inf, key)
    _, first = np.unique(key, axis=0, return_index=True)
    return np.sort(first)


def univariate_predicates(values: np.ndarray, numeric: np.ndarray):
    """Every one-condition predicate of the module doc that singles out in ``values``."""
    cols, ops, levels = [], [], []
    for j in range(values.shape[1]):
        column = values[:, j]
        present = column[~np.isnan(column)]
        if np.isnan(column).sum() == 1:
            cols.append(j), ops.append(MISSING), levels.append(np.nan)
        if numeric[j] and len(present):
            cols += [j, j]
            ops += [LE, GE]
            levels += [present.min(), present.max()]
        unique, seen = np.unique(present, return_counts=True)
        rare = unique[seen == 1]
        cols += [j] * len(rare)
        ops += [EQ] * len(rare)
        levels += list(rare)
    shaped = [np.array(a)[:, None] for a in (cols, ops, levels)]
    shaped[0], shaped[1] = shaped[0].astype(np.int64), shaped[1].astype(np.int64)
    return shaped


def multivariate_predicates(values, numeric, n_cols, n_rows, rng):
    """``n_rows`` predicates from random rows and random columns (module doc)."""
    rows = rng.integers(len(values), size=n_rows)
    cols = np.argsort(rng.random((n_rows, values.shape[1])), axis=1)[:, :n_cols]
    levels = values[rows[:, None], cols]
    with np.errstate(invalid="ignore"):
        medians = np.nanmedian(values, axis=0) if len(values) else np.zeros(values.shape[1])
    ops = np.where(numeric[cols], np.where(levels > medians[cols], GE, LE), EQ)
    ops = np.where(np.isnan(levels), MISSING, ops)
    return cols, ops, levels


def random_predicates(values, numeric, n_cols, n, rng):
    """The baseline's predicates: random columns, for each a value it takes somewhere in the
    release and a random operator (a category: ``==``; a number: ``==``, ``>=`` or ``<=``)."""
    cols = np.argsort(rng.random((n, values.shape[1])), axis=1)[:, :n_cols]
    rows = rng.integers(len(values), size=cols.shape)
    levels = values[rows, cols]
    ops = np.where(numeric[cols], rng.choice([EQ, GE, LE], size=cols.shape), EQ)
    return cols, np.where(np.isnan(levels), MISSING, ops), levels


def _model(n, w, scale):
    """Expected successes in n rows: scale x the integral of n w' (1 - w')^(n - 1) over
    w' in [0, w], (1 - (n w + 1)(1 - w)^n) / (n + 1)."""
    return scale * (1 - (n * w + 1) * (1 - w) ** n) / (n + 1)


def size_correction(values, predicates, target_rows: int, rng) -> float:
    """The factor that takes a count of singling-out predicates on ``values`` (the control set)
    to a table of ``target_rows`` rows (module doc); 1 when the sizes are equal."""
    n = len(values)
    if n == target_rows:
        return 1.0
    sizes, hits = [], []
    for size in np.linspace(min(1000, n), n, 10).astype(int):
        for _ in range(5):
            part = values[rng.choice(n, size=size, replace=False)]
            sizes.append(size)
            hits.append((counts(part, *predicates) == 1).sum())
    sizes, hits = np.array(sizes, float), np.array(hits, float)
    w0 = 1 / sizes.max()
    start = (w0, max(hits.max(), 1) / _model(sizes.max(), w0, 1.0))
    try:
        (w, scale), _ = curve_fit(_model, sizes, hits, p0=start, bounds=(0, (1, np.inf)))
    except RuntimeError:  # no fit: leave the count as measured
        return 1.0
    at_control = _model(n, w, scale)
    return float(_model(target_rows, w, scale) / at_control) if at_control > 0 else 1.0


def singling_out(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    control: pd.DataFrame | None = None,
    mode: str = "multivariate",
    targets: int = 500,
    n_cols: int = 3,
    max_attempts: int | None = None,
    seed: int = 0,
) -> Risk:
    """The singling-out risk of ``synthetic`` for the rows of ``real`` (module doc).
    ``max_attempts``: release rows tried for multivariate predicates (default 20 x targets)."""
    if mode not in ("univariate", "multivariate"):
        raise InvalidInputError(f"mode must be 'univariate' or 'multivariate', got {mode!r}")
    targets = check_count("targets", targets)
    columns = list(real.columns)
    for name, table in (("synthetic", synthetic), ("control", control)):
        if table is not None and (absent := [c for c in columns if c not in table.columns]):
            raise InvalidInputError(f"singling out: the {name} table has no column {absent}")
    n_cols = check_count("n_cols", n_cols)
    if n_cols > len(columns):
        raise InvalidInputError(f"n_cols={n_cols} exceeds the table's {len(columns)} columns")
    rng = np.random.default_rng(seed)
    tables = [real, synthetic] + ([control] if control is not None else [])
    values = _values(tables, columns, schema)
    ours, release = values[0], values[1]
    numeric = np.array([c in schema.numerical for c in columns])
    if mode == "univariate":
        found = univariate_predicates(release, numeric)
        keep = np.flatnonzero(counts(release, *found) == 1)
        keep = rng.permutation(keep[np.isin(keep, _distinct(*found))])[:targets]
        predicates = tuple(a[keep] for a in found)
    else:
        budget = max_attempts or 20 * targets
        parts, tried = [], 0
        while tried < budget and sum(len(p[0]) for p in parts) < targets:
            batch = multivariate_predicates(
                release, numeric, n_cols, min(1000, budget - tried), rng
            )
            tried += len(batch[0])
            single = counts(release, *batch) == 1
            parts.append(tuple(a[single] for a in batch))
            merged = tuple(np.concatenate(a) for a in zip(*parts, strict=True))
            parts = [tuple(a[_distinct(*merged)] for a in merged)]
        predicates = tuple(a[:targets] for a in parts[0]) if parts else None
    if predicates is None or not len(predicates[0]):
        raise InvalidInputError(
            "no predicate singles out a row of the release: every combination of values tried "
            "matches several rows (nothing to attack)"
        )
    found = len(predicates[0])
    main = Rate(int((counts(ours, *predicates) == 1).sum()), found)
    checked = None
    if control is not None and not sizes_comparable(len(real), len(control)):
        warnings.warn(
            f"the control set has {len(control):,} rows and the training table {len(real):,}: "
            "singling out is compared at the training size through a model that can read risk "
            "for a release of new people; use a control set of about the training table's size",
            ControlSizeWarning,
            stacklevel=2,
        )
    if control is not None:
        hits = (counts(values[2], *predicates) == 1).sum()
        hits *= size_correction(values[2], predicates, len(real), rng)
        checked = Rate(min(float(hits), found), found)
    guesses = random_predicates(release, numeric, 1 if mode == "univariate" else n_cols, found, rng)
    baseline = Rate(int((counts(ours, *guesses) == 1).sum()), found)
    return Risk(f"singling out ({mode})", main, baseline, checked)


class SinglingOut(ReleaseAttack):
    """The singling-out attack of the module doc in the package's shape (:mod:`.shape`):
    ``targets`` predicates written from the release (``mode`` univariate or multivariate, on
    ``n_cols`` columns each), bet to single out one person of ``real`` and, as control, of
    ``control``."""

    def __init__(self, real, release, control=None, schema=None, mode="multivariate",
                 targets=500, n_cols=3, max_attempts=None):  # fmt: skip
        super().__init__(real, release, control, schema)
        self.mode = mode
        self.targets = targets
        self.n_cols = n_cols
        self.max_attempts = max_attempts

    def evaluate(self, seed: int = 0) -> Risk:
        real, schema = self.tables()
        return singling_out(real, self.release, schema, self.control, self.mode, self.targets,
                            self.n_cols, self.max_attempts, seed)  # fmt: skip
