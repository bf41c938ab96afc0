"""Study times and the teaching plan: each chapter's estimated study time, computed from the
chapter itself when the book is built (:func:`add_study_time` puts it under the title), and the
three sessions of the teaching page with their objectives, chapters, generated minutes,
exercises to set, discussion prompt and deliverable (:func:`sessions_markdown`, written to
``book/generated/sessions.md``), and how an executed chapter shows its exercises
(:func:`tag_for_book`: each solution behind a toggle, its answer key labelled with the edition and
the paper edition's answer beside it, :func:`answer_keys`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

READING_WORDS_PER_MINUTE = 200  # a careful reading of technical prose
MINUTES_PER_EXERCISE = 10


def study_time(notebook) -> tuple[int, int, int]:
    """(minutes, words, exercises) of a chapter notebook: its words (prose and generated text) at
    :data:`READING_WORDS_PER_MINUTE`, plus :data:`MINUTES_PER_EXERCISE` per exercise; rounded up
    to 5 minutes."""
    cells = [c for c in notebook.cells if "study-time" not in c.metadata.get("tags", [])]
    words = sum(len(c.source.split()) for c in cells if c.cell_type == "markdown")
    words += sum(
        len("".join(o["data"]["text/markdown"]).split())
        for c in cells if c.cell_type == "code"
        for o in c.get("outputs", []) if "text/markdown" in o.get("data", {})
    )  # fmt: skip
    exercises = sum(c.cell_type == "markdown" and c.source.startswith("**Exercise") for c in cells)
    return rounded_minutes(words, exercises), words, exercises


def rounded_minutes(words: int, exercises: int = 0) -> int:
    minutes = words / READING_WORDS_PER_MINUTE + MINUTES_PER_EXERCISE * exercises
    return 5 * max(1, -(-int(minutes) // 5))


def add_study_time(notebook) -> None:
    """Put the chapter's estimated study time (:func:`study_time`) under its title, computed from
    the chapter itself. Never typed, so it follows the chapter; replaced when the notebook is
    tagged again."""
    import nbformat

    minutes, words, exercises = study_time(notebook)
    said = f"*Study time: about {minutes} minutes ({words:,} words to read"
    said += f", {exercises} exercise{'s' * (exercises != 1)})*" if exercises else ")*"
    cell = nbformat.v4.new_markdown_cell(said, metadata={"tags": ["study-time"]})
    cells = [c for c in notebook.cells if "study-time" not in c.metadata.get("tags", [])]
    notebook.cells = cells[:1] + [cell] + cells[1:]


@dataclass(frozen=True)
class Session:
    title: str
    objectives: str
    chapters: tuple[
        str, ...
    ]  # book documents: "metrics" (a page) or "generated/exp11" (a notebook)
    prompt: str
    deliverable: str


SESSIONS = (
    Session(
        "What a privacy metric measures",
        "name the three attack categories and the metrics of each; compute one metric by hand",
        ("metrics", "generated/metrics", "datasets", "generated/datasets", "synthesisers",
         "generated/synthesisers"),
        "Why must a DP synthesiser's column ranges be declared, not read from the data?",
        "one metric computed by hand on the five-row example, checked against the library",
    ),
    Session(
        "Do the metrics work?",
        "read the paper's four experiments and their reproduction; judge a metric by its "
        "sanity test, its epsilon response and its correlations",
        ("generated/exp11", "generated/exp12", "generated/exp21", "generated/exp22",
         "generated/selection"),
        "Which metric of the final seven would you drop, and what would the book's results say "
        "against you?",
        "a one-page argument for or against one metric of the final seven, from the exercises' "
        "answers",
    ),
    Session(
        "Beyond the paper, and practice",
        "test whether a metric predicts a real attack; audit a release with a holdout",
        ("generated/attacks", "generated/alc", "generated/own_data"),
        "A metric raises a false alarm where the attack finds nothing: whom do you believe, and "
        "what would change your mind?",
        "the audit report of a release the students made themselves, with a holdout, and its "
        "verdict defended",
    ),
)  # fmt: skip


def chapter_time(book: Path, document: str) -> tuple[int, int]:
    """(minutes, exercises) of one book document: an executed notebook's under
    ``book/generated/`` (its generated text counted), else its source notebook's, else a page's
    words."""
    import nbformat

    name = document.removeprefix("generated/")
    for notebook in (book / f"{document}.ipynb", book.parent / "notebooks" / f"{name}.ipynb"):
        if document.startswith("generated/") and notebook.exists():
            minutes, _, exercises = study_time(nbformat.read(notebook, as_version=4))
            return minutes, exercises
    page = book / f"{document}.md"
    if not page.exists():
        raise FileNotFoundError(f"the teaching plan names {document!r}, which the book lacks")
    return rounded_minutes(len(page.read_text().split())), 0


def sessions_markdown(root: Path) -> str:
    """One table a session: each chapter with its study time and exercises, then the session's
    total, objectives, discussion prompt and deliverable."""
    book = root / "book"
    out = []
    for number, session in enumerate(SESSIONS, start=1):
        times = {doc: chapter_time(book, doc) for doc in session.chapters}
        total = sum(m for m, _ in times.values())
        out += [f"### Session {number}: {session.title} (about {total} minutes of study)", "",
                f"**Objectives:** {session.objectives}.", "",
                "| chapter | study time | exercises to set |", "|---|---|---|"]  # fmt: skip
        out += [f"| {{doc}}`/book/{doc}` | {m} min | {e or '-'} |" for doc, (m, e) in times.items()]
        out += ["", f"**Discussion:** {session.prompt}", "",
                f"**Deliverable:** {session.deliverable}.", ""]  # fmt: skip
    return "\n".join(out)


# the paper edition's answers to every exercise, shipped beside its store so that another
# edition's answer keys show them (recorded by `make reproduce PROFILE=paper`)
ANSWERS = "answers-paper.json"
ANSWER_MIMES = ("text/markdown", "text/html")


def _note(text: str, data: dict | None = None) -> dict:
    """A display output marked as the answer key's own (``data`` instead of ``text``'s Markdown)."""
    import nbformat

    return nbformat.v4.new_output("display_data", data=data or {"text/markdown": text},
                                  metadata={"answer-key": True})  # fmt: skip


def answer_keys(notebook, name: str, edition: str, shipped: dict | None) -> dict[str, list]:
    """Label each exercise's solution with the edition whose results it was computed from and,
    in another edition, show the shipped paper edition's answer beside it (``shipped``:
    notebook -> exercise -> its outputs); returns this notebook's answers (each solution's
    Markdown and HTML outputs) for keeping. Labels from an earlier tagging are replaced. A
    solution that shows nothing (the chapter stopped early on an empty store and ran it empty)
    stays unlabelled: there is no answer to label."""
    answers, number = {}, 0
    for cell in notebook.cells:
        if cell.cell_type != "code" or "solution" not in cell.metadata.get("tags", []):
            continue
        number += 1
        outputs = [
            o for o in cell.get("outputs", []) if not o.get("metadata", {}).get("answer-key")
        ]
        if not outputs:
            cell.outputs = []
            continue
        answers[str(number)] = [
            {mime: o["data"][mime]} for o in outputs for mime in ANSWER_MIMES
            if o.get("output_type") in ("display_data", "execute_result") and mime in o.get("data", {})
        ]  # fmt: skip
        lead = [_note(f"*Answer key of the `{edition}` edition, computed from its results when "
                      "the book was built.*")]  # fmt: skip
        beside = []
        if edition != "paper":
            theirs = (shipped or {}).get(name, {}).get(str(number))
            if theirs:
                beside = [_note("*The paper edition's answer, from the shipped paper store:*")]
                beside += [_note("", data) for data in theirs]
            else:
                beside = [_note("*No paper-edition answer is shipped for this exercise yet (`make "
                                "reproduce PROFILE=paper` records them).*")]  # fmt: skip
        cell.outputs = lead + outputs + beside
    return answers


def keep_answers(path: Path, found: dict[str, dict]) -> bool:
    """Write the paper edition's answers (notebook -> exercise -> outputs) to ``path`` when they
    differ from what it holds (a rebuild that finds the same leaves the file as it was);
    returns whether it wrote."""
    import json

    text = json.dumps(found, indent=1, sort_keys=True) + "\n"
    if path.exists() and path.read_text() == text:
        return False
    path.write_text(text)
    return True


SOLUTION_PROMPTS = {"code_prompt_show": "Solution", "code_prompt_hide": "Hide the solution"}


def tag_for_book(path: Path, edition: str = "quick", shipped: dict | None = None) -> dict:
    """Code hidden behind a toggle (jupyter-book's ``hide-input``), outputs shown; an exercise's
    ``solution`` cell hidden whole (``hide-cell``: code and answer behind one toggle labelled
    "Solution"), its answer labelled with the ``edition`` and shown beside the ``shipped`` paper
    edition's (:func:`~.sessions.answer_keys`, whose answers it returns); the notebook's default
    ``parameters`` cell removed, since papermill's ``injected-parameters`` cell below it holds
    the values actually used (otherwise the book shows two parameter cells)."""
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    add_study_time(notebook)
    answers = answer_keys(notebook, path.stem, edition, shipped)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.setdefault("tags", [])
        if "solution" in tags:
            cell.metadata["mystnb"] = dict(SOLUTION_PROMPTS)
        wanted = (
            "remove-cell"
            if "parameters" in tags
            else "hide-cell"
            if "solution" in tags
            else "hide-input"
        )
        if wanted not in tags:
            tags.append(wanted)
    nbformat.write(notebook, path)
    return answers
