"""What makes the book: ``reproduce`` runs the notebooks and builds it; ``chapter`` sets a notebook
up; ``metric_pages``, ``criteria_pages``, ``sources``, ``findings`` and ``known_leaks`` write its
generated pages, sentences and sections; ``plots`` and ``examples`` its figures (the privacy
against utility trade-off among them) and worked examples;
``peers``, ``anonymeter`` and ``crossref`` its comparisons with the field; ``bookcheck`` and
``timings`` check and time the built book."""
