"""The leakage ladder's releases: fresh rows of the population with a known dose of training rows
planted in them, exactly or jittered (the calibration controls of Experiment 3).

A release of ``n`` rows from a training table ``Y`` and a table of *fresh* rows (people of the
same population who are in no training table and are never scored as non-members):

1. every training row is planted with probability ``dose``, independently (a Bernoulli draw per
   row, so that a target of the membership game is planted in a member release with probability
   ``dose`` and the expected success of a simple attack can be computed by hand);
2. a planted row is copied exactly when ``jitter`` is 0; otherwise every numerical value moves by
   Gaussian noise of standard deviation ``jitter`` times the column's standard deviation in ``Y``
   (rounded back to whole numbers in a whole-number column, kept inside the column's range in
   ``Y``), and every categorical or binary value is swapped, with probability ``jitter``, for
   another value of the column drawn uniformly from those ``Y`` holds;
3. the rest of the ``n`` rows are fresh rows drawn without replacement, and the release is
   shuffled.

At ``dose`` 0 the release is fresh rows only: the honest safe end of every scale (it holds no
one, and unlike Algorithm 22's Random it draws nothing from the training table's own values).
Since the expected share of planted rows is ``dose``, a release of ``n = len(Y)`` rows holds
``dose * n`` copies on average.

**Expected AUC of the distance attack** (a member scored by minus its distance to the nearest
released row): an exactly planted member is at distance 0 and beats every non-member (fresh rows
and members are distinct people with distinct records); an unplanted member and a non-member are
exchangeable, neither in the release; so E[AUC] = p + (1 - p) / 2 = 1/2 + p/2, with p the share
of members planted (:func:`expected_distance_auc`).

A *control*, not a synthesiser: it needs the fresh rows beside the training table
(``fit(frame, schema, fresh)``), so it is registered in :data:`CONTROLS` (made by
:func:`make_control`), which the synthesiser tests and benchmarks do not iterate; its code
fingerprint is read like a synthesiser's (:func:`~.cache.code_fingerprint`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError, check_positive
from privmetrics.synthesisers.base import Synthesiser


def expected_distance_auc(planted_share: float) -> float:
    """E[AUC] of the distance attack on exact copies, for a share ``planted_share`` of the
    members planted (module doc): 1/2 + planted_share / 2."""
    return 0.5 + planted_share / 2


def check_probability(name: str, value) -> float:
    """A probability in [0, 1]."""
    value = check_positive(name, value, allow_zero=True)
    if value > 1:
        raise InvalidInputError(f"{name} must be a probability in [0, 1], got {value!r}")
    return value


class Planted(Synthesiser):
    """Fresh population rows with each training row planted with probability ``dose``, exactly
    (``jitter`` 0) or jittered (module doc). ``fresh``: the fresh rows, given to :meth:`fit`.
    After sampling, ``planted_`` marks the training rows the release holds (by position)."""

    needs_fresh = True

    def __init__(self, dose: float = 0.0, jitter: float = 0.0, seed: int = 0):
        super().__init__(seed)
        self.dose = dose
        self.jitter = jitter

    def fit(self, frame: pd.DataFrame, schema: Schema, fresh: pd.DataFrame | None = None):
        check_probability("dose", self.dose)
        check_probability("jitter", self.jitter)
        if fresh is None:
            raise InvalidInputError(
                "a planted release needs fresh rows: people of the same population in no "
                "training table (fit(frame, schema, fresh))"
            )
        absent = [c for c in schema.names if c not in fresh.columns]
        if absent:
            raise InvalidInputError(f"the fresh rows lack column(s) {absent}")
        self.fresh_ = fresh[list(schema.names)].reset_index(drop=True)
        return super().fit(frame, schema)

    def fit_sample(self, frame, schema, n=None, fresh=None) -> pd.DataFrame:
        return self.fit(frame, schema, fresh).sample(n if n is not None else len(frame))

    def _fit(self, frame):
        self.frame_ = frame

    def _sample(self, n):
        n = len(self.frame_) if n is None else n
        rng = self._rng()
        self.planted_ = rng.random(len(self.frame_)) < self.dose
        planted = self.frame_[self.planted_]
        if len(planted) > n:  # a release smaller than its dose of copies keeps n of them
            planted = planted.iloc[np.sort(rng.choice(len(planted), n, replace=False))]
        planted = self._jittered(planted.reset_index(drop=True), self._rng(1))
        need = n - len(planted)
        if need > len(self.fresh_):
            raise InvalidInputError(
                f"a planted release of {n:,} rows needs {need:,} fresh rows, got {len(self.fresh_):,}"
            )
        fresh = self.fresh_.iloc[rng.choice(len(self.fresh_), need, replace=False)]
        out = pd.concat([planted, fresh], ignore_index=True)
        return out.iloc[rng.permutation(len(out))].reset_index(drop=True)

    def _jittered(self, rows: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
        if self.jitter == 0 or rows.empty:
            return rows
        out = rows.copy()
        for col in self.columns_:
            values = self.frame_[col]
            if col in self.schema_.numerical:
                moved = out[col].astype(float) + rng.normal(
                    0, self.jitter * float(values.std(ddof=0)), len(out)
                )
                if (values.dropna() == values.dropna().round()).all():
                    moved = moved.round()
                out[col] = moved.clip(values.min(), values.max())
            else:
                choices = np.asarray(pd.unique(values.dropna()), dtype=object)
                swap = rng.random(len(out)) < self.jitter
                if len(choices) < 2 or not swap.any():
                    continue
                current = out[col].to_numpy(dtype=object)
                # another value: a uniform draw among the others (shift by 1..k-1 positions)
                at = pd.Index(choices).get_indexer(current[swap])
                shift = rng.integers(1, len(choices), swap.sum())
                other = choices[(np.where(at < 0, 0, at) + shift) % len(choices)]
                current[swap] = other
                out[col] = current
        return out


# the releases made from a training table and fresh rows (the games pass them their fresh rows)
CONTROLS: dict[str, type[Synthesiser]] = {"planted": Planted}
Planted.name = "planted"


def make_control(name: str, **params) -> Synthesiser:
    """An unfitted control release by name, e.g. ``make_control("planted", dose=0.05, seed=1)``."""
    if name not in CONTROLS:
        raise KeyError(f"unknown control {name!r}; registered: {', '.join(CONTROLS)}")
    return CONTROLS[name](**params)
