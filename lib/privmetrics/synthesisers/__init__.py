"""Anonymisation techniques behind one interface (``fit(frame, schema)``, ``sample(n)``).

Section 6.3 of the paper: the baselines ``real`` (identity) and ``random`` (Algorithm 22), plus
``uniform`` (independent uniform draws from each attribute's public domain, Section 8.3); the DP
synthesisers ``privbayes`` (epsilon-DP), ``pategan``, ``mst`` and ``aim`` ((epsilon, delta)-DP),
our own tested implementations (MST's and AIM's models fitted by Private-PGM, the optional ``dp``
extra); and the non-DP ``ctgan`` and ``tvae`` through SDV. Every one has scikit-learn
style ``fit(frame, schema)`` / ``sample(n)`` and takes every random choice from ``seed``.

May import ``threads``, ``paths`` and the input side (``data``); nothing else in the package.
"""

from privmetrics.synthesisers import baselines, neural, pategan, pgm, privbayes  # noqa: F401  (registering)
from privmetrics.synthesisers.base import (
    SYNTHESISERS,
    Synthesiser,
    make_synthesiser,
    register_synthesiser,
)
from privmetrics.synthesisers.cache import SyntheticCache

__all__ = [
    "SYNTHESISERS",
    "Synthesiser",
    "SyntheticCache",
    "make_synthesiser",
    "register_synthesiser",
]
