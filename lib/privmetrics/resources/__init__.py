"""Files shipped with the package (dataset manifests, the readings catalogue, the paper's
tables, statements and errata, the PrivEval definitions); read them with
:func:`privmetrics.paths.resource`."""
