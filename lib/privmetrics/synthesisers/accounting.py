"""Privacy accounting for the DP synthesisers: a ledger of spends and the PATE moments accountant.

PrivBayes composes pure epsilon-DP steps sequentially, so its ledger just adds up. PATE-GAN answers
many noisy teacher votes and tracks their cost with the moments accountant of Jordon et al. (2019),
Algorithm 1 (itself from Papernot et al. 2017, Theorem 3): for every moment order l,

    alpha(l) += min( 2 lam^2 l (l + 1),
                     log((1 - q) ((1 - q) / (1 - e^{2 lam} q))^l + q e^{2 lam l}) ),
    q = (2 + lam |n0 - n1|) / (4 exp(lam |n0 - n1|)),

where n0, n1 are the teacher votes of one query and 1/lam the Laplace noise scale; then
epsilon = min_l (alpha(l) + log(1 / delta)) / l. The second (data-dependent) bound is valid only
when q < (e^{2 lam} - 1) / (e^{4 lam} - 1); elsewhere the first one is used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privmetrics.data.validation import check_positive


def check_epsilon(epsilon: float) -> float:
    """A privacy budget: a finite number > 0 ("1.0", True, NaN and inf are refused)."""
    return check_positive("epsilon", epsilon)


@dataclass
class Ledger:
    """Every privacy spend of one fit: (what, epsilon, delta). Sequential composition adds them."""

    entries: list[tuple[str, float, float]] = field(default_factory=list)

    def spend(self, what: str, epsilon: float, delta: float = 0.0) -> None:
        self.entries.append((what, float(epsilon), float(delta)))

    @property
    def epsilon(self) -> float:
        return float(sum(e for _, e, _ in self.entries))

    @property
    def delta(self) -> float:
        return float(sum(d for _, _, d in self.entries))


class MomentsAccountant:
    """The PATE moments accountant over orders l = 1..max_order (Jordon et al. 2019, Algorithm 1)."""

    def __init__(self, lam: float, delta: float, max_order: int = 100):
        self.lam = float(lam)
        self.delta = float(delta)
        self.orders = np.arange(1, max_order + 1, dtype=float)
        self.alpha = np.zeros(max_order)
        self.queries = 0

    def moments(self, votes_gap: np.ndarray) -> np.ndarray:
        """alpha(l) contributed by queries whose teacher votes differ by ``votes_gap`` = |n0 - n1|."""
        lam, orders = self.lam, self.orders
        gap = np.asarray(votes_gap, dtype=float)[:, None]
        q = (2 + lam * gap) / (4 * np.exp(lam * gap))
        independent = 2 * lam**2 * orders * (orders + 1)
        valid = q < (np.exp(2 * lam) - 1) / (np.exp(4 * lam) - 1)
        q = np.where(valid, q, 0.5 * (np.exp(2 * lam) - 1) / (np.exp(4 * lam) - 1))
        # log((1-q) * ((1-q)/(1-e^{2 lam} q))^l + q e^{2 lam l}) in log space, to avoid overflow
        first = np.log1p(-q) + orders * (np.log1p(-q) - np.log1p(-np.exp(2 * lam) * q))
        second = np.log(q) + 2 * lam * orders
        dependent = np.logaddexp(first, second)
        return np.where(valid, np.minimum(independent, dependent), independent).sum(axis=0)

    def epsilon_after(self, votes_gap: np.ndarray | None = None) -> float:
        """The epsilon spent if the queries with these vote gaps were answered too."""
        alpha = self.alpha if votes_gap is None else self.alpha + self.moments(votes_gap)
        return float(np.min((alpha + np.log(1 / self.delta)) / self.orders))

    def answer(self, votes_gap: np.ndarray) -> None:
        self.alpha = self.alpha + self.moments(votes_gap)
        self.queries += len(votes_gap)

    @property
    def epsilon(self) -> float:
        return self.epsilon_after(None)
