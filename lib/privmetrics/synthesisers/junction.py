"""Any marginal of a fitted Private-PGM model, computed in NumPy on its junction tree.

A Private-PGM model (``mbi``'s MarkovRandomField) is a set of log-potentials theta_c over the
cliques it measured; its distribution is P(x) proportional to exp(sum_c theta_c(x_c)). Its own
``project`` answers an attribute set outside those cliques by variable elimination in JAX, which
compiles anew for every shape asked: AIM asks for the model's marginal of each of its candidates
every round (:mod:`.pgm`), and those compilations were most of its time.

:class:`JunctionMarginals` answers the same questions in NumPy, in two steps (Koller and
Friedman, *Probabilistic Graphical Models*, Sections 10.2-10.3):

1. **calibrate** once per model: on the junction tree of the measured cliques (``mbi``'s own
   :func:`~mbi.junction_tree.make_junction_tree`, whose nodes are the maximal cliques M of the
   triangulated graph), each potential joins one maximal clique holding it, and sum-product
   message passing in log space gives every maximal clique's marginal P(x_M), scaled to the
   model's total;
2. **project**: the running-intersection property makes P(x) = prod_M P(x_M) / prod_S P(x_S)
   over the tree's cliques M and separators S, so an attribute set's marginal is the sum, over
   the other attributes of the path of cliques joining its attributes, of
   P(M_0) prod_i P(M_i) / P(S_i); every clique off the path sums out to 1. Attributes in
   different trees of the forest (nothing measured links them) are independent. One ``np.einsum``
   per question.

:meth:`JunctionMarginals.sample` draws rows from the same factorisation (forward sampling,
Koller and Friedman, Section 12.1.1): in each tree of the forest, the root clique's attributes
from P(x_M0), then, clique by clique away from the root, the attributes a clique adds given its
separator with the clique it hangs from, from P(x_M) / P(x_S). Rows are independent draws.
Private-PGM 1.1.0's own sampler (``MarkovRandomField.synthetic_data``) is not used: its default
"randomized rounding" ranks the rows of each parent group by their position, the same for every
column, so columns it draws given one parent come out correlated with each other (on flchain
at epsilon 10, MST's release had a two-way distance of 0.58 on kappa x futime where its model
had 0.09; fixed upstream in mbi 2.0, ryan112358/mbi#145, whose estimation API differs).
"""

from __future__ import annotations

import string

import networkx as nx
import numpy as np
from scipy.special import logsumexp


def _spread(values: np.ndarray, attrs: tuple, onto: tuple) -> np.ndarray:
    """``values`` over ``attrs`` reordered and reshaped to broadcast over ``onto`` (a superset)."""
    order = sorted(range(len(attrs)), key=lambda i: onto.index(attrs[i]))
    ordered = values.transpose(order)
    sizes = dict(zip([attrs[i] for i in order], ordered.shape, strict=True))
    return ordered.reshape([sizes.get(x, 1) for x in onto])


def calibrate(potentials, total: float) -> tuple[nx.Graph, dict[tuple, np.ndarray]]:
    """The junction tree of ``potentials`` (an ``mbi`` CliqueVector of log-potentials) and the
    marginal counts (summing to ``total``) of each of its maximal cliques, by log-space
    sum-product message passing."""
    from mbi.junction_tree import make_junction_tree, message_passing_order

    domain = potentials.domain
    tree, _ = make_junction_tree(domain, potentials.cliques)
    log_psi = {m: np.zeros(domain.project(m).shape) for m in tree.nodes}
    for clique in potentials.cliques:
        home = next(m for m in tree.nodes if set(clique) <= set(m))
        factor = potentials[clique]
        log_psi[home] = log_psi[home] + _spread(
            np.asarray(factor.values, dtype=float), tuple(factor.domain.attributes), home
        )
    messages: dict[tuple, tuple[tuple, np.ndarray]] = {}
    for sender, receiver in message_passing_order(tree):
        table = log_psi[sender].copy()
        for other in tree.neighbors(sender):
            if other != receiver:
                attrs, values = messages[other, sender]
                table = table + _spread(values, attrs, sender)
        kept = tuple(x for x in sender if x in receiver)
        summed = tuple(i for i, x in enumerate(sender) if x not in kept)
        messages[sender, receiver] = (kept, logsumexp(table, axis=summed) if summed else table)
    beliefs = {}
    for clique in tree.nodes:
        table = log_psi[clique].copy()
        for other in tree.neighbors(clique):
            attrs, values = messages[other, clique]
            table = table + _spread(values, attrs, clique)
        beliefs[clique] = total * np.exp(table - logsumexp(table))
    return tree, beliefs


