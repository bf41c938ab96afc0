"""A chapter's warnings reach its page as one line of words, never as stderr (issue 63, item 3)."""

import warnings
from collections import Counter

from privmetrics.compendium.book.chapter import WarningTally, warning_line, warning_words
from privmetrics.data.validation import UnseenCategoryWarning
from privmetrics.paths import checkout_root


def test_the_librarys_warnings_are_told_by_their_class_and_others_by_their_message():
    assert warning_words(UnseenCategoryWarning, "column 'x': 3 values") == (
        "the synthetic table holds categories that the real table does not"
    )
    noisy = f"{checkout_root()}/lib/x.py: Downcasting is deprecated.\nsecond line"
    assert warning_words(FutureWarning, noisy) == "lib/x.py: Downcasting is deprecated"
    from privmetrics.synthesisers.pategan import FewIterationsWarning

    assert warning_words(FewIterationsWarning, "").startswith("PATE-GAN's privacy budget")
    counts = Counter({"a thing happened": 1, "another": 36})
    assert warning_line(counts) == (
        "Note: while computing this, another (36 times); a thing happened (1 time)."
    )


def test_a_cells_warnings_become_one_line_after_it_and_none_on_stderr(capsys, monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    from privmetrics.compendium.book.chapter import tell_warnings_plainly

    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    shell = InteractiveShell.instance()
    try:
        tally = tell_warnings_plainly()
        assert isinstance(tally, WarningTally) and tell_warnings_plainly() is tally  # once
        capsys.readouterr()
        shell.run_cell(
            "import warnings\n"
            "from privmetrics.data.validation import UnseenCategoryWarning\n"
            "warnings.simplefilter('always')\n"
            "for _ in range(3):\n"
            "    warnings.warn('column x', UnseenCategoryWarning)\n"
        )
        shell.run_cell("1 + 1")  # a cell without warnings says nothing
    finally:
        InteractiveShell.clear_instance()
    out, err = capsys.readouterr()
    assert err == ""
    told = [line for line in out.splitlines() if line.startswith("Note:")]
    assert told == [
        "Note: while computing this, the synthetic table holds categories that the real table "
        "does not (3 times)."
    ]


def test_outside_a_notebook_nothing_is_rerouted(monkeypatch):
    from privmetrics.compendium.book.chapter import tell_warnings_plainly

    before = warnings.showwarning
    assert tell_warnings_plainly() is None and warnings.showwarning is before
