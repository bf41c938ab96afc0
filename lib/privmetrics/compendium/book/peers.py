"""Our metrics beside the field's reference implementations, on the same pair.

Each :class:`Comparison` names one of our measures, the peer's function, how the peer's number is
put on our scale (most peers report risk where we report privacy, so ``1 - x``), and whether the
two *definitions* coincide. Where they coincide the numbers must agree to rounding (``TOLERANCE``);
where they do not, the comparison states the source-level reason, and the book shows by how much
the numbers differ. :func:`crosscheck` scores a pair both ways and times each side in the same run.

The peers are optional (``pip install -e '.[crosscheck]'``): SDMetrics (installed with SDV anyway)
and SynthEval. A comparison whose package is missing is reported as ``not installed``, never
failed. anonymeter is not among them: its current release (1.1.0) requires numpy < 1.27, which
the numpy 2 that SDV needs rules out, so it cannot share an environment with the synthesisers.
"""

from __future__ import annotations

import contextlib
import io
import re
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec

import numpy as np
import pandas as pd
from scipy.special import expit

from privmetrics.data.schema import Schema
from privmetrics.metrics import compute

TOLERANCE = 1e-9  # agreement "to rounding": the peers sum in another order


@dataclass(frozen=True)
class Comparison:
    """One of our measures beside one peer function.

    ``peer_score(real, synthetic, schema)`` returns the peer's number already on our scale;
    ``coincide`` says whether the definitions are the same on the pairs this comparison is run on
    (``categorical_only`` restricts the pair to its categorical columns first); ``reason`` says,
    from the peer's source, why they coincide or where they part.
    """

    ours: str
    package: str
    peer: str
    peer_score: Callable[[pd.DataFrame, pd.DataFrame, Schema], float]
    coincide: bool
    reason: str
    categorical_only: bool = False
    # the definitions coincide only on pairs whose release has no category the real table lacks
    seen_categories_only: bool = False

    def coincides_on(self, real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema) -> bool:
        if not self.coincide or not self.seen_categories_only:
            return self.coincide
        return all(set(synthetic[c]) <= set(real[c]) for c in schema.categorical)

    @property
    def label(self) -> str:
        scope = " (categorical columns)" if self.categorical_only else ""
        return f"{self.ours}{scope} vs {self.peer}"


def installed(package: str) -> str | None:
    """The installed version of ``package``, or None."""
    if find_spec(package.replace("-", "_")) is None:
        return None
    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


