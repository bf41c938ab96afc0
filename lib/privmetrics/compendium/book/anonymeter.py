"""anonymeter beside our singling-out, linkability and inference attacks, on one shared pair.

anonymeter 1.1.0 (Giomi et al., PoPETs 2023) pins numpy < 1.27 and cannot live in this project's
environment (numpy 2, SDV), so ``make anonymeter`` gives it an environment of its own
(:data:`ENVIRONMENT`, git-ignored). :func:`run_anonymeter` writes the pair as CSV files, runs
``resources/peers/anonymeter_side.py`` with that environment's Python and reads its JSON;
:func:`side_by_side` sets its results beside ours (:mod:`privmetrics.attacks.singling_out`,
:mod:`privmetrics.attacks.anonymisation`).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from privmetrics.data.schema import Schema
from privmetrics.paths import checkout_root, resource

ENVIRONMENT = ".venv-anonymeter"  # in the checkout, made by `make anonymeter`
MISSING = (
    "anonymeter's own environment is absent: `make anonymeter` creates it (anonymeter 1.1.0 "
    "needs numpy < 1.27, so it cannot share the project's)"
)


def anonymeter_python() -> Path | None:
    """The Python of anonymeter's environment, or None when it has not been made."""
    root = checkout_root(required=False)
    python = root / ENVIRONMENT / "bin" / "python" if root else None
    return python if python is not None and python.exists() else None


