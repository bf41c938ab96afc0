"""Attacks on releases: the machinery of the inference-based measures, and games that measure
what a synthesiser leaks, as ground truth for the metrics.

``alc`` (the anonymeter-style Anonymity Loss Coefficient), ``inference`` (the attribute-inference
machinery shared by the metrics and the ALC), ``forest_baseline`` (its baseline: the paper's forest
on the real rows outside each block of targets) and ``membership`` (the member/non-member design
of the membership measures).

``dp_audit``: the membership game against one worst-case target on a fixed pair of neighbouring
tables, with a Clopper-Pearson lower bound on the epsilon the releases actually show and the
Gaussian-DP reading of its trade-off curve. ``membership_game``: shadow-model membership
inference (Stadler et al.), its features and statistics, with random and vulnerable targets
(Meeus et al.); ``attribute_game``: attribute inference as a game; ``whole_release``: the
shadow-free attack over every training row of a release (DOMIAS's density ratio, distances);
``one_run``: all three played for a whole set of targets on shared releases (one fit serves
every target).

``singling_out`` and ``anonymisation`` (linkability, inference): the three risks of European
practice as Giomi et al.'s attacks with a control set; ``risk``: an attack's success rates turned
into a risk with its interval.

``outcome``: the one shape every attack's result takes (value, 95% interval, and the baseline an
attacker the release tells nothing gets), which the games' tables, the risks, the ALC and the DP
audit all give.

May import ``threads``, ``data``, ``geometry`` and ``synthesisers``; ``metrics``, the
experiments, the audit and the compendium import from here, never the reverse.
"""
