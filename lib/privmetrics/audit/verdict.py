"""The audit's verdict first: a headline (the strongest risk found, which metrics found it, how
sure), one line per attack category, and the exit rule for pipelines (``--fail-on``).

A metric enters the verdict only when it is *informative* here: its lower end (Random, or the
holdout) and Real score at least :data:`~privmetrics.metrics.registry.MIN_SPAN` apart on this data,
so that a position can be computed. Positions are read by thirds
(:data:`~privmetrics.audit.positions.POSITION_BANDS`) and a band counts only when the whole
position interval lies in it, so an effect of a few per cent never makes a "near Real".

* **high risk**: attack measures place the release near Real (their interval entirely in the top
  third), one against a holdout, or against Random at least :data:`HIGH_WITHOUT_HOLDOUT` of them
  with at least :data:`COPY_EXCESS` of the real rows copied exactly beyond the twins' baseline
  (``copies``), or with the real rows nearer to the release than to one another well beyond
  chance (``nearer``, :data:`NEARER_EXCESS`: a jittered copy): the release behaves like a copy
  for those attacks. Against Random alone, new
  people of the same population reach near Real on distance measures too (Random is noise), so
  the positions alone are "some risk" with the advice to audit with a holdout. A measure of resemblance (a detector or a
  distribution test, ``MetricSpec.resemblance``) says how closely the release resembles the data
  as a whole, not whether anyone is exposed: near Real it adds a fidelity remark, never a risk.
  Against Random, one attack measure alone near Real is "some risk" with the advice to audit
  with a holdout: Random is noise, and a release of fresh rows of the same population reads near
  Real on some measures against it;
* **some risk**: not high, and at least one attack measure between the ends (its interval above
  the bottom third) or one alone near Real without a holdout;
* **low risk**: every informative metric places the release near the lower end. With Random as
  that end, the headline adds that this means "nearer to noise than to a copy", not "safe";
* **cannot tell**: no metric was informative (or baselines were not computed).

With a holdout, singling out, linkability and inference (:mod:`.criteria`) are attack measures of
the verdict too (:func:`criteria_rows`): a risk of 0 is what the release gives about unseen people
and 1 what a copy gives, the scale of a position from the holdout to Real, so a risk is read as
that position with its interval. An attack no better than its naive baseline (``weak``) says
nothing and is left out as uninformative.

How sure: how many informative metrics agree on the band, out of how many were informative.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privmetrics.audit.positions import band_words, whole_percent

LEVELS = ("high risk", "some risk", "low risk", "cannot tell")
# attack measures near Real that make a high risk when the lower end is Random (with a holdout, one)
HIGH_WITHOUT_HOLDOUT = 2
# Against Random, a release of new people of the same population places distance measures near
# Real too (MDCR and MemInf on two numeric tables at 88-92% and 76-91%), so without a holdout a
# high risk also needs this share of real rows copied exactly beyond the twins' baseline
COPY_EXCESS = 0.05
# or, for a release that holds no exact copy (a jittered one), real rows nearer to it than to one
# another beyond chance (the lower end of the share's interval): a fifth of the real rows more
# than new people of the same population are (half of them at equal sizes) is no accident
NEARER_EXCESS = 0.2
NEAR_REAL, BETWEEN = 2 / 3, 1 / 3  # the bands' lower edges, as POSITION_BANDS
TOLERANCE = 1e-9  # a position of exactly 2/3 computes as 0.6666666666666666
# where the headline places the release against a holdout, in a steward's words
HOLDOUT_WORDS = {
    "high risk": "as close to its members as a copy",
    "some risk": "closer to its members than to unseen people (the holdout)",
    "low risk": "no closer to its members than to unseen people (the holdout)",
}


# what a steward does next, by level and by whether the lower end was a holdout (True)
NEXT_STEPS = {
    ("high risk", True): "Do not publish this release: it gives its members away. Train again "
    "with stronger privacy (a smaller epsilon, fewer epochs, or a differentially private "
    "synthesiser) and audit the new release.",
    ("high risk", False): "Do not publish this release: it copies or nearly copies real rows. "
    "Train again with stronger privacy (a smaller epsilon, fewer epochs, or a differentially "
    "private synthesiser) and audit the new release, with a holdout.",
    ("some risk", True): "Do not publish it as it is: it tells more about its members than about "
    "unseen people. Train again with stronger privacy and audit again with the same holdout.",
    ("some risk", False): "Audit with a holdout first (real rows the generator never saw: "
    "--holdout, or --holdout-split before training); publish only if it then reads low risk.",
    ("low risk", True): "Publish, if its utility serves its users (see the utility panel); keep "
    "this report with the release.",
    ("low risk", False): "Audit with a holdout before publishing: near Random is nearer to "
    "noise than to a copy, which is not the same as safe for new people.",
    ("cannot tell", True): "Do not publish on this audit: nothing here separates the release's "
    "references; check the schema's key and sensitive attributes and audit again.",
    ("cannot tell", False): "Do not publish on this audit: audit with a holdout (--holdout, or "
    "--holdout-split before training) and with the baselines.",
}


def next_step(level: str, anchor: str) -> str:
    """The sentence that ends a verdict: do not publish, publish, or audit with a holdout first
    (:data:`NEXT_STEPS`)."""
    return NEXT_STEPS[level, anchor == "holdout"]


@dataclass
class Verdict:
    level: str
    headline: str
    categories: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)  # metrics placing the release at `level`
    next_step: str = ""  # what to do about it (:func:`next_step`)

    def lines(self) -> list[str]:
        return [self.headline, *self.categories, *([f"Next step: {self.next_step}"]
                                                   if self.next_step else [])]  # fmt: skip


def band_of(row: pd.Series) -> str | None:
    """``"near Real"``, ``"between"`` or ``"near low"`` when the whole interval lies in one band
    (upper bands win: a release whose interval reaches into the top third counts as between at
    least), None when the metric is uninformative: no position, or an interval that runs from
    the bottom third into the top one, which cannot tell a release like new people from a copy
    (an inference attack whose control set is guessed right 94% of the time read 0.46 [0.00,
    0.95] on fresh rows, and made them "some risk")."""
    where = row.get("position", np.nan)
    if pd.isna(where):
        return None
    low, high = (row.get(f"position {end}", where) for end in ("low", "high"))
    low, high = (where if pd.isna(end) else end for end in (low, high))
    if low < BETWEEN - TOLERANCE and high >= NEAR_REAL - TOLERANCE:
        return None
    if low >= NEAR_REAL - TOLERANCE:
        return "near Real"
    if low >= BETWEEN - TOLERANCE or where >= BETWEEN - TOLERANCE:
        return "between"
    return "near low"


def decide(
    table: pd.DataFrame, anchor: str = "Random", useless: bool = False, copies: float | None = None,
    nearer: float | None = None,
) -> Verdict:  # fmt: skip
    """The verdict from the audit's table (``position`` columns required; without them, cannot
    tell). ``anchor`` names the lower end; ``useless`` adds the fidelity panel's warning.
    ``copies``: the share of real rows the release holds exactly beyond its baseline
    (:func:`~privmetrics.audit.evidence.excess_copies`); against Random a high risk then also
    needs at least :data:`COPY_EXCESS` of them, or ``nearer`` (the share of real rows nearer to the
    release than to one another beyond chance, :func:`~privmetrics.audit.evidence.excess_nearness`:
    a jittered copy holds no exact copy) at least :data:`NEARER_EXCESS` (None: not measured, the
    positions decide alone)."""
    if "position" not in table:
        return Verdict(
            "cannot tell",
            "Cannot tell: without baselines no score can be set against what this data allows "
            "(run without --no-baselines).",
            next_step=next_step("cannot tell", anchor),
        )
    bands = table.apply(band_of, axis=1)
    resembling = table.metric.map(resemblance)
    informative = table[bands.notna()]
    skipped = len(table) - len(informative) - int(table["score"].isna().sum())
    attack = bands.notna() & ~resembling
    need = 1 if anchor == "holdout" else HIGH_WITHOUT_HOLDOUT
    near = table[attack & (bands == "near Real")]
    if informative.empty:
        verdict = Verdict("cannot tell", "Cannot tell: no metric separates the release's "
                          f"references ({anchor} and Real) on this data.")  # fmt: skip
    elif not attack.any():
        verdict = Verdict("cannot tell", "Cannot tell: only measures of resemblance separate the "
                          f"release's references ({anchor} and Real) on this data, and they say "
                          "nothing of anyone's exposure.")  # fmt: skip
    else:
        words = HOLDOUT_WORDS if anchor == "holdout" else {
            "high risk": "near Real (a copy)", "some risk": f"between {anchor} and Real",
            "low risk": f"near {anchor}"}  # fmt: skip
        unproven = (anchor != "holdout" and copies is not None
                    and copies < COPY_EXCESS - TOLERANCE
                    and (nearer is None or nearer < NEARER_EXCESS - TOLERANCE))  # fmt: skip
        if len(near) >= need and not unproven:
            level, hits = "high risk", near
        elif len(near) or (bands[attack] == "between").any():
            level = "some risk"
            hits = table[attack & bands.isin(["near Real", "between"])]
        else:
            level, hits = "low risk", table[attack]
        where = words[level]
        if level == "some risk" and len(near):  # the category lines' words for the same bands
            where = (
                words["high risk"] if len(near) == len(hits) else f"{where} or {words['high risk']}"
            )
        strongest = hits.sort_values("position", ascending=False)
        names = ", ".join(
            f"{m} ({percent(p)})" for m, p in zip(strongest.metric, strongest.position, strict=True)
        )
        sure = f"{len(hits)} of {int(attack.sum())} informative attack measures"
        headline = f"{level.capitalize()}: {sure} place the release {where}: {names}."
        near_copy = copies is not None and copies < COPY_EXCESS - TOLERANCE
        if level == "high risk" and anchor != "holdout" and near_copy:  # what proved it
            headline += (f" It holds no more exact copies of real rows than twins explain, but "
                         f"lies nearer to them than they lie to one another, well beyond chance "
                         f"(excess {nearer:.0%}): a near copy.")  # fmt: skip
        if level == "some risk" and len(near) >= need and anchor != "holdout":
            headline += (f" Against Random, new people of the same population also score near "
                         f"Real on such measures, and the release holds no more exact copies of "
                         f"real rows than twins explain (excess {copies:.1%})"
                         + (f" and lies no nearer to them than they lie to one another beyond "
                            f"chance (excess {max(nearer, 0):.0%})" if nearer is not None else "")
                         + ": audit with a "
                         "holdout (real rows the generator never saw, --holdout; --holdout-split "
                         "makes one before training) to decide.")  # fmt: skip
        elif level == "some risk" and len(near) and anchor != "holdout":
            headline += (f" One attack measure alone places it near Real against Random (high "
                         f"risk needs {need}): audit with a holdout (real rows the generator "
                         "never saw, --holdout; --holdout-split makes one before training) to decide.")  # fmt: skip
        if level == "low risk" and anchor == "Random":
            headline += (" Near Random means nearer to noise than to a copy, not safe: audit "
                         "with a holdout (real rows the generator never saw; --holdout-split makes "
                         "one before training) to compare with new people of the same population.")  # fmt: skip
        verdict = Verdict(level, headline, flagged=list(strongest.metric))
    alike = table[resembling & (bands == "near Real")]
    if len(alike) and verdict.level != "cannot tell":
        verdict.headline += (f" {', '.join(alike.metric)} place(s) the release near Real: it is "
                             "hard to tell from the data, a fidelity reading, not an exposure.")  # fmt: skip
    if skipped > 0:
        verdict.headline += f" {skipped} metric(s) were uninformative here and left out."
    if useless and verdict.level in ("some risk", "low risk"):
        verdict.headline += (" The release is easy to tell from the real data (see utility): "
                             "a low risk may only mean it does not resemble the data.")  # fmt: skip
    verdict.categories = category_lines(table, bands[bands.notna()], anchor)
    verdict.next_step = next_step(verdict.level, anchor)
    return verdict


CRITERIA = "singling out, linkability and inference"  # their category in the verdict


def criteria_rows(criteria: pd.DataFrame) -> pd.DataFrame:
    """The criteria's risks (:func:`~privmetrics.audit.criteria.criteria_panel`'s table) as rows
    of the verdict's table: the risk (the outcome's ``value``) as the position, its interval as
    the position's; a weak attack without a position (uninformative)."""
    if criteria.empty:
        return pd.DataFrame(columns=["metric", "category", "score", "position"])
    weak = criteria["weak attack"].astype(bool).to_numpy()
    where = lambda column: criteria[column].where(~weak)  # noqa: E731
    return pd.DataFrame({
        "metric": criteria["attack"], "category": CRITERIA, "score": criteria["value"],
        "position": where("value"), "position low": where("low"), "position high": where("high"),
    })  # fmt: skip


