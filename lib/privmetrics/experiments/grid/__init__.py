"""The experiment grid of Section 6.5 and its results store: which cells exist
(``configurations``), how they are computed and kept (``runner``, through the batch runner of
:mod:`privmetrics.experiments.batch`; ``store``, ``cell_utility``), what made them
(``provenance``), how a reviewer re-draws them (``verify``) and how one table reads under another
paper's definitions (``ways``)."""
