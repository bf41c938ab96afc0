"""Experiment 3's verdicts calibrated on the leakage ladder: a metric's reading becomes a dose.

Uncalibrated, a "false alarm" says that the attack finds nothing where the metric places a
release in the top third of its scale, and "agrees" that the two do not contradict each other.
Neither says whether the attack could have seen what the metric reads. The ladder measures both
sides on releases whose leak is known (fresh rows with a dose of the training rows copied):

* the **attack's minimum detectable dose** (:func:`.ladder.minimum_detectable_dose`): the
  smallest dose of exact copies at which the attack finds members by the chapter's rule;
* the **metric's calibration dose** of a configuration (:func:`calibration_dose`): the largest
  dose of exact copies that the metric reads at or below its reading of the configuration, both
  read at the games' scale (the ladder by :mod:`.sensitivity`, the configurations by
  :mod:`.scale_readings`, on the same training tables), scanning up from the smallest dose the
  metric detects beyond its run-to-run spread and stopping at the first dose it reads higher.
  Below the smallest detected dose a metric cannot tell a dose from fresh rows: a reading there
  calibrates to 0, and a metric that detects no dose calibrates nothing.

The rule (:func:`judge`, per configuration other than Real and the untrained ones):

* **misses a risk**: the attack finds members while the metric places the release in the safe
  third of its scale, whose safe end is now fresh rows (the dose-0 release of the ladder, which
  holds no one) and whose other end is Real, both at the games' scale. Random is a configuration
  like the others (Algorithm 22 draws from the training rows' own values and leaks outliers);
* **raises a false alarm**: the attack's interval lies at chance in the configuration, although
  the metric's calibration dose there is at least the attack's minimum detectable dose: the
  metric reads the release as leaky as a release whose leak the attack detects;
* **agrees** (a configuration that supports agreement): the attack finds members and the
  metric's calibration dose is at least the attack's minimum detectable dose;
* otherwise the configuration decides nothing, and a metric with no deciding configuration
  gets **cannot tell at this scale**, with the reason (:func:`reason`): the attack detects no
  dose of the ladder, the metric detects none, or the attack's minimum detectable dose lies
  above every calibration dose of the metric.

Doses compare with a tolerance of :data:`TOLERANCE` (readings are means of a few runs), and a
reading equal to a dose's reading up to it reads as that dose.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privmetrics.experiments.games.game_analysis import (
    CANNOT_TELL,
    FALSE_ALARM,
    MISSES,
    at_chance,
    finds_members,
)
from privmetrics.experiments.games.game_findings import counted_verdicts
from privmetrics.experiments.games.ladder import _dose
from privmetrics.metrics import select

# readings within this of each other read as equal (means of three runs of scores in [0, 1])
TOLERANCE = 1e-9
# the ladder's jitter that calibrates: exact copies, the leak the attack's power is read on
EXACT = 0.0


def calibration_dose(reading: float, curve: pd.Series, detected_from: float) -> float:
    """The largest dose of ``curve`` (mean reading by dose, dose 0 included) read at or below
    ``reading``, scanning up from ``detected_from`` (the metric's smallest detected dose) and
    stopping at the first dose read higher; 0 when the reading lies below the reading of that
    first detected dose, NaN when the metric detects no dose or the reading is NaN."""
    if np.isnan(reading) or np.isnan(detected_from):
        return np.nan
    found = 0.0
    for dose, mean in curve.sort_index().items():
        if dose < detected_from - TOLERANCE:
            continue
        if mean > reading + TOLERANCE:
            break
        found = float(dose)
    return found


@dataclass
class Calibration:
    """What the calibrated rule reads: the metrics' ``ladder`` readings
    (:func:`.sensitivity.ladder_readings`: dataset, dose, jitter, run, metric, score), the
    configurations' ``readings`` at the games' scale (:func:`.scale_readings.scale_readings`,
    the same columns with ``config`` for dose and jitter) and the attack's minimum detectable
    dose of exact copies by (dataset, kind) (``detectable``; NaN: it detects no dose)."""

    ladder: pd.DataFrame
    readings: pd.DataFrame
    detectable: dict[tuple[str, str], float]
    _sensitivity: pd.DataFrame | None = field(default=None, repr=False)
    _curves: dict | None = field(default=None, repr=False)

    @property
    def sensitivity(self) -> pd.DataFrame:
        """:func:`.sensitivity.sensitivity` of the ladder, exact copies (computed once)."""
        if self._sensitivity is None:
            from privmetrics.experiments.games.sensitivity import sensitivity

            found = sensitivity(self.ladder)
            self._sensitivity = found[found.jitter == EXACT].set_index(["dataset", "metric"])
        return self._sensitivity

    def means(self) -> pd.DataFrame:
        """Mean reading per (dataset, config) x metric at the games' scale."""
        return self.readings.groupby(["dataset", "config", "metric"]).score.mean().unstack("metric")

    def safe_end(self, dataset: str) -> pd.Series:
        """Per metric, its mean reading of fresh rows (the ladder's dose 0) on ``dataset``."""
        zero = self.ladder[(self.ladder.dataset == dataset) & (self.ladder.dose == 0)]
        return zero.groupby("metric").score.mean()

    def curve(self, dataset: str, metric: str) -> pd.Series:
        """Mean reading by dose of exact copies (dose 0 included)."""
        if self._curves is None:
            exact = self.ladder[(self.ladder.jitter == EXACT) | (self.ladder.dose == 0)]
            means = exact.groupby(["dataset", "metric", "dose"]).score.mean()
            self._curves = {key: part.droplevel([0, 1])
                            for key, part in means.groupby(level=[0, 1])}  # fmt: skip
        return self._curves.get((dataset, metric), pd.Series(dtype=float))

    def detected_from(self, dataset: str, metric: str) -> float:
        """The metric's smallest detected dose of exact copies (NaN: none)."""
        try:
            return float(self.sensitivity.loc[(dataset, metric), "smallest detected dose"])
        except KeyError:
            return np.nan

    def dose(self, dataset: str, metric: str, reading: float) -> float:
        """:func:`calibration_dose` of ``reading`` on the metric's ladder of ``dataset``."""
        return calibration_dose(
            reading, self.curve(dataset, metric), self.detected_from(dataset, metric)
        )


@dataclass
class Judged:
    """One metric's configurations sorted by the calibrated rule (module doc), and the
    calibration points behind its false alarms and agreements (``points``: config -> dose)."""

    missed: list = field(default_factory=list)
    false: list = field(default_factory=list)
    agreeing: list = field(default_factory=list)
    points: dict = field(default_factory=dict)


def judge(place: pd.Series, doses: pd.Series, bounds: pd.DataFrame, chance: float,
          alpha: float, detectable: float) -> Judged:  # fmt: skip
    """The calibrated rule (module doc) over the configurations of ``bounds`` (the attack's rows
    by config) other than Real: ``place`` is the metric's position between fresh rows (0) and
    Real (1), ``doses`` its calibration dose per configuration, ``detectable`` the attack's
    minimum detectable dose (NaN: none)."""
    out = Judged()
    for config, row in bounds.drop(index="Real", errors="ignore").iterrows():
        where, dose = place.get(config, np.nan), doses.get(config, np.nan)
        found = finds_members(row, chance, alpha)
        if found and where < 1 / 3 - 1e-12:
            out.missed.append(config)
            continue
        if np.isnan(dose) or np.isnan(detectable) or dose < detectable - TOLERANCE:
            continue  # the attack could not have seen what the metric reads
        if found:
            out.agreeing.append(config)
            out.points[config] = dose
        elif at_chance(row, chance):
            out.false.append(config)
            out.points[config] = dose
    return out


def reason(doses: pd.Series, detectable: float, detected_from: float) -> str:
    """Why a calibrated verdict is "cannot tell", from the metric's calibration ``doses`` of the
    configurations the attack was played on (Real left out)."""
    if np.isnan(detectable):
        return "the attack detects no dose of the ladder"
    if np.isnan(detected_from):
        return "the metric detects no dose of the ladder"
    top = doses.max() if len(doses.dropna()) else np.nan
    if np.isnan(top) or top < detectable - TOLERANCE:
        shown = "no dose" if np.isnan(top) or top == 0 else f"at most {_dose(top)}"
        return (f"the attack's minimum detectable dose ({_dose(detectable)}) lies above what the "
                f"metric reads ({shown})")  # fmt: skip
    return ("where the metric reads a dose the attack detects, the attack neither finds members "
            "nor lies at chance")  # fmt: skip


def calibration_note(points: dict, detectable: float) -> str:
    """The calibration points of a verdict, for its row: each configuration with the dose of
    exact copies the metric reads it as, and the attack's minimum detectable dose."""
    if not points:
        return ""
    each = ", ".join(f"{config} as {_dose(dose)}" for config, dose in points.items())
    return f"reads {each}; the attack detects {_dose(detectable)}"


def calibrated(calibration: Calibration, dataset: str, metric: str, readings: pd.Series,
               placed: pd.DataFrame | None, bounds: pd.DataFrame, chance: float, alpha: float,
               detectable: float):  # fmt: skip
    """(missed risks, false alarms, agreeing configurations, calibration note, reason) of one
    metric by :func:`judge`: ``readings`` its mean reading per configuration at the games'
    scale, ``placed`` the positions of every metric (None: the scale has no Real)."""
    doses = pd.Series({c: calibration.dose(dataset, metric, r) for c, r in readings.items()
                       if c in bounds.index}, dtype=float)  # fmt: skip
    place = placed[metric] if placed is not None else pd.Series(dtype=float)
    judged = judge(place, doses, bounds, chance, alpha, detectable)
    why = reason(doses.drop(index="Real", errors="ignore"), detectable,
                 calibration.detected_from(dataset, metric))  # fmt: skip
    note = calibration_note(judged.points, detectable)
    return judged.missed, judged.false, len(judged.agreeing), note, why


def detectable_doses(curves: pd.DataFrame) -> dict[tuple[str, str], float]:
    """The attacks' minimum detectable doses of exact copies from the ladder's power curves
    (:func:`.ladder.power_curves`), by (dataset, kind) as the verdicts' attack tables name them:
    the shadow attack's by target kind, the whole-release attack's by scoring."""
    from privmetrics.experiments.games.ladder import minimum_detectable_dose

    found = minimum_detectable_dose(curves)
    found = found[found.jitter == EXACT]
    out = {}
    for row in found.itertuples():
        kind = row.kind if row.attack == "shadow" else row.attack[len("whole release (") : -1]
        out[(row.dataset, kind)] = float(row.minimum_detectable_dose)
    return out


_LOADED: dict[tuple, Calibration | None] = {}


def load_calibration(profile) -> Calibration | None:
    """The profile's calibration from its results store: the metrics' readings of its ladder and
    of its configurations at the games' scale, and the attacks' minimum detectable doses from
    its ladder games (their power curves as kept, :func:`.kept_tables.kept_power_curves`). None
    when the profile plays no ladder or its store lacks a reading; nothing is computed. Read
    once per process and version of the store file (a chapter asks for it several times)."""
    from privmetrics.experiments.grid.runner import results_path

    if not profile.game_ladder_doses:
        return None
    path = results_path(profile)
    key = (repr(profile), str(path), path.stat().st_mtime_ns if path.exists() else None)
    if key not in _LOADED:
        _LOADED[key] = _load(profile)
    return _LOADED[key]


def _load(profile) -> Calibration | None:
    from privmetrics.experiments.games.kept_tables import kept_power_curves
    from privmetrics.experiments.games.play import run_games
    from privmetrics.experiments.games.scale_readings import scale_readings
    from privmetrics.experiments.games.sensitivity import ladder_readings

    ladder = ladder_readings(profile, compute=False, progress=False)
    readings = scale_readings(profile, compute=False, progress=False)
    if ladder.empty or readings.empty or ladder.attrs["missing"] or readings.attrs["missing"]:
        return None
    games = {g: run_games(profile, game=g, compute=False, progress=False, ladder=True)
             for g in ("membership", "release")}  # fmt: skip
    if games["membership"].empty:
        return None
    curves = kept_power_curves(games["membership"], games["release"], profile)
    return Calibration(ladder, readings, detectable_doses(curves))


def content_digest(calibration: Calibration | None) -> str:
    """A digest of what the calibrated verdicts read beyond the games and the grid: both sets of
    readings and the attacks' detectable doses ("none" without a calibration)."""
    import hashlib

    if calibration is None:
        return "none"
    digest = hashlib.sha256()
    for frame, key in ((calibration.ladder, ["dataset", "dose", "jitter", "run", "metric"]),
                       (calibration.readings, ["dataset", "config", "run", "metric"])):  # fmt: skip
        shown = frame.reindex(columns=[*key, "score"]).sort_values(key).astype(str)
        digest.update(pd.util.hash_pandas_object(shown, index=False).to_numpy().tobytes())
    digest.update(repr(sorted(calibration.detectable.items())).encode())
    return digest.hexdigest()


# --- the book's words and table for the calibrated verdicts -----------------------------------
SHORT = {  # a calibrated "cannot tell" by its reason, for the table
    "the attack detects no dose": "cannot tell: the attack sees no dose",
    "the metric detects no dose": "cannot tell: the metric sees no dose",
    "the attack's minimum detectable dose": "cannot tell: reads below the attack's dose",
    "where the metric reads a dose": "cannot tell: the attack is undecided there",
}


def short(row) -> str:
    """A calibrated verdict in a few words, with its calibration point or its reason."""
    if row["verdict"] == CANNOT_TELL:
        for start, said in SHORT.items():
            if str(row["why"]).startswith(start):
                return said
        return CANNOT_TELL
    behind = {MISSES: row["missed risks"], FALSE_ALARM: row["false alarms"]}.get(row["verdict"])
    return row["verdict"] + (f" ({behind})" if behind else "")


def calibrated_table(after: pd.DataFrame) -> pd.DataFrame:
    """Metrics x (dataset, kind of target): each calibrated verdict in a few words."""
    if after.empty:
        return pd.DataFrame()
    cells = after.assign(shown=[short(r) for r in after.to_dict("records")])
    table = cells.pivot_table(index="metric", columns=["dataset", "kind"], values="shown",
                              aggfunc="first")  # fmt: skip
    order = [m.name for m in select("all")]
    return table.reindex([m for m in order if m in table.index])


def calibrated_sentences(before: pd.DataFrame, after: pd.DataFrame, detectable: dict) -> list[str]:
    """Per dataset, the paper's metrics' verdict counts before and after calibration and the
    reasons of the calibrated "cannot tell"s; the shadow attack's minimum detectable doses; the
    configurations beyond Real that some metric reads as a dose of copies."""
    paper = [m.name for m in select("paper")]
    lines = []
    for dataset in dict.fromkeys(after.dataset):
        was = before[(before.dataset == dataset) & before.metric.isin(paper)]
        now = after[(after.dataset == dataset) & after.metric.isin(paper)]
        doses = {k: v for (d, k), v in detectable.items() if d == dataset
                 and k in set(now.kind)}  # fmt: skip
        seen = ", ".join(f"{k} targets from {_dose(v)}" if not np.isnan(v) else
                         f"{k} targets at no dose" for k, v in doses.items())  # fmt: skip
        reasons = now[now.verdict == CANNOT_TELL].why.map(lambda w: short({"verdict": CANNOT_TELL,
                                                                            "why": w}))  # fmt: skip
        lines.append(
            f"On {dataset}, of the paper's metrics' {len(now)} verdicts (two kinds of target), "
            f"uncalibrated {counted_verdicts(was.verdict)}; calibrated "
            f"{counted_verdicts(now.verdict)}. The shadow attack detects exact copies among "
            f"{seen or 'no kind of target'}"
            + (f"; the reasons: {_reasons(reasons)}" if len(reasons) else "")
            + "."
        )
    return lines


def _reasons(reasons: pd.Series) -> str:
    counts = reasons.value_counts()
    return ", ".join(f"{n} '{r.split(': ', 1)[-1]}'" for r, n in counts.items())


def read_as_doses(calibration) -> list[str]:
    """Per dataset, the configurations other than Real that a measure reads as some dose of
    exact copies (above 0), with the dose: where the metrics see a leak at the games' scale."""
    if calibration is None:
        return []
    means = calibration.means()
    lines = []
    for dataset in dict.fromkeys(calibration.readings.dataset):
        found = []
        for config, row in means.loc[dataset].drop(index="Real", errors="ignore").iterrows():
            for metric, reading in row.items():
                dose = calibration.dose(dataset, metric, reading)
                if dose > 0:
                    found.append(f"{metric} reads {config} as {_dose(dose)}")
        lines.append(
            f"On {dataset}, at the games' scale, "
            + (
                "; ".join(found)
                if found
                else "no measure reads any configuration but Real as a dose of copied rows"
            )  # fmt: skip
            + " (every other reading lies below the reading of the measure's smallest detected "
            "dose, where it cannot tell a release from fresh rows)."
        )
    return lines


def calibrated_sentence(profile, calibrated: pd.DataFrame) -> str:
    """The headline's sentence on the verdicts calibrated on ``profile``'s leakage ladder
    (:mod:`privmetrics.experiments.games.calibration`), or why there are none."""
    if calibrated.empty:
        return (f"The `{profile.name}` store holds no complete calibration on its leakage ladder: "
                "the verdicts above are uncalibrated.")  # fmt: skip
    paper21 = calibrated[calibrated.metric.isin([m.name for m in select("paper")])]
    return (
        f"Calibrated on the `{profile.name}` store's leakage ladder (each metric's reading of a "
        "configuration read as a dose of copied rows, beside the smallest dose the attack "
        f"detects), the paper's metrics' {len(paper21)} readings give "
        f"{counted_verdicts(paper21.verdict, '; ')}: see the calibrated verdicts below."
    )
