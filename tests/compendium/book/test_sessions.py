"""The teaching plan's sessions (``privmetrics.compendium.book.sessions``): minutes computed
from the chapters, never typed."""

import nbformat
import pytest

from privmetrics.compendium.book import sessions as S
from privmetrics.paths import checkout_root


def test_study_time_by_hand():
    """400 words of prose read at 200 a minute, two exercises at 10: 22 minutes, rounded up to
    25; the study-time cell itself is not counted, nor is a code cell's source."""
    prose = nbformat.v4.new_markdown_cell(" ".join(["word"] * 398))
    exercises = [nbformat.v4.new_markdown_cell("**Exercise 1.**"),  # 2 words each
                 nbformat.v4.new_markdown_cell("**Exercise 2.**")]  # fmt: skip
    tagged = nbformat.v4.new_markdown_cell("old " * 99, metadata={"tags": ["study-time"]})
    code = nbformat.v4.new_code_cell("x = 1  # many words here are not read")
    notebook = nbformat.v4.new_notebook(cells=[prose, tagged, *exercises, code])
    assert S.study_time(notebook) == (25, 402, 2)
    assert (
        S.rounded_minutes(0) == 5 and S.rounded_minutes(1000) == 5 and S.rounded_minutes(1200) == 10
    )


def test_every_session_lists_chapters_the_book_has_with_their_minutes():
    text = S.sessions_markdown(checkout_root())
    for number, session in enumerate(S.SESSIONS, start=1):
        assert f"### Session {number}: {session.title} (about " in text
        for document in session.chapters:
            minutes, exercises = S.chapter_time(checkout_root() / "book", document)
            assert f"| {{doc}}`/book/{document}` | {minutes} min |" in text
    # a session's total is the sum of its chapters'
    first = S.SESSIONS[0]
    total = sum(S.chapter_time(checkout_root() / "book", d)[0] for d in first.chapters)
    assert f"{first.title} (about {total} minutes of study)" in text
    assert text.count("**Deliverable:**") == len(S.SESSIONS) == 3


def test_a_plan_naming_a_missing_chapter_is_refused(tmp_path):
    (tmp_path / "book").mkdir()
    with pytest.raises(FileNotFoundError, match="names 'nowhere'"):
        S.chapter_time(tmp_path / "book", "nowhere")


def _solution_notebook():
    import nbformat

    def answered(text):
        cell = nbformat.v4.new_code_cell("...", metadata={"tags": ["solution"]})
        cell.outputs = [nbformat.v4.new_output("display_data", data={"text/markdown": text})]
        return cell

    return nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("**Exercise 1.** ..."), answered("three"),
        nbformat.v4.new_markdown_cell("**Exercise 2.** ..."), answered("four"),
    ])  # fmt: skip


def _texts(cell) -> list[str]:
    return ["".join(o["data"].get("text/markdown", "")) for o in cell.outputs]


def test_each_answer_key_names_its_edition_and_shows_the_paper_answer_beside_it():
    """Issue 63: an answer key says which edition's results it was computed from, and another
    edition shows the shipped paper edition's answer beside it (or says none is shipped)."""
    from privmetrics.compendium.book.sessions import answer_keys

    notebook = _solution_notebook()
    shipped = {"n": {"1": [{"text/markdown": "the paper's three"}]}}
    answers = answer_keys(notebook, "n", "quick", shipped)
    import nbformat

    nbformat.validate(nbformat.reads(nbformat.writes(notebook), as_version=4))  # a notebook still
    first, second = notebook.cells[1], notebook.cells[3]
    assert _texts(first)[0].startswith("*Answer key of the `quick` edition")
    assert _texts(first)[1:] == ["three", "*The paper edition's answer, from the shipped paper "
                                 "store:*", "the paper's three"]  # fmt: skip
    assert "No paper-edition answer is shipped" in _texts(second)[-1]
    assert answers == {"1": [{"text/markdown": "three"}], "2": [{"text/markdown": "four"}]}
    # tagged again, the labels are replaced, not doubled; the paper edition shows its own only
    assert answer_keys(notebook, "n", "quick", shipped) == answers
    assert len(first.outputs) == 4
    answer_keys(notebook, "n", "paper", shipped)
    assert _texts(first) == ["*Answer key of the `paper` edition, computed from its results when "
                             "the book was built.*", "three"]  # fmt: skip


def test_a_solution_that_shows_nothing_stays_unlabelled():
    """A chapter that stops early on an empty store runs its solutions empty: they get no label
    (there is no answer), and the next exercise keeps its number."""
    from privmetrics.compendium.book.sessions import answer_keys

    notebook = _solution_notebook()
    notebook.cells[1].outputs = []
    answers = answer_keys(notebook, "n", "quick", {})
    assert notebook.cells[1].outputs == []
    assert _texts(notebook.cells[3])[1] == "four" and answers == {"2": [{"text/markdown": "four"}]}


def test_the_paper_answers_are_written_only_when_they_change(tmp_path):
    from privmetrics.compendium.book.sessions import keep_answers

    path = tmp_path / "answers.json"
    assert keep_answers(path, {"n": {"1": []}})
    stamp = path.stat().st_mtime_ns
    assert not keep_answers(path, {"n": {"1": []}}) and path.stat().st_mtime_ns == stamp
    assert keep_answers(path, {"n": {"1": [{"text/markdown": "x"}]}})
