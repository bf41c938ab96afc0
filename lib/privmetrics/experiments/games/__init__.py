"""Experiment 3, "Do the metrics predict real attacks?": the games played (``play``), kept
(``game_store``), read (``game_analysis``, ``game_findings``), calibrated on known leaks
(``ladder``) and replayed for reviewers (``replay``)."""
