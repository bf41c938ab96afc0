"""Every notebook runs end to end through papermill, the way `make reproduce` runs them, on the
`smoke` profile (300-row samples, one-epoch networks, two runs), each notebook its own test so
that the test workers share them. The results store and synthetic-table cache that several
notebooks read are filled once per test session (:func:`smoke_results`), whichever worker comes
first, behind a file lock."""

import os

import nbformat
import pytest
from filelock import FileLock

from privmetrics.compendium.book.bookcheck import text_problems
from privmetrics.compendium.book.reproduce import NOTEBOOKS, run_notebooks
from privmetrics.experiments.profiles import get_profile

SMOKE = get_profile("smoke")


@pytest.fixture(scope="session")
def smoke_results(tmp_path_factory):
    """A folder with ``results/smoke.sqlite`` (the whole smoke grid) and ``cache/``, shared by
    every worker of this session (xdist workers' temporary folders share one parent)."""
    from privmetrics.experiments.games.game_store import GameStore
    from privmetrics.experiments.games.play import run_games
    from privmetrics.experiments.grid.runner import run_grid
    from privmetrics.experiments.grid.store import ResultsStore

    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "smoke-shared"
    shared.mkdir(exist_ok=True)
    with FileLock(str(shared / "lock")):
        if not (shared / "done").exists():
            run_grid(
                SMOKE, store=ResultsStore(shared / "results" / "smoke.sqlite"),
                cache_root=str(shared / "cache"), progress=False,
            )  # fmt: skip
            for game in ("membership", "attribute"):  # as make reproduce plays them
                run_games(SMOKE, store=GameStore(shared / "results" / "smoke.sqlite", game),
                          game=game, progress=False)  # fmt: skip
            (shared / "done").touch()
    return shared


