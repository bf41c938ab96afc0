"""One book page per registered metric, generated from the registry (``make reproduce`` writes
them to ``book/generated/metric/``; ``_toc.yml`` lists them under the catalogue chapter).

Each page holds: the algorithm number and category, the formula typeset for MathJax
(``resources/catalogue/formulas.yml``), the plain reading (``readings.yml``), the direction with
the scores of a copy and of an unrelated table, the parameters in plain words, a worked
calculation on the five-row example (:func:`privmetrics.compendium.book.examples.five_row_example`)
that shows the metric's own intermediate quantities, an exercise on it with its computed answer
(full edition), how the metric fared on the shipped paper store (:func:`fared_here`), its errata
and its definition variants, and the docstring as implementation notes.

The intermediate quantities are the metric's own, not a re-derivation: every nearest-neighbour
search that the metric runs on the :class:`~privmetrics.geometry.pair.Pair` is cached there, and
the page prints those caches (which row is nearest to which, and at what distance, in which
space). The CAP metrics show their key classes from the same key codes the metric uses, and the
column-wise tests their frequencies; ``tests/compendium/book/test_metric_pages.py`` checks that the per-row
quantities shown give the metric's score.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

import numpy as np
import pandas as pd
import yaml

from privmetrics.compendium.book.examples import five_row_example
from privmetrics.geometry.pair import Pair
from privmetrics.metrics import REGISTRY, VARIANTS
from privmetrics.metrics.distributions import _frequencies
from privmetrics.metrics.reconstruction import _key_and_secret_codes
from privmetrics.prose import markdown, setting, settings

SPACES = {
    "mixed": "the shared mixed space (one-hot categories, numbers scaled by their real range)",
    "entropy": "the mixed space with every column weighted by 1 / its entropy",
    "famd": "the 2-D FAMD projection fitted on the real table",
    "keys": "the mixed space of the key attributes only",
}
COLUMN_WISE = ("ChiSquaredTest", "InvKullbackLieb", "JensenShannonDist", "KSTest")
CAP = {"CZeroCAP": "exact", "CGeneralizedCAP": "most"}


@cache
def formulas() -> dict:
    """``formulas.yml``: per metric, ``formula`` (LaTeX) and ``parameters`` (name -> plain words)."""
    path = files("privmetrics.resources").joinpath("catalogue/formulas.yml")
    return yaml.safe_load(path.read_text())


@cache
def errata() -> dict:
    path = files("privmetrics.resources").joinpath("paper/errata.yml")
    return yaml.safe_load(path.read_text())


def md_table(frame: pd.DataFrame, index: bool = True, digits: str = ".3f") -> str:
    """A DataFrame as a Markdown table (floats formatted by ``digits``; no extra dependency)."""
    frame = frame.reset_index() if index else frame
    cells = frame.map(lambda v: format(v, digits) if isinstance(v, float | np.floating) else str(v))
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = ["| " + " | ".join(row) + " |" for row in cells.to_numpy().tolist()]
    return "\n".join([head, rule, *rows])


def cap_rows(pair: Pair, rule: str, n_bins: int | None = 10) -> pd.DataFrame:
    """Per real row, the CAP quantities (Algorithms 2 and 3): the synthetic rows in its class T_y
    (equal on the whole key, ``rule="exact"``, or on the most key attributes, ``"most"``), how
    many of them carry its sensitive value, and p(y); from the metric's own key codes."""
    key_r, key_s, sec_r, sec_s = _key_and_secret_codes(pair, n_bins)
    agree = (key_r[:, None, :] == key_s[None, :, :]).sum(2)  # matching key attributes
    if rule == "exact":
        in_class = agree == key_r.shape[1]
    else:
        in_class = agree == agree.max(1, keepdims=True)
    right = in_class & (sec_r[:, None] == sec_s[None, :])
    size = in_class.sum(1)
    return pd.DataFrame({
        "class T_y (synthetic rows)": [", ".join(map(str, np.flatnonzero(c))) or "none" for c in in_class],
        "size of T_y": size,
        "with y's sensitive value": right.sum(1),
        "p(y)": np.where(size > 0, right.sum(1) / np.maximum(size, 1), 0.0),
    })  # fmt: skip


