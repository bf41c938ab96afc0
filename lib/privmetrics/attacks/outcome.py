"""One shape for what every attack reports (issue 40, item 3): a value, its interval and its
baseline, in the value's own units, after anonymeter's evaluators (Giomi et al. 2023), whose
result carries the attack's rate, its error and the naive baseline's.

**Baseline** is what the same measure gives an attacker whom the release tells nothing: 0.5 for a
membership AUC, the false-positive rate for a TPR at a fixed FPR, 0 for an advantage, an ALC, a
risk net of its control set and an audited epsilon, and the reference-only guesser's accuracy for
an attribute attack's accuracy. **The interval** is each attack's own 95% interval (bootstrap over
targets and releases for the games, Wilson for rates, Clopper-Pearson for the DP audit, whose
bound is one-sided: its upper end is the largest epsilon the releases could have shown).

An attack *shows something* (:attr:`Outcome.beyond_baseline`) only when its whole interval lies
above the baseline; a point estimate above it is not enough (0.0003 against 0.0000 is noise).

Every result type of this package gives its outcomes the same way:

* the games' summary tables (:func:`.membership_game.summarise`,
  :func:`.attribute_game.summarise_attribute`, :func:`.whole_release.summarise_release`) through
  :func:`from_summary`;
* :class:`.risk.Risk` (singling out, linkability, inference), :class:`.inference.ALCResult` and
  :class:`.dp_audit.AuditResult` through their ``outcome()`` method;

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


def baselines(summary: pd.DataFrame) -> pd.Series:
    """The baseline of each row of a game's summary table (one row per target kind and measure):
    from :data:`CHANCE`, or for the attribute game's ``accuracy`` its kind's ``baseline
    accuracy`` row; NaN on that row itself (it is no outcome of its own)."""
    kind = "targets" if "targets" in summary.columns else "kind"
    guesser = summary[summary.measure == "baseline accuracy"].groupby(kind).value.first()
    chance = summary.measure.map(CHANCE)
    accuracy = summary[kind].map(guesser).where(summary.measure == "accuracy")
    return chance.fillna(accuracy).rename("baseline")


def from_summary(summary: pd.DataFrame, attack: str) -> list[Outcome]:
    """The outcomes of a game's summary table (``value``, ``low``, ``high`` and ``n targets`` per
    target kind and measure), each with its :func:`baselines` entry."""
    kind = "targets" if "targets" in summary.columns else "kind"
    frame = summary.assign(baseline=baselines(summary).to_numpy())
    outcomes = []
    for row in frame[frame.measure != "baseline accuracy"].to_dict("records"):
        label = ", ".join(
            [attack] + ([str(row["config"])] if "config" in row else []) + [str(row[kind])]
        )
        outcomes.append(
            Outcome(label, row["measure"], float(row["value"]), float(row["low"]),
                    float(row["high"]), float(row["baseline"]), int(row["n targets"]))
        )  # fmt: skip
    return outcomes


def outcome_table(outcomes: list[Outcome]) -> pd.DataFrame:
    """One row per outcome: its fields, its effect and whether it lies beyond its baseline."""
    return pd.DataFrame([o.row() for o in outcomes])
