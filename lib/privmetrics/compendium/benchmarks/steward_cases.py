"""The steward's cases: releases whose answer is known, on public tables the rest of the project
never uses, audited with holdouts of several sizes and without one (issue 62).

Three tables that ship offline with the project's own dependencies:

* ``anes96`` (statsmodels): 944 respondents of the 1996 American National Election Study, eleven
  columns of scales, codes and amounts; the vote is the sensitive attribute;
* ``fair`` (statsmodels): 6,366 answers to a 1974 survey on marriage and affairs, nine coded
  columns of which 16% of the rows are exact twins of another; the time spent in affairs is the
  sensitive attribute;
* ``breast_cancer`` (scikit-learn): 569 fine-needle aspirates of breast masses, thirty
  measurements of their cell nuclei and the diagnosis (the sensitive attribute).

From each, ``3 x rows`` rows drawn at random make a training table, a pool of holdout rows and
fresh rows; the releases (:func:`known_releases`) are a copy and a copy with every number moved
by 5% of its column's spread (must fail), every column shuffled on its own, fresh rows of the
same population, never trained on (must pass), and SDV's GaussianCopula fitted on the training
table (a release made as users make them; no answer is asserted for it). Each is audited with a
holdout of 20%, 50% and 100% of the training table's size and without one, and
``privmetrics audit --fail-on near-real``'s exit status is read with it (:func:`case_table`).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

# table: (loader, sensitive attribute, training rows)
TABLES = {
    "anes96": ("statsmodels", "vote", 300),
    "fair": ("statsmodels", "affairs", 600),
    "breast_cancer": ("sklearn", "target", 180),
}
HOLDOUT_SIZES = (0.2, 0.5, 1.0, None)  # shares of the training table's rows; None: no holdout
MUST_FAIL = ("copy", "jittered copy (5%)")
MUST_PASS = ("columns shuffled", "fresh rows")
CLOSER = re.compile(r"closer than a non-member: ([\d,]+) of ([\d,]+) real rows")


def load_table(name: str) -> tuple[pd.DataFrame, str]:
    """(the table, its sensitive column), as its package ships it."""
    source, sensitive, _ = TABLES[name]
    if source == "statsmodels":
        from statsmodels import datasets

        frame = getattr(datasets, name).load_pandas().data
    else:
        from sklearn.datasets import load_breast_cancer

        frame = load_breast_cancer(as_frame=True).frame
    return frame.reset_index(drop=True), sensitive


def known_releases(
    population: pd.DataFrame, numerical: list[str], rows: int, seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame]]:
    """(training rows, holdout pool, releases whose answer is known) from ``3 * rows`` rows of
    ``population``: a copy and a copy with every ``numerical`` column moved by 5% of its spread
    (must fail), every column shuffled on its own and fresh rows of the same population (must
    pass)."""
    rng = np.random.default_rng(seed)
    drawn = population.sample(3 * rows, random_state=seed).reset_index(drop=True)
    train, holdout, fresh = (drawn.iloc[i * rows : (i + 1) * rows].reset_index(drop=True)
                             for i in range(3))  # fmt: skip
    jittered = train.copy()
    spread = train[numerical].astype(float).std().to_numpy()
    jittered[numerical] = (
        train[numerical].astype(float) + rng.normal(0, 0.05, (rows, len(numerical))) * spread
    )
    shuffled = pd.DataFrame({c: rng.permutation(train[c].to_numpy()) for c in train.columns})
    releases = {"copy": train.copy(), "jittered copy (5%)": jittered,
                "columns shuffled": shuffled.astype(train.dtypes.to_dict()), "fresh rows": fresh}  # fmt: skip
    return train, holdout, releases


def chance_limit(rows: int, non_members: int | None = None, level: float = 0.05) -> float:
    """The 99% upper end of the share of ``rows`` real rows "closer than a non-member" by chance.
    The cut is the ``level`` quantile of ``non_members`` holdout rows' closeness (numpy's, between
    order statistics): for a row of the same population it is crossed with probability p, a Beta
    variable of mean (level (m - 1) + 1) / (m + 1) (0.058 at m = 120, not 0.05) and variance
    about p (1 - p) / m, which adds to the binomial's p (1 - p) / rows. Without ``non_members``,
    the binomial alone (a cut known exactly)."""
    m = non_members or 0
    p = (level * (m - 1) + 1) / (m + 1) if m else level
    variance = p * (1 - p) * (1 / rows + (1 / m if m else 0.0))
    return p + 2.576 * np.sqrt(variance)


def audited(real, release, holdout, sensitive: str, seed: int = 0) -> dict:
    """One audit read as a steward reads it: its level, its share of real rows "closer than a
    non-member" (NaN without a holdout) and the exit status of ``--fail-on near-real``."""
    from privmetrics.audit import audit
    from privmetrics.audit.verdict import gate

    with warnings.catch_warnings():  # unseen categories, size notes: the report says them
        warnings.simplefilter("ignore")
        report = audit(real, release, sensitive=[sensitive], holdout=holdout, report=True,
                       seed=seed)  # fmt: skip
    closer = next((CLOSER.search(line) for line in report.evidence_lines if CLOSER.search(line)),
                  None)  # fmt: skip
    share = int(closer[1].replace(",", "")) / int(closer[2].replace(",", "")) if closer else np.nan
    status, _ = gate(report.table, "near-real", report.anchor, report.verdict.level)
    return {"level": report.verdict.level, "closer": share, "exit": status}


