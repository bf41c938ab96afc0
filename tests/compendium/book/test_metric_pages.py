"""The per-metric pages (issue 31): every metric has a typeset formula and its parameters in plain
words, and the intermediate quantities a page shows give the metric's own score."""

import numpy as np
import pytest

from privmetrics.compendium.book import metric_pages as M
from privmetrics.compendium.book.bookcheck import text_problems
from privmetrics.compendium.book.examples import five_row_example
from privmetrics.geometry.pair import Pair
from privmetrics.metrics import REGISTRY


def test_every_metric_has_a_formula_and_every_parameter_plain_words():
    entries = M.formulas()
    assert set(entries) == set(REGISTRY)
    for name, spec in REGISTRY.items():
        assert entries[name]["formula"].strip(), name
        described = entries[name].get("parameters") or {}
        assert set(described) == set(spec.params), name


@pytest.fixture(scope="module")
def noisy_pair():
    real, candidates, schema = five_row_example()
    return lambda: Pair(real, candidates["Noisy"], schema)


@pytest.mark.parametrize("name", ["CZeroCAP", "CGeneralizedCAP"])
def test_the_cap_classes_shown_give_the_score(name, noisy_pair):
    pair = noisy_pair()
    rows = M.cap_rows(pair, M.CAP[name])
    assert rows["p(y)"].mean() == pytest.approx(REGISTRY[name](noisy_pair()))
    assert (rows["with y's sensitive value"] <= rows["size of T_y"]).all()


def test_the_traced_distances_give_dcr_authenticity_and_identifiability(noisy_pair):
    pair = noisy_pair()
    score = REGISTRY["DCR"](pair)
    ((distances, _),) = [v for k, v in pair._knn.items() if k == ("real", "synthetic", "famd")]
    mean = distances[:, 0].mean()
    assert score == pytest.approx(1 / (1 + mean ** (1 / np.log(10))))
    pair = noisy_pair()
    score = REGISTRY["Authenticity"](pair)
    to_real = pair._knn[("real", "real", "mixed")][0][:, 0]
    to_synthetic = pair._knn[("real", "synthetic", "mixed")][0][:, 0]
    assert score == pytest.approx(1 - np.mean(to_real < to_synthetic))


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_page_renders_clean_with_a_formula_and_a_worked_score(name):
    text = M.page(name, 1)
    assert text.count("$$") == 2 and "## A worked calculation on five rows" in text
    assert "**Score on the noisy copy:" in text
    assert not text_problems(text), name
    if REGISTRY[name].params:
        assert all(f"`{p}`" in text for p in REGISTRY[name].params)


def test_pages_are_written_in_registry_order(tmp_path):
    (tmp_path / "stale.md").write_text("old")
    written = M.write_pages(tmp_path)
    assert [p.name for p in sorted(tmp_path.glob("*.md"))] == [p.name for p in written]
    assert written[0].name == f"01-{next(iter(REGISTRY))}.md" and len(written) == len(REGISTRY)


@pytest.mark.parametrize("name", ["NNAA", "DCR"])
def test_a_worked_calculation_ends_with_the_arithmetic_that_gives_the_score(name):
    """Issue 45: the NNAA and DCR examples stopped before the final arithmetic."""
    import re

    from privmetrics.compendium.book.examples import five_row_example
    from privmetrics.compendium.book.metric_pages import FINAL_STEP
    from privmetrics.geometry.pair import Pair
    from privmetrics.metrics import REGISTRY

    real, candidates, schema = five_row_example()
    pair = Pair(real, candidates["Noisy"], schema)
    shown = float(re.findall(r"\*\*(\d\.\d{3})\*\*", FINAL_STEP[name](pair))[-1])
    assert shown == pytest.approx(REGISTRY[name](pair), abs=5e-4)


def test_the_lesson_names_what_a_metric_cannot_tell_apart():
    from privmetrics.compendium.book.metric_pages import lesson

    assert lesson({"Real": 1.0, "Noisy": 0.8, "Unrelated": 0.8}) == (
        "It cannot tell the noisy table from the unrelated one here: both score 0.800."
    )
    assert "above the copy" in lesson({"Real": 0.5, "Noisy": 0.9, "Unrelated": 0.1})
    assert lesson({"Real": 1.0, "Noisy": 0.6, "Unrelated": 0.2}).endswith("as it should.")


def test_each_pages_exercise_has_its_answer_computed_and_only_in_the_full_edition():
    """Issue 63, item 5: one hand calculation per metric page, its answer the metric's own."""
    import re

    from privmetrics.compendium.book.examples import five_row_example
    from privmetrics.compendium.book.metric_pages import exercise
    from privmetrics.compendium.book.reproduce import for_students
    from privmetrics.geometry.pair import Pair
    from privmetrics.metrics import REGISTRY

    real, candidates, schema = five_row_example()
    leaked = candidates["Noisy"].copy()
    leaked.iloc[0] = real.iloc[0]
    for name in ("DCR", "CommonRowsProportion"):
        text = exercise(name)
        before, after = map(
            float, re.search(r": ([\d.]+) on the noisy copy, ([\d.]+) with", text).groups()
        )
        assert before == pytest.approx(
            REGISTRY[name](Pair(real, candidates["Noisy"], schema)), abs=5e-4
        )
        assert after == pytest.approx(REGISTRY[name](Pair(real, leaked, schema)), abs=5e-4)
        student = for_students(text)
        assert (
            "**Exercise.**" in student and "Answer" not in student and "noisy copy," not in student
        )
    # a leaked record is a copied row: CommonRowsProportion must rise
    assert "The score rises" in exercise("CommonRowsProportion")


def test_how_a_metric_fared_is_its_class_on_the_paper_store_beside_the_papers():
    from privmetrics.compendium.book.metric_pages import fared_here
    from privmetrics.experiments.grid.runner import load_results
    from privmetrics.experiments.paper import analysis
    from privmetrics.experiments.paper.published import paper_classes
    from privmetrics.experiments.profiles import get_profile

    boxes = fared_here()
    summary = analysis.summarise(load_results(get_profile("paper"), progress=False))
    t7 = analysis.table7(summary)
    assert (
        f"*{t7['DCR']}* on the paper store; the paper's Table 7: *{paper_classes('table7')['DCR']}*"
        in boxes["DCR"]
    )
    assert "not one of the paper's 21" in boxes["ALC"] and "attacks chapter" in boxes["ALC"]
    # Experiment 3: its verdict per dataset and kind of target, as the kept verdicts say
    from privmetrics.experiments.games.game_findings import verdict_lines
    from privmetrics.experiments.games.kept_tables import kept_verdicts

    line = verdict_lines(kept_verdicts(get_profile("paper")))["DCR"]
    assert f"membership games on the paper store: {line}." in boxes["DCR"]
    assert "texas: random targets *" in line and "vulnerable targets *" in line
