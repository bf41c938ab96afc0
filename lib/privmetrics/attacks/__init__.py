"""Attacks on releases: the machinery of the inference-based measures, and games that measure
what a synthesiser leaks, as ground truth for the metrics.

Every attack has one shape (``shape``): configured with what it attacks (the real table or its
:class:`~privmetrics.geometry.real_side.RealSide`, the release, a control set) and its
parameters, ``evaluate(seed)`` returns a result whose ``outcomes()`` give each finding's value,
95% interval and baseline (``outcome``). That module's docstring says how to add one.

The attacks: ``singling_out`` and ``anonymisation`` (linkability, inference): the three risks of
European practice as Giomi et al.'s attacks with a control set, each a risk (``risk``: an
attack's success rates turned into a risk with its interval). ``inference``: the Anonymity Loss
Coefficient of an attribute-inference attack (``alc`` holds its arithmetic, ``forest_baseline``
its baseline: the paper's forest on the real rows outside each block of targets);
``membership``: the same against a release refitted without the targets. ``whole_release``:
membership over every training row of a release, without shadow models (DOMIAS's density ratio,
distances, Gen-LRA). ``one_run``: the shadow-model membership game (``membership_game``, Stadler
et al., with random and vulnerable targets after Meeus et al.) and the attribute game
(``attribute_game``) of a whole set of targets on shared releases (one fit serves every target).
``empirical_epsilon``: the membership game against one worst-case target on a fixed pair of
neighbouring tables, with a Clopper-Pearson lower bound on the epsilon the releases show.

One vocabulary: ``secret`` (what the attacker wants), ``known`` (what it holds about a target),
``targets`` (how many people are attacked, or which), ``control`` (real rows the generator never
saw).

May import ``threads``, ``data``, ``geometry`` and ``synthesisers``; ``metrics``, the
experiments, the audit and the compendium import from here, never the reverse.
"""
