"""Run profiles: every size, epoch count and run count that an experiment uses comes from here.

``quick`` is the embedded default of ``make reproduce``: shipped data, small samples, few epochs,
two runs; the whole book in minutes on two cores. ``paper`` is the paper's settings (Section 6).
Notebooks receive only the profile *name* as a papermill parameter and look everything else up here.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Profile:
    name: str
    datasets: tuple[str, ...]
    rows: dict[str, int | None] = field(default_factory=dict)  # None: all rows of the dataset
    seed: int = 0

    def rows_for(self, dataset: str) -> int | None:
        return self.rows.get(dataset)


PROFILES: dict[str, Profile] = {
    "quick": Profile(
        name="quick",
        datasets=("texas", "flchain", "randhie"),
        rows={"texas": 2000, "flchain": 2000, "randhie": 2000},
    ),
    "paper": Profile(
        name="paper",
        datasets=("texas", "flchain", "randhie"),
        rows={"texas": None, "flchain": None, "randhie": None},
    ),
}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise KeyError(f"unknown profile {name!r}; choose one of {sorted(PROFILES)}") from None
