"""The experiment grid of Section 6.5: dataset x technique configuration x run.

Twelve configurations per dataset, in the order the figures use (most private first): Random,
PrivBayes and PATE-GAN at epsilon 0.2, 1, 2, 10, CTGAN, TVAE and Real. Four more are recorded
beside them so that every difference from the paper can be measured: PATE-GAN with the settings
the paper ran ("PATE-GAN (paper)": synthcity's 10 teachers and vote noise of scale 1,000, see
:mod:`privmetrics.synthesisers.pategan`) at the same four epsilons. The analyses take either our
PATE-GAN or the paper's (:func:`privmetrics.experiments.grid.ways.edition`), never both.

Beside them, the profiles can hold the DP synthesisers the paper did not run
(:data:`EXTRA_TECHNIQUES`: MST and AIM, at the same four epsilons); like the control below, the
paper's analyses leave them out unless asked, so every reproduced table stays the paper's grid.

The grid also holds the Uniform baseline (Section 8.3) as a *control*: no analysis reads it by
default (:func:`~privmetrics.experiments.grid.ways.edition` leaves it out), and the comparison chapter
puts it in Random's place to measure whether our Random baseline (Algorithm 22) explains a
difference from the paper (:func:`privmetrics.experiments.paper.published.causes`).

Every cell scores every registered measure and the definition variants its profile names, and
measures the release's utility (:func:`grid_metrics`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

EPSILONS = (0.2, 1.0, 2.0, 10.0)
# Where the baselines sit on the epsilon axis of Figures 7-10 ("mostly for visual purposes").
RANDOM_EPSILON, REAL_EPSILON = 0.01, 200.0
DISPLAY = {
    "random": "Random",
    "uniform": "Uniform",
    "real": "Real",
    "ctgan": "CTGAN",
    "tvae": "TVAE",
    "privbayes": "PrivBayes",
    "pategan": "PATE-GAN",
    "mst": "MST",
    "aim": "AIM",
    "planted": "Planted",
}
# DP synthesisers beyond the paper's four, at the grid's epsilons: a profile computes those its
# ``grid_extras`` names (any of them when asked by name), and editions leave them out unless asked
EXTRA_TECHNIQUES = ("mst", "aim")


# synthcity's PATE-GAN defaults that make every teacher vote a coin flip (Section 7.2's symptom)
PAPER_PATEGAN = {"n_teachers": 10, "lam": 1e-3}


@dataclass(frozen=True)
class Configuration:
    """One technique with its privacy parameter: the unit of a column in Figures 5, 6, 13, 14.

    ``setting`` names a non-default parameter set of the technique (``"paper"``: the settings the
    paper ran); it is part of the label, the parameters are in ``params``."""

    technique: str
    epsilon: float | None = None
    params: dict = field(default_factory=dict, compare=False, hash=False)
    setting: str = ""

    @property
    def display(self) -> str:
        name = DISPLAY.get(self.technique, self.technique)
        return f"{name} ({self.setting})" if self.setting else name

    @property
    def label(self) -> str:
        return self.display if self.epsilon is None else f"{self.display} ε={self.epsilon:g}"

    def synthesiser_params(self) -> dict:
        return {**self.params, **({} if self.epsilon is None else {"epsilon": self.epsilon})}

    def params_json(self) -> str:
        return json.dumps(self.synthesiser_params(), sort_keys=True)


def paper_configurations(
    techniques: tuple[str, ...] | None = None,
    with_uniform: bool = False,
    with_paper_settings: bool = False,
) -> list[Configuration]:
    """The twelve configurations of Section 6.5 (plus PATE-GAN with the paper's settings when
    ``with_paper_settings``), optionally restricted to some techniques."""
    configs = [Configuration("random")]
    if with_uniform:
        configs.append(Configuration("uniform"))
    configs += [Configuration("privbayes", e) for e in EPSILONS]
    configs += [Configuration("pategan", e) for e in EPSILONS]
    if with_paper_settings:
        configs += [Configuration("pategan", e, PAPER_PATEGAN, "paper") for e in EPSILONS]
    configs += [Configuration("ctgan"), Configuration("tvae"), Configuration("real")]
    if techniques is not None:
        unknown = set(techniques) - {c.technique for c in configs}
        if unknown:
            raise KeyError(f"unknown technique(s) {sorted(unknown)} for the experiment grid")
        configs = [c for c in configs if c.technique in techniques]
    return configs


def grid_configurations(
    techniques: tuple[str, ...] | None = None, extras: tuple[str, ...] = EXTRA_TECHNIQUES
) -> list[Configuration]:
    """What the runner computes: :func:`paper_configurations` with the paper's PATE-GAN settings
    and the Uniform control, then the ``extras`` of :data:`EXTRA_TECHNIQUES` at every epsilon.
    ``techniques`` picks among all of them, extras included whatever ``extras`` says."""
    if techniques is not None:
        extras = tuple(t for t in EXTRA_TECHNIQUES if t in techniques)
        paper = tuple(t for t in techniques if t not in EXTRA_TECHNIQUES)
        configs = paper_configurations(paper, True, True) if paper else []
    else:
        configs = paper_configurations(None, with_uniform=True, with_paper_settings=True)
    unknown = set(extras) - set(EXTRA_TECHNIQUES)
    if unknown:
        raise KeyError(f"unknown technique(s) {sorted(unknown)} for the experiment grid")
    return configs + [
        Configuration(t, e) for t in EXTRA_TECHNIQUES if t in extras for e in EPSILONS
    ]


# configurations the grid holds only to measure a cause; editions leave them out unless asked
CONTROLS = ("Uniform",)
# the leakage ladder's technique (privmetrics.synthesisers.planted): its configurations are
# controls of the games, read by the power curves and left out of every metric's verdict
LADDER = "planted"


def ladder_configurations(doses, jitters=(0.0,)) -> list[Configuration]:
    """The leakage ladder (:mod:`privmetrics.synthesisers.planted`) at every dose and jitter
    level, dose 0 once (it plants nothing, whatever the jitter): "Planted (0%)", "Planted (2%)",
    "Planted (2%, jitter 0.05)", ... in order of jitter, then dose."""
    configs = [Configuration(LADDER, params={"dose": 0.0, "jitter": 0.0}, setting="0%")]
    for jitter in sorted(set(jitters)):
        for dose in sorted(set(doses) - {0.0}):
            setting = f"{dose:.1%}".replace(".0%", "%") + (f", jitter {jitter:g}" if jitter else "")
            params = {"dose": float(dose), "jitter": float(jitter)}
            configs.append(Configuration(LADDER, params=params, setting=setting))
    return configs if doses else []


def stored_configuration(label: str, technique: str, params: str) -> Configuration:
    """The configuration of a stored game or cell, from its ``label``, ``technique`` and
    parameters in JSON, as a store records them (for a replay): the grid's own by its label;
    else one of the technique with the setting in the label's parentheses, as the leakage ladder
    ("Planted (2%, jitter 0.05)") and the overfitting ladder ("CTGAN (1,000 epochs)") name theirs."""
    known = {c.label: c for c in grid_configurations()}
    if label in known:
        return known[label]
    prefix = f"{DISPLAY.get(technique, technique)} ("
    if not (label.startswith(prefix) and label.endswith(")")):
        raise KeyError(f"{label!r} is no configuration of the grid or of a ladder of {technique}")
    return Configuration(technique, params=json.loads(params), setting=label[len(prefix) : -1])


def configuration_order(labels) -> list[str]:
    """Labels sorted in grid order (unknown labels last, alphabetically)."""
    configs = grid_configurations()
    order = {c.label: i for i, c in enumerate(configs)}
    return sorted(labels, key=lambda lab: (order.get(lab, len(order)), lab))


def grid_metrics(profile, metrics=None, technique: str | None = None) -> list[str]:
    """The measures a cell of ``profile``'s grid scores: ``metrics`` as
    :func:`~privmetrics.metrics.select` reads them when given (utility measures named among them
    kept as they are), else every registered measure and
    the definition variants whose tag the profile's ``grid_variants`` names (all when None), and
    the utility measures (:mod:`privmetrics.metrics.release_utility`) when it measures the utility
    of ``technique``'s cells (:meth:`~privmetrics.experiments.profiles.Profile.measures_utility`; of any, when None)."""
    from privmetrics.metrics import select
    from privmetrics.metrics.release_utility import MEASURES

    if metrics is not None:
        asked = [m.strip() for m in metrics.split(",")] if isinstance(metrics, str) else metrics
        if isinstance(metrics, str) and not set(asked) & set(MEASURES):
            return [m.name for m in select(metrics)]  # "everything", "final", ...
        utility = [m for m in asked if m in MEASURES]
        rest = [m for m in asked if m not in MEASURES]
        return ([m.name for m in select(rest)] if rest else []) + utility
    tags = profile.grid_variants
    names = [
        m.name
        for m in select("everything")
        if "@" not in m.name or tags is None or m.name.split("@")[1] in tags
    ]
    return names + (list(MEASURES) if profile.measures_utility(technique) else [])
