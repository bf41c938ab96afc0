"""Synthesiser benchmarks: fit/sample time per technique, and the epsilon response of the DP ones.

``python -m privmetrics bench-synth`` times every registered technique on Texas-sized data with a
profile's settings (default ``paper``). CTGAN and TVAE cost about the same per epoch, so unless
``full=True`` they are trained for ``measured_epochs`` epochs and their fit time is extrapolated
linearly to the profile's epoch count (the table says which rows are extrapolated).

The same command then sweeps PrivBayes over table widths (:func:`privbayes_widths`, default
10, 50, 100 and 200 columns): its network search weighs every (attribute, parent set) pair at
each of d - 1 steps, so its cost grows like d^(degree + 2) pairs in all; the table gives the fit
time, the pairs weighed at the widest step and whether the fit was refused up front
(:func:`privmetrics.synthesisers.privbayes.check_width`).

``python -m privmetrics epsilon-response`` fits PrivBayes and PATE-GAN at each epsilon of the
paper's grid, several seeds each, and reports the mean and standard deviation of the marginal
distance to the real data (:func:`privmetrics.geometry.fidelity.marginal_distance`), PATE-GAN's training
iterations and the epsilon it spent. A step counts as "beyond spread" when the mean distance falls
by more than the sum of the two standard deviations.
"""

from __future__ import annotations

import inspect
import time

import numpy as np
import pandas as pd
from tqdm import tqdm

from privmetrics.compendium.benchmarks.bench import benchmark_pair, generated_texas_like
from privmetrics.data.datasets import load_dataset
from privmetrics.data.schema import Schema
from privmetrics.experiments.profiles import Profile
from privmetrics.geometry.fidelity import marginal_distance
from privmetrics.synthesisers import SYNTHESISERS, make_synthesiser

EPSILONS = (0.2, 1.0, 2.0, 10.0)
# epsilon-response's default techniques: the paper's two DP synthesisers (AIM at every epsilon
# and seed takes hours at full size; name it with --techniques)
DP_TECHNIQUES = ("privbayes", "pategan")


def timed_params(
    profile: Profile, name: str, measured_epochs: int = 3, full: bool = False
) -> tuple[dict, float]:
    """What :func:`time_synthesisers` builds ``name`` with, and the factor its fit time is
    scaled by: the profile's settings, the grid's largest epsilon for every technique that takes
    one (:func:`private_techniques`; the largest budget trains longest), and, unless ``full``,
    at most ``measured_epochs`` epochs with the time extrapolated to the profile's."""
    params = profile.params_for(name)
    if name in private_techniques():
        params["epsilon"] = max(EPSILONS)
    epochs, scale = params.get("epochs"), 1.0
    if epochs and not full and epochs > measured_epochs:
        scale, params["epochs"] = epochs / measured_epochs, measured_epochs
    return params, scale


def time_synthesisers(
    profile: Profile, rows: int = 25_000, measured_epochs: int = 3, full: bool = False
) -> pd.DataFrame:
    real, _, schema, source = benchmark_pair(rows)
    out = []
    for name in tqdm(list(SYNTHESISERS), desc="synthesisers"):
        params, scale = timed_params(profile, name, measured_epochs, full)
        epochs = profile.params_for(name).get("epochs")
        model = make_synthesiser(name, seed=0, **params)
        start = time.perf_counter()
        model.fit(real, schema)
        fit = (time.perf_counter() - start) * scale
        start = time.perf_counter()
        model.sample(len(real))
        sample = time.perf_counter() - start
        note = f"fit extrapolated from {measured_epochs} of {epochs} epochs" if scale > 1 else ""
        if name == "pategan":
            note = f"{model.iterations_} iterations, stopped by {model.stop_reason_}"
        out.append({"technique": name, "fit s": fit, "sample s": sample, "note": note})
    table = pd.DataFrame(out)
    table.attrs["source"] = f"{source}, {len(real)} x {real.shape[1]}, profile {profile.name}"
    return table


