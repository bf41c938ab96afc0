"""A side study of Experiment 3: how long PATE-GAN trains at the games' size."""

from __future__ import annotations

import warnings

import pandas as pd

from privmetrics.data.datasets import load_dataset
from privmetrics.experiments.grid import paper_configurations
from privmetrics.experiments.profiles import Profile
from privmetrics.synthesisers import make_synthesiser


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
