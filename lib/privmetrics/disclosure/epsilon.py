"""Choosing epsilon from data: utility errors, reciprocal curves and the epsilon advisor of Chen, Yu
and Dargahi (2021, risk of disclosure and utility), Sections 3.2.5-3.4.

* **Utility error** (Eqs. 11-12): for a statistic s (mean, standard deviation or variance, the
  population convention), 100 |s(O_a) - s(D_a)| / |s(O_a)| per numerical attribute a, averaged
  over the attributes.
* **Reciprocal curves** of degree 1, f(eps) = a/eps + b (Eq. 13), and degree 2,
  f(eps) = a/eps^2 + b/eps + c (Eq. 15), fitted by ordinary least squares on the raw values: with
  as many points as coefficients, degree 2 interpolates. This reproduces the paper's Tables 1-3
  to every printed digit (the tests check it).
* **Alg. 5** (the noise-bound baseline): the epsilon at which Laplace noise on a count stays below
  a bound; the printed formula is circular, so three readings are offered.
* **The joint choice** (Section 3.4): utility error <= e_max gives a lower bound eps_U (the error
  falls with epsilon); a risk limit gives an upper bound eps_R (privacy falls with epsilon). The
  paper only sketches this; we return the largest feasible epsilon (the best utility within the
  risk limit, its "maximal privacy budget"), report both bounds, and say when they conflict.
* :func:`advise_epsilon` does it all from a few trial epsilons.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privmetrics.data.schema import Schema
from privmetrics.disclosure import notions as rod

STATISTICS = {"mean": np.mean, "std": np.std, "var": np.var}


def utility_error(
    real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema, statistic: str = "var"
) -> float:
    """Eqs. 11-12: the mean over numerical attributes of the relative error of ``statistic``, in
    percent. An attribute whose real statistic is 0 is left out (the relative error is undefined)."""
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {sorted(STATISTICS)}, got {statistic!r}")
    columns = list(schema.numerical)
    if not columns:
        raise ValueError("utility errors are defined on numerical attributes; the schema has none")
    stat = STATISTICS[statistic]
    o = stat(real[columns].to_numpy(float), axis=0)
    d = stat(synthetic[columns].to_numpy(float), axis=0)
    keep = o != 0
    return float(np.mean(100 * np.abs(o[keep] - d[keep]) / np.abs(o[keep])))


@dataclass
class ReciprocalCurve:
    """f(eps) = sum_k coef[k] / eps^(degree - k): degree 1 is a/eps + b, degree 2 a/eps^2 + b/eps + c."""

    degree: int
    coef: np.ndarray
    epsilons: np.ndarray = field(default_factory=lambda: np.array([]))  # the fitting points
    values: np.ndarray = field(default_factory=lambda: np.array([]))

    @staticmethod
    def _features(eps, degree: int) -> np.ndarray:
        u = 1 / np.asarray(eps, dtype=float)
        return np.column_stack([u**k for k in range(degree, -1, -1)])

    @classmethod
    def fit(cls, epsilons, values, degree: int = 2) -> ReciprocalCurve:
        """Ordinary least squares on the raw values (the paper's fit, reproduced exactly)."""
        if degree not in (1, 2):
            raise ValueError(f"the paper's reciprocal curves have degree 1 or 2, not {degree}")
        epsilons, values = np.asarray(epsilons, float), np.asarray(values, float)
        if len(epsilons) < degree + 1:
            raise ValueError(f"a degree-{degree} curve needs at least {degree + 1} epsilons")
        if (epsilons <= 0).any():
            raise ValueError("epsilon must be positive")
        coef, *_ = np.linalg.lstsq(cls._features(epsilons, degree), values, rcond=None)
        return cls(degree, coef, epsilons, values)

    def predict(self, eps) -> np.ndarray:
        return self._features(np.atleast_1d(eps), self.degree) @ self.coef

    def invert(self, target: float, bounds: tuple[float, float] | None = None) -> float:
        """The epsilon at which the curve equals ``target`` (u = 1/eps solves the polynomial in u),
        within ``bounds`` (default: the fitting range). NaN, with a warning, when no root lies
        there; the smallest epsilon when several do."""
        low, high = bounds or (self.epsilons.min(), self.epsilons.max())
        coef = self.coef.copy()
        coef[-1] -= target
        roots = np.roots(coef)
        u = roots[np.isclose(roots.imag, 0) & (roots.real > 0)].real
        eps = np.sort(1 / u[(1 / u >= low * (1 - 1e-9)) & (1 / u <= high * (1 + 1e-9))])
        if len(eps) == 0:
            warnings.warn(
                f"the curve does not reach {target} between epsilon {low:g} and {high:g}",
                stacklevel=2,
            )
            return float("nan")
        return float(eps[0])


def epsilon_from_noise_bound(
    bound: float, sensitivity: float = 1.0, rule: str = "mu_plus_2sigma", q: float = 0.95
) -> float:
    """Alg. 5: the epsilon at which Laplace(sensitivity / eps) noise on a count stays within
    ``bound`` (the paper calls it a "probability" p; it is used as a noise magnitude).

    * ``"mu_plus_2sigma"`` (default, the text's "mu + 2 sigma" of Lap(b), sigma = sqrt 2 b):
      eps = 2 sqrt(2) sensitivity / bound;
    * ``"paper_literal"``: the printed p = 2 sqrt(2 / eps), i.e. eps = 8 sensitivity / bound^2;
    * ``"quantile"``: P(|Lap(b)| <= bound) = q, i.e. eps = sensitivity ln(1 / (1 - q)) / bound.
    """
    if bound <= 0 or sensitivity <= 0:
        raise ValueError("the noise bound and the sensitivity must be positive")
    if rule == "mu_plus_2sigma":
        return 2 * np.sqrt(2) * sensitivity / bound
    if rule == "paper_literal":
        return 8 * sensitivity / bound**2
    if rule == "quantile":
        if not 0 < q < 1:
            raise ValueError(f"q must be in (0, 1), got {q}")
        return sensitivity * np.log(1 / (1 - q)) / bound
    raise ValueError(f"rule must be mu_plus_2sigma, paper_literal or quantile, got {rule!r}")


@dataclass
class Selection:
    epsilon: float  # the recommendation (NaN when the constraints conflict)
    epsilon_utility: float  # smallest epsilon meeting the utility target (eps_U)
    epsilon_risk: float  # largest epsilon meeting the risk target (eps_R)
    predicted_error: float
    predicted_risk: float
    reason: str


def select_epsilon(
    utility: ReciprocalCurve,
    max_error: float,
    risk: ReciprocalCurve,
    risk_limit: float,
    risk_higher_is_safer: bool = True,
    bounds: tuple[float, float] = (1e-3, 100.0),
    prefer: str = "max",
) -> Selection:
    """Section 3.4: the feasible epsilons meet error <= ``max_error`` and risk >= ``risk_limit``
    (a distance, ``risk_higher_is_safer``) or risk <= ``risk_limit`` (a probability or share).
    Both curves are evaluated on a fine log grid over ``bounds``, which also copes with fitted
    curves that are not monotone; ``prefer="max"`` returns the largest feasible epsilon (best
    utility), ``"min"`` the smallest (most private)."""
    grid = np.logspace(np.log10(bounds[0]), np.log10(bounds[1]), 4001)
    error, danger = utility.predict(grid), risk.predict(grid)
    useful = error <= max_error
    safe = danger >= risk_limit if risk_higher_is_safer else danger <= risk_limit
    eps_u = float(grid[useful].min()) if useful.any() else float("nan")
    eps_r = float(grid[safe].max()) if safe.any() else float("nan")
    both = useful & safe
    if not both.any():
        return Selection(
            float("nan"), eps_u, eps_r, float("nan"), float("nan"),
            f"no epsilon in [{bounds[0]:g}, {bounds[1]:g}] meets both targets "
            f"(utility needs >= {eps_u:.4g}, risk allows <= {eps_r:.4g})",
        )  # fmt: skip
    chosen = grid[both].max() if prefer == "max" else grid[both].min()
    return Selection(
        float(chosen), eps_u, eps_r, float(utility.predict(chosen)[0]),
        float(risk.predict(chosen)[0]),
        f"{'largest' if prefer == 'max' else 'smallest'} epsilon meeting both targets",
    )  # fmt: skip


Measure = Callable[[pd.DataFrame, pd.DataFrame, Schema], float]


def voronoi_distance(real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema) -> float:
    """The paper's "risk distance" (its Table 1 most likely shows Voronoi privacy): Voronoi d on the
    min-max scaled numerical attributes, larger = safer."""
    o, d = rod.numeric_arrays(real, synthetic, schema, "minmax")
    return rod.voronoi_privacy(o, d, sample=500)


def median_y(real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema) -> float:
    """y-privacy with the median (the paper's average case), larger = safer."""
    o, d = rod.numeric_arrays(real, synthetic, schema, "minmax")
    return rod.y_privacy(o, d, "median")


RISKS: dict[str, Measure] = {"voronoi": voronoi_distance, "y_median": median_y}


def measure_points(
    real: pd.DataFrame,
    schema: Schema,
    synthesise: Callable[[float, int], pd.DataFrame],
    epsilons,
    seeds=(0, 1, 2),
    measures: dict[str, Measure] | None = None,
) -> pd.DataFrame:
    """One row per (epsilon, seed, measure): the measured value on ``synthesise(eps, seed)``.
    Default measures: the three utility errors and the two risk distances."""
    measures = measures or {
        **{
            f"{s} error (%)": (lambda r, z, sc, s=s: utility_error(r, z, sc, s)) for s in STATISTICS
        },
        **{f"{k} distance": f for k, f in RISKS.items()},
    }
    rows = []
    for eps in epsilons:
        for seed in seeds:
            synthetic = synthesise(float(eps), int(seed))
            for name, measure in measures.items():
                rows.append(
                    {"epsilon": float(eps), "seed": seed, "measure": name,
                     "value": measure(real, synthetic, schema)}
                )  # fmt: skip
    return pd.DataFrame(rows)


def held_out_table(points: pd.DataFrame, train, degree: int) -> pd.DataFrame:
    """The paper's Tables 1-3 for every measure: the curve fitted on the mean values at the
    ``train`` epsilons, then predicted against measured at every epsilon, with the error."""
    means = points.groupby(["measure", "epsilon"]).value.mean().rename("measured").reset_index()
    out = []
    for _, part in means.groupby("measure", sort=False):
        fit_on = part[part.epsilon.isin(train)]
        curve = ReciprocalCurve.fit(fit_on.epsilon, fit_on.measured, degree)
        predicted = curve.predict(part.epsilon.to_numpy())
        out.append(
            part.assign(
                predicted=predicted,
                error=predicted - part.measured,
                relative_error=np.abs(predicted - part.measured) / np.abs(part.measured),
                held_out=~part.epsilon.isin(train),
                degree=degree,
            )
        )
    return pd.concat(out, ignore_index=True)


def prediction_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per measure and degree, over the held-out epsilons: median and largest relative error, and
    how many predictions fall below zero (impossible for an error or a distance)."""
    held = table[table.held_out]
    return held.groupby(["measure", "degree"]).agg(
        median_relative_error=("relative_error", "median"),
        max_relative_error=("relative_error", "max"),
        negative_predictions=("predicted", lambda p: int((p < 0).sum())),
        held_out_points=("predicted", "size"),
    )


@dataclass
class Advice:
    selection: Selection
    utility_curve: ReciprocalCurve
    risk_curve: ReciprocalCurve
    points: pd.DataFrame  # every trial measurement
    measured_error: float = float("nan")  # at the recommended epsilon, when verified
    measured_risk: float = float("nan")
    meets_targets: bool | None = None  # did the measured values meet both targets?

    @property
    def epsilon(self) -> float:
        return self.selection.epsilon


def advise_epsilon(
    real: pd.DataFrame,
    schema: Schema,
    synthesise: Callable[[float, int], pd.DataFrame],
    max_error: float,
    risk_limit: float,
    utility: str = "var",
    risk: str | Measure = "voronoi",
    risk_higher_is_safer: bool = True,
    trial_epsilons=(0.05, 0.5, 5.0),
    seeds=(0, 1),
    degree: int = 2,
    bounds: tuple[float, float] | None = None,
    verify: bool = True,
) -> Advice:
    """Recommend an epsilon for a target utility error (percent, of ``utility``) and a risk limit.

    ``synthesise(eps, seed)`` returns a DP synthetic table (see
    :func:`privmetrics.synthesisers.make_synthesiser`); ``risk`` is a name of :data:`RISKS` or any
    ``f(real, synthetic, schema) -> float``. The trial epsilons are measured with every seed, the
    degree-2 reciprocal curves fitted through their means, and :func:`select_epsilon` applied
    within ``bounds`` (default: a decade beyond the trial range on each side). With ``verify``
    (our addition) the recommendation is measured with every seed, and the advice says whether
    the measured error and risk meet the targets: a curve through three points can be wrong."""
    risk_measure = RISKS[risk] if isinstance(risk, str) else risk
    measures = {"utility": lambda r, z, s: utility_error(r, z, s, utility), "risk": risk_measure}
    points = measure_points(real, schema, synthesise, trial_epsilons, seeds, measures)
    means = points.groupby(["measure", "epsilon"]).value.mean()
    curves = {m: ReciprocalCurve.fit(means[m].index, means[m].to_numpy(), degree) for m in measures}
    low, high = min(trial_epsilons), max(trial_epsilons)
    selection = select_epsilon(
        curves["utility"], max_error, curves["risk"], risk_limit, risk_higher_is_safer,
        bounds=bounds or (low / 10, high * 10),
    )  # fmt: skip
    advice = Advice(selection, curves["utility"], curves["risk"], points)
    if verify and np.isfinite(selection.epsilon):
        check = measure_points(real, schema, synthesise, [selection.epsilon], seeds, measures)
        measured = check.groupby("measure").value.mean()
        advice.measured_error, advice.measured_risk = measured["utility"], measured["risk"]
        safe = (
            measured["risk"] >= risk_limit
            if risk_higher_is_safer
            else measured["risk"] <= risk_limit
        )
        advice.meets_targets = bool(measured["utility"] <= max_error and safe)
    return advice
