"""PrivBayes (Zhang et al., SIGMOD 2014 / TODS 2017): an epsilon-DP Bayesian network synthesiser.

Three steps, on the discretised table (:mod:`.discretise`; numerical columns in equal-width bins):

1. **Network learning, epsilon/2.** The first attribute is drawn uniformly at random (no budget).
   Each of the d - 1 further steps chooses one (attribute X, parent set Pi) pair among the
   attributes not yet placed and the subsets of placed attributes of size at most ``degree``,
   with the exponential mechanism on the mutual information I(X; Pi) at budget eps1 / (d - 1):
   P(pair) ~ exp(eps1 / (d - 1) * I / (2 S)), with S the sensitivity of I (Zhang et al.,
   Lemma 4.1: S = log2(n)/n + (n-1)/n log2(n/(n-1)) when X or Pi is binary, else
   2/n log2((n+1)/2) + (n-1)/n log2((n+1)/(n-1))). A pair is a candidate only when it is
   theta-useful: the noisy marginal it needs has at most n eps2 / (2 d theta) cells, so that the
   average count per cell stays ``theta`` times the noise scale (Zhang et al., Section 4.4,
   generalised to non-binary domains). With a small epsilon this leaves only small parent sets,
   which is how the method trades structure for noise.
2. **Noisy conditionals, epsilon/2.** For each of the d attributes, the count table of (Pi, X)
   gets Laplace noise of scale 2 d / eps2 (a substitution changes one table by at most 2 in L1,
   and d tables share eps2), negative counts are clipped to 0 and each parent configuration is
   normalised (uniform when nothing is left).
3. **Sampling** along the network order, vectorised per attribute by inverse-CDF draws.

The budget split is kept in ``ledger_`` and adds up to ``epsilon`` exactly; delta = 0.
Deviation, documented: we noise one marginal per attribute (d tables) instead of deriving the first
``degree`` conditionals from one (degree + 1)-way marginal; the accounting above covers this.

**What epsilon covers.** Neighbouring tables differ in one record (substitution, n fixed). Public,
and so outside the budget: the schema, the number of rows n (the sensitivities above use it, as
Zhang et al. do), the columns' domains (bounds, bin edges and category lists, from the declared
public domain, :mod:`.discretise`) and the hyper-parameters. Counted by the ledger: the d - 1
exponential-mechanism choices (eps1) and the d noisy count tables (eps2); with ``domain="dp"``,
first a share ``domain_share`` of epsilon buys the bounds of undeclared numerical columns and the
rest is split as above. delta = 0: PrivBayes is pure epsilon-DP. Data-independent: the first
attribute's draw, decoding (a uniform draw inside a bin) and sampling from the noisy model.
With ``domain="data"`` the domain is read from the rows and none of this holds (a warning says so).
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pandas as pd
from tqdm import tqdm

from privmetrics.data.validation import InvalidInputError, check_count, check_positive
from privmetrics.synthesisers.accounting import Ledger, check_epsilon
from privmetrics.synthesisers.base import Synthesiser, register_synthesiser
from privmetrics.synthesisers.discretise import (
    Discretiser,
    check_domain_source,
    resolve_domain,
)


def mutual_information(x: np.ndarray, parents: np.ndarray, nx: int, npar: int) -> float:
    """I(X; Pi) in bits from two integer code vectors (Pi already combined into one code)."""
    joint = np.bincount(parents * nx + x, minlength=npar * nx).reshape(npar, nx) / len(x)
    px, pp = joint.sum(0), joint.sum(1)
    nz = joint > 0
    return float((joint[nz] * np.log2(joint[nz] / np.outer(pp, px)[nz])).sum())


def mi_sensitivity(n: int, binary: bool) -> float:
    if binary:
        return np.log2(n) / n + (n - 1) / n * np.log2(n / (n - 1))
    return 2 / n * np.log2((n + 1) / 2) + (n - 1) / n * np.log2((n + 1) / (n - 1))


# Network learning weighs, at each of its d - 1 steps, every (attribute, parent set) pair of the
# unplaced attributes and the subsets of at most ``degree`` placed ones: up to
# d * (C(d-1, 1) + ... + C(d-1, degree)) pairs per step, d - 1 steps. Above MAX_PAIRS per step the
# fit is refused up front (it would take hours); from PROGRESS_COLUMNS columns a progress bar runs.
MAX_PAIRS = 5e7
PROGRESS_COLUMNS = 50


def check_width(d: int, degree: int) -> None:
    """Refuse a table too wide for the network search at this ``degree`` (comment above)."""
    pairs = d * sum(comb(d - 1, k) for k in range(1, degree + 1))
    if pairs > MAX_PAIRS:
        widest = max(
            w
            for w in range(2, d)
            if w * sum(comb(w - 1, k) for k in range(1, degree + 1)) <= MAX_PAIRS
        )
        raise InvalidInputError(
            f"PrivBayes with degree {degree} on {d} columns would weigh up to {pairs:.2g} "
            f"(attribute, parent set) pairs at each of its {d - 1} network steps (at most "
            f"{MAX_PAIRS:.0e}): use at most {widest} columns at this degree, or a lower degree"
        )


def check_share(share: float) -> float:
    """The share of epsilon spent on DP bounds (``domain="dp"``): a number in (0, 1)."""
    if not 0 < check_positive("domain_share", share) < 1:
        raise InvalidInputError(f"domain_share must lie in (0, 1), got {share!r}")
    return float(share)


@register_synthesiser("privbayes")
class PrivBayes(Synthesiser):
    min_rows = 2

    def __init__(
        self,
        epsilon: float = 1.0,
        seed: int = 0,
        degree: int = 2,
        bins: int = 20,
        theta: float = 4.0,
        domain: str = "declared",
        domain_share: float = 0.1,
    ):
        super().__init__(seed)
        self.epsilon = check_epsilon(epsilon)
        self.degree = check_count("degree", degree, minimum=0)
        self.bins = check_count("bins", bins, minimum=2)
        self.theta = check_positive("theta", theta)
        self.domain = check_domain_source(domain)
        self.domain_share = check_share(domain_share)

    def _fit(self, frame):
        rng = self._rng(0)
        self.ledger_ = Ledger()
        domain, spent = resolve_domain(
            self.schema_, frame, self.domain, self.epsilon * self.domain_share, self._rng(2),
            "PrivBayes",
        )  # fmt: skip
        if spent:
            self.ledger_.spend("domain: DP bounds of undeclared numerical columns", spent)
        self.discretiser_ = Discretiser(self.schema_, domain, self.bins)
        codes = self.discretiser_.encode(frame)
        cards = self.discretiser_.cardinalities
        n, d = codes.shape
        eps1 = eps2 = (self.epsilon - spent) / 2
        self.network_ = self._learn_network(codes, cards, eps1, eps2, rng)
        self.conditionals_ = [
            self._noisy_conditional(codes, cards, x, parents, eps2 / d, rng)
            for x, parents in self.network_
        ]
        self.epsilon_spent_ = self.ledger_.epsilon

    def _learn_network(self, codes, cards, eps1, eps2, rng) -> list[tuple[int, tuple[int, ...]]]:
        """Step 1 of the module doc. Candidates are listed in one fixed order (attribute, then
        parent-set size, then ``combinations`` of the placed attributes), which the Gumbel draw
        depends on; the theta-usefulness filter is one array comparison per step, and I(X; Pi),
        which does not change between steps, is computed once per pair."""
        n, d = codes.shape
        check_width(d, self.degree)
        max_cells = n * eps2 / (2 * d * self.theta)
        first = int(rng.integers(d))
        network, placed = [(first, ())], [first]
        self.ledger_.spend("network: first attribute (uniform, free)", 0.0)
        step_eps = eps1 / (d - 1) if d > 1 else 0.0
        cards = np.asarray(cards)
        information: dict[tuple[int, tuple[int, ...]], float] = {}
        steps = tqdm(range(d - 1), desc=f"PrivBayes network ({d} columns)", leave=False,
                     disable=d < PROGRESS_COLUMNS)  # fmt: skip
        for _ in steps:
            rest = np.array(sorted(set(range(d)) - set(placed)))
            sizes = range(1, min(self.degree, len(placed)) + 1)
            subsets = [np.array(list(combinations(placed, size)), dtype=np.int64) for size in sizes]
            # per size: which parent sets keep each attribute's marginal theta-useful
            useful = [
                cards[rest, None].astype(float) * cards[sets].astype(float).prod(1)[None, :]
                <= max_cells
                for sets in subsets
            ]
            candidates, scores, binary = [], [], []
            for i, x in enumerate(rest.tolist()):
                pairs = [(x, ())] + [
                    (x, tuple(sets[j].tolist()))
                    for sets, ok in zip(subsets, useful, strict=True)
                    for j in np.flatnonzero(ok[i])
                ]
                for pair in pairs:
                    npar = int(np.prod(cards[list(pair[1])])) if pair[1] else 1
                    if pair not in information:
                        pcode, _ = self._parent_code(codes, cards, pair[1])
                        information[pair] = mutual_information(codes[:, x], pcode, cards[x], npar)
                    candidates.append(pair)
                    scores.append(information[pair])
                    binary.append(cards[x] <= 2 or npar <= 2)
            sens = np.where(binary, mi_sensitivity(n, True), mi_sensitivity(n, False))
            # exponential mechanism by the Gumbel-max trick
            utility = step_eps * np.asarray(scores) / (2 * sens)
            choice = int(np.argmax(utility + rng.gumbel(size=len(utility))))
            network.append(candidates[choice])
            placed.append(candidates[choice][0])
            self.ledger_.spend(
                f"network: choose parents of column {candidates[choice][0]}", step_eps
            )
        return network

    @staticmethod
    def _parent_code(codes, cards, parents) -> tuple[np.ndarray, int]:
        code = np.zeros(len(codes), dtype=np.int64)
        size = 1
        for p in parents:
            code = code * cards[p] + codes[:, p]
            size *= int(cards[p])
        return code, size

    def _noisy_conditional(self, codes, cards, x, parents, eps, rng) -> np.ndarray:
        pcode, npar = self._parent_code(codes, cards, parents)
        counts = np.bincount(pcode * cards[x] + codes[:, x], minlength=npar * cards[x])
        noisy = np.clip(counts + rng.laplace(0, 2 / eps, size=counts.shape), 0, None)
        table = noisy.reshape(npar, cards[x])
        totals = table.sum(1, keepdims=True)
        self.ledger_.spend(f"conditional of column {x} given {list(parents)}", eps)
        return np.where(totals > 0, table / np.where(totals > 0, totals, 1), 1 / cards[x])

    def _sample(self, n):
        n = n if n is not None else 100
        rng = self._rng(1)
        cards = self.discretiser_.cardinalities
        codes = np.zeros((n, len(cards)), dtype=np.int64)
        for (x, parents), table in zip(self.network_, self.conditionals_, strict=True):
            pcode, _ = self._parent_code(codes, cards, parents)
            cdf = np.cumsum(table[pcode], axis=1)
            codes[:, x] = np.minimum((rng.random((n, 1)) * cdf[:, -1:] > cdf).sum(1), cards[x] - 1)
        return self.discretiser_.decode(codes, rng)

    def network_table(self) -> pd.DataFrame:
        """The learnt network, one row per attribute in sampling order: attribute, parents."""
        names = self.columns_
        return pd.DataFrame(
            {
                "attribute": [names[x] for x, _ in self.network_],
                "parents": [", ".join(names[p] for p in ps) for _, ps in self.network_],
            }
        )
