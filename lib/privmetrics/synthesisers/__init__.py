"""Anonymisation techniques behind one interface (``fit(frame, schema)``, ``sample(n)``).

Section 6.3 of the paper: the baselines ``real`` (identity) and ``random`` (Algorithm 22), plus
``uniform`` (independent uniform draws from each attribute's public domain, Section 8.3); the DP
synthesisers ``privbayes`` (epsilon-DP) and ``pategan`` ((epsilon, delta)-DP), our own tested
implementations; and the non-DP ``ctgan`` and ``tvae`` through SDV. Every one has scikit-learn
style ``fit(frame, schema)`` / ``sample(n)`` and takes every random choice from ``seed``.
"""

from . import baselines, neural, pategan, privbayes  # noqa: F401  (registering)
from .base import SYNTHESISERS, Synthesiser, make_synthesiser, register_synthesiser
from .cache import SyntheticCache

__all__ = [
    "SYNTHESISERS",
    "Synthesiser",
    "SyntheticCache",
    "make_synthesiser",
    "register_synthesiser",
]
