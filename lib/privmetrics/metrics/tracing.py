"""Tracing (membership) metrics: Algorithms 18-21 of the paper."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.neighbors import KDTree

from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.pair import Pair
from privmetrics.metrics.registry import Category, register
from privmetrics.threads import one_thread

TRACING = Category.TRACING


@register(
    "NNAA",
    title="Nearest Neighbour Adversarial Accuracy",
    category=TRACING,
    kind="distance-based accuracy ratio",
    algorithm=18,
    orientation="reported = 1 - AA (line 25); the version without holdout (fn 10)",
    source="SynthEval, Lautrup et al. (2024) [12]; Yale et al. (2020)",
    paper_seconds={"texas": 406, "medonc": 27},
    min_rows=2,  # a nearest other row in each table
)
def nnaa(pair: Pair) -> float:
    """1 - AA, AA = (P[d(y, Z) > d(y, Y)] + P[d(z, Y) > d(z, Z)]) / 2, nearest-neighbour adversarial accuracy.

    Algorithm 18 (each within-dataset distance excludes the row itself). The paper divides both
    counts by 2|Z| assuming |Y| = |Z|; each side is averaged over its own size here, which is the
    same for equal sizes and stays in [0, 1] otherwise. Real gives AA = 0, score 1; a synthesiser
    indistinguishable from fresh real data gives AA = 0.5; far-away Random gives AA = 1, score 0.
    """
    y_to_z = pair.nearest_distance("real", "synthetic")
    z_to_y = pair.nearest_distance("synthetic", "real")
    y_to_y = pair.nearest_distance("real", "real")
    z_to_z = pair.nearest_distance("synthetic", "synthetic")
    aa = 0.5 * (np.mean(y_to_z > y_to_y) + np.mean(z_to_y > z_to_z))
    return 1.0 - float(aa)


@register(
    "MemInf",
    title="Membership Inference Risk",
    category=TRACING,
    kind="distance-based accuracy",
    algorithm=19,
    needs=(),
    supports="any (numeric simpler)",
    orientation="recall version (fn 11)",
    source="Lautrup et al. (2024) [12]",
    paper_seconds={"texas": 16.59, "medonc": 26.91},
    final=True,
    at_scale="sampled",
    params={"threshold": 0.5, "attack": "distance"},
)
def membership_inference(pair: Pair, threshold: float = 0.5, attack: str = "distance") -> float:
    """Recall of an attacker who says "member" when some synthetic row lies within ``threshold``.

    Algorithm 19: TP = |{y : d(y, Z) <= dt}|, recall = TP / |Y| (every real row is a member).
    The paper gives no dt (erratum HS-13). In the mixed space a categorical mismatch alone is
    distance 1, so the default dt = 0.5 means "every categorical value equal and numericals
    within half their range in total": a near-copy. Real gives 1; Random about 0.

    ``attack="classifier"`` is PrivEval's definition instead: a gradient-boosted classifier
    (scikit-learn's HistGradientBoosting standing in for LightGBM) learns real (1) from synthetic
    (0) rows on 70% of Y u Z, stratified; the score is its recall on the real rows of the other
    30%, averaged over 5 splits. It is a detection score, not a membership attack: on a copy the
    classifier cannot tell the classes apart, so its recall on the real rows is whatever its
    tie-breaking gives (anywhere in [0, 1]), not 1.
    """
    if attack == "classifier":
        return _classifier_recall(pair)
    if attack != "distance":
        raise ValueError(f"attack must be 'distance' or 'classifier', got {attack!r}")
    if threshold < 0:
        raise ValueError(f"threshold must be >= 0, got {threshold}")
    return float(np.mean(pair.nearest_distance("real", "synthetic") <= threshold))


def _classifier_recall(pair: Pair, splits: int = 5) -> float:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import recall_score
    from sklearn.model_selection import train_test_split

    real, synthetic = pair.space("mixed")
    if min(len(real), len(synthetic)) < 3:
        raise InvalidInputError(
            "MemInf(attack='classifier') needs at least 3 rows in each table for a stratified "
            f"30% test split; the real table has {len(real)}, the synthetic {len(synthetic)}"
        )
    features = np.vstack([real, synthetic])
    labels = np.r_[np.ones(len(real)), np.zeros(len(synthetic))]
    recalls = []
    for k in range(splits):
        x_train, x_test, y_train, y_test = train_test_split(
            features, labels, test_size=0.3, stratify=labels, random_state=pair.seed + k
        )
        with one_thread():  # OpenMP beside a busy process mostly spin-waits (privmetrics.threads)
            model = HistGradientBoostingClassifier(random_state=pair.seed + k).fit(x_train, y_train)
            recalls.append(recall_score(y_test, model.predict(x_test)))
    return float(np.mean(recalls))


@register(
    "HiddenRate",
    title="Hidden Rate",
    category=TRACING,
    kind="KNN accuracy",
    algorithm=20,
    needs=("aligned rows",),
    orientation="reversed (fn 7), normalised (fn 8); assumes row i of Z comes from row i of Y (fn 9)",
    source="Guillaudeux et al. (2023) [26]",
    paper_seconds={"texas": 1.74, "medonc": 2.04},
    min_rows=2,  # the FAMD projection of a single real row is a point: every distance 0
)
def hidden_rate(pair: Pair) -> float:
    """Share of real rows y_i whose nearest synthetic row (2-D FAMD space) is z_i, the row at the same position.

    Algorithm 20 (its lines 7-11 are garbled; this follows the prose). The avatar paper's hidden
    rate is the complement; footnote 7 reverses it. It presumes that synthetic row i was made from
    real row i, which holds for Real (score about 1; duplicates in Y lower it) and for no
    generative model (score about 1/n). Ties go to the lower index. The paper later argues it is a
    re-identification metric (Section 8.4); the registry keeps the paper's tables' category.
    """
    _, idx = pair.neighbours("real", "synthetic", 1, "famd")
    return float(np.mean(idx[:, 0] == np.arange(len(idx))))


@register(
    "HittingRate",
    title="Hitting Rate",
    category=TRACING,
    kind="duplicate scan",
    algorithm=21,
    source="SynthEval, Lautrup et al. (2024) [12]",
    paper_seconds={"texas": 149, "medonc": 15.39},
    final=True,
    at_scale="sampled",
    params={"fraction": 1 / 30},
)
def hitting_rate(pair: Pair, fraction: float = 1 / 30) -> float:
    """Share of real rows "hit" by a synthetic row: equal on every categorical, close on every numerical.

    Algorithm 21: z hits y when z[a] = y[a] for every categorical or binary a and
    |z[a] - y[a]| <= range_Y(a) / 30 for every numerical a. The pseudocode counts hitting synthetic
    rows over |Y|; SynthEval, its cited source, counts real rows hit at least once, which stays in
    [0, 1] under duplicates; we follow SynthEval (erratum HS-15). A numerical column that is
    constant in Y must be matched exactly.

    Vectorised: every distinct categorical tuple gets an id, numericals are divided by their
    threshold, and the tuple id times a gap wider than any scaled value becomes one more
    coordinate; then "hit" is "Chebyshev distance to the nearest synthetic row <= 1", one KD-tree
    query for all real rows.
    """
    if not 0 <= fraction <= 1:
        raise ValueError(f"fraction must be in [0, 1], got {fraction}")
    numerical = pair.schema.numerical
    spread = (pair.real[numerical].max() - pair.real[numerical].min()).to_numpy(float) * fraction
    exact = [c for c, s in zip(numerical, spread, strict=True) if s == 0]
    tolerant = [c for c, s in zip(numerical, spread, strict=True) if s > 0]
    scale = spread[spread > 0]
    categorical = pair.schema.categorical + exact
    both = pd.concat([pair.real[categorical], pair.synthetic[categorical]], ignore_index=True)
    group = (
        both.groupby(categorical, sort=False).ngroup().to_numpy(float)
        if categorical
        else np.zeros(len(both))
    )
    targets = pair.target_rows("real")  # every real row, or a sample of them at scale
    real_group, synth_group = group[: len(pair.real)][targets], group[len(pair.real) :]
    if not tolerant:
        return float(np.isin(real_group, synth_group).mean())
    real_num = pair.real[tolerant].to_numpy(float)[targets] / scale
    synth_num = pair.synthetic[tolerant].to_numpy(float) / scale
    gap = 2 + max(np.ptp(real_num, axis=0).max(), np.abs(synth_num).max() + np.abs(real_num).max())
    tree = KDTree(np.column_stack([synth_group * gap, synth_num]), metric="chebyshev")
    distance, _ = tree.query(np.column_stack([real_group * gap, real_num]), k=1)
    return float(np.mean(distance[:, 0] <= 1 + 1e-9))