def reads_the_store(name: str) -> bool:
    """Whether the notebook reads the grid's results or the games (and so needs the shared smoke
    store)."""
    from privmetrics.paths import checkout_root

    text = (checkout_root() / "notebooks" / f"{name}.ipynb").read_text()
    return any(f"chapter.{what}(" in text for what in ("results", "games", "store"))


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_executes_and_shows_something(name, request, tmp_path, monkeypatch):
    # only the notebooks that read the grid wait for the shared store; the others run meanwhile
    shared = request.getfixturevalue("smoke_results") if reads_the_store(name) else tmp_path
    monkeypatch.setenv("PRIVMETRICS_RESULTS", str(shared / "results"))
    monkeypatch.setenv("PRIVMETRICS_CACHE", str(shared / "cache"))
    (path,) = run_notebooks(SMOKE, tmp_path / "out", [name])
    notebook = nbformat.read(path, as_version=4)
    outputs = [
        o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])
    ]
    assert not [o for o in outputs if o.output_type == "error"], name
    # issue 63: no stderr on a page (warnings are told in a line of words, chapter.WarningTally)
    stderr = [o.text[:200] for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    assert stderr == [], f"{name}: {len(stderr)} stderr output(s): {stderr[:3]}"
    shown = [o for o in outputs if {"image/png", "text/html"} & set(o.get("data", {}))]
    assert shown, f"{name}: expected at least one figure or table"
    # what the book will show: no NaN table cell, no raw role, no doubled backticks (issue 31)
    rendered = [
        "".join(o["data"][kind])
        for o in outputs
        for kind in ("text/html", "text/markdown")
        if kind in o.get("data", {})
    ]
    problems = {p for text in rendered for p in text_problems(markdown_to_html(text))}
    assert not problems, f"{name}: {sorted(problems)}"
    # every figure numbered and captioned, with an alternative text (plots.captioned)
    bare = [o for o in outputs if "image/png" in o.get("data", {})]
    assert not bare, f"{name}: {len(bare)} figure(s) without a caption (use plots.captioned)"
    for figure in (t for t in rendered if "<img" in t):
        assert "<figcaption><strong>Figure " in figure and 'alt=""' not in figure, name


def course_chapters() -> list[str]:
    """The notebook of each chapter in the book's Background and Experiments parts (_toc.yml):
    the chapter's own file when generated, else its first generated section."""
    from pathlib import Path

    import yaml

    from privmetrics.paths import checkout_root

    toc = yaml.safe_load((checkout_root() / "_toc.yml").read_text())
    names = []
    for part in toc["parts"]:
        if part["caption"].startswith(("Background", "Experiments")):
            for chapter in part["chapters"]:
                files = [
                    chapter["file"],
                    *(s["file"] for s in chapter.get("sections", []) if "file" in s),
                ]
                names.append(next(Path(f).name for f in files if "/generated/" in f))
    return names


def session_chapters(session: int) -> list[str]:
    """The generated chapters the teaching plan (:data:`~privmetrics.compendium.book.sessions.SESSIONS`,
    the teaching page's tables) lists for one session."""
    from privmetrics.compendium.book.sessions import SESSIONS

    chapters = SESSIONS[session - 1].chapters
    return [d.removeprefix("generated/") for d in chapters if d.startswith("generated/")]


COURSE_CHAPTERS = course_chapters()
SESSION_3 = session_chapters(3)


def test_session_3_names_its_chapters():
    assert set(SESSION_3) == {"attacks", "alc", "own_data"}


@pytest.mark.parametrize("name", sorted(set(COURSE_CHAPTERS) | set(SESSION_3)))
def test_background_and_experiment_chapters_end_with_exercises_and_solutions(name):
    from privmetrics.paths import checkout_root

    cells = nbformat.read(checkout_root() / "notebooks" / f"{name}.ipynb", as_version=4).cells
    start = next(i for i, c in enumerate(cells) if c.source.startswith("## Exercises"))
    after = cells[start + 1 :]
    questions = [
        c for c in after if c.cell_type == "markdown" and c.source.startswith("**Exercise")
    ]
    solutions = [c for c in after if "solution" in c.metadata.get("tags", [])]
    assert len(questions) >= 2 and len(solutions) == len(questions)
    assert all(c.cell_type == "code" and c.source.strip() for c in solutions)


def test_unknown_profile_fails_before_running(monkeypatch, capsys):
    from privmetrics import __main__ as cli
    from privmetrics.compendium.book import reproduce

    monkeypatch.setattr(reproduce, "run_notebooks", lambda *a, **k: pytest.fail("ran notebooks"))
    with pytest.raises(SystemExit) as stop:
        cli.main(["book", "--profile", "fast"])
    assert stop.value.code == 2 and "unknown profile 'fast'" in capsys.readouterr().err


def test_the_book_hides_code_and_shows_one_parameter_cell(tmp_path):
    import nbformat

    from privmetrics.compendium.book.sessions import tag_for_book

    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# Title"),
            nbformat.v4.new_code_cell("profile = 'quick'", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell(
                "profile = 'smoke'", metadata={"tags": ["injected-parameters"]}
            ),
            nbformat.v4.new_code_cell("print(profile)"),
            nbformat.v4.new_code_cell("answer = 42", metadata={"tags": ["solution"]}),
        ]
    )
    path = tmp_path / "n.ipynb"
    nbformat.write(notebook, path)
    tag_for_book(path)
    cells = nbformat.read(path, as_version=4).cells
    assert "tags" not in cells[0].metadata
    assert cells[1].metadata.tags == ["study-time"]  # generated under the title
    cells = [cells[0], *cells[2:]]
    assert "remove-cell" in cells[1].metadata.tags
    assert "hide-input" in cells[2].metadata.tags and "remove-cell" not in cells[2].metadata.tags
    assert cells[3].metadata.tags == ["hide-input"]
    assert cells[4].metadata.tags == ["solution", "hide-cell"]


def markdown_to_html(text: str) -> str:
    """Markdown output as the book renders it (HTML outputs pass through): CommonMark, myst-nb's
    reading of a Markdown output, which has no tables (one shows as a paragraph of pipes, which
    the check flags); inline code becomes ``<code>``, so only markup outside code counts."""
    import markdown_it

    return markdown_it.MarkdownIt("commonmark").render(text)


