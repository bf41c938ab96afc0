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
