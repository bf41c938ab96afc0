"""Attacks on releases: games that measure what a synthesiser leaks, as ground truth for metrics.

``dp_audit``: the membership game against one worst-case target on a fixed pair of neighbouring
tables, with a Clopper-Pearson lower bound on the epsilon the releases actually show.
``membership_game``: shadow-model membership inference (Stadler et al.), the attacker knowing a
reference sample of the population, with random and vulnerable targets (Meeus et al.).

May import the input side (schema, domain, datasets, validation) and ``synthesisers``; nothing
in ``metrics`` or ``experiments`` imports from here.
"""
