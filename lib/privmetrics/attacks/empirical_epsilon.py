"""The empirical epsilon: does a synthesiser's release reveal one worst-case record? (The field
calls this auditing differential privacy; here "audit" names the steward's audit, so this is the
empirical epsilon, measured by :class:`EmpiricalEpsilon` in the package's one attack shape,
:mod:`.shape`.)

The game (the distinguishing game behind the DP definition, as audited by Jagielski et al. 2020
and, for synthetic data, Annamalai, Ganev and De Cristofaro 2024):

1. Two neighbouring tables: ``D0`` (``train_rows`` rows drawn from the population) and ``D1``, the
   same table with its last row replaced by the **target** (substitution, the neighbouring
   relation PrivBayes's accounting uses). The default target is the population's most outlying
   row (:func:`outlier_target`), the record that DP must hide and that leaks first (Stadler et al.).
2. ``releases`` times per world, the synthesiser (a fresh seed each time) is fitted on the world's
   table and releases ``train_rows`` rows.
3. Each release is summarised by statistics an attacker would look at (:class:`TargetStatistics`,
   each "larger means the target is in"): the release's extreme in the target's most outlying
   numerical column (its maximum, or minus its minimum), minus the closest distance from the
   target to a released row, and how often the target's rare categories appear.
4. For each statistic, the first half of the releases of both worlds chooses a threshold; on the
   second half, TPR = P(stat >= t | D1) and FPR = P(stat >= t | D0) get Clopper-Pearson bounds at
   confidence 1 - alpha / k (Bonferroni over the k statistics), and

       epsilon_lower = max(log(TPR_low / FPR_high), log((1 - FPR)_low / (1 - TPR)_high))

   (with delta > 0: log((TPR_low - delta) / FPR_high)). An epsilon-DP mechanism has
   TPR <= e^epsilon FPR + delta for *every* test, so with probability at least 1 - alpha the
   reported bound is below the true epsilon: a bound above the claim shows the claim is false.

The fits are small and many, so they run on ``threads`` BLAS/torch threads (1 by default: wider
pools only spin on tables this size, and badly so beside another process).

With r releases per world the largest bound the audit can show is about log(r / (2 log(2k/alpha))),
so it has power against claims of about 1 with 50 releases, and none against 10: that is stated
beside every result (:attr:`EpsilonResult.max_provable`). Power comes cheapest from a **small
worst-case table**: with ``train_rows`` a handful of rows around the outlier, a PrivBayes release
costs milliseconds, and hundreds or thousands of releases per world raise the provable bound to
log of their number.

Beside the Clopper-Pearson bound, each statistic's test gives an **estimate from the trade-off
curve**: were the mechanism mu-GDP (Gaussian differential privacy, Dong, Roth and Su 2022), its
curve TPR = Phi(Phi^-1(FPR) + mu) passes above the test's (FPR high, TPR low), which bounds mu
from below (:func:`gdp_mu_lower`), and mu gives epsilon at the mechanism's delta, or at
:data:`GDP_DELTA` for a pure-DP claim (:func:`gdp_epsilon`). It uses the whole shape of the
curve rather than its corner, so it is tighter, but it is an estimate under that assumption,
not a proof: the table shows both, and the verdict rests on the bound.

:func:`release_max_auc` is the simpler check of the issue that found the leak: the AUC of the
release's maximum in the target's column over training sets drawn afresh for every release.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats
from tqdm import tqdm

from privmetrics.attacks.outcome import Outcome
from privmetrics.attacks.shape import Attack, OneOutcome
from privmetrics.data.schema import Schema
from privmetrics.synthesisers import make_synthesiser
from privmetrics.threads import limited

# the delta at which a pure-DP claim's trade-off curve is read as (epsilon, delta) (GDP estimate)
GDP_DELTA = 1e-5


def robust_z(frame: pd.DataFrame, schema: Schema) -> pd.DataFrame:
    """|x - median| / spread per numerical column, the spread being the IQR (or the mean absolute
    deviation when the IQR is 0, or 1 when both are)."""
    if not schema.numerical:
        raise ValueError("the audit needs at least one numerical column to find an outlier in")
    values = frame[schema.numerical].astype(float)
    gap = (values - values.median()).abs()
    spread = (values.quantile(0.75) - values.quantile(0.25)).where(lambda s: s > 0, gap.mean())
    return gap / spread.where(spread > 0, 1.0)


def outlier_target(frame: pd.DataFrame, schema: Schema) -> tuple[int, str]:
    """The position of the row with the largest robust z-score (:func:`robust_z`) in any
    numerical column, and that column."""
    z = robust_z(frame, schema).to_numpy()
    row, col = np.unravel_index(int(np.argmax(z)), z.shape)
    return int(row), schema.numerical[col]


@dataclass(frozen=True)
class TargetStatistics:
    """The statistics of a release (see the module doc), each larger when the target is in; what
    they need from the target and the population is computed once per audit, not per release."""

    column: str
    high: bool  # the target sits at the top of ``column`` (else at the bottom)
    numerical: list[str]
    categorical: list[str]
    numbers: np.ndarray  # the target's numerical values
    scale: np.ndarray  # the population's standard deviation of each (0 read as 1)
    categories: np.ndarray  # the target's categorical values, as text
    rare: list[int]  # positions in ``categorical`` of the columns whose target value is rare

    @classmethod
    def of(
        cls, target: pd.Series, population: pd.DataFrame, schema: Schema, column: str
    ) -> TargetStatistics:
        numerical, categorical = list(schema.numerical), list(schema.categorical)
        scale = population[numerical].std().replace(0, 1).to_numpy() if numerical else np.ones(0)
        frequency = {c: (population[c].astype(str) == str(target[c])).mean() for c in categorical}
        return cls(
            column=column,
            high=bool(target[column] >= population[column].median()),
            numerical=numerical,
            categorical=categorical,
            numbers=target[numerical].to_numpy(float),
            scale=scale,
            categories=target[categorical].astype(str).to_numpy(),
            rare=[i for i, f in enumerate(frequency.values()) if f < 0.01],  # < 1% of people
        )

    def __call__(self, release: pd.DataFrame) -> dict[str, float]:
        extreme = release[self.column].max() if self.high else -release[self.column].min()
        gaps = np.abs(release[self.numerical].to_numpy(float) - self.numbers) / self.scale
        mismatches = release[self.categorical].astype(str).to_numpy() != self.categories
        distance = gaps.sum(1) + mismatches.sum(1)
        rare_count = float((~mismatches[:, self.rare]).sum())
        return {"extreme": float(extreme), "closeness": -float(distance.min()), "rare": rare_count}


def clopper_pearson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """Two-sided Clopper-Pearson interval of a binomial proportion at ``confidence``."""
    tail = (1 - confidence) / 2
    low = stats.beta.ppf(tail, successes, trials - successes + 1) if successes else 0.0
    high = (
        stats.beta.ppf(1 - tail, successes + 1, trials - successes) if successes < trials else 1.0
    )
    return float(low), float(high)


def epsilon_lower_bound(
    tp: int, fn: int, fp: int, tn: int, confidence: float, delta: float = 0.0
) -> float:
    """The lower bound on epsilon from one test's confusion counts (module doc), at least 0."""
    tpr_low, tpr_high = clopper_pearson(tp, tp + fn, confidence)
    fpr_low, fpr_high = clopper_pearson(fp, fp + tn, confidence)
    bounds = [0.0]
    if fpr_high > 0 and tpr_low - delta > 0:
        bounds.append(np.log((tpr_low - delta) / fpr_high))
    if tpr_high < 1 and (1 - fpr_high) - delta > 0:
        bounds.append(np.log(((1 - fpr_high) - delta) / (1 - tpr_low)))
    return float(max(bounds))


