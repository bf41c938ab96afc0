"""The three risks by which European practice judges anonymisation (Article 29 Working Party,
Opinion 05/2014), measured on the release with the holdout as control set
(:mod:`privmetrics.attacks.singling_out` and :mod:`privmetrics.attacks.anonymisation`, after
Giomi et al. 2023):

* **singling out**: predicates on three columns written from the release, each matching one
  release row, bet to match exactly one person of the training data (only when the holdout has
  about the real table's size: :data:`~privmetrics.attacks.singling_out.SIZE_RATIO`);

* **linkability**: the key attributes split in two halves, as two tables an attacker might hold
  about the same people; the release links a person's halves when both find the same nearest
  release row;
* **inference**: for each sensitive attribute, an attacker who knows a person's key attributes
  guesses it from the nearest release row.

Each is a risk beyond what the release gives about unseen people (the holdout), with its 95%
interval, and a sentence a steward can read. Without a holdout they are not run: the raw success
of an attack also counts what the population's regularities let anyone infer, and would read as
exposure.
"""

from __future__ import annotations

import pandas as pd

from privmetrics.attacks.anonymisation import Inference, Linkability
from privmetrics.attacks.risk import Risk
from privmetrics.attacks.singling_out import SinglingOut, sizes_comparable
from privmetrics.data.missing import flag_columns
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError

ATTACKS = 500  # targets per attack, as anonymeter's default
NOT_RUN = (
    "singling out, linkability and inference were not measured: they need a holdout (real rows "
    "the generator never saw) to tell what the release exposes from what anyone could infer"
)


def _columns(names: list[str], shown: int = 4) -> str:
    """ "a, b, c, d and 3 more" """
    if len(names) <= shown:
        return ", ".join(names)
    return f"{', '.join(names[:shown])} and {len(names) - shown} more"


def sentence(risk: Risk, known: list[str], secret: str | None = None) -> str:
    """One plain sentence for an attack's result."""
    low, high = risk.interval
    members = f"{risk.main.value:.0%} of the people in the training data"
    unseen = f"{risk.control.value:.0%} of unseen people" if risk.control else "(no control set)"
    if not known:
        what = (f"Predicates written from the release (three columns each) single out "
                f"{members} and {unseen}")  # fmt: skip
    elif secret is None:
        what = (f"Holding {_columns(known[0])} in one table and {_columns(known[1])} in "
                f"another, an attacker links the two through the release for {members} and "
                f"{unseen}")  # fmt: skip
    else:
        what = (f"Knowing {_columns(known)}, an attacker guesses {secret} from the release for "
                f"{members} and {unseen}")  # fmt: skip
    weak = " (no better than guessing without the release)" if risk.weak else ""
    return f"{what}{weak}: risk {risk.value:.2f} [{low:.2f}, {high:.2f}]."


def criteria_panel(
    real: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame | None, schema: Schema,
    seed: int = 0,
) -> tuple[pd.DataFrame, list[str]]:  # fmt: skip
    """(one row per attack with its risk, interval and rates; one sentence per attack); empty,
    with :data:`NOT_RUN`, without a holdout."""
    if holdout is None:
        return pd.DataFrame(), [NOT_RUN]
    # a missing value's flag column takes its column's role in the schema, but the attacks' keys
    # are the attributes the user named: a flag beside them would fill half of a linkability
    # split with yes/no columns the attacker was never said to hold
    key = [c for c in schema.key if c not in flag_columns(schema)]
    rows, lines = [], []
    if not sizes_comparable(len(real), len(holdout)):
        lines.append(
            f"singling out was not measured: it compares counts in the real table "
            f"({len(real):,} rows) and the holdout ({len(holdout):,}), which need about the same "
            "size (rescaling one to the other can read risk for a release of new people)"
        )
    else:
        try:
            risk = SinglingOut(real, synthetic, holdout, schema, targets=ATTACKS,
                               n_cols=min(3, len(real.columns))).evaluate(seed)  # fmt: skip
            rows.append(risk.as_dict())
            lines.append(sentence(risk, []))
        except InvalidInputError as exc:  # no predicate singles out a release row
            lines.append(f"singling out was not measured: {exc}")
    if len(key) >= 2:
        halves = (key[: len(key) // 2], key[len(key) // 2 :])
        risk = Linkability(real, synthetic, holdout, schema, known=halves,
                           targets=ATTACKS).evaluate(seed)  # fmt: skip
        rows.append(risk.as_dict())
        lines.append(sentence(risk, list(halves)))
    else:
        lines.append("linkability was not measured: it needs at least two key attributes")
    for secret in schema.sensitive if key else []:
        if real[secret].isna().all():
            continue
        risk = Inference(real, synthetic, holdout, schema, secret=secret, known=key,
                         targets=ATTACKS).evaluate(seed)  # fmt: skip
        rows.append(risk.as_dict())
        lines.append(sentence(risk, key, secret))
    return pd.DataFrame(rows), lines
