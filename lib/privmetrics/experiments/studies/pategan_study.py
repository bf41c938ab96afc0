"""How long PATE-GAN trains, and why: at the games' size (a side study of Experiment 3), and what
its moments accountant allows per epsilon against what the teachers' votes let it use (issue 41)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from privmetrics.data.datasets import load_dataset
from privmetrics.experiments.grid.configurations import EPSILONS, paper_configurations
from privmetrics.experiments.profiles import Profile
from privmetrics.synthesisers import make_synthesiser
from privmetrics.synthesisers.accounting import MomentsAccountant
from privmetrics.synthesisers.pategan import FEW_ITERATIONS, PATEGAN


def pategan_training(profile: Profile, datasets: list[str] | None = None) -> pd.DataFrame:
    """How long PATE-GAN trains at the games' size: per dataset and epsilon of the grid, the
    iterations its moments accountant allows on one training table of the profile's
    ``game_train_rows`` rows (the same sample for every epsilon), and why it stopped. Releases of
    a generator that trained for (almost) no iteration carry nothing of their training rows, so a
    membership attack on them is at chance whatever epsilon says."""
    rows = []
    for dataset in datasets or profile.datasets:
        table, schema = load_dataset(dataset, n=profile.game_train_rows, seed=profile.seed)
        for config in paper_configurations(("pategan",)):
            params = {**profile.params_for("pategan"), **config.synthesiser_params()}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = make_synthesiser("pategan", seed=profile.seed, **params).fit(table, schema)
            rows.append({"dataset": dataset, "config": config.label, "rows": len(table),
                         "iterations": model.iterations_, "of at most": params.get("max_iterations"),
                         "stopped by": model.stop_reason_})  # fmt: skip
    return pd.DataFrame(rows)


def untrained(
    profile: Profile, datasets: list[str] | None = None, training: pd.DataFrame | None = None
) -> dict[tuple[str, str], int]:
    """(dataset, configuration) -> iterations, for each PATE-GAN configuration of the games that
    trains fewer than :data:`~privmetrics.synthesisers.pategan.FEW_ITERATIONS` iterations at the
    games' size (``training``, :func:`pategan_training`'s table, made when not given). Its
    releases are the untrained generator's: they say nothing of what the technique leaks, so the
    metrics' verdicts leave them out (issue 59)."""
    training = training if training is not None else pategan_training(profile, datasets)
    few = training[training.iterations < FEW_ITERATIONS]
    return {(d, c): int(n) for d, c, n in zip(few.dataset, few.config, few.iterations, strict=True)}


CONSENSUS = (1.0, 0.9, 0.5, 0.0)  # vote gaps as shares of the teachers: unanimity .. a tie


def defaults_for(rows: int) -> dict:
    """PATE-GAN's default privacy settings for a table of ``rows`` rows, as its ``fit`` sets them:
    one teacher per 10 rows (10 to 2,500), lam = 10 / teachers, delta = 1 / (n sqrt n)."""
    teachers = PATEGAN()._teachers(rows)
    return {"teachers": teachers, "lam": 10 / teachers, "delta": 1 / (rows * np.sqrt(rows))}


def iterations_allowed(rows: int, epsilon: float, consensus: float, batch_size: int = 64,
                       cap: int = 10_000) -> int:  # fmt: skip
    """How many iterations (``batch_size`` answered votes each) the moments accountant allows
    within ``epsilon`` if every vote's gap |n0 - n1| were ``consensus`` x the teachers, with the
    default settings for ``rows`` rows (:func:`defaults_for`); at most ``cap``. The spent epsilon
    grows with the iterations T as min_l (T a(l) + log(1/delta)) / l, so a bisection finds T."""
    settings = defaults_for(rows)
    accountant = MomentsAccountant(settings["lam"], settings["delta"], max_order=200)
    per_iteration = accountant.moments(np.full(batch_size, consensus * settings["teachers"]))
    tail = np.log(1 / settings["delta"])

    def within(t: int) -> bool:
        return float(np.min((t * per_iteration + tail) / accountant.orders)) <= epsilon

    low, high = 0, cap
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if within(middle) else (low, middle - 1)
    return low


def what_the_budget_buys(profile: Profile, datasets: list[str] | None = None) -> pd.DataFrame:
    """Per dataset (at the profile's rows) and epsilon of the grid: the iterations one PATE-GAN fit
    trained, beside the iterations the accountant would allow if every vote had a gap of 100%,
    90% or 50% of the teachers, or tied (:func:`iterations_allowed`), and the mean gap the fit's
    votes had (a share of the teachers; none when it answered no vote). Read: training stops
    where split votes put it: a vote split 60/40 costs almost as much as a tie, and only
    near-unanimous votes are cheap."""
    rows = []
    params = {k: v for k, v in profile.params_for("pategan").items() if k == "max_iterations"}
    for dataset in datasets or profile.datasets:
        table, schema = load_dataset(dataset, n=profile.rows_for(dataset), seed=profile.seed)
        for epsilon in EPSILONS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = make_synthesiser("pategan", epsilon=epsilon, seed=profile.seed, **params)
                model.fit(table, schema)
            row = {"dataset": dataset, "rows": len(table), "epsilon": epsilon,
                   "trained": model.iterations_}  # fmt: skip
            for consensus in CONSENSUS:
                row[f"allowed at {consensus:.0%}"] = iterations_allowed(
                    len(table), epsilon, consensus
                )
            gaps = model.vote_gaps_
            row["mean vote gap"] = np.mean(gaps) / model.n_teachers_ if gaps else np.nan
            rows.append(row)
    return pd.DataFrame(rows)
