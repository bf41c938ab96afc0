"""One shape for every attack of the package, after anonymeter's evaluators and scikit-learn's
estimators::

    attack = Linkability(real, release, control=holdout, known=(left, right), targets=500)
    result = attack.evaluate(seed=0)
    result.outcomes()  # [Outcome(attack, measure, value, low, high, baseline, n), ...]

* An :class:`Attack` is **configured** with what it attacks and its parameters, kept as given:
  ``__init__`` stores each argument under its own name and does nothing else, so
  :meth:`Attack.get_params` reads them back from the signature (scikit-learn's rule: checks and
  work happen when the attack runs).
* :meth:`Attack.evaluate` checks the configuration, plays the attack with ``seed`` and returns an
  :class:`AttackResult`: everything the attack measured, and its :meth:`~AttackResult.outcomes`,
  each a value with its 95% interval and the baseline an attacker whom the release tells nothing
  gets (:class:`~.outcome.Outcome`).
* **One vocabulary.** ``real``: the real table the release was made from, as a
  :class:`~privmetrics.geometry.real_side.RealSide` (the audit's, checked once) or a DataFrame
  with its ``schema``; ``release``: the table attacked; ``control``: real rows of the same
  population that the generator never saw (a holdout); ``secret``: the attribute the attacker
  wants; ``known``: the attributes the attacker holds about a target; ``targets``: how many
  people are attacked (for the games, which: kind -> positions).

The attacks (:func:`attack_classes`; a test walks the package and finds no other):
:class:`~.singling_out.SinglingOut`, :class:`~.anonymisation.Linkability` and
:class:`~.anonymisation.Inference` (Giomi et al.'s three risks), :class:`~.inference.AnonymityLoss`
(the ALC) and :class:`~.membership.RefitAnonymityLoss` (the ALC against a release refitted without
the targets), :class:`~.whole_release.WholeRelease` (membership over a whole release, no shadow
model), :class:`~.one_run.TargetGames` (the shadow-model membership game and the attribute game
of a set of targets on shared fits) and :class:`~.empirical_epsilon.EmpiricalEpsilon` (the epsilon
a DP synthesiser's releases show, against the one it claims).

**How to add an attack.** Subclass :class:`ReleaseAttack` when it attacks one release of a real
table (its ``real``, ``release``, ``control`` and ``schema`` are stored for you by calling
``super().__init__``), else :class:`Attack`; write an ``__init__`` whose parameters use the
vocabulary above and store each under its own name; in ``evaluate(seed)`` check them, attack, and
return a result that subclasses :class:`AttackResult` (:class:`OneOutcome` when it finds one thing)
and gives ``outcomes()``; list the class in :func:`attack_classes`. The test of this module then
holds it to the shape.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod

import pandas as pd

from privmetrics.attacks.outcome import Outcome, outcome_table
from privmetrics.data.schema import Schema
from privmetrics.data.validation import InvalidInputError
from privmetrics.geometry.real_side import RealSide


class AttackResult(ABC):
    """What an attack measured; :meth:`outcomes` gives its findings in the one shape."""

    @abstractmethod
    def outcomes(self) -> list[Outcome]:
        """Each finding as a value, its 95% interval and its baseline."""

    def table(self) -> pd.DataFrame:
        """:meth:`outcomes` as one table (:func:`~.outcome.outcome_table`)."""
        return outcome_table(self.outcomes())


class OneOutcome(AttackResult):
    """A result with a single finding: :meth:`outcome` gives it, :meth:`outcomes` lists it."""

    @abstractmethod
    def outcome(self) -> Outcome:
        """The finding as a value, its 95% interval and its baseline."""

    def outcomes(self) -> list[Outcome]:
        return [self.outcome()]


class Attack(ABC):
    """An attack configured with what it attacks and its parameters (module doc)."""

    @abstractmethod
    def evaluate(self, seed: int = 0) -> AttackResult:
        """Check the configuration, play the attack and return what it measured."""

    @classmethod
    def parameter_names(cls) -> list[str]:
        """The parameters of ``__init__``, in order."""
        names = list(inspect.signature(cls.__init__).parameters)[1:]
        return [n for n in names if n not in ("args", "kwargs")]

    def get_params(self) -> dict:
        """The configuration as given (scikit-learn's ``get_params``, without nesting)."""
        return {name: getattr(self, name) for name in self.parameter_names()}

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.get_params().items() if not hasattr(v, "shape")}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


class ReleaseAttack(Attack):
    """An attack on one ``release`` of a ``real`` table, with an optional ``control`` set; ``real``
    is a :class:`~privmetrics.geometry.real_side.RealSide` (its schema is the side's) or a
    DataFrame with its ``schema``."""

    def __init__(self, real, release: pd.DataFrame, control: pd.DataFrame | None = None,
                 schema: Schema | None = None):  # fmt: skip
        self.real = real
        self.release = release
        self.control = control
        self.schema = schema

    def tables(self) -> tuple[pd.DataFrame, Schema]:
        """The real table and its schema (:func:`real_table`)."""
        return real_table(self.real, self.schema)


def real_table(real, schema: Schema | None) -> tuple[pd.DataFrame, Schema]:
    """The real table and its schema, from a :class:`~privmetrics.geometry.real_side.RealSide`
    (its own schema unless ``schema`` is given) or as given."""
    if isinstance(real, RealSide):
        return real.real, schema or real.schema
    if not isinstance(real, pd.DataFrame):
        raise InvalidInputError(
            f"real must be a RealSide or a DataFrame, got {type(real).__name__}"
        )
    if schema is None:
        raise InvalidInputError("a real DataFrame needs its schema= (a RealSide carries one)")
    return real, schema


def attack_classes() -> list[type[Attack]]:
    """Every attack of the package (imported here: the modules that define them import this
    one)."""
    from privmetrics.attacks.anonymisation import Inference, Linkability
    from privmetrics.attacks.empirical_epsilon import EmpiricalEpsilon
    from privmetrics.attacks.inference import AnonymityLoss
    from privmetrics.attacks.membership import RefitAnonymityLoss
    from privmetrics.attacks.one_run import TargetGames
    from privmetrics.attacks.singling_out import SinglingOut
    from privmetrics.attacks.whole_release import WholeRelease

    return [SinglingOut, Linkability, Inference, AnonymityLoss, RefitAnonymityLoss, WholeRelease,
            TargetGames, EmpiricalEpsilon]  # fmt: skip