def resemblance(metric: str) -> bool:
    """Whether ``metric`` measures resemblance (``MetricSpec.resemblance``); a name the registry
    does not know counts as an attack measure."""
    from privmetrics.metrics import get_metric

    try:
        return get_metric(metric).resemblance
    except KeyError:
        return False


def percent(where: float) -> str:
    """A position as a percentage, bounded for reading: a metric whose references score close
    together puts a release many spans away (MDCR at -1000%), which says no more than "below"."""
    if where < -1:
        return "below -100%"
    if where > 2:
        return "above 200%"
    return whole_percent(where)


def category_lines(table: pd.DataFrame, bands: pd.Series, anchor: str) -> list[str]:
    """One line per attack category: its strongest informative metric and where it puts the release."""
    lines = []
    for category, group in table.groupby("category", sort=False):
        shown = group[group.index.isin(bands.index)]
        if shown.empty:
            lines.append(f"{category}: no informative metric")
            continue
        top = shown.loc[shown["position"].idxmax()]
        band = _band_words(bands[top.name], anchor)
        lines.append(
            f"{category}: strongest {top.metric}, {percent(top.position)} of the way from {anchor} "
            f"to Real ({band}); {len(shown)} informative metric(s)"
        )
    return lines


# a position inside each of the verdict's bands, for the band's words against a holdout
INSIDE = {"near low": 0.0, "between": 0.5, "near Real": 1.0}


