"""What makes the book: ``reproduce`` runs the notebooks and builds it; ``chapter`` sets a notebook
up; ``metric_pages``, ``criteria_pages``, ``sources`` and ``findings`` write its generated pages
and sentences; ``plots``, ``privacy_utility`` and ``examples`` its figures and worked examples;
``peers``, ``anonymeter`` and ``crossref`` its comparisons with the field; ``bookcheck`` and
``timings`` check and time the built book."""
