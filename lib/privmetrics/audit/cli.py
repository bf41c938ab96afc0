"""``privmetrics audit`` on the command line: read two files, audit, print, write the report."""

from __future__ import annotations

import sys
import warnings

import pandas as pd

from privmetrics.audit.reading import check_writable, load_schema, read_table
from privmetrics.audit.readings import audit
from privmetrics.data.validation import InvalidInputError


def main(args) -> int:
    """``privmetrics audit``: exit 0 with a table (and a report), or 2 with one line naming the
    problem. Warnings (unseen categories, extreme values, a skipped attribute) are printed."""
    try:
        out = check_writable(args.out) if args.out else None
        real = read_table(args.real, args.na_values)
        synthetic = read_table(args.synthetic, args.na_values)
        holdout = read_table(args.holdout, args.na_values) if args.holdout else None
        schema = load_schema(args.schema) if args.schema else None
        # first, which file is which: a swap of the two files shows here at a glance
        read = [("real", args.real, real), ("release", args.synthetic, synthetic)]
        read += [("holdout", args.holdout, holdout)] if holdout is not None else []
        print("; ".join(f"{role}: {path} ({len(t):,} rows x {t.shape[1]} columns)"
                        for role, path, t in read))  # fmt: skip
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = audit(
                real, synthetic, schema=schema, key=args.key, sensitive=args.sensitive,
                metrics=args.metrics, seed=args.seed, progress=True, report=True,
                baselines=not args.no_baselines, random_runs=args.random_runs,
                targets=args.targets, holdout=holdout,
            )  # fmt: skip
    except InvalidInputError as exc:
        print(f"privmetrics audit: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # anything else still ends in one line and exit 2
        print(
            f"privmetrics audit: error: {type(exc).__name__}: {exc} (unexpected: please report it)",
            file=sys.stderr,
        )
        return 2
    for message in dict.fromkeys(str(w.message) for w in caught):
        print(f"warning: {message}")
    with pd.option_context("display.max_colwidth", 70, "display.width", 160):
        print(result.table.to_string(index=False, float_format=lambda v: f"{v:.3f}", na_rep="-"))
    print(f"{len(result.table)} metrics in {result.seconds:.1f} s")
    if out:
        sources = {"real": str(args.real), "synthetic": str(args.synthetic)}
        if args.holdout:
            sources["holdout"] = str(args.holdout)
        out.write_text(result.to_html(sources))
        print(f"report written to {out}")
    return 0