def epsilon_response(
    dataset: str, rows: int | None, runs: int, profile: Profile,
    techniques: tuple[str, ...] = DP_TECHNIQUES, epsilons: tuple[float, ...] = EPSILONS,
    settings: dict | None = None,
) -> pd.DataFrame:  # fmt: skip
    """Per DP technique, epsilon and seed: one fit on ``rows`` rows of ``dataset`` (all when None)
    at the profile's settings, overridden by ``settings`` (e.g. AIM's ``max_model_size``: what a
    size parameter buys in time and costs in distance), its release's one- and two-way marginal
    distance to the table, the epsilon it spent, the iterations it trained (PATE-GAN) and the
    fit's CPU seconds (every thread's)."""
    unknown = sorted(set(techniques) - set(SYNTHESISERS))
    if unknown:
        raise ValueError(f"unknown technique(s) {unknown}; known: {sorted(SYNTHESISERS)}")
    settings = dict(settings or {})
    for technique in techniques:  # a misspelt setting fails before the first (long) fit
        accepted = inspect.signature(SYNTHESISERS[technique]).parameters
        wrong = sorted(set(settings) - set(accepted))
        if wrong:
            raise ValueError(f"{technique} takes no setting {wrong}; it takes {sorted(accepted)}")
    real, schema = load_dataset(dataset, n=rows)
    out = []
    cells = [(t, e, s) for t in techniques for e in epsilons for s in range(runs)]
    for technique, eps, seed in tqdm(cells, desc="epsilon response"):
        params = profile.params_for(technique) | settings
        start = time.process_time()
        model = make_synthesiser(technique, epsilon=eps, seed=seed, **params).fit(real, schema)
        fit_seconds = time.process_time() - start
        synthetic = model.sample(len(real))
        out.append(
            {
                "technique": technique,
                "epsilon": eps,
                "seed": seed,
                "marginal distance": marginal_distance(real, synthetic, schema),
                "2-way distance": marginal_distance(real, synthetic, schema, order=2),
                "spent epsilon": model.epsilon_spent_,
                "iterations": getattr(model, "iterations_", np.nan),
                "fit s": fit_seconds,
            }
        )
    table = pd.DataFrame(out)
    chosen = "".join(f", {k}={v}" for k, v in settings.items())
    table.attrs["source"] = f"{dataset}, {len(real)} x {real.shape[1]}, {runs} seeds{chosen}"
    return table


def summarise_response(table: pd.DataFrame) -> pd.DataFrame:
    """Per technique and epsilon: mean and sd of the one- and two-way distances, the largest spent
    epsilon, and whether the step from the previous epsilon lowered each distance beyond the
    run-to-run spread (the fall in the mean exceeds the sum of the two standard deviations)."""
    g = table.groupby(["technique", "epsilon"])
    summary = g[["spent epsilon", "iterations", "fit s"]].agg(
        {"spent epsilon": "max", "iterations": "mean", "fit s": "mean"}
    )
    for distance in ("marginal distance", "2-way distance"):
        mean, sd = g[distance].mean(), g[distance].std(ddof=1)
        step = mean.groupby("technique").shift() - mean
        spread = sd.groupby("technique").shift() + sd
        summary[f"{distance} mean"], summary[f"{distance} sd"] = mean, sd
        summary[f"{distance} beyond spread"] = np.where(
            step.isna(), "", np.where(step > spread, "yes", "no")
        )
    return summary.reset_index()


def wide_table(columns: int, rows: int, seed: int = 0) -> tuple[pd.DataFrame, Schema]:
    """A Texas-shaped table (:func:`~privmetrics.compendium.benchmarks.bench.generated_texas_like`) widened to
    ``columns`` columns by independent copies of its columns (rows shuffled per copy), with the
    declared public domain of each copy."""
    base, schema = generated_texas_like(rows, seed)
    rng = np.random.default_rng(seed)
    data, types, domain = {}, {}, {}
    for i in range(columns):
        source = base.columns[i % base.shape[1]]
        name = f"{source}_{i // base.shape[1]}"
        values = base[source].to_numpy()
        data[name] = values if i < base.shape[1] else rng.permutation(values)
        types[name] = str(schema.columns[source])
        domain[name] = schema.domain[source]
    return pd.DataFrame(data), Schema(types, domain={k: _declared(v) for k, v in domain.items()})


def _declared(entry):
    """A parsed domain entry back in the form a schema declares it."""
    if hasattr(entry, "values"):
        return list(entry.values)
    return {"low": entry.low, "high": entry.high, "scale": getattr(entry, "scale", "linear")}


def privbayes_widths(
    widths: tuple[int, ...] = (10, 50, 100, 200), rows: int = 2000, epsilon: float = 1.0,
    degree: int = 2,
) -> pd.DataFrame:  # fmt: skip
    """PrivBayes's fit time per table width (module doc), on :func:`wide_table` tables."""
    from math import comb

    from privmetrics.data.validation import InvalidInputError

    out = []
    for d in widths:
        frame, schema = wide_table(d, rows)
        pairs = d * sum(comb(d - 1, k) for k in range(1, degree + 1))
        model = make_synthesiser("privbayes", seed=0, epsilon=epsilon, degree=degree)
        start = time.perf_counter()
        try:
            model.fit(frame, schema)
            note = ""
        except InvalidInputError as refused:
            note = f"refused: {refused}"
        out.append({"columns": d, "rows": rows, "fit s": time.perf_counter() - start,
                    "pairs per step (at most)": pairs, "note": note})  # fmt: skip
    table = pd.DataFrame(out)
    table.attrs["source"] = (
        f"PrivBayes, epsilon {epsilon:g}, degree {degree}, generated Texas-like columns"
    )
    return table


