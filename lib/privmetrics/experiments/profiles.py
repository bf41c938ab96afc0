"""Run profiles: every size, epoch count and run count that an experiment uses comes from here.

``quick`` is the embedded default of ``make reproduce``: shipped data, 2,000-row samples, few
epochs, three runs; the whole book in minutes on two cores. ``paper`` is the paper's settings (Section 6): all rows, library-default epochs and the
paper's 3 runs, capped there (the paper went up to 15 while an SEM exceeded 0.02; the reason for
the cap is beside the profile below). ``smoke`` exists for the test suite only.
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
    # constructor parameters of each synthesiser (epochs, batch sizes, iteration caps)
    synthesisers: dict[str, dict] = field(default_factory=dict)
    # runs per configuration: min_runs first, then one more at a time (up to max_runs) while
    # some metric's standard error of the mean exceeds sem_threshold (Section 6.1)
    min_runs: int = 3
    max_runs: int = 3
    sem_threshold: float = 0.05
    n_jobs: int = 2  # parallel cells (joblib)
    # the definition variants (``<metric>@<tag>``, privmetrics.metrics.variants) the grid scores
    # beside every registered measure, by tag; None: all of them
    grid_variants: tuple[str, ...] | None = None
    # whether each grid cell also measures the release's utility (marginal TVDs and TSTR accuracy,
    # privmetrics.metrics.release_utility; the store's ``utility`` table): True, False, or the
    # techniques whose cells do
    grid_utility: bool | tuple[str, ...] = True
    # the DP synthesisers beyond the paper's the grid computes (privmetrics.experiments.grid.configurations
    # EXTRA_TECHNIQUES), at the four epsilons
    grid_extras: tuple[str, ...] = ()
    # The profile whose sizes the chapters' own studies use (the tables a page generates beyond
    # the grid: fidelity, ALC refits, disclosure fits); None: this profile. The paper edition
    # reads its grid from the shipped store and runs these studies at the quick scale, since its
    # synthetic tables are not shipped and regenerating them takes hours.
    studies: str | None = None
    # the empirical epsilon of the DP configurations (privmetrics.attacks.empirical_epsilon): the
    # population sample, the size of each training table, and the releases per world
    epsilon_population: int = 3000
    epsilon_rows: int = 500
    epsilon_releases: int = 50
    # the same measure on a small worst-case table (a handful of rows around the outlier), where a
    # PrivBayes fit costs milliseconds, so many releases per world buy power (PATE-GAN needs 50
    # rows and a second a fit: it keeps the sizes above)
    epsilon_small_rows: int = 10
    epsilon_small_releases: int = 300
    # Experiment 3's games (privmetrics.experiments.games.play), at this profile's own scale (not the
    # study profile's) and in its own store: the population sample, each training table's rows,
    # the attacker's shadow releases and the challenger's releases per configuration (one play
    # serves every target, each in a random half of them), and the targets of each kind (random,
    # vulnerable) per dataset
    game_population: int = 1000
    game_train_rows: int = 200
    game_shadow: int = 20
    game_releases: int = 20
    game_targets: int = 10
    game_techniques: tuple[str, ...] | None = None  # None: every technique of the grid
    # the most shadow and evaluation releases of a technique whose fits are slow (the neural ones)
    game_release_cap: dict[str, int] = field(default_factory=dict)
    # the leakage ladder the games also play (privmetrics.synthesisers.planted, as controls:
    # privmetrics.experiments.grid.configurations.ladder_configurations): fresh population rows with each
    # training row planted with probability dose, exactly (jitter 0) or jittered; () plays none
    game_ladder_doses: tuple[float, ...] = ()
    game_ladder_jitters: tuple[float, ...] = (0.0,)
    # the training-size ladder (privmetrics.experiments.games.sizes): the games played again with
    # training tables of these sizes, on the same population and targets, for these techniques
    # and datasets; () plays none
    game_sizes: tuple[int, ...] = ()
    game_size_techniques: tuple[str, ...] = ("random", "privbayes", "ctgan")
    game_size_datasets: tuple[str, ...] = ("texas",)
    # the epochs ladder (same module): CTGAN again at these sizes (game sizes of the ladder),
    # trained for each of these epoch counts, on these datasets (of game_size_datasets); {} plays
    # none
    game_epochs: dict[int, tuple[int, ...]] = field(default_factory=dict)
    game_epoch_datasets: tuple[str, ...] = ("texas",)
    # whether this profile's book states the shipped paper store's findings beside its own (the
    # comparison's and the attacks' headlines); the tests' smoke book does not pay for them
    beside_paper: bool = True

    @property
    def study_profile(self) -> str:
        return self.studies or self.name

    def measures_utility(self, technique: str | None = None) -> bool:
        """Whether the grid measures the utility of ``technique``'s cells (of some, when None)."""
        if isinstance(self.grid_utility, bool):
            return self.grid_utility
        return bool(self.grid_utility) if technique is None else technique in self.grid_utility

    def rows_for(self, dataset: str) -> int | None:
        return self.rows.get(dataset)

    def params_for(self, technique: str) -> dict:
        """The profile's parameters for a synthesiser (empty: the library defaults)."""
        return dict(self.synthesisers.get(technique, {}))

    def synthesiser_params(self, technique: str, own: dict) -> dict:
        """What a grid cell's synthesiser is built with: :meth:`params_for` overridden by the
        configuration's ``own`` parameters (epsilon and the like). The runner builds with these,
        and the provenance compares a cell's recorded generator with them."""
        return {**self.params_for(technique), **own}


