"""Audit your own synthetic data: one call (:func:`audit`) and the ``privmetrics audit`` command.

>>> from privmetrics.audit import audit
>>> audit(real, synthetic, sensitive=["diagnosis"])          # the paper's final seven metrics
>>> audit(real, synthetic, schema=schema, metrics="all")      # every registered metric

When no schema is given it is inferred (:func:`privmetrics.data.schema.infer_schema`) and printed as
YAML, so it can be saved, corrected and passed back with ``schema=`` / ``--schema``. Key attributes
default to every column that is not sensitive (the strong attacker the datasets use). A metric
that needs sensitive attributes when none are given is not run, and its reading says why.
Categorical and binary columns are compared as strings, numerical ones as float64.

Modules: :mod:`.files` (files, schema files and the checks that make two tables comparable),
:mod:`.run` (the audit: every metric on the release and its references), :mod:`.references`
(the references, built once per real table and kept by content), :mod:`.positions`
(positions and their words), :mod:`.verdict` (the headline and ``--fail-on``), :mod:`.evidence`
(the exposed rows), :mod:`.utility` (the fidelity panel), :mod:`.report` (the HTML page and the
JSON); the command is :mod:`privmetrics.commands.audit_release`. May import
``threads``, ``prose``, ``data``, ``geometry``, ``synthesisers``, ``attacks`` and ``metrics``; only
the compendium and the command line import from here.
"""

from privmetrics.audit.files import SUPPORTED, conform, read_table, resolve_schema
from privmetrics.audit.positions import (
    POSITION_BANDS,
    position,
    position_interval,
    reading,
    relative_reading,
)
from privmetrics.audit.report import AuditReport
from privmetrics.audit.run import audit

__all__ = [
    "POSITION_BANDS",
    "SUPPORTED",
    "AuditReport",
    "audit",
    "conform",
    "position",
    "position_interval",
    "read_table",
    "reading",
    "relative_reading",
    "resolve_schema",
]