def case_table(names=tuple(TABLES), seed: int = 0) -> pd.DataFrame:
    """Every case of every table: one row per (table, release, holdout size) with the audit's
    level, closer share, the chance limit of that share (:func:`chance_limit`) and the exit
    status."""
    from privmetrics.compendium.book.examples import gaussian_copula_release
    from privmetrics.data.schema import infer_schema

    rows = []
    for name in names:
        population, sensitive = load_table(name)
        size = TABLES[name][2]
        numerical = list(infer_schema(population).numerical)
        train, pool, releases = known_releases(population, numerical, size, seed)
        releases["GaussianCopula"] = gaussian_copula_release(train, size, seed)
        for share in HOLDOUT_SIZES:  # outer, so that the releases share the references
            holdout = None if share is None else pool.iloc[: round(share * size)]
            limit = np.nan if holdout is None else chance_limit(size, len(holdout))
            for release, table in releases.items():
                read = audited(train, table, holdout, sensitive, seed)
                rows.append({"table": name, "release": release,
                             "holdout": "none" if share is None else f"{share:.0%}", **read,
                             "chance limit": limit})  # fmt: skip
    return pd.DataFrame(rows)


def verdict_grid(cases: pd.DataFrame) -> str:
    """The cases as a Markdown table a steward reads: a row per (table, release), a column per
    holdout size, each cell the level with the closer share beside its chance limit and the
    exit status of ``--fail-on near-real``."""

    def cell(row) -> str:
        closer = (
            ""
            if np.isnan(row.closer)
            else f", closer {row.closer:.1%} (<= {row['chance limit']:.1%})"
        )
        return f"{row.level}{closer}, exit {row.exit}"

    wide = cases.assign(cell=cases.apply(cell, axis=1)).pivot_table(
        index=["table", "release"], columns="holdout", values="cell", aggfunc="first", sort=False
    )
    wide = wide[[c for c in ("20%", "50%", "100%", "none") if c in wide.columns]]
    lines = ["| table | release | " + " | ".join(f"holdout {c}" for c in wide.columns) + " |",
             "|---|---|" + "---|" * len(wide.columns)]  # fmt: skip
    lines += [f"| {t} | {r} | " + " | ".join(values) + " |" for (t, r), values in
              zip(wide.index, wide.to_numpy().tolist(), strict=True)]  # fmt: skip
    return "\n".join(lines)
