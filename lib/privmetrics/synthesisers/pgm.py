"""Marginal-based DP synthesisers on Private-PGM: MST (McKenna, Miklau and Sheldon, "Winning the
NIST Contest", Journal of Privacy and Confidentiality 2021), the winner of the 2018 NIST challenge.

It measures noisy marginals of the discretised table (:mod:`.discretise`, the same declared
public-domain binning as PrivBayes and PATE-GAN) and fits a graphical model to them with
Private-PGM's mirror descent (the ``mbi`` package, McKenna et al. 2019); the release is sampled
from that model. The mechanism is ours, written from the paper, so that its noise is drawn from
the synthesiser's seeded generator: smartnoise-synth's MST draws OpenDP's noise, which no seed
reproduces, and learns its category encoders from the data.

**MST** (Algorithm 1 of the paper), under zero-concentrated DP with rho from (epsilon, delta)
(:func:`cdp_rho`), a third of rho for each of three steps:

1. every one-way marginal, with Gaussian noise sigma = sqrt(3 d / (2 rho)) on each of the d counts
   vectors (a record changes each by 1 in one cell, so the d of them cost rho / 3);
2. a maximum spanning tree of attribute pairs, chosen edge by edge (d - 1 rounds) by the
   exponential mechanism with epsilon_t = sqrt(8 (rho / 3) / (d - 1)) over the pairs that join two
   components; a pair's score is the L1 distance between its two-way marginal and the one the
   one-way measurements imply (sensitivity 1);
3. the two-way marginal of every tree edge, with noise sigma = sqrt(3 (d - 1) / (2 rho)).

The model is then estimated from all the measurements (mirror descent, ``iters`` steps) and
sampled. The paper's step 1 also compresses each attribute's domain to the values whose noisy
count is above 3 sigma; the declared domains here have at most ``bins`` values per number and the
manifests' category lists, so the step is left out (it changes the model's size, not the privacy).

**What epsilon covers.** As for PrivBayes: the schema, n (it sets delta = 1/(n sqrt n)) and the
declared domains are public; every measurement and choice that reads the rows is charged, and the
total is (epsilon, delta)-DP. Sampling the model is post-processing.
"""

from __future__ import annotations

import math

import numpy as np

from privmetrics.data.validation import InvalidInputError, check_count, check_positive
from privmetrics.synthesisers.accounting import check_epsilon
from privmetrics.synthesisers.base import Synthesiser, register_synthesiser
from privmetrics.synthesisers.discretise import Discretiser, check_domain_source, resolve_domain

INSTALL = (
    "MST needs Private-PGM (the mbi package): `make setup` installs it, or "
    "pip install 'privmetrics[dp]'"
)


def cdp_delta(rho: float, epsilon: float) -> float:
    """The delta of a rho-zCDP mechanism at ``epsilon`` (Canonne, Kamath and Steinke 2020,
    Proposition 1.3): min over alpha > 1 of
    exp((alpha - 1)(alpha rho - epsilon) + alpha log(1 - 1/alpha)) / (alpha - 1), the minimum
    found by bisection on the derivative (2 alpha - 1) rho - epsilon + log(1 - 1/alpha)."""
    if rho == 0:
        return 0.0
    low, high = 1.01, (epsilon + 1) / (2 * rho) + 2
    for _ in range(200):
        alpha = (low + high) / 2
        if (2 * alpha - 1) * rho - epsilon + math.log1p(-1 / alpha) < 0:
            low = alpha
        else:
            high = alpha
    exponent = (alpha - 1) * (alpha * rho - epsilon) + alpha * math.log1p(-1 / alpha)
    return min(1.0, math.exp(exponent) / (alpha - 1))


def cdp_rho(epsilon: float, delta: float) -> float:
    """The largest rho whose zCDP guarantee gives (``epsilon``, ``delta``)-DP by
    :func:`cdp_delta` (bisection: delta grows with rho)."""
    low, high = 0.0, epsilon + 1.0
    for _ in range(200):
        rho = (low + high) / 2
        if cdp_delta(rho, epsilon) <= delta:
            low = rho
        else:
            high = rho
    return low


def _marginal(codes: np.ndarray, cards, clique: tuple[int, ...]) -> np.ndarray:
    """The counts vector of the columns ``clique`` of the coded table (C order, as mbi's)."""
    shape = tuple(int(cards[c]) for c in clique)
    index = np.ravel_multi_index(tuple(codes[:, c] for c in clique), shape)
    return np.bincount(index, minlength=math.prod(shape)).astype(float)


