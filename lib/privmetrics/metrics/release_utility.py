"""What a release is good for, measured beside its privacy: the utility half of a privacy-utility plot.

Three measures of a release against real rows, the same for every technique:

* **one-way TVD** and **two-way TVD**: the mean total variation distance of the release's one- and
  two-way marginals from the real table's
  (:func:`privmetrics.geometry.fidelity.marginal_distance`; 0 identical, 1 disjoint). The audit's
  utility panel (:mod:`privmetrics.audit.utility`) reads the same two numbers from
  :func:`marginal_utility`;
* **TSTR accuracy** (train on synthetic, test on real; Esteban et al. 2017, the "machine-learning
  efficacy" of SDMetrics and SynthEval): for each sensitive attribute (the schema's A_S; the last
  column when it names none), a depth-:data:`TREE_DEPTH` decision tree learns it from the other
  columns of the release and predicts it for real rows; the score is the mean accuracy. A
  numerical attribute is predicted as one of :data:`CLASSES` quantile classes of the real rows.
  The real rows are a **holdout** (rows of the same population the synthesiser never saw) when
  one is given, else the training table itself, as SDMetrics does: Real's own accuracy is then
  the tree's fit to its training rows, an upper end rather than a fair comparison.

A decision tree rather than a forest or boosting: it costs about 50 ms on 2,000 rows, so every
cell of the grid can pay for it, and a tree of depth 10 learns the interactions a synthesiser
keeps or loses. What a release "is good for" depends on the task; these are the common defaults
of the field's reports, not a judgement of any one use.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

from privmetrics.data.schema import Schema
from privmetrics.geometry.fidelity import marginal_distance

MEASURES = ("one-way TVD", "two-way TVD", "TSTR accuracy")
# whether a larger value is better, per measure (for a plot's axis label)
HIGHER_IS_BETTER = {"one-way TVD": False, "two-way TVD": False, "TSTR accuracy": True}
TREE_DEPTH = 10
CLASSES = 5


def marginal_utility(real: pd.DataFrame, other: pd.DataFrame, schema: Schema) -> dict[str, float]:
    """One- and two-way marginal TVD of ``other`` from ``real`` (the first two :data:`MEASURES`)."""
    return {
        "one-way TVD": marginal_distance(real, other, schema, order=1),
        "two-way TVD": marginal_distance(real, other, schema, order=2),
    }


def _codes(train: pd.Series, test: pd.Series, numerical: bool) -> tuple[np.ndarray, np.ndarray]:
    """Features of one column for a tree: numbers as floats (missing: -1 in the caller), categories
    as integer codes over the values of both tables."""
    if numerical:
        return train.to_numpy(float), test.to_numpy(float)
    levels = pd.Index(pd.unique(pd.concat([train, test], ignore_index=True).astype(str)))
    return levels.get_indexer(train.astype(str)), levels.get_indexer(test.astype(str))


def _target(train: pd.Series, test: pd.Series, numerical: bool) -> tuple[np.ndarray, np.ndarray]:
    """Class labels of the attribute to predict: categories as they are, numbers as
    :data:`CLASSES` quantile classes of the real (test) rows."""
    if not numerical:
        return train.astype(str).to_numpy(), test.astype(str).to_numpy()
    edges = np.unique(np.nanquantile(test.to_numpy(float), np.linspace(0, 1, CLASSES + 1)[1:-1]))
    cut = lambda s: np.searchsorted(edges, s.to_numpy(float), side="right")  # noqa: E731
    return cut(train), cut(test)


def tstr_accuracy(
    synthetic: pd.DataFrame, real: pd.DataFrame, schema: Schema, seed: int = 0
) -> float:
    """Mean accuracy, over the sensitive attributes, of a tree trained on ``synthetic`` and tested
    on ``real`` (module doc); in [0, 1]."""
    targets = list(schema.sensitive) or [schema.names[-1]]
    numerical = set(schema.numerical)
    scores = []
    for target in targets:
        features = [c for c in schema.names if c != target]
        pairs = [_codes(synthetic[c], real[c], c in numerical) for c in features]
        x_train = np.column_stack([p[0] for p in pairs]) if pairs else np.zeros((len(synthetic), 1))
        x_test = np.column_stack([p[1] for p in pairs]) if pairs else np.zeros((len(real), 1))
        x_train, x_test = np.nan_to_num(x_train, nan=-1.0), np.nan_to_num(x_test, nan=-1.0)
        y_train, y_test = _target(synthetic[target], real[target], target in numerical)
        tree = DecisionTreeClassifier(max_depth=TREE_DEPTH, random_state=seed)
        tree.fit(x_train, y_train)
        scores.append(float(np.mean(tree.predict(x_test) == y_test)))
    return float(np.mean(scores))


def release_utility(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    holdout: pd.DataFrame | None = None,
    seed: int = 0,
) -> dict[str, float]:
    """The three :data:`MEASURES` of ``synthetic`` (the marginals against ``real``, TSTR tested on
    ``holdout`` when given, else on ``real``)."""
    if len(synthetic) == 0:
        raise ValueError("the release has no rows: its utility cannot be measured")
    test = real if holdout is None or len(holdout) == 0 else holdout
    return {
        **marginal_utility(real, synthetic, schema),
        "TSTR accuracy": tstr_accuracy(synthetic, test, schema, seed),
    }
