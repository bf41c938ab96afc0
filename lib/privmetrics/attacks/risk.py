"""An attack's success turned into a privacy risk with its interval (Giomi et al., "A Unified
Framework for Quantifying Privacy Risk in Synthetic Data", PoPETs 2023, Section 3).

An attack is run three times: on ``n`` targets from the training data (the *main* attack), on
targets from a control set of the same population that the release never saw (the *control*),
and by a naive attacker who guesses without the release (the *baseline*). Each run's success
rate is the centre of its Wilson score interval, r = (k + z^2/2) / (n + z^2), with error
e = z / (n + z^2) sqrt(k (n - k) / n + z^2 / 4) (z = 1.96 for 95%). The risk is the main
attack's success beyond what the release gives about anyone:

    risk = (r_main - r_control) / (1 - r_control),

its error propagated to first order,
e_risk = sqrt((e_main / (1 - r_control))^2 + (e_control (r_main - 1) / (1 - r_control)^2)^2),
and value and interval clipped to [0, 1]. Without a control set the risk is the main rate
itself, which also counts what the population's regularities alone let anyone infer.
The baseline is not subtracted: an attack no better than it is flagged (:attr:`Risk.weak`), as
its result says nothing about the release.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privmetrics.attacks.alc import Z95, probabilistic_precision, wilson_interval
from privmetrics.attacks.outcome import Outcome
from privmetrics.attacks.shape import OneOutcome


@dataclass(frozen=True)
class Rate:
    """``successes`` of ``attempts`` attacks: the Wilson centre and its half-width at 95%."""

    successes: float  # a count; a control set's may be rescaled to another size (singling out)
    attempts: int

    @property
    def value(self) -> float:
        return float(probabilistic_precision(self.successes, self.attempts))

    @property
    def error(self) -> float:
        low, high = wilson_interval(self.successes, self.attempts)
        return float(high - low) / 2


@dataclass(frozen=True)
class Risk(OneOutcome):
    """The result of one attack: its risk with the interval, and the three rates behind it."""

    name: str
    main: Rate
    baseline: Rate
    control: Rate | None = None

    @property
    def raw(self) -> tuple[float, float]:
        """The risk and its error before clipping (negative: the control was attacked better)."""
        if self.control is None:
            return self.main.value, self.main.error
        r, c = self.main.value, self.control.value
        if c >= 1:
            return math.nan, math.nan  # the control is always hit: nothing left to measure
        error = math.hypot(self.main.error / (1 - c), self.control.error * (r - 1) / (1 - c) ** 2)
        return (r - c) / (1 - c), error

    @property
    def value(self) -> float:
        return float(np.clip(self.raw[0], 0.0, 1.0))

    @property
    def interval(self) -> tuple[float, float]:
        value, error = self.raw
        return float(np.clip(value - error, 0, 1)), float(np.clip(value + error, 0, 1))

    @property
    def weak(self) -> bool:
        """The main attack did no better than the naive baseline: its result says nothing."""
        return self.main.value <= self.baseline.value

    def as_dict(self) -> dict:
        """The :meth:`outcome`'s row (attack, measure, value, low, high, baseline, n, effect,
        beyond baseline) with the three rates behind it and whether the attack was weak."""
        return {**self.outcome().row(), "main rate": self.main.value,
                "baseline rate": self.baseline.value,
                "control rate": self.control.value if self.control else math.nan,
                "weak attack": self.weak}  # fmt: skip

    def outcome(self) -> Outcome:
        """The risk as an :class:`~.outcome.Outcome`: baseline 0 with a control set (the risk is
        then net of what the release says about anyone), else the naive attacker's rate."""
        low, high = self.interval
        baseline = 0.0 if self.control is not None else self.baseline.value
        return Outcome(self.name, "risk", self.value, low, high, baseline, self.main.attempts)


__all__ = ["Z95", "Rate", "Risk"]
