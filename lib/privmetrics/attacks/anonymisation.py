"""Linkability and inference, two of the three risks by which European data-protection practice
judges anonymisation (Article 29 Working Party, Opinion 05/2014: singling out, linkability,
inference), as attacks on a release with a control set (Giomi et al., PoPETs 2023, Section 4;
the anonymeter framework). Each returns a :class:`~.risk.Risk`: the main attack on targets from
the training table, the same attack on targets from the control set, and a naive baseline.
:class:`Linkability` and :class:`Inference` are the attacks in the package's one shape
(:mod:`.shape`); :func:`linkability` and :func:`inference` do the work.

**Linkability.** The attacker holds two tables about the same people that share no column:
``known = (A, B)``, a split of some columns. For each target, the ``n_neighbours`` nearest release
rows on A and, separately, on B (:mod:`privmetrics.geometry.gower`); the release links the
target's two halves when the two sets share a row. Baseline: two random sets of release rows.
Ties: on a half that several release rows share at the least distance (coarse columns: many
people give the same answers) the attacker must choose; with one neighbour each half's choice
is drawn uniformly among its ties, independently, and a target counts as linked with the chance
that both fall on one row, |T_A & T_B| / (|T_A| |T_B|) (the expected count, computed exactly,
:func:`~privmetrics.geometry.gower.tied_link_share`), so the risk does not depend on the release's
row order. The first of the ties instead (our rule until issue 62) linked 9.6% of the targets
of an exact copy of the fair survey on two halves of four coded columns against 5.6% for
anonymeter, and moved when the release's rows were shuffled; the expected count is 6.0%
(``coarse_keys_comparison`` in :mod:`privmetrics.compendium.book.anonymeter`). With more
neighbours the sets are the first ``n_neighbours`` in position order.

**Inference.** The attacker knows a target's ``known`` columns (default: every column but the
secret) and guesses its ``secret`` as the value of the nearest release row on them. A guess is
right when it equals the secret (a category) or lies within ``tolerance`` of it relative to the
secret, |guess - secret| <= tolerance |secret| (a number; anonymeter measures the tolerance
relative to the *guess*, which is asymmetric and fails for negative values). Baseline: the secret
of a random release row. Targets whose secret is missing are left out: guessing "missing" is not
learning a secret.

Targets are ``targets`` rows drawn without replacement (all rows of a smaller table), seeded.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privmetrics.attacks.risk import Rate, Risk
from privmetrics.attacks.shape import ReleaseAttack
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError, check_count, check_positive
from privmetrics.geometry.gower import gower_coordinates, gower_knn, tied_link_share


def _targets(table: pd.DataFrame, count: int, rng) -> pd.DataFrame:
    chosen = rng.choice(len(table), size=min(count, len(table)), replace=False)
    return table.iloc[np.sort(chosen)]


def _check_columns(columns, frames: dict[str, pd.DataFrame | None], what: str) -> list[str]:
    columns = list(columns)
    if not columns:
        raise InvalidInputError(f"{what} needs at least one column")
    for name, frame in frames.items():
        if frame is not None and (absent := [c for c in columns if c not in frame.columns]):
            raise InvalidInputError(f"{what}: the {name} table has no column {absent}")
    return columns


def _nearest(targets, synthetic, columns, schema, k) -> np.ndarray:
    query, index = gower_coordinates(targets, synthetic, columns, schema)
    return gower_knn(query, index, k)[1]


def linkability(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    known: tuple[list[str], list[str]],
    control: pd.DataFrame | None = None,
    targets: int = 500,
    n_neighbours: int = 1,
    seed: int = 0,
) -> Risk:
    """The linkability risk of ``synthetic`` for the rows of ``real`` (module doc)."""
    tables = {"real": real, "synthetic": synthetic, "control": control}
    if len(known) != 2:
        raise InvalidInputError(
            "known must be two lists of columns, one per table the attacker holds"
        )
    a, b = (_check_columns(cols, tables, "linkability's known") for cols in known)
    if set(a) & set(b):
        raise InvalidInputError(f"the two halves of known share columns {sorted(set(a) & set(b))}")
    count = check_count("targets", targets)
    k = check_count("n_neighbours", n_neighbours)
    if k > len(synthetic):
        raise InvalidInputError(f"n_neighbours={k} exceeds the release's {len(synthetic)} rows")
    rng = np.random.default_rng(seed)

    def linked(people: pd.DataFrame) -> Rate:
        if k == 1:  # the expected links over the ties' choices (module doc)
            halves = [gower_coordinates(people, synthetic, cols, schema) for cols in (a, b)]
            return Rate(float(tied_link_share(*halves).sum()), len(people))
        left = _nearest(people, synthetic, a, schema, k)
        right = _nearest(people, synthetic, b, schema, k)
        hits = (left[:, :, None] == right[:, None, :]).any((1, 2))
        return Rate(int(hits.sum()), len(people))

    main = linked(_targets(real, count, rng))
    checked = linked(_targets(control, count, rng)) if control is not None else None
    left, right = (_random_rows(rng, main.attempts, len(synthetic), k) for _ in range(2))
    hits = (left[:, :, None] == right[:, None, :]).any((1, 2))
    return Risk("linkability", main, Rate(int(hits.sum()), main.attempts), checked)


def _random_rows(rng, n: int, rows: int, k: int) -> np.ndarray:
    """``n`` sets of ``k`` distinct positions among ``rows``."""
    if k == 1:
        return rng.integers(rows, size=(n, 1))
    return np.argsort(rng.random((n, rows)), axis=1)[:, :k]


def inference(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    secret: str,
    known: list[str] | None = None,
    control: pd.DataFrame | None = None,
    targets: int = 500,
    tolerance: float = 0.05,
    seed: int = 0,
) -> Risk:
    """The inference risk of ``synthetic`` for ``secret`` of the rows of ``real`` (module doc)."""
    tables = {"real": real, "synthetic": synthetic, "control": control}
    (secret,) = _check_columns([secret], tables, "inference's secret")
    known = _check_columns(
        known if known is not None else [c for c in real.columns if c != secret],
        tables,
        "inference's known",
    )
    if secret in known:
        raise InvalidInputError(f"the secret {secret!r} cannot be among the known columns")
    count = check_count("targets", targets)
    tolerance = check_positive("tolerance", tolerance, allow_zero=True)
    numeric = secret in schema.numerical
    rng = np.random.default_rng(seed)

    def right(guesses: np.ndarray, truth: pd.Series) -> int:
        if numeric:
            truth = truth.to_numpy(float)
            ok = np.abs(guesses.astype(float) - truth) <= tolerance * np.abs(truth)
        else:
            ok = guesses == truth.to_numpy()
        return int(ok.sum())

    def attacked(table: pd.DataFrame) -> Rate:
        people = _targets(table[table[secret].notna()], count, rng)
        nearest = _nearest(people, synthetic, known, schema, 1)[:, 0]
        return Rate(right(synthetic[secret].to_numpy()[nearest], people[secret]), len(people))

    main = attacked(real)
    if not main.attempts:
        raise InvalidInputError(
            f"every value of the secret {secret!r} is missing in the real table"
        )
    checked = attacked(control) if control is not None else None
    truth = _targets(real[real[secret].notna()], count, rng)[secret]
    guesses = synthetic[secret].to_numpy()[rng.integers(len(synthetic), size=len(truth))]
    return Risk(f"inference ({secret})", main, Rate(right(guesses, truth), len(truth)), checked)


class Linkability(ReleaseAttack):
    """The linkability attack of the module doc in the package's shape (:mod:`.shape`): an
    attacker holding the ``known`` columns of the same people in two tables, ``known = (A, B)``,
    links them through the release; ``targets`` people of ``real`` and of ``control``."""

    def __init__(self, real, release, control=None, schema=None, known=((), ()), targets=500,
                 n_neighbours=1):  # fmt: skip
        super().__init__(real, release, control, schema)
        self.known = known
        self.targets = targets
        self.n_neighbours = n_neighbours

    def evaluate(self, seed: int = 0) -> Risk:
        real, schema = self.tables()
        return linkability(real, self.release, schema, self.known, self.control, self.targets,
                           self.n_neighbours, seed)  # fmt: skip


class Inference(ReleaseAttack):
    """The inference attack of the module doc in the package's shape (:mod:`.shape`): an attacker
    who knows the ``known`` columns of ``targets`` people guesses their ``secret`` from the nearest
    release row (a number within ``tolerance`` of it counts as right)."""

    def __init__(self, real, release, control=None, schema=None, secret=None, known=None,
                 targets=500, tolerance=0.05):  # fmt: skip
        super().__init__(real, release, control, schema)
        self.secret = secret
        self.known = known
        self.targets = targets
        self.tolerance = tolerance

    def evaluate(self, seed: int = 0) -> Risk:
        real, schema = self.tables()
        if self.secret is None:
            raise InvalidInputError("inference needs the secret= attribute the attacker wants")
        return inference(real, self.release, schema, self.secret, self.known, self.control,
                         self.targets, self.tolerance, seed)  # fmt: skip
