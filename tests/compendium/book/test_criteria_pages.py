"""The criteria's book pages (compendium/book/criteria_pages.py): written from the library's own run."""

import inspect

from privmetrics.compendium.book import criteria_pages as C


def test_each_criterion_gets_a_page_with_its_formula_parameters_and_a_worked_run(tmp_path):
    (tmp_path / "stale.md").write_text("old")
    written = C.write_pages(tmp_path)
    assert [p.name for p in written] == ["01-singling-out.md", "02-linkability.md",
                                         "03-inference.md"]  # fmt: skip
    assert sorted(p.name for p in tmp_path.glob("*.md")) == [p.name for p in written]
    for criterion, path in zip(C.CRITERIA, written, strict=True):
        text = path.read_text()
        assert text.startswith(f"# {written.index(path) + 1}. {criterion.title} (`privmetrics.")
        assert criterion.success in text and C.RISK in text
        # the defaults as the signature has them, not as typed
        default = inspect.signature(criterion.attack).parameters["targets"].default
        assert f"- `targets` = `{default!r}`:" in text
        run = C.worked_run(criterion)
        for name, row in run.iterrows():
            assert (
                f"| {name} | {row['main rate']:.3f} |" in text and f"**{row['value']:.3f}**" in text
            )


def test_the_worked_run_tells_a_copy_from_new_people():
    """The must-fail and the must-pass case of every criterion: a copy reads a risk whose whole
    interval is high; rows of new people from the same file read about none."""
    for criterion in C.CRITERIA:
        run = C.worked_run(criterion)
        assert run.loc["a copy", "low"] > 0.5, (criterion.slug, run)
        assert run.loc["new people", "value"] < 0.2, (criterion.slug, run)
        assert run.loc["a copy", "value"] >= run.loc["a noisy copy", "value"], (criterion.slug, run)
