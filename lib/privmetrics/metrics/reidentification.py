"""Re-identification metrics: Algorithms 4-17 of the paper, then the distance-based
risk-of-disclosure notions of Chen, Yu and Dargahi (not among the paper's 21).

Distances are Euclidean in the shared mixed space (:mod:`privmetrics.geometry.encoding`) unless a metric
says otherwise; NNDR and DCR use the 2-D FAMD projection as their reference code does. "d(y, Z)"
below is the distance from a real row to its nearest synthetic row, "d(y, Y)" to its nearest
*other* real row.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats
from scipy.spatial.distance import jensenshannon
from scipy.special import expit, kl_div
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.neural_network import MLPClassifier

from privmetrics.data.validation import InvalidInputError
from privmetrics.disclosure import notions as rod
from privmetrics.geometry.encoding import column_frequencies
from privmetrics.geometry.neighbours import knn
from privmetrics.geometry.pair import Pair
from privmetrics.metrics.registry import Category, register

REID = Category.REIDENTIFICATION


def _min_max(d: np.ndarray) -> np.ndarray:
    """(d - min d) / (max d - min d + 1e-8): the synthcity normalisation of a distance vector."""
    return (d - d.min()) / (d.max() - d.min() + 1e-8)


NORMALISATIONS = (True, "nn", "pairs", False)


def _normalised_nn(pair: Pair, normalise) -> np.ndarray:
    """Real -> synthetic nearest distances, normalised as ``normalise`` says.

    ``True`` / ``"nn"``: min-max over these nearest distances (synthcity, what the paper ran);
    ``"pairs"``: (d - d_min) / (d_max - d_min) with d_max the largest distance over *all*
    real-synthetic pairs (PrivEval's Eqs. 12-13; computed in chunks); ``False``: raw distances
    (the comparison paper's pseudocode).
    """
    if normalise not in NORMALISATIONS:
        raise ValueError(f"normalise must be one of {NORMALISATIONS}, got {normalise!r}")
    d = pair.nearest_distance("real", "synthetic")
    if normalise is False:
        return d
    if normalise == "pairs":
        return (d - d.min()) / (pair.farthest() - d.min() + 1e-8)
    return _min_max(d)


def _frequencies(pair: Pair, n_bins: int):
    """(f_Y, f_Z) of every column, aligned (see :func:`~privmetrics.geometry.encoding.column_frequencies`)."""
    for col in pair.schema.names:
        yield column_frequencies(
            pair.real[col], pair.synthetic[col], col in pair.schema.numerical, n_bins
        )


@register(
    "Authenticity",
    title="Authenticity",
    category=REID,
    kind="distance",
    algorithm=4,
    orientation="reversed (fn 4): reported = 1 - AuthScore",
    source="synthcity [9] (Alaa et al. 2022)",
    paper_seconds={"texas": 1055, "medonc": 0.66},
    final=True,
    at_scale="sampled",
    min_rows=2,  # a nearest other real row
)
def authenticity(pair: Pair) -> float:
    """1 - share of real rows whose nearest other real row is strictly closer than their nearest synthetic row.

    Algorithm 4: AuthScore = |{y : d(y, Y) < d(y, Z)}| / |Y|; reported 1 - AuthScore (fn 4).
    The pseudocode's ``KNN(z_i, Z, k=1)`` finds z_i itself (distance 0); the prose and synthcity
    mean ``KNN(y_i, Z, k=1)``, which is what is computed (erratum HS-5). Real gives 1.
    """
    return 1.0 - float(
        np.mean(pair.nearest_distance("real", "real") < pair.nearest_distance("real", "synthetic"))
    )


@register(
    "ChiSquaredTest",
    title="Chi Squared Test",
    category=REID,
    kind="statistical",
    algorithm=5,
    supports="any; works best with categorical",
    source="synthcity [9]",
    paper_seconds={"texas": 4.54, "medonc": 0.7},
    params={"n_bins": 10, "on": "proportions"},
)
def chi_squared_test(pair: Pair, n_bins: int = 10, on: str = "proportions") -> float:
    """Mean over columns of the p-value of a chi-squared test of Y's column against Z's.

    Algorithm 5 leaves the expected frequency (its line 8 is dimensionally wrong), COUNT and the
    binning undefined (erratum HS-9). Default ``on="proportions"`` is synthcity's test, which the
    paper ran: per column, relative frequencies (numericals in ``n_bins`` equal-width bins on the
    real range), chi = sum (f_Y - f_Z)^2 / f_Z with f_Z floored at 1e-11, df = bins - 1, p =
    P(chi2_df > chi). Because it compares proportions, not counts, the statistic is tiny and p is
    near 1 unless a column is far off: the reason the paper found Random scoring high.
    ``on="counts"`` runs the textbook two-sample test of homogeneity on the count table instead.
    """
    if on not in ("proportions", "counts"):
        raise ValueError(f"on must be 'proportions' or 'counts', got {on!r}")
    p_values = []
    for f_y, f_z in _frequencies(pair, n_bins):
        if len(f_y) < 2:
            p_values.append(1.0)
            continue
        if on == "counts":
            table = np.vstack([f_y * len(pair.real), f_z * len(pair.synthetic)])
            table = table[:, table.sum(axis=0) > 0]
            p_values.append(stats.chi2_contingency(table)[1] if table.shape[1] > 1 else 1.0)
        else:
            expected = np.maximum(f_z, 1e-11)
            chi = float(((f_y - expected) ** 2 / expected).sum())
            p_values.append(float(stats.chi2.sf(chi, len(f_y) - 1)))
    return float(np.mean(p_values))


@register(
    "CloseValueProb",
    min_rows=2,  # one row has no population to normalise or vote against
    title="Close Values Probability",
    category=REID,
    kind="statistical",
    algorithm=6,
    supports="any; works best with numerical",
    orientation="distances min-max normalised before the threshold (synthcity; not in the pseudocode)",
    source="synthcity [9]",
    paper_seconds={"texas": 4.28, "medonc": 0.65},
    params={"threshold": 0.2, "normalise": True},
)
def close_values_probability(pair: Pair, threshold: float = 0.2, normalise=True) -> float:
    """Share of real rows whose nearest synthetic row is within ``threshold`` (0.2).

    Algorithm 6: |{y : d(y, Z) <= 0.2}| / |Y|. synthcity, which the paper ran, first min-max
    normalises the vector of distances (d - min) / (max - min + 1e-8); the pseudocode omits this
    (erratum HS-10). It is on by default because it explains the paper's results (the normalised
    distances are scale-free, so Random scores high); ``normalise=False`` thresholds raw distances
    and ``normalise="pairs"`` uses PrivEval's global pair range (see :func:`_normalised_nn`).
    """
    return float(np.mean(_normalised_nn(pair, normalise) <= threshold))


@register(
    "DistantValueProb",
    min_rows=2,  # one row has no population to normalise or vote against
    title="Distant Values Probability",
    category=REID,
    kind="statistical",
    algorithm=7,
    supports="any; works best with numerical",
    orientation="1 - ratio built into Algorithm 7; distances min-max normalised (synthcity)",
    source="synthcity [9]",
    paper_seconds={"texas": 4.33, "medonc": 0.7},
    params={"threshold": 0.8, "normalise": True},
)
def distant_values_probability(pair: Pair, threshold: float = 0.8, normalise=True) -> float:
    """1 - share of real rows whose nearest synthetic row is at least ``threshold`` (0.8) away.

    Algorithm 7, line 15 (the prose says the ratio is returned, the pseudocode returns 1 - ratio;
    we follow the pseudocode so that Real gives 1). Distances normalised as in CloseValueProb.
    """
    return 1.0 - float(np.mean(_normalised_nn(pair, normalise) >= threshold))


@register(
    "DetectionMLP",
    title="DetectionMLP",
    category=REID,
    kind="probabilistic",
    algorithm=8,
    orientation="score = clip(2 (1 - AUC), 0, 1) so that Real (AUC 0.5) gives 1; see docstring",
    source="synthcity [9]",
    paper_seconds={"texas": 4.33, "medonc": 0.66},
    final=True,
    at_scale="sampled",
    params={"folds": 3, "scale": "rescaled", "max_iter": 25},
    min_rows=3,
)
def detection_mlp(pair: Pair, folds: int = 3, scale: str = "rescaled", max_iter: int = 25) -> float:
    """How well an MLP fails to tell real from synthetic rows: a high score means indistinguishable.

    Algorithm 8: label Y 1 and Z 0, split into ``folds`` stratified folds (the paper leaves k open;
    synthcity uses 3), train an MLP (one hidden layer of 100 ReLU units, Adam, early stopping, as
    synthcity's) on each training part and average the ROC AUC on the held-out part
    (``sklearn.metrics.roc_auc_score``, which handles ties that the paper's ROC routine ignores).

    Orientation (erratum HS-11): the raw AUC is about 0.5 for Real and 1 for Random, the opposite
    of 0 = private, yet the paper rates the metric as working, so it must have been turned round.
    ``scale="rescaled"`` (default) reports clip(2 (1 - AUC), 0, 1): Real 1, a perfect detector 0.
    ``scale="paper"`` reports 1 - AUC (Real 0.5). ``scale="auc"`` reports the AUC itself, PrivEval's
    definition (near 1 = easily told apart, read there as low privacy).

    On sampled target rows (:mod:`privmetrics.metrics.sampled`) the classifier is trained and
    tested on the target rows of each table: a smaller training set, so the AUC can come out
    lower than on every row and the score errs towards risk. Its cost then stops growing with
    the rows (on every row it was most of a sampled audit's time).
    """
    if scale not in ("rescaled", "paper", "auc"):
        raise ValueError(f"scale must be 'rescaled', 'paper' or 'auc', got {scale!r}")
    real, synth = pair.space("mixed")
    if min(len(real), len(synth)) < folds:
        raise InvalidInputError(
            f"DetectionMLP needs at least {folds} rows in each table for {folds} folds"
        )
    auc = pair.memo(
        ("detection_auc", folds, max_iter), lambda: _detection_auc(pair, folds, max_iter)
    )
    if scale == "auc":
        return auc
    return 1.0 - auc if scale == "paper" else float(np.clip(2 * (1 - auc), 0, 1))


def _detection_auc(pair: Pair, folds: int, max_iter: int) -> float:
    """Mean held-out ROC AUC of the MLP over ``folds`` stratified folds (shared by the scales),
    over each table's target rows (every row, except on a sampled pair)."""
    real, synth = pair.space("mixed")
    real, synth = real[pair.target_rows("real")], synth[pair.target_rows("synthetic")]
    data = np.vstack([real, synth])
    labels = np.r_[np.ones(len(real)), np.zeros(len(synth))]
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=pair.seed)
    aucs = []
    for train, test in splitter.split(data, labels):
        model = MLPClassifier(
            hidden_layer_sizes=(100,),
            batch_size=min(500, max(1, len(train) * 9 // 10)),
            learning_rate_init=1e-3,
            alpha=1e-3,
            max_iter=max_iter,
            early_stopping=len(train) >= 100,
            n_iter_no_change=5,
            random_state=pair.seed,
        )
        with warnings.catch_warnings():  # the epoch cap is deliberate (speed); see max_iter
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(data[train], labels[train])
        aucs.append(roc_auc_score(labels[test], model.predict_proba(data[test])[:, 1]))
    return float(np.mean(aucs))


@register(
    "InvKullbackLieb",
    title="Inverse Kullback-Leibler Divergence",
    category=REID,
    kind="statistical",
    algorithm=9,
    source="synthcity [9]",
    paper_seconds={"texas": 4.18, "medonc": 0.72},
    params={"n_bins": 10},
)
def inverse_kl_divergence(pair: Pair, n_bins: int = 10) -> float:
    """Mean over columns of 1 / (1 + KL(f_Y || f_Z)).

    Algorithm 9 with synthcity's frequencies (see ChiSquaredTest): KL = sum kl_div(f_Y, f_Z) in
    nats, where a synthetic frequency of 0 is floored at 1e-11 so KL stays finite. Real gives 1.
    """
    scores = [
        1 / (1 + kl_div(f_y, np.maximum(f_z, 1e-11)).sum())
        for f_y, f_z in _frequencies(pair, n_bins)
    ]
    return float(np.mean(scores))


@register(
    "JensenShannonDist",
    title="Jensen-Shannon Distance",
    category=REID,
    kind="statistical",
    algorithm=10,
    orientation="1 - mean distance built into Algorithm 10",
    source="synthcity [9]",
    paper_seconds={"texas": 4.28, "medonc": 512.6},
    params={"n_bins": 10},
)
def jensen_shannon_distance(pair: Pair, n_bins: int = 10) -> float:
    """1 - mean over columns of the Jensen-Shannon distance between f_Y and f_Z.

    Algorithm 10. Frequencies as in ChiSquaredTest, then synthcity's +1 smoothing of every bin
    (which shrinks all distances: even disjoint columns stay well below 1); distance =
    sqrt(JS divergence), natural log, via ``scipy.spatial.distance.jensenshannon``. Real gives 1.
    """
    dists = [jensenshannon(f_y + 1, f_z + 1) for f_y, f_z in _frequencies(pair, n_bins)]
    return 1.0 - float(np.mean(dists))


def ks_statistic(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov statistic sup_x |F_a(x) - F_b(x)| (vectorised, no p-value)."""
    a, b = np.sort(a), np.sort(b)
    grid = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, grid, side="right") / len(a)
    cdf_b = np.searchsorted(b, grid, side="right") / len(b)
    return float(np.abs(cdf_a - cdf_b).max())


@register(
    "KSTest",
    title="Kolmogorov-Smirnov Test",
    category=REID,
    kind="statistical",
    algorithm=11,
    source="synthcity [9]",
    paper_seconds={"texas": 4.51, "medonc": 0.66},
)
def kolmogorov_smirnov_test(pair: Pair) -> float:
    """Mean over columns of 1 - D, D the two-sample KS statistic.

    Algorithm 11's KSTEST is not a correct ECDF computation (unsorted concatenation, no absolute
    value; erratum HS-12); the standard statistic sup |F_Y - F_Z| is used, as synthcity's
    ``ks_2samp``. Categorical columns are compared on integer codes in sorted category order, as
    synthcity compares label-encoded columns. Real gives 1.
    """
    scores = []
    for col in pair.schema.names:
        y, z = pair.real[col], pair.synthetic[col]
        if col not in pair.schema.numerical:
            cats = np.sort(pd.unique(pd.concat([y, z], ignore_index=True)))
            y, z = pd.Categorical(y, cats).codes, pd.Categorical(z, cats).codes
        scores.append(1 - ks_statistic(np.asarray(y, float), np.asarray(z, float)))
    return float(np.mean(scores))


@register(
    "CommonRowsProportion",
    title="Common Rows Proportion",
    category=REID,
    kind="statistical",
    algorithm=12,
    supports="any; works best with categorical and binary",
    source="synthcity [9]",
    paper_seconds={"texas": 0.26, "medonc": 0.05},
)
def common_rows_proportion(pair: Pair) -> float:
    """|Y ∩ Z| / (|Y| + 1e-8): distinct rows present in both, over the number of real rows.

    Algorithm 12 with synthcity's reading of the intersection (distinct rows, exact equality).
    Real gives 1 when Y has no duplicate rows, slightly less otherwise.
    """
    common = pair.real.drop_duplicates().merge(pair.synthetic.drop_duplicates(), how="inner")
    return len(common) / (len(pair.real) + 1e-8)


@register(
    "IdentifiabilityScore",
    title="Identifiability Score",
    category=REID,
    kind="distance",
    algorithm=13,
    orientation="not reversed",
    source="ADS-GAN, Yoon et al. (2020) [25]",
    paper_seconds={"texas": 0.20, "medonc": 0.05},
    params={"weighting": "entropy"},
    min_rows=2,  # a nearest other real row
)
def identifiability_score(pair: Pair, weighting: str = "entropy") -> float:
    """Share of real rows whose nearest synthetic row is strictly closer than their nearest other real row.

    Algorithm 13: |{y : d(y, Z) < d(y, Y)}| / |Y|, with the same KNN(y_i, Z) correction as
    Authenticity. Distances are taken in the mixed space with every column weighted by
    1/H(column), ADS-GAN's definition (synthcity computes these weights and then overwrites them
    with ones; PrivEval keeps them). The weighting is what separates it from 1 - Authenticity,
    which also differs only in ties. Real gives 1 (0 < d(y, Y) unless y has a duplicate).
    ``weighting="none"`` uses the plain mixed space, as Algorithm 13 is printed.
    """
    if weighting not in ("entropy", "none"):
        raise ValueError(f"weighting must be 'entropy' or 'none', got {weighting!r}")
    space = "entropy" if weighting == "entropy" else "mixed"
    return float(
        np.mean(
            pair.nearest_distance("real", "synthetic", space)
            < pair.nearest_distance("real", "real", space)
        )
    )


@register(
    "NNDR",
    title="Nearest Neighbour Distance Ratio",
    category=REID,
    kind="distance",
    algorithm=14,
    orientation="reversed (fn 4): the 1 - AVG of line 15",
    source="Guillaudeux et al. (2023) [26]",
    paper_seconds={"texas": 1.37, "medonc": 3.83},
    params={"mode": "comparison"},
    min_rows=2,  # two nearest real rows
)
def nndr(pair: Pair, mode: str = "comparison") -> float:
    """1 - mean over synthetic rows of d1 / d2, their distances to the 1st and 2nd nearest real row.

    Algorithm 14 on the 2-D FAMD projection fitted on Y (the avatar code's saiph projection);
    the ratio is 1 when d2 = 0. Real gives 1 (d1 = 0) unless Y has duplicates.
    ``mode="priveval"`` is PrivEval's Eq. 23 as defined: (|C'| + sum over the rest of d1 / d2) / |Z|,
    C' the synthetic rows with d1 = 0. It is not monotone: a copy scores 1, a near-copy about 0.
    """
    d, _ = pair.neighbours("synthetic", "real", 2, "famd")
    ratio = np.divide(d[:, 0], d[:, 1], out=np.ones(len(d)), where=d[:, 1] > 0)
    if mode == "priveval":
        return float(np.where(d[:, 0] == 0, 1.0, ratio).mean())
    if mode != "comparison":
        raise ValueError(f"mode must be 'comparison' or 'priveval', got {mode!r}")
    return 1.0 - float(ratio.mean())


@register(
    "NearestSynNeighborDistance",
    min_rows=2,  # one row has no population to normalise or vote against
    title="Nearest Synthetic Neighbour Distance",
    category=REID,
    kind="distance",
    algorithm=15,
    orientation="reversed (fn 4): the 1 - AVG of line 12",
    source="synthcity [9]",
    paper_seconds={"texas": 0.99, "medonc": 0.07},
    params={"normalise": "nn"},
)
def nearest_synthetic_neighbour_distance(pair: Pair, normalise="nn") -> float:
    """1 - mean of the min-max normalised distances from each real row to its nearest synthetic row.

    Algorithm 15, with line 3's ``KNN(y, Y)`` read as ``KNN(y, Z)`` (the prose's "closest
    anonymised tuple"; erratum HS-5). The normalisation makes it scale-free, so Random scores high.
    ``normalise="pairs"`` uses PrivEval's global pair range (Eq. 21 with Eqs. 12-13); PrivEval's
    definition reports the raw mean (privacy-oriented), which is 1 - this score.
    """
    if normalise is False:
        raise ValueError("NearestSynNeighborDistance needs normalised distances ('nn' or 'pairs')")
    return 1.0 - float(_normalised_nn(pair, normalise).mean())


@register(
    "DCR",
    title="Distance to the Closest Record",
    category=REID,
    kind="distance",
    algorithm=16,
    orientation="reversed (fn 4) and normalised (fn 5): 1 - sigmoid(log10(mean distance))",
    source="Guillaudeux et al. (2023) [26]",
    paper_seconds={"texas": 2.06, "medonc": 1.96},
    final=True,
    at_scale="sampled",
    params={"direction": "real_to_synthetic", "log_base": 10},
    min_rows=2,  # the FAMD projection of a single real row is a point: every distance 0
)
def dcr(pair: Pair, direction: str = "real_to_synthetic", log_base: float = 10) -> float:
    """1 - sigmoid(log10(avg)), avg the mean distance from each real row to its closest synthetic row.

    Algorithm 16 on the 2-D FAMD projection. The log base is not printed; the reference code
    uses log10, so the score is 1 - sigmoid(log10 a) = 1 / (1 + a^(1/ln 10)) = 1 / (1 + a^0.434):
    1 at a = 0 (returned directly, as the code does, since log 0 is undefined), 0.5 at a = 1. ``direction=
    "synthetic_to_real"`` measures from each synthetic row instead, as the avatar code does.
    ``log_base=np.e`` is PrivEval's definition read with the natural log: 1 / (1 + a).
    """
    if direction == "real_to_synthetic":
        d = pair.nearest_distance("real", "synthetic", "famd")
    elif direction == "synthetic_to_real":
        d = pair.nearest_distance("synthetic", "real", "famd")
    else:
        raise ValueError(
            f"direction must be 'real_to_synthetic' or 'synthetic_to_real', got {direction!r}"
        )
    avg = float(d.mean())
    return 1.0 if avg == 0 else 1.0 - float(expit(np.log(avg) / np.log(log_base)))


@register(
    "MDCR",
    title="Median Distance to the Closest Record",
    category=REID,
    kind="distance",
    algorithm=17,
    orientation="sigmoid(3 - ratio): the printed 3 - sigmoid(ratio) is corrected",
    source="SynthEval, Lautrup et al. (2024) [12]",
    paper_seconds={"texas": 211, "medonc": 12.77},
    final=True,
    at_scale="sampled",
    params={"exclude_identical": False, "variant": "comparison"},
    min_rows=2,  # a nearest other real row
)
def mdcr(pair: Pair, exclude_identical: bool = False, variant: str = "comparison") -> float:
    """sigmoid(3 - median_z d(z, Y) / median_y d(y, Y)), between- over within-dataset closeness.

    Algorithm 17 prints ``3 - SIGMOID(medi)``, which lies in [2, 2.5]; PrivEval's code computes
    sigmoid(3 - medi), used here (erratum HS-6). The score never exceeds sigmoid(3) = 0.953 (Real).
    ``exclude_identical=True`` reproduces SynthEval's quirk: when Z equals Y it also excludes each
    row's twin from the between-distances, so Real gets ratio 1 and sigmoid(2) = 0.881, which is why
    TVAE could outscore Real in the paper. A zero within-median (many duplicates) gives ratio 0
    when the between-median is 0 too, else infinity (score 0).

    ``variant="priveval"`` is PrivEval's Eqs. 26-27: sigmoid(median_y d(y, Z) / median_y d(y, Y)),
    real -> synthetic in the numerator. It lies in [0.5, 1) and *rises* with privacy (Real 0.5),
    against its own stated direction (erratum PE-11); offered to show how far the two differ.
    """
    if variant == "priveval":
        within = np.median(pair.nearest_distance("real", "real"))
        ratio = np.median(pair.nearest_distance("real", "synthetic")) / within if within else 0.0
        return float(expit(ratio))
    if variant != "comparison":
        raise ValueError(f"variant must be 'comparison' or 'priveval', got {variant!r}")
    between = pair.nearest_distance("synthetic", "real")
    if exclude_identical and pair.real.equals(pair.synthetic):
        between = pair.nearest_distance("real", "real")
    within_median, between_median = (
        np.median(pair.nearest_distance("real", "real")),
        np.median(between),
    )
    if within_median == 0:
        ratio = 0.0 if between_median == 0 else np.inf
    else:
        ratio = between_median / within_median
    return float(expit(3 - ratio))


ROD_SOURCE = "Chen, Yu and Dargahi (2021), risk of disclosure, Section 3.2"
ROD_SUPPORTS = "numerical attributes only (categorical ones are left out)"


def _scaled(pair: Pair) -> tuple[np.ndarray, np.ndarray]:
    """The numerical attributes scaled by their real range (the risk-of-disclosure space)."""
    return pair.memo(
        "numeric minmax",
        lambda: rod.numeric_arrays(pair.real, pair.synthetic, pair.schema, "minmax"),
    )


def _nearest_other(pair: Pair) -> tuple[np.ndarray, np.ndarray]:
    """(distance, position) of each real row's nearest other real row in that space, found once
    for YPrivacy's spacing and VoronoiPrivacy's targets."""
    o, _ = _scaled(pair)
    return pair.memo("numeric nearest other", lambda: knn(o, o, k=1, exclude_self=True))


def _spacing(pair: Pair) -> float:
    """The data's own length scale: the median distance from a real row to its nearest other."""
    distance = _nearest_other(pair)[0][:, 0]
    return float(np.median(distance) or distance.mean() or 1e-12)


@register(
    "YPCoverage",
    title="(y, p)-coverage",
    category=REID,
    kind="distance (optimal matching)",
    algorithm=None,
    supports=ROD_SUPPORTS,
    source=ROD_SOURCE,
    orientation="score = p', the share of matched pairs within y (higher = more risk)",
    params={"y": 0.05, "sample": 500},
)
def yp_coverage(pair: Pair, y: float = 0.05, sample: int = 500) -> float:
    """Share of synthetic rows within distance y of the real row they are matched to, under the
    minimum-weight perfect matching between the two tables (Alg. 1, Eqs. 4-7).

    p' = #{omega_i <= y} / m, omega the matched edge weights (Hungarian algorithm on at most
    ``sample`` rows per side, seeded). Distances use the numerical attributes scaled by their real
    range and divided by sqrt(n), so y = 0.05 means "5% of the ranges, root-mean-square". The
    paper's verdict "(y, p)-coverage fulfilled" is p' <= p; the score is p' itself, which orders
    releases where the verdict cannot (the paper's own objection to the notion).
    """
    o, d = _scaled(pair)
    return rod.yp_coverage(o, d, y=y, sample=sample, seed=pair.seed).p_prime


@register(
    "YPrivacy",
    title="y-privacy",
    category=REID,
    kind="distance",
    algorithm=None,
    supports=ROD_SUPPORTS,
    source=ROD_SOURCE,
    orientation="score = s / (s + y), s the real rows' median nearest-neighbour distance",
    params={"aggregate": "min"},
    min_rows=2,  # a nearest other real row
)
def y_privacy(pair: Pair, aggregate: str = "min") -> float:
    """How close the closest synthetic row comes to a real row (Alg. 2, Eq. 8), as a risk score.

    y'_i = min_j ||D_i - O_j|| (Eq. 8 prints argmin; the distance is meant) and y = min_i y'_i,
    the paper's worst case (``aggregate="median"`` is its average-case option). A distance means
    little without the data's own spacing s (the median distance from a real row to its nearest
    other real row), so the score is s / (s + y): 1 when a synthetic row copies a real one, 0.5
    at y = s, towards 0 as the synthetic data move away.
    """
    o, d = _scaled(pair)
    y = rod.y_privacy(o, d, aggregate)
    spacing = _spacing(pair)
    return spacing / (spacing + y)


@register(
    "VoronoiPrivacy",
    title="Voronoi privacy",
    category=REID,
    kind="distance (optimal matching)",
    algorithm=None,
    supports=ROD_SUPPORTS,
    source=ROD_SOURCE,
    orientation="score = d_copy / max(d, d_copy): the copy's Voronoi distance over the release's",
    params={"sample": 500},
    min_rows=2,  # a nearest other real row
)
def voronoi_privacy(pair: Pair, sample: int = 500) -> float:
    """Distance from the release to the "optimal privatised" data of Alg. 3, relative to the copy.

    D-hat_i is the point of O_i's Voronoi cell boundary nearest to O_i, which is exactly the
    midpoint between O_i and its nearest other real row (so no Voronoi diagram is built, in any
    dimension). d = mean distance of the optimal assignment between D and D-hat (= the EMD
    between them; at most ``sample`` rows per side). The paper reads a larger d as lower risk;
    the copy of the data gets d_copy (about half the rows' spacing), so the score
    d_copy / max(d, d_copy) is 1 for the copy and falls as the release moves away.
    """
    o, d = _scaled(pair)
    targets = rod.voronoi_targets(o, nearest=_nearest_other(pair)[1][:, 0])
    distance = rod.voronoi_privacy(o, d, sample=sample, seed=pair.seed, targets=targets)
    copy = rod.voronoi_privacy(o, o, sample=sample, seed=pair.seed, targets=targets)
    return copy / max(distance, copy) if distance > 0 else 1.0
