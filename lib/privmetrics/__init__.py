"""privmetrics: privacy metrics for synthetic tabular data, a reproduction of Hansen & Stær and
beyond.

Packages by concern, lowest first (each may import only those before it; ``tests/test_layout.py``
checks it): ``data`` (schema, domain, validation, datasets), ``geometry`` (encoding, projection,
neighbours, the shared pair), ``synthesisers``, ``attacks`` (ALC, attribute inference, membership
games, the empirical epsilon), ``disclosure`` (risk of disclosure, the epsilon advisor), ``metrics`` (the
registry), ``experiments`` (grid, store, runner, verify, analyses), ``audit`` (your own data),
``compendium`` (the book's tooling) and ``commands`` (one module per ``privmetrics`` command).
Start with::

    from privmetrics.data.datasets import load_dataset
    from privmetrics.metrics import evaluate
    from privmetrics.audit import audit
"""