def gdp_mu_lower(tp: int, fn: int, fp: int, tn: int, confidence: float) -> float:
    """A lower confidence bound on mu, were the mechanism mu-GDP (Dong, Roth and Su 2022): its
    trade-off curve passes through every test's (FPR, TPR) with TPR = Phi(Phi^-1(FPR) + mu), so
    mu >= Phi^-1(TPR) - Phi^-1(FPR), here at the Clopper-Pearson ends (TPR low, FPR high)."""
    tpr_low, _ = clopper_pearson(tp, tp + fn, confidence)
    _, fpr_high = clopper_pearson(fp, fp + tn, confidence)
    if tpr_low <= 0 or fpr_high >= 1:
        return 0.0
    return float(max(0.0, stats.norm.ppf(tpr_low) - stats.norm.ppf(fpr_high)))


def gdp_epsilon(mu: float, delta: float) -> float:
    """The epsilon of a mu-GDP mechanism at ``delta`` (Dong, Roth and Su, Corollary 2.13):
    the root of delta = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), 0 when mu is 0."""
    from scipy.optimize import brentq

    if mu <= 0:
        return 0.0

    def excess(eps: float) -> float:
        return (
            stats.norm.cdf(-eps / mu + mu / 2)
            - np.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
            - delta
        )

    if excess(0.0) <= 0:
        return 0.0
    high = 1.0
    while excess(high) > 0:
        high *= 2
    return float(brentq(excess, 0.0, high))