@contextlib.contextmanager
def _quiet():
    """Peers print progress and raise deprecation warnings; the comparison needs neither."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


# --- SDMetrics ---------------------------------------------------------------------------------


def _sdmetrics_cap(metric: str):
    def score(real, synthetic, schema):
        from sdmetrics.single_table import privacy

        value = getattr(privacy, metric).compute(
            real, synthetic, key_fields=list(schema.key), sensitive_fields=list(schema.sensitive)
        )
        return 1.0 - float(value)  # SDMetrics reports 1 - mean P(correct): ours is the mean

    return score


# --- SynthEval ---------------------------------------------------------------------------------


def _syntheval(module: str, cls: str, result: str, to_ours: Callable[[float], float], **kw):
    def score(real, synthetic, schema):
        import importlib

        metric = getattr(importlib.import_module(f"syntheval.metrics.privacy.{module}"), cls)
        instance = metric(
            real.reset_index(drop=True),
            synthetic.reset_index(drop=True),
            cat_cols=list(schema.categorical),
            num_cols=list(schema.numerical),
            nn_dist="gower",
            do_preprocessing=True,
            verbose=False,
            plot_figures=False,
        )
        return float(to_ours(instance.evaluate(**kw)[result]))

    return score


def _one_minus(x: float) -> float:
    return 1.0 - x


GOWER = (
    "SynthEval measures Gower distance (the mean over columns of |x - x'| / range and of "
    "category mismatches, ranges from the real and synthetic tables together); ours is the "
    "Euclidean distance with numericals scaled by the real range"
)

SYNTHEVAL_NNAA = _syntheval(
    "metric_nn_adversarial_accuracy",
    "NearestNeighbourAdversarialAccuracy",
    "avg",
    _one_minus,
    n_resample=1,  # equal sizes: no resampling
)

COMPARISONS: list[Comparison] = [
    Comparison(
        "CZeroCAP@paper",
        "sdmetrics",
        "SDMetrics CategoricalZeroCAP",
        _sdmetrics_cap("CategoricalZeroCAP"),
        True,
        "the same Algorithm 2 with exact key matching, no key match scoring 0; SDMetrics reports "
        "1 - the mean, so its number is turned over",
    ),
    Comparison(
        "CGeneralizedCAP@paper",
        "sdmetrics",
        "SDMetrics CategoricalGeneralizedCAP",
        _sdmetrics_cap("CategoricalGeneralizedCAP"),
        True,
        "the same Algorithm 3: every synthetic row at the smallest Hamming distance on the key "
        "votes (ties kept), values compared exactly; turned over as for ZeroCAP",
    ),
    Comparison(
        "CZeroCAP",
        "sdmetrics",
        "SDMetrics CategoricalZeroCAP",
        _sdmetrics_cap("CategoricalZeroCAP"),
        False,
        "ours cuts numerical key attributes into 10 quantile bins before matching (a continuous "
        "key almost never matches exactly); SDMetrics matches raw numbers, so a copy whose "
        "numbers moved by 0.01% has no key match there",
    ),
    Comparison(
        "HittingRate",
        "syntheval",
        "SynthEval hit_rate",
        _syntheval("metric_hitting_rate", "HittingRate", "hit rate", float),
        True,
        "the same definition: share of real rows with a synthetic row equal on every category and "
        "within range/30 on every number (SynthEval loops over rows, ours is one KD-tree query)",
    ),
    Comparison(
        "NNAA",
        "syntheval",
        "SynthEval nnaa",
        SYNTHEVAL_NNAA,
        True,
        "on categorical columns both distances count mismatches (Gower divides the count by the "
        "number of columns, ours takes its square root), so every nearest neighbour and every "
        "comparison is the same; SynthEval reports AA, ours 1 - AA. Not on a release with a "
        "category the real table lacks: our one-hot encoding is fitted on the real table, so an "
        "unseen category is a row of zeros, half a mismatch away from every real category, while "
        "Gower counts a full mismatch",
        categorical_only=True,
        seen_categories_only=True,
    ),
    Comparison(
        "NNAA",
        "syntheval",
        "SynthEval nnaa",
        SYNTHEVAL_NNAA,
        False,
        GOWER + "; with numerical columns the nearest neighbours differ",
    ),
    Comparison(
        "MDCR@paper",
        "syntheval",
        "SynthEval dcr",
        _syntheval(
            "metric_distance_closest_record",
            "MedianDistanceToClosestRecord",
            "mDCR",
            lambda ratio: float(expit(3 - ratio)),
        ),
        False,
        GOWER + "; both take the median synthetic-to-real over the median real-to-real nearest "
        "distance and both drop a row's twin when the tables are equal",
    ),
    Comparison(
        "NNDR",
        "syntheval",
        "SynthEval nndr",
        _syntheval("metric_nn_distance_ratio", "NearestNeighbourDistanceRatio", "avg", _one_minus),
        False,
        "SynthEval averages d1/d2 over the *real* rows (their two nearest synthetic rows) in "
        "Gower space; the paper's Algorithm 14 averages over the synthetic rows on the 2-D FAMD "
        "projection",
    ),
    Comparison(
        "IdentifiabilityScore",
        "syntheval",
        "SynthEval eps_risk",
        _syntheval("metric_epsilon_identifiability", "EpsilonIdentifiability", "eps_risk", float),
        False,
        "the same count (real rows whose nearest synthetic row is closer than their nearest other "
        "real row), both weighting columns by 1/entropy, but SynthEval in Gower space, with weight "
        "1e16 for a column whose entropy is 0 (1/(0 + 1e-16)), which then decides every distance, "
        "and, when the tables are equal, without each row's twin (so a copy scores 0)",
    ),
]


def _timed(func: Callable[[], float]) -> tuple[float, float]:
    start = time.perf_counter()
    value = func()
    return value, time.perf_counter() - start


def crosscheck(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    comparisons: list[Comparison] | None = None,
) -> pd.DataFrame:
    """Score the pair with ours and with each peer; one row per comparison.

    Columns: comparison, ours, peer, package, version, coincide (the definitions), ours_value,
    peer_value (on our scale), difference, agree (|difference| <= TOLERANCE), ours_seconds,
    peer_seconds, speedup (peer / ours), reason. A missing package gives NaN values and
    ``version = "not installed"``. A peer's score on the same columns is computed once and shared
    by every comparison with it (with its time), e.g. SDMetrics' ZeroCAP against our two CAPs.
    """
    rows, peer_scores = [], {}
    for c in comparisons if comparisons is not None else COMPARISONS:
        cols = schema.categorical if c.categorical_only else schema.names
        sub = schema.subset(cols) if c.categorical_only else schema
        r, s = real[cols], synthetic[cols]
        row = {"comparison": c.label, "ours": c.ours, "peer": c.peer, "package": c.package,
               "coincide": c.coincides_on(r, s, sub), "reason": c.reason}  # fmt: skip
        found = installed(c.package)
        if found is None:
            rows.append({**row, "version": "not installed"})
            continue
        ours, ours_seconds = _timed(lambda: compute(c.ours, r, s, sub))  # noqa: B023
        if (c.peer, c.categorical_only) not in peer_scores:
            with _quiet():
                peer_scores[c.peer, c.categorical_only] = _timed(lambda: c.peer_score(r, s, sub))  # noqa: B023
        peer, peer_seconds = peer_scores[c.peer, c.categorical_only]
        rows.append(
            {
                **row,
                "version": found,
                "ours_value": ours,
                "peer_value": peer,
                "difference": ours - peer,
                "agree": abs(ours - peer) <= TOLERANCE,
                "ours_seconds": ours_seconds,
                "peer_seconds": peer_seconds,
                "speedup": peer_seconds / max(ours_seconds, 1e-9),
            }  # fmt: skip
        )
    out = pd.DataFrame(rows)
    columns = ["comparison", "ours", "peer", "package", "version", "coincide", "ours_value",
               "peer_value", "difference", "agree", "ours_seconds", "peer_seconds", "speedup",
               "reason"]  # fmt: skip
    return out.reindex(columns=columns)


def reference_pairs(
    real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema, seed: int = 0
) -> dict[str, pd.DataFrame]:
    """The synthetic tables the chapter and the tests compare on, each beside ``real``:

    * identity: the real table itself (the peers' "drop the twin when equal" rules show here);
    * shuffled copy: the same rows in another order;
    * perturbed copy: every number multiplied by 1.0001 (categories kept), the near-copy on which
      exact and binned or tolerant matching part;
    * half copy: half the shuffled copy, half the given release (scores strictly inside (0, 1));
    * release: ``synthetic``, a synthesiser's output.
    """
    shuffled = real.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    numbers = list(schema.numerical)
    perturbed = shuffled.copy()
    perturbed[numbers] = perturbed[numbers].astype(float) * 1.0001
    half = len(real) // 2
    mixed = pd.concat(
        [shuffled.iloc[:half], synthetic.iloc[: len(real) - half]], ignore_index=True
    ).astype(real.dtypes.to_dict())
    return {
        "identity": real,
        "shuffled copy": shuffled,
        "perturbed copy": perturbed.astype({c: float for c in numbers}),
        "half copy": mixed,
        "release": synthetic,
    }


def crosscheck_all(
    real: pd.DataFrame, release: pd.DataFrame, schema: Schema, keys: dict[str, list[str] | None]
) -> pd.DataFrame:
    """:func:`crosscheck` on every :func:`reference_pairs` pair, once per key attribute set in
    ``keys`` (name -> key columns; None keeps the schema's key); columns ``key`` and ``pair``
    first."""
    parts = []
    for key_name, key in keys.items():
        roles = schema if key is None else schema.with_roles(key=key)
        for pair, synthetic in reference_pairs(real, release, roles).items():
            part = crosscheck(real, synthetic, roles)
            part.insert(0, "pair", pair)
            part.insert(0, "key", key_name)
            parts.append(part)
    return pd.concat(parts, ignore_index=True)


def agreement_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Per comparison: whether the definitions coincide on every pair, how many pairs were scored,
    on how many the numbers agree, the largest absolute difference, and the median time of each
    side (seconds) with their ratio."""
    scored = results.dropna(subset=["ours_value"])
    summary = scored.groupby("comparison", sort=False).agg(
        coincide=("coincide", "all"),
        pairs=("agree", "size"),
        agree=("agree", "sum"),
        largest_difference=("difference", lambda d: float(d.abs().max())),
        ours_seconds=("ours_seconds", "median"),
        peer_seconds=("peer_seconds", "median"),
    )
    summary["speedup"] = summary.peer_seconds / summary.ours_seconds.clip(lower=1e-9)
    return summary


# --- the holdout reading beside SDMetrics' holdout-based DCR measures ---------------------------

_CLOSER = re.compile(r"closer than a non-member: [\d,]+ of [\d,]+ real rows \(([\d.]+)%\)")


def holdout_releases(
    population: pd.DataFrame, schema: Schema, rows: int, seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame]]:
    """(training rows, holdout, releases) from ``3 * rows`` rows of ``population``: releases
    whose answer is known: a copy and a copy with every number moved by 5% of its column's
    spread (must fail), every column shuffled on its own and fresh rows of the same population,
    never trained on (must pass)."""
    from privmetrics.compendium.benchmarks.steward_cases import known_releases

    return known_releases(population, list(schema.numerical), rows, seed)


def holdout_comparison(
    train: pd.DataFrame, holdout: pd.DataFrame, releases: dict[str, pd.DataFrame], schema: Schema,
    seed: int = 0,
) -> pd.DataFrame:  # fmt: skip
    """Per release: SDMetrics' DCROverfittingProtection (1 - how much more often a release row is
    closer to a training row than to a holdout row than half the time, x2; 1 = no overfitting),
    the share of release rows closer to the training rows, DCRBaselineProtection (the release's
    median distance to the real rows against that of uniform random rows; 1 = as far as noise),
    beside the steward's audit with the same holdout: its verdict and its share of real rows
    closer than a non-member (chance 5%)."""
    from sdmetrics.single_table import DCRBaselineProtection, DCROverfittingProtection

    from privmetrics.audit import audit

    metadata = {"tables": {"t": {"columns": {
        c: {"sdtype": "numerical" if c in schema.numerical else "categorical"} for c in train}}}}  # fmt: skip
    rows = []
    for name, release in releases.items():
        with _quiet():
            over = DCROverfittingProtection.compute_breakdown(
                train, release, holdout, metadata, "t"
            )
            base = DCRBaselineProtection.compute_breakdown(train, release, metadata, "t")
            report = audit(train, release, schema=schema, holdout=holdout, report=True, seed=seed)
        closer = next((float(m.group(1)) / 100 for line in report.evidence_lines
                       if (m := _CLOSER.search(line))), np.nan)  # fmt: skip
        rows.append({
            "release": name,
            "SDMetrics DCROverfittingProtection": float(over["score"]),
            "release rows closer to training (SDMetrics)":
                float(over["synthetic_data_percentages"]["closer_to_training"]),
            "SDMetrics DCRBaselineProtection": float(base["score"]),
            "audit verdict": report.verdict.level,
            "real rows closer than a non-member (audit)": closer,
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("release")
