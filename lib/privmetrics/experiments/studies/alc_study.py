"""The ALC chapter's two studies on a profile's grid, from the synthetic cache: the raw ALC of every
configuration (the registered score clamps it at 0), and both baselines of the member /
non-member design per configuration."""

from __future__ import annotations

import pandas as pd
from tqdm import tqdm

from privmetrics.attacks.alc import risk_label
from privmetrics.attacks.inference import AnonymityLoss
from privmetrics.attacks.membership import RefitAnonymityLoss
from privmetrics.experiments.grid.configurations import paper_configurations
from privmetrics.experiments.grid.runner import Cell, generated_table
from privmetrics.experiments.profiles import Profile
from privmetrics.synthesisers import SyntheticCache


def _cells(profile: Profile, dataset: str, run: int, techniques=None):
    for config in paper_configurations(techniques):
        yield Cell(dataset, profile.rows_for(dataset), config, run, profile.seed + run)


def raw_alc(profile: Profile, dataset: str, run: int = 0, progress: bool = False) -> pd.DataFrame:
    """One row per (configuration, sensitive attribute): the raw ALC, its label, the best PRCs
    and the halting reason, on the run's cached table (generated if missing)."""
    rows = []
    cells = list(_cells(profile, dataset, run))
    for cell in tqdm(cells, desc=f"raw ALC {dataset}", disable=not progress):
        real, schema, synthetic = generated_table(cell, profile)
        for unknown in schema.sensitive:
            result = AnonymityLoss(real, synthetic, schema=schema, secret=unknown,
                                   known=list(schema.key), baseline="best").evaluate(cell.seed)  # fmt: skip
            rows.append(
                {
                    "config": cell.config.label,
                    "unknown": unknown,
                    "ALC": result.alc,
                    "label": result.label,
                    "PRC attack": result.best_attack.prc,
                    "PRC baseline": result.best_base.prc,
                    "targets": result.targets_used,
                    "halted": result.halt_reason,
                }
            )
    return pd.DataFrame(rows)


def member_nonmember_table(
    profile: Profile,
    dataset: str,
    techniques: tuple[str, ...],
    unknown: str | None = None,
    targets: int = 200,
    run: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """Both baselines per configuration (one block of ``targets`` held out, one extra fit each)."""
    rows = []
    cells = list(_cells(profile, dataset, run, techniques))
    for cell in tqdm(cells, desc=f"member/non-member {dataset}", disable=not progress):
        real, schema, _ = generated_table(cell, profile)  # the member table, cached
        params = {**profile.params_for(cell.config.technique), **cell.config.synthesiser_params()}
        result = RefitAnonymityLoss(
            real, schema, cell.config.technique, params, unknown or schema.sensitive[0],
            known=list(schema.key), targets_per_refit=targets,
            dataset=f"{dataset}-n{len(real)}-s{profile.seed}", cache=SyntheticCache(),
        ).evaluate(cell.seed)  # fmt: skip
        rows.append({"config": cell.config.label, **result.summary()})
    return pd.DataFrame(rows).set_index("config")


# Table 2 of the ALC paper ("Complete" column, weak anonymisation, 8,883 attacks): the share of
# attacks that the prior approach, as run there (its baseline, recall 1), calls safe while the
# ALC calls them at risk (24.24%) or serious (1.24%).
PAPER_PRIOR_MISSES = 0.2424 + 0.0124


def label_agreement(table: pd.DataFrame) -> pd.DataFrame:
    """Per release of :func:`member_nonmember_table`, the ALC paper's decision labels
    (:func:`privmetrics.attacks.alc.risk_label`: safe below 0.5, serious from 0.75) of our ALC and of the
    prior approach as the paper ran it, and the two kinds of disagreement its Table 2 counts."""
    ours = table["alc_ours"].map(risk_label)
    prior = table["alc_prior_recall_1"].map(risk_label)
    return pd.DataFrame(
        {
            "ours": ours,
            "prior (as run)": prior,
            "prior safe, ours not": (prior == "safe") & (ours != "safe"),
            "ours safe, prior not": (ours == "safe") & (prior != "safe"),
        },
        index=table.index,
    )
