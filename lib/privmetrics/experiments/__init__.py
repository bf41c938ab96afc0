"""The experiments of Sections 6 and 7: the grid of anonymised datasets, the results store, the
runner that fills it (resumable, parallel, on a Dask cluster when asked), the profiles that size it,
``verify`` for reviewers, and the analyses behind Tables 7-12 and Figures 5-14; Experiment 3's
attack games (``games`` plays them, ``game_store`` keeps them, ``game_analysis`` and
``game_findings`` read them, ``replay`` plays them again for reviewers).

May import ``threads``, ``data``, ``geometry``, ``synthesisers``, ``attacks``, ``disclosure`` and
``metrics``; ``audit``, ``compendium`` and the command line import from here.
"""
