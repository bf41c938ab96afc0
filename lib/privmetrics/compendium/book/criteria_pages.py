"""One book page per anonymisation criterion (singling out, linkability, inference), like the
metric pages (:mod:`privmetrics.compendium.book.metric_pages`): ``make reproduce`` writes them to
``book/generated/criteria/``, and ``_toc.yml`` lists them under the chapter ``book/criteria.md``.

Each page holds the attack's success rule and the risk it gives (Giomi et al. 2023), the plain
reading, the parameters with their defaults as the library has them, and a worked run on a small
Texas sample split in halves (the training rows and the control set), against three releases
whose answer is known: a copy (risk near 1), a noisy copy (in between) and rows of new people
of the same population (risk near 0). The run's rates are the library's own
(:meth:`~privmetrics.attacks.risk.Risk.as_dict`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from privmetrics.attacks.anonymisation import Inference, Linkability
from privmetrics.attacks.singling_out import SinglingOut

ROWS = 400  # training rows of the worked run; the control set and the new people have as many
NOISE = 0.1  # the noisy copy: numbers times 1 + N(0, NOISE), this share of categories redrawn


@dataclass(frozen=True)
class Criterion:
    slug: str
    title: str
    attack: type  # the attack's class (:mod:`privmetrics.attacks.shape`)
    success: str  # LaTeX: when one attack succeeds
    plain: str
    parameters: dict[str, str]  # name -> plain words
    settings: object  # schema -> the worked run's parameters of the attack

    def run(self, real, release, schema, control, seed: int = 0):
        """The worked run's :class:`~privmetrics.attacks.risk.Risk` of ``release``."""
        attack = self.attack(real, release, control, schema, **self.settings(schema))
        return attack.evaluate(seed)


