"""The experiments of Sections 6-8, one sub-package a concern:

- ``batch``: the one batch runner every experiment's tasks go through (local workers, fresh
  interpreters or, through ``cluster``, a Dask cluster; costliest first; this process writes);
- ``grid``: the grid of anonymised datasets (``configurations``), the results store, the runner
  that fills it (resumable, through ``batch``) and ``verify`` for reviewers;
- ``paper``: the analyses behind Tables 7-12 and Figures 5-14, and the paper's published tables;
- ``games``: Experiment 3's attack games (``play`` plays them, ``game_store`` keeps them,
  ``game_analysis`` and ``game_findings`` read them, ``ladder`` measures the attacks' power,
  ``replay`` plays them again for reviewers);
- ``studies``: the side studies of the ALC, disclosure and PATE-GAN chapters.

``profiles`` sizes them all.

May import ``threads``, ``paths``, ``resources``, ``prose``, ``data``, ``geometry``, ``synthesisers``,
``attacks``, ``disclosure`` and ``metrics``; ``audit``, ``compendium`` and the command line import
from here.
"""