@pytest.mark.slow
def test_a_dataset_parameter_filters_every_table_and_sentence_and_the_store_stays_as_shipped(
    tmp_path, monkeypatch
):
    """Issue 31: exp12 on the shipped paper store with ``-p dataset randhie`` speaks of randhie
    only (tables, figures' data, sentences), computes nothing, and leaves the store's bytes as
    they were (a reviewer's checkout stays clean)."""
    import papermill

    from privmetrics.paths import checkout_root

    monkeypatch.delenv("PRIVMETRICS_RESULTS", raising=False)
    store = checkout_root() / "results" / "paper.sqlite"
    before = store.read_bytes()
    out = tmp_path / "exp12.ipynb"
    papermill.execute_notebook(
        str(checkout_root() / "notebooks" / "exp12.ipynb"), str(out),
        parameters={"profile": "paper", "dataset": "randhie"},
        cwd=str(checkout_root() / "notebooks"), progress_bar=False,
    )  # fmt: skip
    texts = [
        "".join(o.get("text", "")) + "".join("".join(v) for k, v in o.get("data", {}).items()
                                              if k.startswith("text/"))
        for cell in nbformat.read(out, as_version=4).cells
        for o in cell.get("outputs", [])
    ]  # fmt: skip
    assert any("randhie" in t for t in texts)
    assert [t[:200] for t in texts if "texas" in t.lower() or "flchain" in t.lower()] == []
    assert not any("missing from" in t for t in texts)  # the shipped store is complete
    assert store.read_bytes() == before


def test_a_notebook_says_what_is_missing_instead_of_computing_it(tmp_path, monkeypatch, capsys):
    from privmetrics.compendium.book.chapter import shown
    from privmetrics.experiments.grid.runner import load_results

    monkeypatch.setenv("PRIVMETRICS_RESULTS", str(tmp_path / "results"))
    results = load_results(SMOKE, datasets=["texas"], progress=False)
    assert results.empty and capsys.readouterr().out == ""  # the library itself prints nothing
    shown(results)  # what a chapter's set-up does with the table
    said = capsys.readouterr().out
    assert said.strip() == results.attrs["missing"].strip()
    assert "cell(s) of the `smoke` grid are missing from" in said and "-p compute True" in said


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, parameters, said",
    [
        ("exp22", {"min_samples": 3, "xi": 0.1}, "`min_samples` = 3"),
        ("exp11", {"min_effect": 0.0, "dataset": "texas"}, "Profile `paper`"),
        ("exp21", {"bootstrap_reps": 20, "dataset": "texas"}, "have a bootstrap interval"),
    ],
)
def test_analysis_settings_are_notebook_parameters(tmp_path, monkeypatch, name, parameters, said):
    """Issue 31: the settings the text discusses (effect size, OPTICS, bootstrap count) are
    papermill parameters, applied on the shipped paper store."""
    import papermill

    from privmetrics.paths import checkout_root

    monkeypatch.delenv("PRIVMETRICS_RESULTS", raising=False)
    out = tmp_path / f"{name}.ipynb"
    papermill.execute_notebook(
        str(checkout_root() / "notebooks" / f"{name}.ipynb"), str(out),
        parameters={"profile": "paper", **parameters}, cwd=str(checkout_root() / "notebooks"),
        progress_bar=False,
    )  # fmt: skip
    outputs = [o for c in nbformat.read(out, as_version=4).cells for o in c.get("outputs", [])]
    text = " ".join("".join(v) for o in outputs for k, v in o.get("data", {}).items()
                    if k.startswith("text/") and k != "text/html")  # fmt: skip
    assert said in text


def setup_cell(name: str):
    from privmetrics.paths import checkout_root

    cells = nbformat.read(checkout_root() / "notebooks" / f"{name}.ipynb", as_version=4).cells
    return next((c for c in cells if c.cell_type == "code" and "= setup(" in c.source), None)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_chapter_that_reads_the_grid_can_end_at_its_setup(name):
    """Issue 45: on an empty store a chapter ends with the note, so its setup() must know it
    reads the grid and close its cell (end_here skips only the cells after it)."""
    from privmetrics.paths import checkout_root

    text = (checkout_root() / "notebooks" / f"{name}.ipynb").read_text()
    if not any(f"chapter.{what}(" in text for what in ("results", "games")):
        return
    source = setup_cell(name).source.rstrip()
    assert source.splitlines()[-1].endswith("reads_grid=True)"), name


@pytest.mark.slow
def test_on_an_empty_store_a_chapter_ends_with_the_note(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIVMETRICS_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("PRIVMETRICS_CACHE", str(tmp_path / "cache"))
    (path,) = run_notebooks(SMOKE, tmp_path / "out", ["exp11"])
    cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    outputs = [o for c in cells for o in c.get("outputs", [])]
    assert [o.output_type for o in outputs if o.output_type == "error"] == []
    assert "Nothing to show yet" in "".join(outputs[-1]["data"]["text/markdown"])
    after = cells[[i for i, c in enumerate(cells) if "= setup(" in c.source][0] + 1 :]
    assert after and all(not c.get("outputs") for c in after)