def neighbour_tables(pair: Pair) -> list[str]:
    """Every nearest-neighbour search the metric ran on ``pair``, as a sentence and a table."""
    out = []
    for (query, index, space), (distances, positions) in pair._knn.items():
        k = distances.shape[1]
        frame = pd.DataFrame({"row": np.arange(len(distances))})
        for j, nth in enumerate(["nearest", "2nd nearest"][:k]):
            frame[f"{nth} {index} row"] = positions[:, j]
            frame[f"distance to the {nth}"] = distances[:, j]
        other = " other" if query == index else ""
        out.append(
            f"From each {query} row to its nearest{other} {index} row"
            + (" (and the next)" if k > 1 else "")
            + f", in {SPACES.get(space, space)}:\n\n"
            + md_table(frame, index=False)
        )
    return out


def frequency_tables(pair: Pair, n_bins: int = 10) -> list[str]:
    """Per column, the real and synthetic frequencies that the column-wise tests compare (the
    metrics' own :func:`~privmetrics.metrics.distributions._frequencies`)."""
    rows = [
        {"column": col, "bins": len(f_y), "f_Y": " ".join(f"{v:.1f}" for v in f_y),
         "f_Z": " ".join(f"{v:.1f}" for v in f_z)}
        for col, (f_y, f_z) in zip(pair.schema.names, _frequencies(pair, n_bins), strict=True)
    ]  # fmt: skip
    return [
        "The frequencies each column is compared on (numbers in equal-width bins over the real "
        "range, empty bins included):\n\n" + md_table(pd.DataFrame(rows), index=False)
    ]


def _nnaa_arithmetic(pair: Pair) -> str:
    y_to_z, y_to_y = (
        pair.nearest_distance("real", "synthetic"),
        pair.nearest_distance("real", "real"),
    )
    z_to_y = pair.nearest_distance("synthetic", "real")
    z_to_z = pair.nearest_distance("synthetic", "synthetic")
    first, second = int((y_to_z > y_to_y).sum()), int((z_to_y > z_to_z).sum())
    aa = 0.5 * (first / len(y_to_z) + second / len(z_to_y))
    return (
        f"A real row is *told apart* when its nearest synthetic row is farther than its nearest "
        f"other real row: {first} of {len(y_to_z)}; a synthetic row when its nearest real row is "
        f"farther than its nearest other synthetic row: {second} of {len(z_to_y)}. "
        f"AA = ({first}/{len(y_to_z)} + {second}/{len(z_to_y)}) / 2 = {aa:.3f}, and the score is "
        f"1 - AA = **{1 - aa:.3f}**."
    )


def _dcr_arithmetic(pair: Pair) -> str:
    d = pair.nearest_distance("real", "synthetic", "famd")
    avg = float(d.mean())
    if avg == 0:
        return "Every real row has a synthetic row at distance 0: the mean is 0 and the score 1."
    log = float(np.log10(avg))
    return (
        f"The mean of the distances from each real row to its nearest synthetic row (in the FAMD "
        f"projection) is a = ({' + '.join(f'{v:.3f}' for v in d)}) / {len(d)} = {avg:.3f}; "
        f"log10 a = {log:.3f}, sigmoid({log:.3f}) = {1 / (1 + np.exp(-log)):.3f}, and the score is "
        f"1 - {1 / (1 + np.exp(-log)):.3f} = **{1 - 1 / (1 + np.exp(-log)):.3f}**."
    )


# the final arithmetic of a worked calculation, where the tables above stop short of the score
FINAL_STEP = {"NNAA": _nnaa_arithmetic, "DCR": _dcr_arithmetic}