PROFILES: dict[str, Profile] = {
    "quick": Profile(
        name="quick",
        datasets=("texas", "flchain", "randhie"),
        rows={
            "texas": 2000,
            "flchain": 2000,
            "randhie": 2000,
            "health": 5000,
        },  # health: the disclosure chapter's 63 DP fits
        synthesisers={
            "ctgan": {"epochs": 10, "batch_size": 500},
            "tvae": {"epochs": 10, "batch_size": 500},
            "pategan": {"max_iterations": 300},
        },
        # three runs, like the paper profile (issue 44): on the store of 2026-11-28 the SEM rule's
        # fourth runs (27 cells, a sixth of the grid's CPU) changed one class of the quick book
        # (DistantValueProb in Table 7: "works adequately" with them, "sometimes works" without)
        # and no count in its findings
        min_runs=3,
        max_runs=3,
        sem_threshold=0.05,
        game_release_cap={"ctgan": 10, "tvae": 10},  # the games' defaults above, fewer neural fits
        # the paper's readings only (issue 44): no page of the quick book reads the store's
        # PrivEval readings (the priveval chapter measures them on its own tables), and one of
        # them, MemInf@priveval (five gradient-boosting fits per cell), was a fifth of its CPU
        grid_variants=("paper",),
    ),
    "paper": Profile(
        name="paper",
        datasets=("texas", "flchain", "randhie"),
        rows={"texas": None, "flchain": None, "randhie": None, "health": None},
        # SDV's defaults for CTGAN/TVAE (the paper gives none); PATE-GAN: synthcity's max_iter
        synthesisers={
            "ctgan": {"epochs": 300, "batch_size": 500},
            "tvae": {"epochs": 300, "batch_size": 500},
            "pategan": {"max_iterations": 1000},
            # AIM's size parameters (issue 41: a paper-grid fit within 10 minutes of one core):
            # 72 rounds (4 d on Texas, instead of 16 d), a 10 MB model cap, 250 mirror-descent
            # steps per round (the final fit keeps its 2,000). What they buy and cost on Texas at
            # epsilon 10: `privmetrics epsilon-response --dataset texas --techniques aim
            # --epsilons 10` against AIM's defaults (add `--set rounds=288 --set
            # max_model_size=80 --set iters=500`)
            "aim": {"rounds": 72, "max_model_size": 10.0, "iters": 250},
        },
        # Capped at the paper's 3 runs: at 3 runs the SEM rule (0.02) asked for 40 more cells
        # (Random and PATE-GAN on Texas among them, up to 15 min of training per fit), so the
        # shipped grid is the 144 cells of 3 runs and every page shows the SEMs it has.
        min_runs=3,
        max_runs=3,
        sem_threshold=0.02,
        studies="quick",
        # every shipped cell holds its utility (issue 41; a test checks it): a cell without would
        # be measured by `make reproduce PROFILE=paper` by regenerating its table (hours for the
        # neural techniques), and a store refuses utility measured on a table whose checksum
        # differs from the one its scores describe
        grid_utility=True,
        # MST and AIM at the grid's four epsilons, 3 runs each: the shipped store holds their 72
        # cells (`privmetrics run --profile paper --techniques mst,aim` fills a missing one)
        grid_extras=("mst", "aim"),
        # the games at the paper's synthesiser settings (300 epochs for CTGAN/TVAE; game_shadow +
        # game_releases fits per configuration, fewer for the neural ones); shipped in
        # results/paper.sqlite
        game_population=2000,
        game_train_rows=500,
        game_shadow=100,
        game_releases=100,
        game_targets=20,
        game_release_cap={"ctgan": 20, "tvae": 20},
        # the leakage ladder (issue 59): six doses above 0, exact and at two jitter levels
        game_ladder_doses=(0.0, 0.005, 0.01, 0.02, 0.05, 0.10, 0.25),
        game_ladder_jitters=(0.0, 0.05, 0.2),
        # the training-size ladder (issue 59) on every dataset (Texas is where the quick edition,
        # at 200 rows, finds members that the paper store, at 500 rows, does not): the games'
        # population of 2,000 rows (less the targets) is halved into the shadow and evaluation
        # pools, so 900 is about the largest training table it holds; same targets at every
        # size. Flchain's and randhie's took 55 minutes on two busy cores
        game_sizes=(100, 200, 500, 900),
        game_size_datasets=("texas", "flchain", "randhie"),
        # the epochs ladder (same module): CTGAN trained longer on the smallest tables (an
        # overfitting ladder: 1,000 epochs, 42 CPU-minutes for its 40 fits; 2,000 would double
        # that), and at the quick edition's 10 epochs on its 200-row tables, where the quick
        # edition finds members that the size ladder does not
        game_epochs={100: (1000,), 200: (10,)},
    ),
    # for the test suite only: every notebook end to end in about a minute (not an experiment)
    "smoke": Profile(
        name="smoke",
        datasets=("texas", "flchain"),
        rows={"texas": 300, "flchain": 300, "health": 300},
        synthesisers={
            "ctgan": {"epochs": 1, "batch_size": 100},
            "tvae": {"epochs": 1, "batch_size": 100},
            "pategan": {"max_iterations": 20},
        },
        min_runs=2,
        max_runs=2,
        sem_threshold=1.0,
        epsilon_population=600,
        epsilon_rows=100,
        epsilon_releases=4,
        epsilon_small_releases=20,
        game_population=300,
        game_train_rows=60,
        game_shadow=6,
        game_releases=6,
        game_targets=3,
        game_techniques=("random", "privbayes", "real"),  # the notebook test's games in seconds
        grid_variants=("paper",),  # as the quick book's
        beside_paper=False,
    ),
}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise KeyError(f"unknown profile {name!r}; choose one of {sorted(PROFILES)}") from None