def _halves(schema) -> tuple[list[str], list[str]]:
    key = list(schema.key)
    return key[: len(key) // 2], key[len(key) // 2 :]


COMMON = {
    "control": "real rows the generator never saw (the audit's holdout): the same attack on them "
    "is what the release gives about anyone",
    "targets": "how many targets (or predicates) are attacked",
}

CRITERIA = (
    Criterion(
        "singling-out",
        "Singling out",
        SinglingOut,
        r"\text{success}(p) = \mathbb{1}\big[\,|\{y \in Y : p(y)\}| = 1\,\big],"
        r"\quad |\{z \in Z : p(z)\}| = 1",
        "The attacker writes predicates from the release alone, each true of exactly one release "
        "row (three columns of a random release row: a category equal to the row's, a number on "
        "the rarer side of it), and bets that each is true of exactly one person in the training "
        "data too. The control set's count is rescaled to the training table's size.",
        {
            "mode": "'multivariate' (predicates on n_cols columns) or 'univariate' (one column)",
            "n_cols": "columns per multivariate predicate",
            "max_attempts": "release rows tried for multivariate predicates (default 20 x targets)",
        },
        lambda schema: {"targets": 200},
    ),
    Criterion(
        "linkability",
        "Linkability",
        Linkability,
        r"\text{success}(y) = \mathbb{1}\big[\,\arg\min_{z \in Z} d(y[A], z[A]) "
        r"= \arg\min_{z \in Z} d(y[B], z[B])\,\big]",
        "The attacker holds two tables about the same people that share no column (here the key "
        "attributes split in two halves A and B). The release links a person's two records when "
        "the release row nearest on A is also the one nearest on B. Distances are Gower-like: "
        "numbers by their range, categories 0 or 1.",
        {
            "known": "the two column sets (A, B) the attacker holds",
            "n_neighbours": "nearest release rows on each side; linked when the two sets meet",
        },
        lambda schema: {"known": _halves(schema), "targets": 200},
    ),
    Criterion(
        "inference",
        "Inference",
        Inference,
        r"\text{success}(y) = \mathbb{1}\big[\,z^*[s] \approx y[s]\,\big],"
        r"\quad z^* = \arg\min_{z \in Z} d(y[A_K], z[A_K])",
        "The attacker knows a person's key attributes and guesses a sensitive one as the value "
        "of the release row nearest on them; a number is right within a tolerance relative to "
        "the secret. Targets whose secret is missing are left out.",
        {
            "secret": "the sensitive attribute guessed",
            "known": "the attributes the attacker knows (default: every other column)",
            "tolerance": "a number is guessed right within this share of the secret",
        },
        lambda schema: {"secret": schema.sensitive[0], "known": list(schema.key), "targets": 200},
    ),
)

RISK = (
    r"R = \frac{r_\text{main} - r_\text{control}}{1 - r_\text{control}}, \qquad "
    r"r = \frac{k + z^2/2}{n + z^2}"
)


@cache
def worked_tables(seed: int = 0, rows: int = ROWS):
    """(training rows, control rows, {release name: table}, schema) of the worked run, ``rows``
    rows each."""
    from privmetrics.data.datasets import load_dataset

    frame, schema = load_dataset("texas", n=3 * rows, seed=seed)
    frame = frame.sample(frac=1, random_state=seed).reset_index(drop=True)
    real, control, new = (frame.iloc[k * rows : (k + 1) * rows].reset_index(drop=True)
                          for k in range(3))  # fmt: skip
    rng = np.random.default_rng(seed)
    noisy = real.copy()
    for col in real.columns:
        if col in schema.numerical:
            noisy[col] = real[col] * (1 + rng.normal(0, NOISE, len(real)))
        else:
            redraw = rng.random(len(real)) < NOISE
            noisy.loc[redraw, col] = rng.choice(real[col].to_numpy(), redraw.sum())
    releases = {"a copy": real.copy(), "a noisy copy": noisy, "new people": new}
    return real, control, releases, schema


def worked_run(criterion: Criterion, seed: int = 0) -> pd.DataFrame:
    """The criterion on the worked run's three releases: one row per release, the rates and the
    risk (``value``) with its interval, in the attacks' common columns
    (:meth:`~privmetrics.attacks.risk.Risk.as_dict`)."""
    import warnings

    real, control, releases, schema = worked_tables(seed)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, release in releases.items():
            risk = criterion.run(real, release, schema, control)
            rows.append({"release": name, **risk.as_dict()})
    return pd.DataFrame(rows).set_index("release")


def parameters(criterion: Criterion) -> list[str]:
    """The parameters with their defaults, as the attack's signature has them."""
    lines = []
    described = {**COMMON, **criterion.parameters}
    for name, param in inspect.signature(criterion.attack).parameters.items():
        if name in described:
            default = "" if param.default is inspect.Parameter.empty else f" = `{param.default!r}`"
            lines.append(f"- `{name}`{default}: {described[name]}")
    return lines


def page(criterion: Criterion, number: int) -> str:
    run = worked_run(criterion)
    shown = run[["main rate", "control rate", "baseline rate", "value", "low", "high"]]
    table = "\n".join(
        ["| release | training rows hit | control rows hit | naive baseline | risk | 95% interval |",
         "|---|---|---|---|---|---|"]
        + [f"| {name} | {r['main rate']:.3f} | {r['control rate']:.3f} | {r['baseline rate']:.3f} "
           f"| **{r['value']:.3f}** | [{r['low']:.3f}, {r['high']:.3f}] |"
           for name, r in shown.iterrows()]
    )  # fmt: skip
    order = run["value"]
    ordered = order["a copy"] >= order["a noisy copy"] >= order["new people"]
    verdict = ("It orders the releases copy > noisy copy > new people, as it should."
               if ordered else
               "It does not order the releases copy > noisy copy > new people on this run.")  # fmt: skip
    module = criterion.attack.__module__
    return "\n".join([
        f"# {number}. {criterion.title} (`{module}.{criterion.attack.__name__}`)",
        "",
        "*Giomi et al. (2023) {cite:p}`giomi2023anonymeter`, after the Article 29 Working Party's "
        "criteria {cite:p}`article29wp216`; an attack of the steward's audit when a holdout is "
        "given.*",
        "",
        "## Formula",
        "",
        "One attack on a target $y$ of the training rows $Y$, with the release $Z$:",
        "",
        f"$$\n{criterion.success}\n$$",
        "",
        "Run on $n$ targets of the training rows (main), of the control set and by a naive "
        "attacker without the release (baseline), with $k$ successes each (Wilson centre, "
        "$z$ of a 95% interval):",
        "",
        f"$$\n{RISK}\n$$",
        "",
        "0 = the release tells no more about the people in the training data than about unseen "
        "people; 1 = a copy.",
        "",
        "## In plain words",
        "",
        criterion.plain,
        "",
        "## Parameters",
        "",
        *parameters(criterion),
        "",
        "## A worked run",
        "",
        f"{ROWS} Texas rows train nothing here: they are the *training rows* of three releases "
        f"whose answer is known, and {ROWS} other rows are the control set. The releases: "
        f"a copy; a noisy copy (numbers times 1 + N(0, {NOISE}), a share {NOISE} of each "
        f"category column redrawn); {ROWS} rows of new people from the same file. 200 attacks "
        "each.",
        "",
        table,
        "",
        verdict,
        "",
    ])  # fmt: skip


def write_pages(folder) -> list:
    """Every criterion's page into ``folder`` (numbered, so a glob keeps the order)."""
    from privmetrics.compendium.book.metric_pages import replace_pages

    return replace_pages(folder, ((f"{i:02d}-{c.slug}", page(c, i))
                                  for i, c in enumerate(CRITERIA, start=1)))  # fmt: skip