class JunctionMarginals:
    """The marginal counts of a fitted model (``model.potentials``, ``model.total``) for any
    attribute set, as :meth:`project` (module doc)."""

    def __init__(self, model):
        self.total = float(model.total)
        self.tree, self.tables = calibrate(model.potentials, self.total)
        attributes = sorted({x for c in self.tables for x in c})
        if len(attributes) > len(string.ascii_letters):
            raise ValueError(
                f"at most {len(string.ascii_letters)} attributes, not {len(attributes)}"
            )
        self.letter = dict(zip(attributes, string.ascii_letters, strict=False))
        self.home = {x: next(c for c in self.tables if x in c) for x in attributes}

    def _labels(self, attrs) -> str:
        return "".join(self.letter[x] for x in attrs)

    def _component(self, attrs: tuple[str, ...]) -> np.ndarray:
        """The counts of ``attrs`` (all in one tree of the forest), in their order."""
        within = next((c for c in self.tables if set(attrs) <= set(c)), None)
        if within is not None:
            return np.einsum(f"{self._labels(within)}->{self._labels(attrs)}", self.tables[within])
        start, path = self.home[attrs[0]], set()
        for x in attrs[1:]:
            path.update(nx.shortest_path(self.tree, start, self.home[x]))
        path = sorted(path, key=lambda c: nx.shortest_path_length(self.tree, start, c))
        operands, labels, kept = [self.tables[start] / self.total], [self._labels(start)], {start}
        for clique in path[1:]:
            parent = next(p for p in self.tree.neighbors(clique) if p in kept)
            separator = tuple(x for x in clique if x in parent)
            table = self.tables[clique]
            margin = np.einsum(f"{self._labels(clique)}->{self._labels(separator)}", table)
            # the separator's axes keep the clique's order: broadcast it back over the clique
            below = margin.reshape(
                [n if x in separator else 1 for x, n in zip(clique, table.shape, strict=True)]
            )
            with np.errstate(divide="ignore", invalid="ignore"):
                operands.append(np.where(below > 0, table / below, 0.0))
            labels.append(self._labels(clique))
            kept.add(clique)
        spec = ",".join(labels) + "->" + self._labels(attrs)
        return self.total * np.einsum(spec, *operands, optimize="greedy")

    def project(self, attrs) -> np.ndarray:
        """The model's counts vector of ``attrs`` (C order over them, as ``mbi``'s datavector)."""
        attrs = tuple(attrs)
        trees: dict[tuple, list[str]] = {}
        for x in attrs:
            root = min(nx.node_connected_component(self.tree, self.home[x]))
            trees.setdefault(root, []).append(x)
        groups = list(trees.values())
        joint, labels = self._component(tuple(groups[0])), list(groups[0])
        for group in groups[1:]:  # nothing measured links them: independent
            joint = np.multiply.outer(joint, self._component(tuple(group))) / self.total
            labels += group
        return joint.transpose([labels.index(x) for x in attrs]).ravel()

    def sample(self, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """``n`` independent rows of the model (module doc): each attribute's codes."""
        out: dict[str, np.ndarray] = {}
        for part in nx.connected_components(self.tree):
            root = min(part)
            _draw(self.tables[root], (), root, out, n, rng)
            for parent, clique in nx.bfs_edges(self.tree, root):
                separator = tuple(x for x in clique if x in parent)
                _draw(self.tables[clique], separator, clique, out, n, rng)
        return out


def _draw(table, given: tuple, clique: tuple, out: dict, n: int, rng) -> None:
    """Draw the attributes of ``clique`` not in ``given`` (already in ``out``) for ``n`` rows,
    from the clique's counts ``table`` conditioned on each row's ``given`` values: one
    ``searchsorted`` over the conditional CDFs laid end to end, row r of them shifted by r."""
    new = tuple(x for x in clique if x not in given)
    order = [clique.index(x) for x in given + new]
    shape = [table.shape[i] for i in order]
    ways = int(np.prod(shape[len(given) :], dtype=int))
    joint = table.transpose(order).reshape(-1, ways)
    mass = joint.sum(1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        cdf = np.where(mass > 0, joint / mass, 1.0 / ways).cumsum(1)
    cdf[:, -1] = 1.0
    row = (
        np.ravel_multi_index(tuple(out[x] for x in given), shape[: len(given)])
        if given
        else np.zeros(n, dtype=np.int64)
    )
    ends = (cdf + np.arange(len(cdf))[:, None]).ravel()
    pick = np.searchsorted(ends, row + rng.random(n), side="right") - row * ways
    codes = np.unravel_index(np.minimum(pick, ways - 1), shape[len(given) :])
    out.update(zip(new, codes, strict=True))