def _exponential(scores: np.ndarray, epsilon: float, sensitivity: float, rng) -> int:
    """The exponential mechanism: index i with probability proportional to
    exp(epsilon * scores[i] / (2 sensitivity)), drawn by the Gumbel-max trick."""
    return int(np.argmax(epsilon * scores / (2 * sensitivity) + rng.gumbel(size=len(scores))))


@register_synthesiser("mst")
class MST(Synthesiser):
    min_rows = 2

    def __init__(
        self,
        epsilon: float = 1.0,
        seed: int = 0,
        delta: float | None = None,
        bins: int = 20,
        iters: int = 2000,
        domain: str = "declared",
    ):
        super().__init__(seed)
        self.epsilon = check_epsilon(epsilon)
        if delta is not None and not 0 < check_positive("delta", delta) < 1:
            raise InvalidInputError(f"delta must lie in (0, 1), got {delta!r}")
        self.delta = delta
        self.bins = check_count("bins", bins, minimum=2)
        self.iters = check_count("iters", iters)
        self.domain = check_domain_source(domain)

    def _fit(self, frame):
        try:
            from mbi import Domain, LinearMeasurement, estimation
        except ImportError as exc:
            raise ImportError(INSTALL) from exc
        n = len(frame)
        rng = self._rng(0)
        self.delta_ = self.delta if self.delta is not None else 1 / (n * math.sqrt(n))
        self.rho_ = rho = cdp_rho(self.epsilon, self.delta_)
        # MST spends no budget on bounds: an undeclared domain is refused or read from the data
        domain, _ = resolve_domain(self.schema_, frame, self.domain, 0.0, self._rng(2), "MST")
        self.discretiser_ = Discretiser(self.schema_, domain, self.bins)
        codes = self.discretiser_.encode(frame)
        cards = [int(c) for c in self.discretiser_.cardinalities]
        d = len(cards)
        names = [str(i) for i in range(d)]
        self.domain_ = Domain(names, cards)

        def measure(cliques, sigma):
            return [
                LinearMeasurement(
                    _marginal(codes, cards, c) + rng.normal(0, sigma, math.prod(cards[i] for i in c)),
                    tuple(names[i] for i in c),
                    sigma,
                )
                for c in cliques
            ]  # fmt: skip

        oneway = measure([(i,) for i in range(d)], math.sqrt(3 * d / (2 * rho)))
        tree = self._spanning_tree(codes, cards, oneway, rho / 3, rng) if d > 1 else []
        twoway = measure(tree, math.sqrt(3 * max(len(tree), 1) / (2 * rho))) if tree else []
        self.tree_ = [(int(a), int(b)) for a, b in tree]
        self.model_ = estimation.mirror_descent(
            self.domain_, oneway + twoway, known_total=float(n), iters=self.iters
        )
        self.epsilon_spent_ = self.epsilon

    def _spanning_tree(self, codes, cards, oneway, rho, rng) -> list[tuple[int, int]]:
        """Step 2 of the module doc: d - 1 exponential-mechanism choices within zCDP ``rho``."""
        from mbi import estimation

        d = len(cards)
        start = estimation.mirror_descent(
            self.domain_, oneway, known_total=float(len(codes)), iters=1000
        )
        pairs = [(a, b) for a in range(d) for b in range(a + 1, d)]
        scores = np.array([
            np.abs(_marginal(codes, cards, p)
                   - np.asarray(start.project((str(p[0]), str(p[1]))).datavector())).sum()
            for p in pairs
        ])  # fmt: skip
        component = np.arange(d)
        epsilon = math.sqrt(8 * rho / (d - 1))
        tree = []
        for _ in range(d - 1):
            open_ = [i for i, (a, b) in enumerate(pairs) if component[a] != component[b]]
            a, b = pairs[open_[_exponential(scores[open_], epsilon, 1.0, rng)]]
            component[component == component[b]] = component[a]
            tree.append((a, b))
        return tree

    def _sample(self, n):
        n = n if n is not None else 100
        # mbi's sampler draws from NumPy's global generator: seed it, then put it back
        state = np.random.get_state()  # noqa: NPY002
        np.random.seed(self.seed + 1)  # noqa: NPY002
        try:
            data = self.model_.synthetic_data(rows=n)
        finally:
            np.random.set_state(state)  # noqa: NPY002
        columns = data.to_dict()
        codes = np.stack([np.asarray(columns[name]) for name in self.domain_.attributes], 1)
        return self.discretiser_.decode(codes, self._rng(1))