def _best_threshold(inside: np.ndarray, outside: np.ndarray) -> float:
    """The threshold that best separates the calibration releases (largest TPR - FPR, ties to
    the higher threshold; +inf when no threshold helps)."""
    candidates = np.unique(np.concatenate([inside, outside]))
    gain = [(inside >= t).mean() - (outside >= t).mean() for t in candidates]
    if not len(candidates) or max(gain) <= 0:
        return np.inf
    return float(candidates[int(np.flatnonzero(np.isclose(gain, max(gain)))[-1])])


@dataclass
class EpsilonResult(OneOutcome):
    """The empirical epsilon of one synthesiser configuration against one target."""

    technique: str
    params: dict
    claimed_epsilon: float
    delta: float
    releases: int  # per world
    target: int
    column: str
    epsilon_lower: float  # the largest bound over the statistics (Bonferroni-corrected)
    statistic: str  # the statistic that gave it
    max_provable: float  # the largest bound this many releases could show
    epsilon_gdp: float  # the largest epsilon at delta the trade-off curve gives, were it GDP
    max_provable_gdp: float  # the largest such estimate this many releases could give
    per_statistic: pd.DataFrame = field(repr=False)
    scores: pd.DataFrame = field(repr=False)  # every release's statistics and world

    @property
    def holds(self) -> bool:
        """No statistic shows more than the claimed epsilon."""
        return self.epsilon_lower <= self.claimed_epsilon

    def outcome(self) -> Outcome:
        """The empirical epsilon as an :class:`~.outcome.Outcome`: a one-sided 95% bound, so its
        interval runs from the bound to the largest bound these releases could have shown;
        baseline 0 (releases that tell nothing prove nothing). The claim is a threshold, not a
        baseline: :attr:`holds`."""
        return Outcome(f"empirical epsilon, {self.technique} (claims {self.claimed_epsilon:g})",
                       "epsilon (lower bound)", self.epsilon_lower, self.epsilon_lower,
                       max(self.max_provable, self.epsilon_lower), 0.0, self.releases)  # fmt: skip


