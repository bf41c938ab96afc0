"""Run in anonymeter's own environment (``make anonymeter``), not in the project's: read a shared
pair from CSV files, run anonymeter's linkability and inference evaluators, print their results as
JSON. Called by :mod:`privmetrics.compendium.book.anonymeter`; imports nothing from privmetrics.

Usage: python anonymeter_side.py FOLDER  (FOLDER holds real.csv, synthetic.csv, control.csv and
job.json with the attacks to run: {"linkability": {"aux": [[...], [...]]}, "inference":
{"secret": ..., "aux": [...]}, "singling out": {"mode": ..., "n_cols": ...}, "n_attacks": N, "dtypes": {column: "float" | "str"}})
"""

import json
import sys
import warnings
from pathlib import Path

import pandas as pd


def read(folder: Path, name: str, dtypes: dict) -> pd.DataFrame:
    return pd.read_csv(
        folder / f"{name}.csv",
        dtype={c: ("float64" if t == "float" else object) for c, t in dtypes.items()},
        keep_default_na=False,
        na_values=[""],
    )


def result(evaluator) -> dict:
    res = evaluator.results()
    risk = evaluator.risk()
    return {
        "risk": risk.value,
        "low": risk.ci[0],
        "high": risk.ci[1],
        "main rate": res.attack_rate.value,
        "main error": res.attack_rate.error,
        "control rate": res.control_rate.value,
        "baseline rate": res.baseline_rate.value,
    }


def compile_once() -> None:
    """anonymeter's Gower neighbour search is compiled by numba at its first call, 3.8 s in every
    process that runs it (its ``@jit`` asks for no cache). Given ``cache=True`` before anonymeter
    imports it, numba keeps the machine code beside the module (or in ``NUMBA_CACHE_DIR``) and
    later processes load it; the code compiled is the same."""
    import numba

    jit = numba.jit

    def cached(*args, **kwargs):
        kwargs.setdefault("cache", True)
        return jit(*args, **kwargs)

    numba.jit = cached


def main(folder: Path) -> None:
    # imported here, so that the file imports anywhere (the project's layout test imports every
    # module), while only anonymeter's environment runs it
    compile_once()
    from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator

    job = json.loads((folder / "job.json").read_text())
    real, synthetic, control = (
        read(folder, n, job["dtypes"]) for n in ("real", "synthetic", "control")
    )
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "linkability" in job:
            aux = tuple(job["linkability"]["aux"])
            out["linkability"] = result(
                LinkabilityEvaluator(
                    real, synthetic, aux_cols=aux, n_attacks=job["n_attacks"], control=control
                ).evaluate(n_jobs=1)
            )
        if "inference" in job:
            spec = job["inference"]
            out["inference"] = result(
                InferenceEvaluator(
                    real,
                    synthetic,
                    aux_cols=spec["aux"],
                    secret=spec["secret"],
                    regression=spec.get("regression", False),
                    n_attacks=job["n_attacks"],
                    control=control,
                ).evaluate(n_jobs=1)
            )
        if "singling out" in job:
            spec = job["singling out"]
            evaluator = SinglingOutEvaluator(
                real,
                synthetic,
                n_attacks=job["n_attacks"],
                n_cols=spec["n_cols"],
                control=control,
                seed=spec.get("seed", 0),
            )
            out["singling out"] = result(evaluator.evaluate(mode=spec["mode"]))
    print(json.dumps(out))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
