"""A chapter notebook's set-up in one call: the profile's settings, the datasets it shows and its
results, from the notebook's papermill parameters.

>>> chapter = setup(profile, dataset, compute)   # in the cell after the parameters
>>> settings, datasets = chapter.profile, chapter.datasets
>>> results = chapter.results(metrics="paper")

Papermill hands a notebook the profile's *name* (a parameter is a string); from here on the
:class:`~privmetrics.experiments.profiles.Profile` object travels, and no notebook looks a name up
again.
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass

import pandas as pd

from privmetrics.experiments.games.game_store import GameStore
from privmetrics.experiments.games.play import run_games
from privmetrics.experiments.grid.configurations import Configuration
from privmetrics.experiments.grid.runner import Cell, generated_table, load_results, results_path
from privmetrics.experiments.grid.store import ResultsStore
from privmetrics.experiments.profiles import Profile, get_profile
from privmetrics.paths import checkout_root


@dataclass(frozen=True)
class Chapter:
    """What a chapter reads: ``profile`` (the grid's settings, whose store it shows), ``datasets``
    (one when the notebook was given one, else every dataset of the profile), ``compute`` (fill
    what the store lacks first, as ``make reproduce`` does), and ``study``, the profile at whose
    scale the page generates its own tables (:attr:`Profile.study_profile`)."""

    profile: Profile
    datasets: list[str]
    compute: bool = False

    @property
    def study(self) -> Profile:
        return get_profile(self.profile.study_profile)

    @property
    def example(self) -> str:
        """The dataset a page's single worked study uses: Texas where it is shown."""
        return "texas" if "texas" in self.datasets else self.datasets[0]

    def results(
        self, metrics: str = "all", way: str = "ours", extras: bool = False
    ) -> pd.DataFrame:
        """The profile's scores of :attr:`datasets` (:func:`~privmetrics.experiments.grid.runner.load_results`;
        ``extras``: with MST and AIM)."""
        return shown(load_results(
            self.profile, compute=self.compute, datasets=self.datasets, progress=False,
            metrics=metrics, way=way, extras=extras,
        ))  # fmt: skip

    def study_table(self, dataset: str, config: Configuration, run: int = 0):
        """(real, schema, synthetic) of one cell at the :attr:`study` scale: the study profile's
        sample of ``dataset`` and ``config``'s table of run ``run`` (seed: the profile's + run),
        from the synthetic cache (generated once)."""
        study = self.study
        cell = Cell(dataset, study.rows_for(dataset), config, run, study.seed + run)
        return generated_table(cell, study)

    def store(self) -> ResultsStore:
        return ResultsStore(results_path(self.profile))

    def stores(self) -> dict[str, ResultsStore]:
        """This profile's results store by profile name, and the shipped paper store's beside it
        for a book that states the paper store's findings too (:attr:`Profile.beside_paper`)."""
        out = {self.profile.name: self.store()}
        if self.profile.beside_paper and self.profile.name != "paper":
            paper = results_path(get_profile("paper"))
            if paper.exists():
                out["paper"] = ResultsStore(paper)
        return out

    def games(self, game: str = "membership") -> pd.DataFrame:
        """The profile's ``game`` games of :attr:`datasets` (played first with ``compute``)."""
        return shown(run_games(
            self.profile, datasets=self.datasets, progress=False, game=game, compute=self.compute,
            store=GameStore(results_path(self.profile), game),
        ))  # fmt: skip

    def ladder_games(self, game: str = "membership") -> tuple[pd.DataFrame, Profile]:
        """The leakage ladder's ``game`` games of :attr:`datasets` and the profile they were
        played at: this profile's when it plays a ladder (played first with ``compute``), else,
        for a book that states the paper store's findings beside its own, the shipped paper
        store's (read only); empty when neither holds one."""
        profile = self.profile
        if not profile.game_ladder_doses:
            if not profile.beside_paper:
                return pd.DataFrame(), profile
            profile = get_profile("paper")
        compute = self.compute and profile is self.profile
        games = run_games(
            profile, datasets=self.datasets, progress=False, game=game, compute=compute,
            store=GameStore(results_path(profile), game), ladder=True,
        )  # fmt: skip
        return shown(games), profile

    def ladder_readings(self) -> tuple[pd.DataFrame, Profile]:
        """The metrics' readings of the leakage ladder
        (:func:`~privmetrics.experiments.games.sensitivity.ladder_readings`) for :attr:`datasets`
        and the profile they were read at, from the same store as :meth:`ladder_games`."""
        from privmetrics.experiments.games.sensitivity import ladder_readings

        profile = self.profile
        if not profile.game_ladder_doses:
            if not profile.beside_paper or not results_path(get_profile("paper")).exists():
                return pd.DataFrame(), profile
            profile = get_profile("paper")
        compute = self.compute and profile is self.profile
        found = ladder_readings(profile, datasets=self.datasets, progress=False, compute=compute)
        return shown(found), profile

    def scale_note(self) -> str:
        """A sentence for pages whose own studies run at another profile's scale (else empty)."""
        study = self.study
        if study.name == self.profile.name:
            return ""
        sizes = ", ".join(f"{d}: {study.rows_for(d):,} rows" for d in study.datasets)
        return (
            f"The grid results on this page are profile `{self.profile.name}`'s (from its results "
            f"store); the tables the page generates for its own studies are at profile "
            f"`{study.name}`'s scale ({sizes})."
        )


def setup(
    profile: str, dataset: str | None = None, compute: bool = False, reads_grid: bool = False
) -> Chapter:
    """The :class:`Chapter` of a notebook's parameters (an unknown profile name is an error that
    lists the known ones).

    A chapter that ``reads_grid`` and is not asked to ``compute`` ends here when the store holds
    no cell of its datasets: it says so and what to run (:func:`end_here`), rather than stopping
    later on a KeyError. Make this call the last line of its cell: the cell still finishes."""
    settings = get_profile(profile)
    tell_warnings_plainly()
    chapter = Chapter(settings, [dataset] if dataset else list(settings.datasets), compute)
    if reads_grid and not compute:
        stored = {cell[0] for cell in chapter.store().done()}
        if not stored & set(chapter.datasets):
            end_here(
                f"**Nothing to show yet.** The results store of profile `{settings.name}` "
                f"(`{results_path(settings)}`) holds no cell of {', '.join(chapter.datasets)}, and "
                "this chapter reads the experiment grid. Run `make reproduce` (or "
                "`privmetrics run --profile " + settings.name + "`), or this notebook with "
                "`-p compute True`; the rest of the chapter is skipped."
            )
    return chapter


def end_here(note: str) -> None:
    """Show ``note`` and skip every later code cell of the running notebook, so that it ends with
    the note and no traceback (an IPython input transformer that empties each cell; outside
    IPython, in a plain script, the note is printed and nothing else happens)."""
    from IPython import get_ipython  # the notebooks' stack
    from IPython.display import Markdown, display

    shell = get_ipython()
    if shell is None:
        print(note)
        return
    display(Markdown(note))
    shell.input_transformers_post.append(_skipped)


def _skipped(lines: list[str]) -> list[str]:
    return []


def shown(table: pd.DataFrame) -> pd.DataFrame:
    """``table``, its note of missing cells or games (``attrs["missing"]``) printed first: a
    chapter never shows part of a grid in silence."""
    if table.attrs.get("missing"):
        print(table.attrs["missing"])
    return table


class WarningTally:
    """The warnings of one notebook cell, counted by kind and told after the cell in one line of
    plain words (:func:`warning_line`) instead of a block of stderr with the checkout's paths.

    Installed by :func:`tell_warnings_plainly`: ``collect`` stands in for
    :func:`warnings.showwarning` and ``report`` runs after each cell (IPython's
    ``post_run_cell`` event)."""

    def __init__(self) -> None:
        self.counts: Counter = Counter()

    def collect(self, message, category, filename, lineno, file=None, line=None) -> None:
        self.counts[warning_words(category, message)] += 1

    def report(self, result=None) -> None:
        if self.counts:
            print(warning_line(self.counts))
            self.counts.clear()


def warning_words(category: type[Warning], message) -> str:
    """A warning in plain words: the library's own warning classes say what happened in their
    docstring's first line; any other warning by its message's first line (never a path)."""
    if category.__module__.startswith("privmetrics") and category.__doc__:
        words = category.__doc__.strip().splitlines()[0]
    else:
        words = (
            str(message).strip().splitlines()[0][:160]
            if str(message).strip()
            else category.__name__
        )
    words = words.replace(f"{checkout_root()}/", "").rstrip(".")
    acronym = words[1:2].isupper()  # "PATE-GAN's budget ..." keeps its capitals
    return words if acronym else words[0].lower() + words[1:]


def warning_line(counts: Counter) -> str:
    """One sentence for a cell's warnings, ``{words: count}`` (:func:`warning_words`), most
    frequent first."""
    said = [f"{words} ({n} time{'s' if n > 1 else ''})" for words, n in counts.most_common()]
    return "Note: while computing this, " + "; ".join(said) + "."


def tell_warnings_plainly() -> WarningTally | None:
    """In a notebook kernel, route every warning to a :class:`WarningTally` told after each cell
    (once per kernel; nothing outside IPython). Issue 63: a book page shows no stderr."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return None
    tally = getattr(shell, "_privmetrics_warnings", None)
    if tally is None:
        tally = shell._privmetrics_warnings = WarningTally()
        shell.events.register("post_run_cell", tally.report)
    warnings.showwarning = tally.collect
    return tally
