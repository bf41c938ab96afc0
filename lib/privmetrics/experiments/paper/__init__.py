"""The paper's Experiments 1 and 2: the rules that derive Tables 7-12 from the store
(``analysis``), the figures (``figures``) and the paper's own published tables to compare with
(``published``)."""
