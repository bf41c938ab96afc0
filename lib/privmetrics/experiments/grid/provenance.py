"""Which code and which settings made each cell of a results store.

A cell records its technique's code fingerprint (``code``) and its generator in clear
(``generator``: the synthesiser's parameters, seed, schema, training-table checksum, code
fingerprint and library versions; :mod:`privmetrics.synthesisers.cache`). Against today's code
and a profile, each cell is:

* ``current code``: made by the technique's code of today, with the profile's settings;
* ``other settings (stale)``: today's code, but parameters other than the profile's for its
  technique (a profile that changed a setting, e.g. AIM's size parameters): it describes
  another synthesiser than the one the profile now runs;
* ``other code (stale)``: made by other code;
* ``code not recorded``: computed before fingerprints were kept.

``privmetrics run --refresh-stale`` recomputes every cell that is not current;
``privmetrics verify --adopt`` adopts those whose tables regenerate. Without a profile the
settings are not compared (a store read on its own).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from privmetrics.experiments.grid.store import ResultsStore
from privmetrics.experiments.profiles import Profile
from privmetrics.synthesisers.cache import code_fingerprint

KINDS = ("current code", "other settings (stale)", "other code (stale)", "code not recorded")


def other_settings(cells: pd.DataFrame, profile: Profile) -> pd.Series:
    """Per cell: whether its recorded generator ran with parameters other than ``profile``'s
    settings for its technique joined with its configuration's own (epsilon and the like); False
    for a cell that records no generator."""

    def differs(technique: str, params: str, generator) -> bool:
        if not isinstance(generator, str):
            return False
        wanted = profile.synthesiser_params(technique, json.loads(params))
        return json.loads(generator).get("params") != wanted

    rows = zip(cells.technique, cells.params, cells.generator, strict=True)
    return pd.Series([differs(*row) for row in rows], index=cells.index, dtype=bool)


def made_by(cells: pd.DataFrame, profile: Profile | None = None) -> pd.Series:
    """Per row of a store's cells table, one of :data:`KINDS` (the module doc)."""
    current = cells.technique.map({t: code_fingerprint(t) for t in cells.technique.unique()})
    unrecorded = cells.code.isna().map({True: "code not recorded", False: "other code (stale)"})
    made = unrecorded.where(cells.code.ne(current) | cells.code.isna(), "current code")
    if profile is not None:
        made = made.mask((made == "current code") & other_settings(cells, profile),
                         "other settings (stale)")  # fmt: skip
    return made


def stale_cells(store: ResultsStore, profile: Profile) -> set[tuple[str, str, int]]:
    """The cells of ``store`` that are not ``current code`` for ``profile``."""
    cells = store.cells()
    stale = cells[made_by(cells, profile) != "current code"]
    return {(d, c, int(r)) for d, c, r in zip(stale.dataset, stale.config, stale.run, strict=True)}


def provenance(store: ResultsStore, profile: Profile | None = None) -> pd.DataFrame:
    """How many cells of each technique are of each of :data:`KINDS` (settings compared only
    with a ``profile``)."""
    cells = store.cells()
    columns = [k for k in KINDS if profile is not None or k != "other settings (stale)"]
    table = pd.crosstab(cells.technique, made_by(cells, profile)).reindex(
        columns=columns, fill_value=0
    )
    table.columns.name = None
    return table


def provenance_verdict(table: pd.DataFrame) -> str:
    """:func:`provenance` in one line: all cells current, or how many are not."""
    old, total = (
        int(table.drop(columns="current code").to_numpy().sum()),
        int(table.to_numpy().sum()),
    )
    if old == 0:
        return f"every one of the {total} cells records the current code"
    return (f"{old} of {total} cells were made by other or unrecorded code or settings: "
            "`privmetrics run --refresh-stale` recomputes them")  # fmt: skip


def format_provenance(table: pd.DataFrame) -> str:
    """:func:`provenance` as a plain table and its :func:`provenance_verdict`."""
    return table.to_string() + "\nProvenance: " + provenance_verdict(table)


def provenance_markdown(store: ResultsStore | str | Path, profile: Profile | None = None) -> str:
    """:func:`provenance` of ``store`` for the book: its verdict line and a Markdown table."""
    table = provenance(store if isinstance(store, ResultsStore) else ResultsStore(store), profile)
    verdict = provenance_verdict(table)
    lines = [
        "| technique | " + " | ".join(table.columns) + " |",
        "|---|" + "---|" * len(table.columns),
    ]
    lines += [f"| {t} | " + " | ".join(str(v) for v in row) + " |" for t, row in table.iterrows()]
    return f"Which code made the shipped cells: {verdict}.\n\n" + "\n".join(lines) + "\n"
