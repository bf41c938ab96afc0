"""Risk of disclosure (Chen, Yu and Dargahi, 2021) and the epsilon advisor built on it.

``notions``: the four risk-of-disclosure notions ((y, p)-coverage, y-privacy, Voronoi privacy,
p-privacy) on a real/synthetic pair. ``epsilon``: utility errors, reciprocal curves and the advisor
that chooses epsilon between a utility bound and a risk limit.

May import ``threads``, ``data`` and ``geometry``; ``metrics`` and the experiments import from
here, never the reverse.
"""
