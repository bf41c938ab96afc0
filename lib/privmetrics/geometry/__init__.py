"""The shared geometry every distance-based measure stands on.

``encoding`` (one numeric encoding of mixed columns), ``projection`` (the FAMD projection),
``neighbours`` (batched nearest-neighbour queries), ``pair`` (a real/synthetic pair encoded once and
shared by all metrics) and ``fidelity`` (marginal distances between two tables).

May import ``threads`` and ``data``; nothing here imports the measures above it.
"""