def lesson(scores: dict[str, float]) -> str:
    """What the three candidates' scores teach, computed: a metric that gives two different
    tables the same score cannot tell them apart here, and one that does not rank Real highest
    misses the copy."""
    said = []
    labels = list(scores)
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            if abs(scores[a] - scores[b]) < 1e-9:
                said.append(
                    f"It cannot tell the {a.lower()} table from the {b.lower()} one here: both "
                    f"score {scores[a]:.3f}."
                )
    if "Real" in scores and max(scores.values()) > scores["Real"] + 1e-9:
        said.append("It scores another table above the copy itself.")
    if not said:
        ranked = sorted(scores, key=scores.get, reverse=True)
        said.append(f"It orders the tables {' > '.join(t.lower() for t in ranked)}, as it should.")
    return " ".join(said)


def worked(name: str) -> str:
    """The worked calculation of ``name`` on the five-row example's Real and Noisy tables."""
    spec = REGISTRY[name]
    real, candidates, schema = five_row_example()
    synthetic = candidates["Noisy"]
    pair = Pair(real, synthetic, schema)
    score = spec(pair)
    parts = [
        "The real table $Y$ (key attributes: "
        + ", ".join(schema.key)
        + "; sensitive: "
        + ", ".join(schema.sensitive)
        + "):\n\n"
        + md_table(real.rename_axis("row"), digits="g"),
        "The synthetic table $Z$, a noisy copy:\n\n"
        + md_table(synthetic.rename_axis("row"), digits="g"),
    ]
    if name in CAP:
        table = cap_rows(pair, CAP[name], spec.params.get("n_bins", 10))
        parts.append(
            "Numbers of the key are cut into quantile bins of the real table first; then, per "
            "real row y:\n\n"
            + md_table(table.rename_axis("real row"))
            + f"\n\nThe score is the mean of p(y): {table['p(y)'].mean():.3f}."
        )
    elif name in COLUMN_WISE:
        parts += frequency_tables(pair, spec.params.get("n_bins", 10))
    parts += neighbour_tables(pair)
    if len(parts) == 2:
        parts.append(
            "This metric's intermediate steps (a fitted model, a search over candidate rows or "
            "a baseline) are not traced here; the formula above and the notes below give them."
        )
    if name in FINAL_STEP:
        parts.append(FINAL_STEP[name](pair))
    others = {label: spec(Pair(real, table, schema)) for label, table in candidates.items()}
    parts.append(
        f"**Score on the noisy copy: {score:.3f}.** For comparison, the same real table against "
        + ", ".join(f"{label.lower()} {value:.3f}" for label, value in others.items())
        + " (the five-row example's three candidates). "
        + lesson(others)
    )
    return "\n\n".join(parts)


def _errata_for(name: str) -> list[str]:
    out = []
    for key, entry in errata().items():
        where = [w.strip() for w in str(entry.get("where", "")).split(",")]
        if name in where:
            out.append(
                f"- **{key}.** The paper: {entry['paper']} Ours: {entry['ours']} Why: {entry['why']}"
            )
    return out


def typeset(formula: str) -> str:
    """A formula of ``formulas.yml`` for display: each of its lines centred on a line of its own
    (``gathered``), so that no formula runs past the page's width."""
    lines = [line.strip() for line in formula.strip().splitlines() if line.strip()]
    if len(lines) == 1:
        return lines[0]
    return "\\begin{gathered}\n" + " \\\\\n".join(lines) + "\n\\end{gathered}"


