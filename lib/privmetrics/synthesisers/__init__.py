"""Anonymisation techniques behind one interface (``fit(frame, schema)``, ``sample(n)``).

Registered so far: ``real`` (identity), ``random`` (Algorithm 22) and ``uniform`` (independent
uniform draws from each attribute's public domain, Section 8.3).
"""

from . import baselines  # noqa: F401  (registers the baselines)
from .base import SYNTHESISERS, Synthesiser, make_synthesiser, register_synthesiser
from .cache import SyntheticCache

__all__ = [
    "SYNTHESISERS",
    "Synthesiser",
    "SyntheticCache",
    "make_synthesiser",
    "register_synthesiser",
]