def _band_words(band: str, anchor: str) -> str:
    if anchor == "holdout":
        return band_words(INSIDE[band], anchor)
    return band.replace("near low", f"near {anchor}")


def fails(table: pd.DataFrame, rule: str, anchor: str = "Random") -> list[str]:
    """The attack measures that break ``rule``, as the verdict reads them (measures of
    resemblance never do): ``"near-real"`` (interval in the top third, where they make a high
    risk: :data:`HIGH_WITHOUT_HOLDOUT` of them against Random, one against a holdout),
    ``"between"`` (above the bottom third), or a number p in [0, 1] (position >= p)."""
    if "position" not in table:
        return []
    bands = table.apply(band_of, axis=1)
    attack = bands.notna() & ~table.metric.map(resemblance)
    if rule == "near-real":
        hit = attack & (bands == "near Real")
        if hit.sum() < (1 if anchor == "holdout" else HIGH_WITHOUT_HOLDOUT):
            return []
    elif rule == "between":
        hit = attack & bands.isin(["near Real", "between"])
    else:
        hit = attack & (table["position"].to_numpy(float) >= parse_threshold(rule) - TOLERANCE)
    return list(table.metric[np.asarray(hit, dtype=bool)])


# The exit statuses of ``privmetrics audit --fail-on`` (0 done, 2 bad input: the command's own)
FAILED, UNDECIDED = 1, 3