def page(name: str, position: int, fared: dict[str, str] | None = None) -> str:
    """The page of metric ``name`` (module doc); ``position`` numbers it in the catalogue;
    ``fared``: each metric's "How it fared here" box (:func:`fared_here`)."""
    spec = REGISTRY[name]
    entry = formulas()[name]
    origin = (f"Algorithm {spec.algorithm} of the paper" if spec.paper
              else f"not one of the paper's 21 ({spec.source})")  # fmt: skip
    lines = [
        f"# {position}. {spec.title} (`{name}`)",
        "",
        f"*{origin}; {spec.category}, {spec.kind}"
        + ("; one of the paper's final seven" if spec.final else "")
        + (f"; needs {', '.join(spec.needs)} attributes" if spec.needs else "")
        + f"; source: {spec.source}.*",
        "",
        "## Formula",
        "",
        "$$",
        typeset(entry["formula"]),
        "$$",
        "",
        "Every score points the same way: 0 = private, 1 = no privacy (a copy of the data scores "
        "near 1)."
        + (
            f" How this metric is turned to that direction: {spec.orientation}."
            if spec.orientation
            else ""
        ),
        "",
        "## In plain words",
        "",
        spec.reading,
        "",
        "## Parameters",
        "",
    ]
    described = entry.get("parameters") or {}
    lines += [f"- `{p}` = `{setting(v)}`: {described[p]}" for p, v in spec.params.items()] or [
        "None."
    ]
    lines += ["", "## A worked calculation on five rows", "", worked(name), ""]
    lines += ["## Exercise", "", exercise(name), ""]
    lines += ["## How it fared here", "", (fared or {}).get(name, NOT_FARED), ""]
    found = _errata_for(name)
    lines += [
        "## Errata resolved",
        "",
        *(found or ["None specific to this metric (the general ones are on the errata page)."]),
        "",
    ]
    variants = [v for v in VARIANTS.values() if v.base == name]
    lines += ["## Definition variants", ""]
    lines += [f"- `{v.name}` ({settings({k: val for k, val in v.params.items() if spec.params.get(k) != val})}): {v.note}"
              for v in variants] or ["None registered."]  # fmt: skip
    lines += ["", "## Implementation notes", "", markdown(spec.doc), ""]
    return "\n".join(lines)


def page_name(name: str) -> str:
    """The file stem of ``name``'s page: its registry position and its name."""
    return f"{list(REGISTRY).index(name) + 1:02d}-{name}"


def plain_parameters(params: dict) -> str:
    """``{"threshold": 0.2, "normalise": True}`` as ``threshold 0.2, normalise yes``."""

    def plain(value) -> str:
        if isinstance(value, bool) or value is None:
            return {True: "yes", False: "no", None: "none"}[value]
        return format(value, ".3g") if isinstance(value, float) else str(value)

    return ", ".join(f"{k} {plain(v)}" for k, v in params.items()) or "-"


def catalogue_table(link_prefix: str = "metric/") -> str:
    """The catalogue as a narrow Markdown table: each metric linked to its page, its algorithm
    number (or "-"), category, type, extra inputs, parameters in plain words, and the final seven."""
    rows = [
        {"metric": f"[{name}]({link_prefix}{page_name(name)}.html)",
         "algorithm": str(spec.algorithm) if spec.algorithm else "-",
         "category": str(spec.category), "type": spec.kind,
         "needs": ", ".join(spec.needs) or "-",
         "parameters": plain_parameters(spec.params),
         "final seven": "yes" if spec.final else ""}
        for name, spec in REGISTRY.items()
    ]  # fmt: skip
    return md_table(pd.DataFrame(rows), index=False)


def catalogue_html(link_prefix: str = "metric/") -> str:
    """:func:`catalogue_table` as an HTML table with its caption, for a notebook's output: myst-nb
    reads a Markdown output as CommonMark, which has no tables."""
    from markdown_it import MarkdownIt

    from privmetrics.compendium.book.plots import with_caption

    html = MarkdownIt("commonmark").enable("table").render(catalogue_table(link_prefix))
    return with_caption(html, "Every metric of the library: its algorithm, attack category, "
                        "type, inputs and parameters; each name links to its page.")  # fmt: skip


def replace_pages(folder, pages) -> list:
    """Write ``pages`` ((file stem, Markdown) pairs) into ``folder`` as its only ``.md`` files, so
    that a ``_toc.yml`` glob over it keeps no page of an earlier build; the paths written."""
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.md"):
        old.unlink()
    written = []
    for stem, text in pages:
        path = folder / f"{stem}.md"
        path.write_text(text)
        written.append(path)
    return written


