"""One shape for what every attack reports (issue 40, item 3): a value, its interval and its
baseline, in the value's own units, after anonymeter's evaluators (Giomi et al. 2023), whose
result carries the attack's rate, its error and the naive baseline's.

**Baseline** is what the same measure gives an attacker whom the release tells nothing: 0.5 for a
membership AUC, the false-positive rate for a TPR at a fixed FPR, 0 for an advantage, an ALC, a
risk net of its control set and an audited epsilon, and the reference-only guesser's accuracy for
an attribute attack's accuracy. **The interval** is each attack's own 95% interval (bootstrap over
targets and releases for the games, Wilson for rates, Clopper-Pearson for the empirical epsilon, whose
bound is one-sided: its upper end is the largest epsilon the releases could have shown).

An attack *shows something* (:attr:`Outcome.beyond_baseline`) only when its whole interval lies
above the baseline; a point estimate above it is not enough (0.0003 against 0.0000 is noise).

Every attack's result gives its outcomes the same way, ``outcomes()`` (:class:`.shape.AttackResult`):
:class:`.risk.Risk` (singling out, linkability, inference), :class:`.inference.ALCResult`,
:class:`.membership.RefitResult`, :class:`.whole_release.WholeReleaseResult`,
:class:`.one_run.Played` (the games, through their summary tables and :func:`from_summary`, told
which columns name a row) and :class:`.empirical_epsilon.EpsilonResult`;

and :func:`outcome_table` lays any list of them out as one table, as the book shows them. The
steward's audit reports its three criteria (singling out, linkability, inference) in the same
columns: :meth:`.risk.Risk.as_dict` is the outcome's :meth:`Outcome.row` with the three rates
behind it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

# the chance value of each measure the games summarise (the attribute game's accuracy has its own:
# the guesser's without the release, a row of the same summary)
CHANCE = {"AUC": 0.5, "advantage": 0.0, "TPR at FPR 0.1": 0.1}


@dataclass(frozen=True)
class Outcome:
    """What one attack showed: ``value`` with its 95% interval [``low``, ``high``] and the
    ``baseline`` an uninformed attacker gets on the same measure, from ``n`` targets (or
    attempts, or releases per world)."""

    attack: str
    measure: str
    value: float
    low: float
    high: float
    baseline: float
    n: int

    @property
    def effect(self) -> float:
        """How far the attack got beyond the baseline."""
        return self.value - self.baseline

    @property
    def beyond_baseline(self) -> bool:
        """The whole interval lies above the baseline."""
        return bool(self.low > self.baseline)

    def row(self) -> dict:
        """The outcome as one table row: its fields, its effect and whether it lies beyond its
        baseline (the columns of :func:`outcome_table`, and of the audit's criteria panel)."""
        return {**asdict(self), "effect": self.effect, "beyond baseline": self.beyond_baseline}


def baselines(summary: pd.DataFrame, by: str = "targets") -> pd.Series:
    """The baseline of each row of a game's summary table (one row per ``by`` value, a target
    kind, and measure): from :data:`CHANCE`, or for the attribute game's ``accuracy`` its kind's
    ``baseline accuracy`` row; NaN on that row itself (it is no outcome of its own)."""
    guesser = summary[summary.measure == "baseline accuracy"].groupby(by).value.first()
    chance = summary.measure.map(CHANCE)
    accuracy = summary[by].map(guesser).where(summary.measure == "accuracy")
    return chance.fillna(accuracy).rename("baseline")


def from_summary(summary: pd.DataFrame, attack: str, by: tuple[str, ...]) -> list[Outcome]:
    """The outcomes of a game's summary table (``value``, ``low``, ``high`` and ``n targets`` per
    measure and the ``by`` columns, which name what each row is about: ``("targets",)`` for the
    games' target kinds, ``("config", "kind")`` for the whole-release attack's configurations
    and scorings), each with its :func:`baselines` entry, labelled ``attack`` and its ``by``
    values."""
    missing = [c for c in (*by, "measure", "value", "low", "high", "n targets")
               if c not in summary.columns]  # fmt: skip
    if missing:
        raise ValueError(f"the summary has no column {missing} (by={by})")
    frame = summary.assign(baseline=baselines(summary, by[-1]).to_numpy())
    outcomes = []
    for row in frame[frame.measure != "baseline accuracy"].to_dict("records"):
        label = ", ".join([attack] + [str(row[c]) for c in by])
        outcomes.append(
            Outcome(label, row["measure"], float(row["value"]), float(row["low"]),
                    float(row["high"]), float(row["baseline"]), int(row["n targets"]))
        )  # fmt: skip
    return outcomes


def outcome_table(outcomes: list[Outcome]) -> pd.DataFrame:
    """One row per outcome: its fields, its effect and whether it lies beyond its baseline."""
    return pd.DataFrame([o.row() for o in outcomes])
