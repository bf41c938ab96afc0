"""The risk-of-disclosure chapter's studies: how the sampled notions move with their sample size,
and the epsilon curves of the DP synthesisers (measured through the synthetic cache)."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from tqdm import tqdm

from privmetrics.data.schema import Schema
from privmetrics.disclosure import notions as rod
from privmetrics.disclosure.epsilon import measure_points
from privmetrics.experiments.grid.configurations import Configuration
from privmetrics.experiments.grid.runner import Cell, generated_table
from privmetrics.experiments.profiles import Profile

EPSILON_GRID = (0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0)  # Tables 2-3 of the paper
TRAIN_EPSILONS = (0.01, 0.5, 10.0)  # its three fitting points


def sample_size_study(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    sizes=(100, 250, 500, 1000),
    seeds=range(5),
    y: float = 0.05,
) -> pd.DataFrame:
    """(y, p)-coverage p' and Voronoi d at each sample size: mean and sd over ``seeds`` and the
    seconds per evaluation (the assignment problem is cubic in the sample size)."""
    o, d = rod.numeric_arrays(real, synthetic, schema, "minmax")
    rows = []
    for size in sizes:
        for name, measure in (
            (
                "coverage p'",
                lambda s, size=size: rod.yp_coverage(o, d, y, sample=size, seed=s).p_prime,
            ),
            ("Voronoi d", lambda s, size=size: rod.voronoi_privacy(o, d, sample=size, seed=s)),
        ):
            start = time.perf_counter()
            values = [measure(s) for s in seeds]
            seconds = (time.perf_counter() - start) / len(values)
            rows.append(
                {"measure": name, "sample": min(size, len(o)), "mean": np.mean(values),
                 "sd": np.std(values, ddof=1), "seconds": seconds}
            )  # fmt: skip
    return pd.DataFrame(rows)


def epsilon_points(
    profile: Profile,
    dataset: str,
    technique: str,
    epsilons=EPSILON_GRID,
    runs: int = 3,
    progress: bool = False,
) -> pd.DataFrame:
    """Utility errors and risk distances of ``technique`` at each epsilon, ``runs`` seeds each, on
    the profile's sample of ``dataset``; the tables come from (and go to) the synthetic cache."""
    rows = profile.rows_for(dataset)
    bar = tqdm(total=len(epsilons) * runs, desc=f"{technique} on {dataset}", disable=not progress)

    def synthesise(eps: float, run: int) -> pd.DataFrame:
        cell = Cell(dataset, rows, Configuration(technique, eps), run, profile.seed + run)
        bar.update()
        return generated_table(cell, profile)[2]

    real, schema, _ = generated_table(
        Cell(dataset, rows, Configuration("real"), 0, profile.seed), profile
    )
    points = measure_points(real, schema, synthesise, epsilons, seeds=range(runs))
    bar.close()
    return points.assign(dataset=dataset, technique=technique)
