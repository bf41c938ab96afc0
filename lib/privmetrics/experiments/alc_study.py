"""The ALC chapter's two studies on a profile's grid, from the synthetic cache: the raw ALC of every
configuration (the registered score clamps it at 0), and both baselines of the member /
non-member design per configuration."""

from __future__ import annotations

import pandas as pd
from tqdm import tqdm

from ..inference import measure_alc
from ..membership import member_nonmember_alc
from ..profiles import get_profile
from ..synthesisers import SyntheticCache
from .grid import paper_configurations
from .runner import Cell, generated_table


def _cells(profile: str, dataset: str, run: int, techniques=None):
    settings = get_profile(profile)
    for config in paper_configurations(techniques):
        yield Cell(dataset, settings.rows_for(dataset), config, run, settings.seed + run), settings


def raw_alc(profile: str, dataset: str, run: int = 0, progress: bool = False) -> pd.DataFrame:
    """One row per (configuration, sensitive attribute): the raw ALC, its label, the best PRCs
    and the halting reason, on the run's cached table (generated if missing)."""
    rows = []
    cells = list(_cells(profile, dataset, run))
    for cell, settings in tqdm(cells, desc=f"raw ALC {dataset}", disable=not progress):
        real, schema, synthetic = generated_table(cell, settings)
        for unknown in schema.sensitive:
            result = measure_alc(
                real, synthetic, schema, unknown, known=list(schema.key), baseline="best",
                seed=cell.seed,
            )  # fmt: skip
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
    profile: str,
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
    for cell, settings in tqdm(cells, desc=f"member/non-member {dataset}", disable=not progress):
        real, schema, _ = generated_table(cell, settings)  # the member table, cached
        params = {**settings.params_for(cell.config.technique), **cell.config.synthesiser_params()}
        result = member_nonmember_alc(
            real, schema, cell.config.technique, unknown or schema.sensitive[0], params,
            known=list(schema.key), targets_per_refit=targets, seed=cell.seed,
            dataset=f"{dataset}-n{len(real)}-s{settings.seed}", cache=SyntheticCache(),
        )  # fmt: skip
        rows.append({"config": cell.config.label, **vars(result)})
    return pd.DataFrame(rows).set_index("config")