class EmpiricalEpsilon(Attack):
    """The game of the module doc in the package's shape (:mod:`.shape`): ``technique`` with
    ``params`` fitted ``releases`` times per world on ``train_rows`` rows of ``population``, with
    and without the ``target`` (a position in ``population``; default its most outlying row),
    tested at confidence ``1 - alpha``; the fits on ``threads`` threads (``progress``: a bar)."""

    def __init__(self, population, schema, technique, params, releases=50, train_rows=500,
                 target=None, alpha=0.05, threads=1, progress=False):  # fmt: skip
        self.population = population
        self.schema = schema
        self.technique = technique
        self.params = params
        self.releases = releases
        self.train_rows = train_rows
        self.target = target
        self.alpha = alpha
        self.threads = threads
        self.progress = progress

    def evaluate(self, seed: int = 0) -> EpsilonResult:
        frame, schema, technique, params = self.population, self.schema, self.technique, self.params
        releases, train_rows, threads = self.releases, self.train_rows, self.threads
        target = self.target
        if target is None:
            target, column = outlier_target(frame, schema)
        else:
            column = str(robust_z(frame, schema).iloc[target].idxmax())
        population = frame.drop(index=frame.index[target]).reset_index(drop=True)
        if len(population) < train_rows:
            raise ValueError(f"the population has {len(population)} rows, fewer than {train_rows}")
        rng = np.random.default_rng(seed)
        base = population.iloc[rng.choice(len(population), train_rows, replace=False)]
        worlds = {0: base.reset_index(drop=True), 1: base.reset_index(drop=True).copy()}
        worlds[1].iloc[-1] = frame.iloc[target].to_numpy()
        statistics = TargetStatistics.of(frame.iloc[target], population, schema, column)
        rows = []

        def released(world: int, r: int):
            model = make_synthesiser(technique, seed=seed * 100_003 + 2 * r + world, **params)
            with warnings.catch_warnings():
                # few-iterations and data-domain warnings are expected
                warnings.simplefilter("ignore")
                release = model.fit_sample(worlds[world], schema, train_rows)
            iterations = getattr(model, "iterations_", np.nan)
            rows.append(
                {"world": world, "release": r, "iterations": iterations, **statistics(release)}
            )
            return model  # the last one says the delta the accounting spent

        jobs = [(w, r) for r in range(releases) for w in (0, 1)]
        bar = tqdm(
            total=len(jobs), desc=f"empirical epsilon {technique}", disable=not self.progress
        )
        # the first fit loads the technique's libraries (torch ...), so that one thread limit then
        # caps them for every other fit: entering a limit scans every loaded library, which cost
        # about a fifth of a PrivBayes fit on the small worst-case table
        for some in (jobs[:1], jobs[1:]):
            with limited(threads):
                for world, r in some:
                    model = released(world, r)
                    bar.update()
        bar.close()
        scores = pd.DataFrame(rows)
        delta = float(getattr(model, "delta_", 0.0) or 0.0)
        names = ["extreme", "closeness", "rare"]
        confidence = 1 - self.alpha / len(names)
        gdp_delta = delta or GDP_DELTA
        calibrate = scores.release < releases // 2
        per = []
        for name in names:
            cal, test = scores[calibrate], scores[~calibrate]
            t = _best_threshold(
                cal.loc[cal.world == 1, name].to_numpy(), cal.loc[cal.world == 0, name].to_numpy()
            )
            inside, outside = test.loc[test.world == 1, name], test.loc[test.world == 0, name]
            tp, fp = int((inside >= t).sum()), int((outside >= t).sum())
            fn, tn = len(inside) - tp, len(outside) - fp
            per.append({
                "statistic": name, "threshold": t, "tpr": tp / len(inside), "fpr": fp / len(outside),
                "auc": auc(scores.loc[scores.world == 1, name].to_numpy(),
                       scores.loc[scores.world == 0, name].to_numpy()),
                "epsilon_lower": epsilon_lower_bound(tp, fn, fp, tn, confidence, delta),
                "epsilon_gdp": gdp_epsilon(gdp_mu_lower(tp, fn, fp, tn, confidence), gdp_delta),
            })  # fmt: skip
        per = pd.DataFrame(per)
        best = per.loc[per.epsilon_lower.idxmax()]
        tested = int((~calibrate).sum() // 2)
        return EpsilonResult(
            technique=technique,
            params=dict(params),
            claimed_epsilon=float(params.get("epsilon", np.inf)),
            delta=delta,
            releases=releases,
            target=int(target),
            column=column,
            epsilon_lower=float(best.epsilon_lower),
            statistic=str(best.statistic),
            max_provable=epsilon_lower_bound(tested, 0, 0, tested, confidence, delta),
            epsilon_gdp=float(per.epsilon_gdp.max()),
            max_provable_gdp=gdp_epsilon(gdp_mu_lower(tested, 0, 0, tested, confidence), gdp_delta),
            per_statistic=per,
            scores=scores,
        )


def epsilon_table(
    frame: pd.DataFrame,
    schema: Schema,
    configurations: list,
    technique_params: dict | None = None,
    releases: int = 50,
    train_rows: int = 500,
    seed: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """:class:`EmpiricalEpsilon` for each configuration (anything with ``technique``, ``label`` and
    ``synthesiser_params()``, such as the grid's; ``technique_params`` adds a profile's settings
    per technique), one row each: the claim, the bound, the statistic that gave it, what the
    releases could prove at most, whether the claim holds, the AUC of the release's extreme, and
    PATE-GAN's median trained iterations."""
    rows = []
    for config in tqdm(configurations, desc="empirical epsilon", disable=not progress):
        params = {
            **(technique_params or {}).get(config.technique, {}),
            **config.synthesiser_params(),
        }
        result = EmpiricalEpsilon(frame, schema, config.technique, params, releases,
                                  train_rows).evaluate(seed)  # fmt: skip
        per = result.per_statistic.set_index("statistic")
        rows.append(
            {
                "configuration": config.label,
                "claimed epsilon": result.claimed_epsilon,
                "delta": result.delta,
                "releases per world": releases,
                "empirical epsilon (lower bound)": result.epsilon_lower,
                "from": result.statistic,
                "largest provable": result.max_provable,
                "epsilon at delta, were it GDP": result.epsilon_gdp,
                "largest GDP estimate": result.max_provable_gdp,
                "claim holds": result.holds,
                "AUC of the release extreme": per.loc["extreme", "auc"],
                "iterations (median)": result.scores.iterations.dropna().median()
                if result.scores.iterations.notna().any()
                else np.nan,
            }
        )
    return pd.DataFrame(rows)


def auc(inside: np.ndarray, outside: np.ndarray) -> float:
    """P(a release with the target scores above one without), ties counted half (Mann-Whitney)."""
    inside, outside = np.asarray(inside, float), np.asarray(outside, float)
    greater = (inside[:, None] > outside[None, :]).mean()
    ties = (inside[:, None] == outside[None, :]).mean()
    return float(greater + ties / 2)


def release_max_auc(
    frame: pd.DataFrame,
    schema: Schema,
    technique: str,
    params: dict,
    target: int,
    column: str,
    releases: int = 20,
    train_rows: int = 1000,
    seed: int = 0,
    threads: int = 1,
) -> tuple[float, pd.DataFrame]:
    """The AUC of the release's maximum of ``column`` for telling releases trained with the
    target from those without, over ``releases`` training sets of ``train_rows`` rows drawn from
    the other rows (the target added to every second one); also each release's maximum."""
    others = frame.drop(index=frame.index[target]).reset_index(drop=True)
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(releases):
        train = others.iloc[rng.choice(len(others), train_rows, replace=False)]
        inside = r % 2 == 1
        if inside:
            train = pd.concat([train, frame.iloc[[target]]], ignore_index=True)
        with limited(threads), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            release = make_synthesiser(technique, seed=seed + r, **params).fit_sample(
                train.reset_index(drop=True), schema, train_rows
            )
        rows.append({"release": r, "target_in": inside, "maximum": float(release[column].max())})
    table = pd.DataFrame(rows)
    value = auc(
        table.maximum[table.target_in].to_numpy(), table.maximum[~table.target_in].to_numpy()
    )
    return value, table