def format_widths(table: pd.DataFrame) -> str:
    lines = [f"width sweep: {table.attrs.get('source', '')}",
             f"{'columns':>7} {'rows':>6} {'fit s':>8} {'pairs/step':>11}  note"]  # fmt: skip
    for r in table.itertuples(index=False):
        lines.append(f"{r.columns:>7} {r.rows:>6} {r[2]:8.1f} {r[3]:>11,}  {r.note}")
    return "\n".join(lines)


def format_timing(table: pd.DataFrame) -> str:
    lines = [
        f"data: {table.attrs.get('source', '')}",
        f"{'technique':<10} {'fit s':>9} {'sample s':>9}  note",
    ]
    for r in table.itertuples(index=False):
        lines.append(f"{r.technique:<10} {r[1]:9.1f} {r[2]:9.2f}  {r.note}")
    return "\n".join(lines)


def format_response(table: pd.DataFrame) -> str:
    summary = summarise_response(table)
    lines = [
        f"data: {table.attrs.get('source', '')}",
        f"{'technique':<10} {'epsilon':>7} {'1-way':>7} {'sd':>6} {'step':>4} {'2-way':>7} "
        f"{'sd':>6} {'step':>4} {'spent eps':>9} {'iters':>6} {'fit s':>7}",
    ]
    for _, r in summary.iterrows():
        iters = "" if np.isnan(r["iterations"]) else f"{r['iterations']:.0f}"
        cells = [
            f"{r[f'{d} mean']:7.4f} {r[f'{d} sd']:6.4f} {r[f'{d} beyond spread']:>4}"
            for d in ("marginal distance", "2-way distance")
        ]
        lines.append(
            f"{r['technique']:<10} {r['epsilon']:7.1f} {cells[0]} {cells[1]} "
            f"{r['spent epsilon']:9.3f} {iters:>6} {r['fit s']:7.2f}"
        )
    lines.append("step: the distance fell from the previous epsilon by more than the two sds; "
                 "fit s: CPU seconds of one fit (mean over seeds)")  # fmt: skip
    for technique, part in summary.groupby("technique"):
        for d, label in (("marginal distance", "1-way"), ("2-way distance", "2-way")):
            ok = (part[f"{d} beyond spread"].iloc[1:] == "yes").all()
            lines.append(
                f"{technique}: {label} distance falls beyond spread at every step of "
                f"{sorted(set(part.epsilon))}: {'yes' if ok else 'no'}"
            )
        runs = table[table.technique == technique]
        spent_ok = (runs["spent epsilon"] <= runs["epsilon"] + 1e-9).all()
        lines.append(
            f"{technique}: spent epsilon <= target in every run: {'yes' if spent_ok else 'no'}"
        )
    return "\n".join(lines)


DERIVED = "derived (see its docstring)"


def private_techniques() -> tuple[str, ...]:
    """The registered synthesisers that take a privacy budget (an ``epsilon`` parameter)."""
    return tuple(name for name, made in SYNTHESISERS.items()
                 if "epsilon" in inspect.signature(made).parameters)  # fmt: skip


def settings_against_defaults(
    profile: Profile, techniques: tuple[str, ...] | None = None
) -> pd.DataFrame:
    """One row per setting ``profile`` gives one of ``techniques`` (default: every
    :func:`private_techniques`; a synthesiser's size parameters, its epochs): the library's
    default beside the profile's value, so a chapter says which synthesiser its grid ran without
    typing it. A default of None (a value the synthesiser derives, e.g. AIM's 16 d rounds) reads
    "derived (see its docstring)"; values read as text."""
    rows = []
    for technique in techniques or private_techniques():
        defaults = inspect.signature(SYNTHESISERS[technique]).parameters
        for name, value in profile.params_for(technique).items():
            default = defaults[name].default if name in defaults else None
            rows.append({"technique": technique, "setting": name,
                         "default": DERIVED if default is None else str(default),
                         f"the {profile.name} grid": str(value)})  # fmt: skip
    return pd.DataFrame(
        rows, columns=["technique", "setting", "default", f"the {profile.name} grid"]
    )
