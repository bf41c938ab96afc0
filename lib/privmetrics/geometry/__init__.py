"""The shared geometry every distance-based measure stands on.

``encoding`` (one numeric encoding of mixed columns), ``projection`` (the FAMD projection),
``neighbours`` (batched nearest-neighbour queries), ``reweighted`` (nearest-neighbour comparisons
in a reweighted space, decided from the mixed space's neighbours), ``real_side`` (the real table checked and
encoded once, shared by every pair of it), ``pair`` (a real/synthetic pair encoded once and shared
by all metrics), ``fidelity`` (marginal distances between two tables) and ``gower`` (the unsquared
Gower-like distance of the anonymeter framework's attacks, and its nearest neighbours).

May import ``threads`` and ``data``; nothing here imports the measures above it.
"""