def gate(table: pd.DataFrame, rule: str, anchor: str, level: str) -> tuple[int, str]:
    """``--fail-on rule`` decided: (exit status, the sentence that says why; "" when not met).

    :data:`FAILED` when the rule is met and the audit can tell the release from new people: with
    a holdout, or against Random at a high risk (copies beyond the twins' baseline prove it).
    :data:`UNDECIDED` when it is met against Random at a lower level: new people of the same
    population place a release near Real (or between) against Random too, so without a holdout
    the gate cannot say whether this release exposes anyone; the sentence asks for a holdout.
    (A shuffled table, a GaussianCopula release and a release of fresh rows met ``near-real``
    without a holdout and failed their pipelines before; with one they pass.)"""
    met = fails(table, rule, anchor)
    if not met:
        return 0, ""
    said = f"--fail-on {rule}: met by {', '.join(met)}"
    if anchor == "holdout" or level == "high risk":
        return FAILED, said
    return UNDECIDED, (
        f"{said} against Random, where new people of the same population score so too: cannot "
        "decide without a holdout (real rows the generator never saw, --holdout; --holdout-split "
        f"makes one before training); exit status {UNDECIDED}"
    )


def parse_threshold(rule: str) -> float:
    """``--fail-on``'s value as a position in [0, 1], or a ValueError naming the choices."""
    try:
        value = float(rule)
    except ValueError:
        value = np.nan
    if not 0 <= value <= 1:
        raise ValueError(
            f"--fail-on takes near-real, between or a position in [0, 1], got {rule!r}"
        )
    return value
