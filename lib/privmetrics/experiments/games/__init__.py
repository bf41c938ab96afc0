"""Experiment 3, "Do the metrics predict real attacks?": the games played (``play``), kept
(``game_store``), read (``game_analysis``, ``game_findings``; their tables kept by content in
``kept_tables``), calibrated on known leaks
(``ladder``) and replayed for reviewers (``replay``)."""