def write_pages(folder, keep: bool = False) -> list:
    """Every metric's page into ``folder`` (numbered in registry order, so a glob keeps it), each
    with how it fared on the shipped paper store."""
    boxes = fared_here(keep)
    # the position, as page_name numbers it
    return replace_pages(folder, ((page_name(name), page(name, i, boxes))
                                  for i, name in enumerate(REGISTRY, start=1)))  # fmt: skip


def exercise(name: str) -> str:
    """One hand calculation on the worked example: the noisy table's first row replaced by a copy
    of the real table's first row; the answer computed by the metric itself (full edition)."""
    spec = REGISTRY[name]
    real, candidates, schema = five_row_example()
    noisy = candidates["Noisy"]
    leaked = noisy.copy()
    leaked.iloc[0] = real.iloc[0]
    before, after = spec(Pair(real, noisy, schema)), spec(Pair(real, leaked, schema))
    moved = (
        "rises" if after > before + 1e-9 else "falls" if after < before - 1e-9 else "does not move"
    )
    return (
        "**Exercise.** In the worked calculation above, replace row 0 of the synthetic table $Z$ "
        "with an exact copy of row 0 of the real table $Y$ (one leaked record). Predict whether "
        "the score rises, and recompute it with the steps above.\n\n"
        "<!-- full edition -->\n"
        ":::{dropdown} Answer\n"
        f"The score {moved}: {before:.3f} on the noisy copy, {after:.3f} with row 0 leaked "
        f"(computed by `{name}` itself on the two tables).\n"
        ":::\n"
        "<!-- end full edition -->"
    )


NOT_FARED = "*(Computed from the shipped paper store when the book is built.)*"


def fared_here(keep: bool = False) -> dict[str, str]:
    """Per metric, how it fared on the shipped paper store: its class in Experiments 1.1 and 1.2
    by our rules (:func:`privmetrics.experiments.paper.analysis.table7`, ``table8``) beside the
    paper's Tables 7 and 8, its Experiment 3 verdicts (:func:`~privmetrics.experiments.games.
    kept_tables.kept_verdicts`, kept when ``keep``) and what it reads of known leaks. Empty when
    the store is absent."""
    from privmetrics.experiments.games.game_findings import verdict_lines
    from privmetrics.experiments.games.kept_tables import kept_verdicts
    from privmetrics.experiments.games.sensitivity import leak_lines, sensitivity, stored_readings
    from privmetrics.experiments.grid.runner import load_results, results_path
    from privmetrics.experiments.paper import analysis
    from privmetrics.experiments.paper.published import paper_classes
    from privmetrics.experiments.profiles import get_profile

    profile = get_profile("paper")
    if not results_path(profile).exists():
        return {}
    summary = analysis.summarise(load_results(profile, progress=False))
    leaks = leak_lines(sensitivity(stored_readings(results_path(profile), profile)))
    attacked = verdict_lines(kept_verdicts(profile, keep=keep))
    ours = {"Table 7": analysis.table7(summary), "Table 8": analysis.table8(summary)}
    theirs = {"Table 7": paper_classes("table7"), "Table 8": paper_classes("table8")}
    what = {"Table 7": "Experiment 1.1 (does it order the techniques?)",
            "Table 8": "Experiment 1.2 (does it rise with epsilon?)"}  # fmt: skip
    out = {}
    for name in REGISTRY:
        lines = []
        for table, classes in ours.items():
            if name not in classes.index:
                continue
            paper = theirs[table].get(name)
            beside = (f"the paper's {table}: *{paper}*" + (", the same" if paper == classes[name]
                      else "") if paper else "not one of the paper's 21")  # fmt: skip
            lines.append(f"- {what[table]}: *{classes[name]}* on the paper store; {beside}.")
        if name in attacked:
            lines.append(f"- Experiment 3 (does it predict a real attack?), membership games on the "
                         f"paper store: {attacked[name]}.")  # fmt: skip
        if name in leaks:
            lines.append(leaks[name])
        out[name] = "\n".join(lines) if lines else NOT_FARED
    return out
