"""Marginal-based DP synthesisers on Private-PGM: MST (McKenna, Miklau and Sheldon, "Winning the
NIST Contest", Journal of Privacy and Confidentiality 2021), the winner of the 2018 NIST challenge,
and AIM (McKenna, Mullins, Sheldon and Miklau, "AIM: An Adaptive and Iterative Mechanism for
Differentially Private Synthetic Data", VLDB 2022).

Each measures noisy marginals of the discretised table (:mod:`.discretise`, the same declared
public-domain binning as PrivBayes and PATE-GAN) and fits a graphical model to them with
Private-PGM's mirror descent (the ``mbi`` package, McKenna et al. 2019); the release is sampled
from that model by our own forward sampler (:meth:`.junction.JunctionMarginals.sample`, which
says why not by Private-PGM's). The mechanism is ours, written from the paper, so that its noise is drawn from
the synthesiser's seeded generator: smartnoise-synth's MST draws OpenDP's noise, which no seed
reproduces, and learns its category encoders from the data.

**MST** (Algorithm 1 of the paper), under zero-concentrated DP with rho from (epsilon, delta)
(:func:`cdp_rho`), a third of rho for each of three steps:

1. every one-way marginal, with Gaussian noise sigma = sqrt(3 d / (2 rho)) on each of the d counts
   vectors (a record changes each by 1 in one cell, so the d of them cost rho / 3);
2. a maximum spanning tree of attribute pairs, chosen edge by edge (d - 1 rounds) by the
   exponential mechanism with epsilon_t = sqrt(8 (rho / 3) / (d - 1)) over the pairs that join two
   components; a pair's score is the L1 distance between its two-way marginal and the one the
   one-way measurements imply (sensitivity 1). Those imply a product of one estimate per
   attribute, the least-squares fit of its noisy counts; the reference approaches it with 1,000
   mirror-descent steps, we compute it exactly (:func:`simplex_projection`);
3. the two-way marginal of every tree edge, with noise sigma = sqrt(3 (d - 1) / (2 rho)).

The model is then estimated from all the measurements (mirror descent, ``iters`` steps) and
sampled. The paper's step 1 also compresses each attribute's domain to the values whose noisy
count is above 3 sigma; the declared domains here have at most ``bins`` values per number and the
manifests' category lists, so the step is left out (it changes the model's size, not the privacy).

**AIM** (Algorithm 2 of its paper) for the workload of every ``degree``-way marginal: its
candidates are the workload's cliques and their subsets, each weighted by the attributes it shares
with the workload (:func:`workload_weights`). With T = ``rounds`` (16 d by default) it measures
every one-way marginal with sigma = sqrt(T / (2 0.9 rho)), then, round after round, picks a
candidate by the exponential mechanism (epsilon_t = sqrt(8 0.1 rho / T), score
w (||M(D) - M(model)||_1 - sqrt(2/pi) sigma n_cells), sensitivity the largest weight) among those
that keep the model under ``max_model_size`` MB times the share of rho spent, measures it with
sigma and re-fits the model from all measurements (warm-started, ``iters`` steps). When a
measurement moves the model's marginal less than its noise would, sigma halves and epsilon_t
doubles; the last round spends what is left, so the rounds spend rho exactly. A round costs a
mirror-descent fit and the model's marginal of every candidate; those come from the junction tree
in NumPy (:mod:`.junction`), since Private-PGM's own answer compiles a JAX program for every
clique shape. ``rounds`` and ``max_model_size`` are AIM's size parameters.

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
from privmetrics.synthesisers.junction import JunctionMarginals

INSTALL = (
    "{name} needs Private-PGM (the mbi package): `make setup` installs it, or "
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


def simplex_projection(noisy: np.ndarray, total: float) -> np.ndarray:
    """The counts vector closest to ``noisy`` in Euclidean distance among those with non-negative
    entries summing to ``total``: max(noisy - tau, 0) with tau chosen so that the sum is
    ``total`` (Duchi et al., ICML 2008, sorting). It is the exact least-squares estimate of one
    attribute's marginal from its noisy counts, which Private-PGM's mirror descent approaches
    iteration by iteration when given one-way measurements only."""
    ordered = np.sort(noisy)[::-1]
    kept = np.cumsum(ordered) - total
    k = np.nonzero(ordered - kept / np.arange(1, len(noisy) + 1) > 0)[0][-1]
    return np.maximum(noisy - kept[k] / (k + 1), 0.0)


def _exponential(scores: np.ndarray, epsilon: float, sensitivity: float, rng) -> int:
    """The exponential mechanism: index i with probability proportional to
    exp(epsilon * scores[i] / (2 sensitivity)), drawn by the Gumbel-max trick."""
    return int(np.argmax(epsilon * scores / (2 * sensitivity) + rng.gumbel(size=len(scores))))


def _measure(counts: np.ndarray, clique: tuple[int, ...], sigma: float, rng):
    """A Gaussian measurement of a marginal's ``counts`` (noise sigma per cell), as Private-PGM
    takes it; its attributes are named by column position (:func:`_names`)."""
    from mbi import LinearMeasurement

    noisy = counts + rng.normal(0, sigma, counts.size)
    return LinearMeasurement(noisy, _names(clique), sigma)


class _OnPrivatePGM(Synthesiser):
    """What MST and AIM share: their privacy parameters, the coded table over the declared domain
    with its Private-PGM domain, and sampling the fitted model (``model_``)."""

    min_rows = 2

    def __init__(self, epsilon: float, seed: int, delta: float | None, bins: int, domain: str):
        super().__init__(seed)
        self.epsilon = check_epsilon(epsilon)
        if delta is not None and not 0 < check_positive("delta", delta) < 1:
            raise InvalidInputError(f"delta must lie in (0, 1), got {delta!r}")
        self.delta = delta
        self.bins = check_count("bins", bins, minimum=2)
        self.domain = check_domain_source(domain)

    def _coded(self, frame) -> tuple[np.ndarray, list[int]]:
        """Set delta_ (1/(n sqrt n) unless given), rho_, discretiser_ and the Private-PGM domain_
        (column positions as names); return the coded table and each column's cardinality.
        No budget goes to bounds: an undeclared domain is refused or read from the data."""
        name = type(self).__name__
        try:
            from mbi import Domain
        except ImportError as exc:
            raise ImportError(INSTALL.format(name=name)) from exc
        n = len(frame)
        self.delta_ = self.delta if self.delta is not None else 1 / (n * math.sqrt(n))
        self.rho_ = cdp_rho(self.epsilon, self.delta_)
        domain, _ = resolve_domain(self.schema_, frame, self.domain, 0.0, self._rng(2), name)
        self.discretiser_ = Discretiser(self.schema_, domain, self.bins)
        cards = [int(c) for c in self.discretiser_.cardinalities]
        self.domain_ = Domain(list(_names(range(len(cards)))), cards)
        return self.discretiser_.encode(frame), cards

    def _sample(self, n):
        n = n if n is not None else 100
        drawn = JunctionMarginals(self.model_).sample(n, self._rng(3))
        codes = np.stack([drawn[name] for name in self.domain_.attributes], 1)
        return self.discretiser_.decode(codes, self._rng(1))


@register_synthesiser("mst")
class MST(_OnPrivatePGM):
    def __init__(
        self,
        epsilon: float = 1.0,
        seed: int = 0,
        delta: float | None = None,
        bins: int = 20,
        iters: int = 2000,
        domain: str = "declared",
    ):
        super().__init__(epsilon, seed, delta, bins, domain)
        self.iters = check_count("iters", iters)

    def _fit(self, frame):
        codes, cards = self._coded(frame)
        from mbi import estimation

        n, d, rho, rng = len(frame), len(cards), self.rho_, self._rng(0)

        def measure(cliques, sigma):
            return [_measure(_marginal(codes, cards, c), c, sigma, rng) for c in cliques]

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
        d, n = len(cards), len(codes)
        # The model of the one-way measurements alone is a product of one estimate per attribute,
        # each the least-squares fit of its noisy counts (the reference runs 1,000 mirror-descent
        # steps towards it): a pair's two-way marginal is the outer product of its two over n
        single = [simplex_projection(np.asarray(m.noisy_measurement), n) for m in oneway]
        pairs = [(a, b) for a in range(d) for b in range(a + 1, d)]
        scores = np.array([
            np.abs(_marginal(codes, cards, (a, b))
                   - np.outer(single[a], single[b]).ravel() / n).sum()
            for a, b in pairs
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


@register_synthesiser("aim")
class AIM(_OnPrivatePGM):
    def __init__(
        self,
        epsilon: float = 1.0,
        seed: int = 0,
        delta: float | None = None,
        bins: int = 20,
        degree: int = 2,
        rounds: int | None = None,
        max_model_size: float = 80.0,
        iters: int = 500,
        final_iters: int = 2000,
        domain: str = "declared",
    ):
        super().__init__(epsilon, seed, delta, bins, domain)
        self.degree = check_count("degree", degree)
        self.rounds = None if rounds is None else check_count("rounds", rounds)
        self.max_model_size = check_positive("max_model_size", max_model_size)
        self.iters = check_count("iters", iters)
        self.final_iters = check_count("final_iters", final_iters)

    def _fit(self, frame):
        codes, cards = self._coded(frame)
        from mbi import estimation
        from mbi.junction_tree import hypothetical_model_size

        n, d, rho, rng = len(frame), len(cards), self.rho_, self._rng(0)
        weights = workload_weights(d, min(self.degree, d))
        answers = {c: _marginal(codes, cards, c) for c in weights}
        size = {c: math.prod(cards[i] for i in c) for c in weights}
        rounds = self.rounds or 16 * d
        if rounds <= d:  # the one-way marginals alone cost d rounds' share of rho
            raise InvalidInputError(
                f"AIM needs more rounds than columns: rounds={rounds} for {d} columns spends the "
                "whole budget on the one-way marginals; give rounds > d (default 16 d)"
            )
        sigma = math.sqrt(rounds / (2 * 0.9 * rho))
        epsilon = math.sqrt(8 * 0.1 * rho / rounds)

        def measure(clique, sigma):
            return _measure(answers[clique], clique, sigma, rng)

        measurements = [measure((i,), sigma) for i in range(d)]
        used = d / (2 * sigma**2)
        model = estimation.mirror_descent(
            self.domain_, measurements, known_total=float(n), iters=self.iters
        )
        self.chosen_, final = [], False
        while not final:
            if rho - used < 2 * (1 / (2 * sigma**2) + epsilon**2 / 8):  # the last round: the rest
                remaining = rho - used
                sigma = math.sqrt(1 / (2 * 0.9 * remaining))
                epsilon = math.sqrt(8 * 0.1 * remaining)
                final = True
            used += epsilon**2 / 8 + 1 / (2 * sigma**2)
            limit = self.max_model_size * used / rho
            cliques = [tuple(int(a) for a in c) for c in model.cliques]
            free = {sub for c in cliques for sub in _subsets(c)}
            allowed = [
                c for c in weights
                if c in free or hypothetical_model_size(
                    self.domain_, [_names(k) for k in cliques + [c]]
                ) <= limit
            ]  # fmt: skip
            marginals = JunctionMarginals(model)
            scores = np.array([
                weights[c] * (np.abs(answers[c] - marginals.project(_names(c))).sum()
                              - math.sqrt(2 / math.pi) * sigma * size[c])
                for c in allowed
            ])  # fmt: skip
            sensitivity = max(abs(weights[c]) for c in allowed)
            clique = allowed[_exponential(scores, epsilon, sensitivity, rng)]
            self.chosen_.append(clique)
            measurements.append(measure(clique, sigma))
            before = marginals.project(_names(clique))
            model = estimation.mirror_descent(
                self.domain_, measurements, known_total=float(n), iters=self.iters,
                potentials=model.potentials,
            )  # fmt: skip
            after = JunctionMarginals(model).project(_names(clique))
            if np.abs(after - before).sum() <= math.sqrt(2 / math.pi) * sigma * size[clique]:
                sigma, epsilon = sigma / 2, epsilon * 2  # the model stopped moving: spend more
        self.model_ = estimation.mirror_descent(
            self.domain_, measurements, known_total=float(n), iters=self.final_iters,
            potentials=model.potentials,
        )  # fmt: skip
        self.rho_used_ = used
        self.epsilon_spent_ = self.epsilon


def _names(clique) -> tuple[int, ...]:
    """A clique of column positions as the model names its attributes: by the positions
    themselves, as integers. Private-PGM builds its junction tree's cliques from *sets* of
    attribute names, and a set of strings is ordered by their hashes, which Python draws afresh
    in every process (PYTHONHASHSEED): with names "0", "1", ... the same AIM fit gave another
    release in another process (flchain, epsilon 10: four tables from four processes, each
    process repeating its own), so a grid cell did not regenerate. An integer hashes to itself."""
    return tuple(int(i) for i in clique)


def _subsets(clique: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every non-empty subset of ``clique`` (its downward closure)."""
    from itertools import combinations

    return [s for k in range(1, len(clique) + 1) for s in combinations(clique, k)]


def workload_weights(d: int, degree: int) -> dict[tuple[int, ...], int]:
    """AIM's candidates and their weights for the workload of every ``degree``-way marginal: each
    subset of a workload clique, weighted by how many attributes it shares with the workload,
    sum over workload cliques w of |c & w| (the paper's Section 4, as Private-PGM computes it)."""
    from itertools import combinations

    workload = list(combinations(range(d), degree))
    candidates = sorted({s for w in workload for s in _subsets(w)}, key=lambda c: (len(c), c))
    return {c: sum(len(set(c) & set(w)) for w in workload) for c in candidates}