def run_anonymeter(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame,
    schema: Schema,
    linkability_known: tuple[list[str], list[str]] | None = None,
    secret: str | None = None,
    targets: int = 500,
    singling_out: tuple[str, int] | None = None,
    timeout: float = 600,
) -> dict:
    """anonymeter's linkability (when ``linkability_known``), inference (when ``secret``, the
    other columns known) and singling-out (when ``singling_out`` = (mode, n_cols)) results on the
    pair: per attack, its risk, interval and rates."""
    python = anonymeter_python()
    if python is None:
        raise RuntimeError(MISSING)
    job = {"n_attacks": targets,  # anonymeter's names from here on
           "dtypes": {c: "float" if c in schema.numerical else "str" for c in real.columns}}  # fmt: skip
    if linkability_known is not None:
        job["linkability"] = {"aux": [list(part) for part in linkability_known]}
    if secret is not None:
        job["inference"] = {"secret": secret, "aux": [c for c in real.columns if c != secret],
                            "regression": secret in schema.numerical}  # fmt: skip
    if singling_out is not None:
        job["singling out"] = {"mode": singling_out[0], "n_cols": singling_out[1]}
    with tempfile.TemporaryDirectory() as folder:
        for name, table in (("real", real), ("synthetic", synthetic), ("control", control)):
            table.to_csv(Path(folder) / f"{name}.csv", index=False)
        (Path(folder) / "job.json").write_text(json.dumps(job))
        script = resource("peers", "anonymeter_side.py")
        done = subprocess.run([str(python), str(script), folder], capture_output=True, text=True,
                              timeout=timeout)  # fmt: skip
    if done.returncode:
        raise RuntimeError(f"anonymeter failed: {done.stderr.strip()[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def side_by_side(ours: dict, theirs: dict) -> pd.DataFrame:
    """One row per attack: our risk and interval, anonymeter's, and whether the intervals meet.
    ``ours`` maps an attack name to a :class:`~privmetrics.attacks.risk.Risk`."""
    rows = []
    for name, risk in ours.items():
        other = theirs[name]
        low, high = risk.interval
        rows.append({"attack": name, "ours": risk.value, "ours low": low, "ours high": high,
                     "anonymeter": other["risk"], "anonymeter low": other["low"],
                     "anonymeter high": other["high"],
                     "intervals meet": low <= other["high"] + 1e-9 and other["low"] <= high + 1e-9,
                     "main rate (ours)": risk.main.value, "main rate (anonymeter)": other["main rate"]})  # fmt: skip
    return pd.DataFrame(rows)


def criteria_comparison(seed: int = 0, rows: int | None = None) -> pd.DataFrame:
    """Both implementations on the criteria pages' worked run
    (:func:`~privmetrics.compendium.book.criteria_pages.worked_tables`: Texas training rows, a control
    set of as many, and three releases whose answer is known), every training row attacked: one
    row per (release, attack) from :func:`side_by_side`; ``rows``: training rows (default the
    pages' :data:`~privmetrics.compendium.book.criteria_pages.ROWS`). Needs anonymeter's environment."""
    import warnings

    from privmetrics.attacks.anonymisation import Inference, Linkability
    from privmetrics.attacks.singling_out import SinglingOut
    from privmetrics.compendium.book.criteria_pages import ROWS, worked_tables

    real, control, releases, schema = worked_tables(seed, rows or ROWS)
    key = list(schema.key)
    halves = (key[: len(key) // 2], key[len(key) // 2 :])
    secret = schema.sensitive[0]
    known = [c for c in real.columns if c != secret]  # as anonymeter_side's inference knows
    frames = []
    for name, release in releases.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            attacks = {
                "linkability": Linkability(real, release, control, schema, known=halves,
                                           targets=len(real)),
                "inference": Inference(real, release, control, schema, secret=secret,
                                       known=known, targets=len(real)),
                "singling out": SinglingOut(real, release, control, schema, targets=len(real)),
            }  # fmt: skip
            ours = {name: attack.evaluate(seed) for name, attack in attacks.items()}
        theirs = run_anonymeter(real, release, control, schema, halves, secret,
                                targets=len(real), singling_out=("multivariate", 3))  # fmt: skip
        frames.append(side_by_side(ours, theirs).assign(release=name))
    return pd.concat(frames, ignore_index=True)


def coarse_keys_comparison(seed: int = 0, rows: int = 1000) -> pd.DataFrame:
    """Linkability of an exact copy when the keys are coarse, both implementations (issue 62,
    item 7): the fair survey of :mod:`privmetrics.compendium.benchmarks.steward_cases` (coded
    answers: 16% of its rows are exact twins), ``rows`` training rows and as many control rows,
    the key split into halves of two and of four columns. One row per split (:func:`side_by_side`)
    with ``shared half``: the share of targets whose half-record, on one half at least, is that
    of other people too. The nearest release rows on such a half are ties among which the
    attacker must choose (:mod:`privmetrics.attacks.anonymisation`), so a copy links few of them:
    on coarse keys a low linkability says the attack cannot tell people apart, not that the
    release protects them."""
    import warnings

    from privmetrics.attacks.anonymisation import Linkability
    from privmetrics.compendium.benchmarks.steward_cases import load_table
    from privmetrics.data.schema import infer_schema

    population, _ = load_table("fair")
    drawn = population.sample(2 * rows, random_state=seed).reset_index(drop=True)
    real, control = (
        drawn.iloc[:rows].reset_index(drop=True),
        drawn.iloc[rows:].reset_index(drop=True),
    )
    schema = infer_schema(real)
    splits = {
        "2 + 2 columns": (["rate_marriage", "religious"], ["educ", "occupation"]),
        "4 + 4 columns": (["rate_marriage", "age", "yrs_married", "children"],
                          ["religious", "educ", "occupation", "occupation_husb"]),
    }  # fmt: skip
    out = []
    for name, halves in splits.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = Linkability(real, real.copy(), control, schema, known=halves,
                               targets=rows).evaluate(seed)  # fmt: skip
        theirs = run_anonymeter(real, real.copy(), control, schema, halves, targets=rows)
        shared = np.logical_or.reduce(
            [real.duplicated(list(half), keep=False).to_numpy() for half in halves]
        )
        row = side_by_side({"linkability": ours}, theirs).iloc[0].to_dict()
        out.append({"split": name, **row, "shared half": float(shared.mean())})
    return pd.DataFrame(out)
