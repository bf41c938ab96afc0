"""Reconstruction (attribute inference) metrics: Algorithms 1-3 of the paper, then a measure
that is not among its 21: the Anonymity Loss Coefficient of Francis and Wagner. (Chen, Yu and
Dargahi's p-privacy, also filed under reconstruction, is in :mod:`.disclosure_risk`.)

The attacker knows a person's key attributes A_K and infers the sensitive attributes A_S from the
anonymised data Z. Which attributes are keys and which are sensitive comes from the schema.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import sparse

from privmetrics.attacks.inference import AnonymityLoss, alc_score
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.encoding import column_entropy, discretise
from privmetrics.geometry.neighbours import in_parallel
from privmetrics.geometry.pair import Pair
from privmetrics.metrics.registry import Category, register

TILE = 2048  # distinct synthetic key tuples per product in CGeneralizedCAP
TIMES = {  # seconds per evaluation, Table 2 of the paper
    "AttributeInference": {"texas": 1297, "medonc": 1226},
    "CZeroCAP": {"texas": 185, "medonc": 24},
    "CGeneralizedCAP": {"texas": 1679, "medonc": 111},
}


@register(
    "AttributeInference",
    min_rows=2,  # one row has no population to normalise or vote against
    title="Attribute Inference Risk",
    category=Category.RECONSTRUCTION,
    kind="statistical",
    algorithm=1,
    needs=("key", "sensitive"),
    source="Yan et al. (2022) [8]",
    paper_seconds=TIMES["AttributeInference"],
    params={"tolerance": 0.1, "weights": "attribute"},
)
def attribute_inference(pair: Pair, tolerance: float = 0.1, weights: str = "attribute") -> float:
    """Entropy-weighted share of sensitive values that a 1-NN attacker on the key attributes infers.

    Algorithm 1, as the paper's source (Yan et al. 2022) computes it, because the pseudocode is not
    well defined (FN never initialised, counts used as probabilities, per-row weights indexed by
    attribute, an unbounded sum; erratum HS-8):

    1. each real row y finds its nearest synthetic row z on A_K (k = 1, mixed distance space);
    2. z's value is the guess for every sensitive attribute a_j; the guess is correct when equal
       (categorical, binary) or within ``[(1 - tol) y[a_j], (1 + tol) y[a_j]]`` (numerical, the
       paper's 0.9 / 1.1; the interval is ordered so that negative values work too);
    3. per attribute F1_j = TP / (TP + (FP + FN)/2) with TP = correct guesses and FP = FN = wrong
       ones (every row gets one guess), which equals the share of correct guesses;
    4. score = sum_j w_j F1_j with w_j = H(a_j) / sum_k H(a_k), the real column's entropy
       (numericals in 10 quantile bins), so the weights sum to 1 and the score is in [0, 1].

    Real (Z = Y) gives 1. A random Z gives roughly the chance of a random guess, not 0.

    ``weights="record"`` is PrivEval's definition (its Eqs. 6-9): a per-record F1 (1 when the guess
    is right, else 0; averaged over the sensitive attributes), weighted by the record's entropy
    contribution -P(y) log P(y) / H(Y), P(y) the share of rows equal to y (uniform when rows are
    distinct), and the numerical tolerance taken relative to the synthetic value, |y - z| <= tol |z|.
    """
    if weights not in ("attribute", "record"):
        raise ValueError(f"weights must be 'attribute' or 'record', got {weights!r}")
    sensitive = list(pair.schema.sensitive)
    _, idx = pair.neighbours("real", "synthetic", 1, "keys")
    guesses = pair.synthetic[sensitive].iloc[idx[:, 0]].reset_index(drop=True)
    f1, per_record, entropies = [], [], []
    for col in sensitive:
        truth = pair.real[col]
        if col in pair.schema.numerical:
            t, g = truth.to_numpy(float), guesses[col].to_numpy(float)
            if weights == "record":
                correct = np.abs(t - g) <= tolerance * np.abs(g)
            else:
                low, high = (
                    np.minimum((1 - tolerance) * t, (1 + tolerance) * t),
                    np.maximum((1 - tolerance) * t, (1 + tolerance) * t),
                )
                correct = (g >= low) & (g <= high)
        else:
            correct = guesses[col].to_numpy() == truth.to_numpy()
        f1.append(correct.mean())
        per_record.append(correct)
        entropies.append(column_entropy(truth, col in pair.schema.numerical))
    if weights == "record":
        group = pair.real.groupby(list(pair.real.columns), dropna=False, sort=False).ngroup()
        share = np.bincount(group)[group] / len(group)
        contribution = -share * np.log(share)
        w = (
            contribution / contribution.sum()
            if contribution.sum() > 0
            else np.full(len(share), 1 / len(share))
        )
        return float(np.dot(w, np.mean(per_record, axis=0)))
    weights = np.asarray(entropies)
    weights = (
        weights / weights.sum() if weights.sum() > 0 else np.full(len(weights), 1 / len(weights))
    )
    return float(np.dot(weights, f1))


def _key_and_secret_codes(pair: Pair, n_bins: int | None):
    """Integer codes of the key tuple columns and one id per sensitive tuple, for both frames
    (numericals in ``n_bins`` quantile bins, or by exact value when ``n_bins`` is None)."""
    keys, sensitive = list(pair.schema.key), list(pair.schema.sensitive)
    key_r, key_s = discretise(pair.real, pair.synthetic, pair.schema, keys, n_bins)
    sec_r, sec_s = discretise(pair.real, pair.synthetic, pair.schema, sensitive, n_bins)
    secret_ids, _ = pd.factorize(pd.Series([*map(tuple, sec_r), *map(tuple, sec_s)]))
    return key_r, key_s, secret_ids[: len(sec_r)], secret_ids[len(sec_r) :]


@register(
    "CZeroCAP",
    title="Categorical ZeroCAP",
    category=Category.RECONSTRUCTION,
    kind="statistical",
    algorithm=2,
    needs=("key", "sensitive"),
    supports="any; works best with categorical",
    orientation="reversed (fn 1): reported = AVG(P_corr), not 1 - AVG(P_corr)",
    source="SDMetrics [24]",
    paper_seconds=TIMES["CZeroCAP"],
    params={"n_bins": 10},
)
def categorical_zero_cap(pair: Pair, n_bins: int = 10) -> float:
    """Mean probability of guessing y's sensitive values from the synthetic rows with y's exact key.

    Algorithm 2: T_eq = {z in Z : z[A_K] = y[A_K]}, p(y) = |{z in T_eq : z[A_S] = y[A_S]}| / |T_eq|,
    or 0 when T_eq is empty; score = AVG_y p(y). The printed ``1 - AVG`` is SDMetrics' orientation,
    which footnote 1 reverses. Numerical key or sensitive attributes are first cut into ``n_bins``
    quantile bins fitted on the real data (the paper does not say how; SDMetrics needs discrete
    values). ``n_bins=None`` compares them by exact value, as SDMetrics on label-encoded data
    (what the paper ran; the variant ``CZeroCAP@paper``). Vectorised: counts per key and per
    (key, secret) by group-by, joined to the real rows.
    """
    key_r, key_s, sec_r, sec_s = _key_and_secret_codes(pair, n_bins)
    columns = [f"k{i}" for i in range(key_r.shape[1])]
    synth = pd.DataFrame(key_s, columns=columns).assign(secret=sec_s)
    per_key = synth.groupby(columns).size().rename("n_key")
    per_both = synth.groupby([*columns, "secret"]).size().rename("n_both")
    real = pd.DataFrame(key_r, columns=columns).assign(secret=sec_r)
    real = real.join(per_key, on=columns).join(per_both, on=[*columns, "secret"])
    p = (real["n_both"].fillna(0) / real["n_key"]).fillna(0.0)
    return float(p.mean())


@register(
    "CGeneralizedCAP",
    min_rows=2,  # one row has no population to normalise or vote against
    title="Categorical GeneralizedCAP",
    category=Category.RECONSTRUCTION,
    kind="statistical",
    algorithm=3,
    needs=("key", "sensitive"),
    supports="any; works best with categorical",
    orientation="reversed (fn 1): reported = AVG(P_corr)",
    source="SDMetrics [24]",
    paper_seconds=TIMES["CGeneralizedCAP"],
    final=True,
    at_scale="sampled",
    params={"n_bins": 10, "batch": 512},
)
def categorical_generalized_cap(pair: Pair, n_bins: int | None = 10, batch: int = 512) -> float:
    """Like CZeroCAP, but T_eq is every synthetic row that matches y on the most key attributes.

    Algorithm 3: start with mu = |A_K| matching keys and lower mu until some synthetic row agrees
    with y on mu key attributes; those rows (all ties, as in SDMetrics' Hamming-nearest keys) form
    T_eq and p(y) = share of them with y's sensitive values. Reported = AVG_y p(y) (footnote 1).
    Numerical attributes are binned as in CZeroCAP (``n_bins=None``: exact values, the variant
    ``CGeneralizedCAP@paper``).

    Vectorised: the synthetic key tuples are reduced to distinct tuples with their counts; the
    number of matching key attributes between every real row and every distinct synthetic tuple is
    a product of one-hot matrices, taken in batches of real rows against ``TILE`` tuples at a time,
    so that each product is read while it is in cache: a row keeps the largest count so far and
    the votes (synthetic rows per secret) of the tuples that reach it. Codes held by at least 0.1%
    of the distinct tuples go into a dense product; the rarer ones (exact numerical values) into
    a sparse one, whose cost is the number of matching pairs.
    """
    key_r, key_s, sec_r, sec_s = _key_and_secret_codes(pair, n_bins)
    targets = pair.target_rows("real")  # every real row, or a sample of them at scale
    key_r, sec_r = key_r[targets], sec_r[targets]
    uniq, inverse = np.unique(key_s, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    n_secrets = int(max(sec_r.max(), sec_s.max())) + 1
    # synthetic rows per (distinct key tuple, secret), sparse: exact numerical secrets are many
    counts = sparse.csr_matrix(
        (np.ones(len(inverse), dtype=np.float32), (inverse, sec_s)), shape=(len(uniq), n_secrets)
    )
    # by_secret (few distinct secrets): one dense product gives every real row's count per
    # secret at once; else each row's own secret is looked up, with the synthetic rows per tuple
    by_secret = counts.toarray() if n_secrets <= 256 else None
    per_tuple = (
        np.asarray(counts.sum(axis=1), dtype=np.float32).ravel() if by_secret is None else None
    )
    tally = np.empty((len(key_r), n_secrets if by_secret is not None else 2), dtype=np.float32)
    # a row whose whole key is a synthetic tuple: mu = |A_K|, and T_eq is that tuple alone
    exact = _exact_tuple(key_r, uniq)
    hit = exact >= 0
    if by_secret is not None:
        tally[hit] = by_secret[exact[hit]]
    else:
        tally[hit, 0] = np.asarray(counts[exact[hit], sec_r[hit]]).ravel()
        tally[hit, 1] = per_tuple[exact[hit]]
    rest = np.flatnonzero(~hit)  # the others search every tuple for their best partial match
    if rest.size:
        tally[rest] = _partial_matches(key_r[rest], sec_r[rest], uniq, counts, by_secret,
                                       per_tuple, batch)  # fmt: skip
    if by_secret is None:
        return float(np.mean(tally[:, 0].astype(np.float64) / tally[:, 1]))
    correct = tally[np.arange(len(tally)), sec_r].astype(np.float64)
    return float(np.mean(correct / tally.sum(axis=1, dtype=np.float64)))


def _exact_tuple(key_r: np.ndarray, uniq: np.ndarray) -> np.ndarray:
    """For each real key row, the position of the identical distinct synthetic tuple, or -1."""
    _, inverse = np.unique(np.vstack([uniq, key_r]), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    position = np.full(int(inverse.max()) + 1, -1)
    position[inverse[: len(uniq)]] = np.arange(len(uniq))
    return position[inverse[len(uniq) :]]


def _partial_matches(key_r, sec_r, uniq, counts, by_secret, per_tuple, batch: int) -> np.ndarray:
    """The votes of CGeneralizedCAP for real rows without an exact match: per row, the tuples
    matching it on the most key attributes, and their synthetic rows per secret (or, with many
    secrets, the rows holding its own secret and all their rows)."""
    dense_r, dense_s, sparse_r, sparse_s = _split_one_hot(key_r, uniq, min_share=0.001)
    dense_s = np.ascontiguousarray(dense_s.T)
    tally = np.empty((len(key_r), by_secret.shape[1] if by_secret is not None else 2),
                     dtype=np.float32)  # fmt: skip

    def one_batch(start: int) -> None:
        """Tuples TILE at a time (the product stays in cache): per real row, the largest number
        of matching keys so far and the votes of the tuples that reach it."""
        rows = slice(start, start + batch)
        best = np.full(len(key_r[rows]), -1.0, dtype=np.float32)
        votes = tally[rows]
        for t0 in range(0, len(uniq), TILE):
            tile = slice(t0, t0 + TILE)
            matches = dense_r[rows] @ dense_s[:, tile]  # float32: small integer counts, exact
            if sparse_s.nnz:
                extra = (sparse_r[rows] @ sparse_s[tile].T).tocoo()
                matches[extra.row, extra.col] += extra.data
            top = matches.max(axis=1)
            live = np.flatnonzero(top >= best)  # rows for which this tile holds nearest tuples
            if not live.size:
                continue
            top, nearest = top[live], (matches[live] == top[live, None]).astype(np.float32)
            if by_secret is not None:  # integer sums below 2**24: exact in float32
                these = nearest @ by_secret[tile]
            else:
                these = np.column_stack(
                    [
                        _correct_guesses(nearest, counts[tile], sec_r[rows][live]),
                        nearest @ per_tuple[tile],
                    ]
                )
            closer = top > best[live]  # a closer tuple: its votes replace the old ones
            votes[live[closer]] = these[closer]
            votes[live[~closer]] += these[~closer]
            best[live] = top

    in_parallel(one_batch, range(0, len(key_r), batch))
    return tally


def _correct_guesses(nearest: np.ndarray, counts, secrets: np.ndarray) -> np.ndarray:
    """Per real row, the synthetic rows among its nearest tuples that hold its secret:
    sum_t nearest[i, t] counts[t, secret_i], as one sparse product (many distinct secrets)."""
    return np.asarray(counts[:, secrets].T.multiply(nearest).sum(axis=1)).ravel()


def _split_one_hot(key_r: np.ndarray, uniq: np.ndarray, min_share: float):
    """One-hot encodings of the real key rows and the distinct synthetic key tuples over
    (attribute, code), split into a dense float32 part (codes held by at least ``min_share`` of
    the tuples) and a sparse CSR part (the rest). Returns (dense real, dense tuples, sparse real,
    sparse tuples); a dot product of the two parts' rows counts the attributes that match."""
    offsets = np.concatenate([[0], np.cumsum(np.maximum(key_r.max(0), uniq.max(0)) + 1)[:-1]])
    width = int(offsets[-1] + max(key_r[:, -1].max(), uniq[:, -1].max()) + 1)
    real_cols, synth_cols = (key_r + offsets).ravel(), (uniq + offsets).ravel()
    frequent = np.bincount(synth_cols, minlength=width) >= max(1.0, min_share * len(uniq))
    dense_index = np.cumsum(frequent) - 1  # column in the dense part of a frequent code

    def split(cols: np.ndarray, n_rows: int):
        row = np.repeat(np.arange(n_rows), key_r.shape[1])
        keep = frequent[cols]
        dense = np.zeros((n_rows, int(frequent.sum())), dtype=np.float32)
        dense[row[keep], dense_index[cols[keep]]] = 1
        rare = sparse.csr_matrix(
            (np.ones(int((~keep).sum()), dtype=np.float32), (row[~keep], cols[~keep])),
            shape=(n_rows, width),
        )
        return dense, rare

    dense_r, sparse_r = split(real_cols, len(key_r))
    dense_s, sparse_s = split(synth_cols, len(uniq))
    return dense_r, dense_s, sparse_r, sparse_s


@register(
    "ALC",
    title="Anonymity Loss Coefficient",
    category=Category.RECONSTRUCTION,
    kind="probabilistic",
    algorithm=None,
    needs=("key", "sensitive"),
    source="Francis and Wagner (2025), attribute inference with precision and recall",
    orientation="max(0, ALC): ALC <= 0 (no loss over the baseline) maps to 0",
    params={"attack": "brm", "baseline": "best", "max_targets": 1000},
    min_rows=3,
)
def anonymity_loss(
    pair: Pair, attack: str = "brm", baseline: str = "best", max_targets: int = 1000
) -> float:
    """How much better an attacker infers a sensitive attribute from Z than from data without the
    target: the Anonymity Loss Coefficient, over precision *and* recall.

    For each sensitive attribute in turn (the unknown; the key attributes are known), the
    best-row-match attack (Eq. 9) on Z and a baseline trained on the real rows outside the
    target's block predict the unknown value for up to ``max_targets`` real rows, each with a rank
    score. Over rank-score thresholds, the precision (Wilson centre, Eq. 2) and recall (Eq. 3) give
    PRC = (1 - (log10 R / log10 R_min)^3) P (Eq. 6, R_min = 1e-4); with the best PRC of each
    side among the pairs whose Wilson interval is at most 0.1 wide,
    ALC = (PRC_atk - PRC_base) / (1 - PRC_base) (Eq. 8), halting as in Section 5.1
    (:class:`privmetrics.attacks.inference.AnonymityLoss`).

    Aggregation over several sensitive attributes (Section 4.3 leaves it open; the maximum is one
    of its two options): the largest ALC among the attributes whose best pairs reached the width
    limit, or among all of them when none did. Score = max(0, ALC), so that 0 means "no loss"
    and Real approaches 1 (it cannot reach it: the Wilson centre of n/n is below 1).
    ``baseline="best"`` is our repair of the baseline (see
    :class:`privmetrics.attacks.forest_baseline.BlockBaseline`); ``baseline="paper"`` is the paper's forest.
    The attacker is :class:`~privmetrics.attacks.inference.AnonymityLoss`'s default one (the key
    attributes known), so that attack measures the same thing directly. A sensitive attribute
    with a single value cannot leak and is skipped (with a warning); with none left, 0.
    With a control set on the pair (the audit's holdout), the baseline is the same attack aimed at
    the control rows (Section 4.1 of the ALC paper), not a forest.
    """
    results = []
    for col in pair.schema.sensitive:
        try:
            results.append(
                AnonymityLoss(
                    pair.real,
                    pair.synthetic,
                    pair.control,
                    pair.schema,
                    secret=col,
                    attack=attack,
                    baseline=baseline,
                    targets=max_targets,
                ).evaluate(pair.seed)  # fmt: skip
            )
        except InvalidInputError as exc:  # a constant attribute: nothing to infer, no loss
            warnings.warn(f"ALC skips {col!r}: {exc}", UserWarning, stacklevel=2)
    if not results:
        return 0.0
    significant = [r.alc for r in results if "no pair reached" not in r.halt_reason]
    return alc_score(max(significant or [r.alc for r in results]))
