"""Attacks on releases: the machinery of the inference-based measures, and games that measure
what a synthesiser leaks, as ground truth for the metrics.

``alc`` (the anonymeter-style Anonymity Loss Coefficient), ``inference`` (the attribute-inference
machinery shared by the metrics and the ALC) and ``membership`` (the member/non-member design of
the membership measures).

``dp_audit``: the membership game against one worst-case target on a fixed pair of neighbouring
tables, with a Clopper-Pearson lower bound on the epsilon the releases actually show.
``membership_game``: shadow-model membership inference (Stadler et al.), the attacker knowing a
reference sample of the population, with random and vulnerable targets (Meeus et al.).

May import ``threads``, ``data``, ``geometry`` and ``synthesisers``; ``metrics``, the
experiments, the audit and the compendium import from here, never the reverse.
"""
