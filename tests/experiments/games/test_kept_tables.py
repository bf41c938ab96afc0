"""Attack tables and Experiment 3's verdicts kept by content: computed once per content, read
back as computed, computed again when a game changes, and the shipped paper verdicts are
today's."""

import json

import numpy as np
import pandas as pd

from privmetrics.experiments.games import game_analysis
from privmetrics.experiments.games import kept_tables as K
from privmetrics.experiments.profiles import get_profile


def _games(shift: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for config in ("Random", "Real"):
        for target in range(4):
            truth = np.array([1, 0] * 5)
            scores = rng.random(10) + shift + (truth * 0.5 if config == "Real" else 0)
            rows.append({"dataset": "d", "config": config, "kind": "random", "target": target,
                         "scores": json.dumps(scores.tolist()),
                         "truth": json.dumps(truth.tolist())})  # fmt: skip
    return pd.DataFrame(rows)


def test_an_attack_table_is_computed_once_per_content(tmp_path, monkeypatch):
    calls = []
    real = game_analysis.attack_table

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(game_analysis, "attack_table", counted)
    first = K.kept_attack_table(_games(), root=tmp_path)
    again = K.kept_attack_table(_games(), root=tmp_path)
    assert len(calls) == 1
    pd.testing.assert_frame_equal(first, again)
    # another score, another seed: other content, computed again
    K.kept_attack_table(_games(shift=0.01), root=tmp_path)
    K.kept_attack_table(_games(), seed=1, root=tmp_path)
    assert len(calls) == 3 and len(list(tmp_path.glob("*.pkl"))) == 3
    assert not list(tmp_path.glob("*.partial"))


def test_the_key_follows_the_games_the_parameters_and_nothing_else():
    games = _games()
    key = K.table_key(games, seed=0, game="membership")
    assert key == K.table_key(games.assign(seconds=1.0), seed=0, game="membership")
    assert key != K.table_key(games, seed=1, game="membership")
    assert key != K.table_key(_games(shift=0.01), seed=0, game="membership")


def test_verdict_lines_name_the_configurations_behind_each_verdict():
    from privmetrics.experiments.games.game_findings import verdict_lines

    verdicts = pd.DataFrame([
        {"dataset": "texas", "kind": "random", "metric": "DCR", "verdict": game_analysis.FALSE_ALARM,
         "missed risks": "", "false alarms": "PrivBayes ε=1, TVAE"},
        {"dataset": "texas", "kind": "vulnerable", "metric": "DCR", "verdict": game_analysis.MISSES,
         "missed risks": "CTGAN", "false alarms": "TVAE"},
        {"dataset": "flchain", "kind": "random", "metric": "DCR", "verdict": game_analysis.AGREES,
         "missed risks": "", "false alarms": ""},
    ])  # fmt: skip
    assert verdict_lines(verdicts) == {"DCR": (
        f"texas: random targets *{game_analysis.FALSE_ALARM}* (on PrivBayes ε=1, TVAE); "
        f"vulnerable targets *{game_analysis.MISSES}* (on CTGAN). "
        f"flchain: random targets *{game_analysis.AGREES}*")}  # fmt: skip


def test_the_shipped_paper_verdicts_are_todays(monkeypatch):
    """The metric pages read the paper store's verdicts from results/verdicts-paper.json when its
    key is today's store and code; a stale file would make every book compute them again (about
    a CPU-minute): `make reproduce PROFILE=paper` keeps them."""
    from privmetrics.experiments.games.calibration import load_calibration
    from privmetrics.experiments.games.game_store import GameStore
    from privmetrics.experiments.grid.runner import load_results, results_path

    paper = get_profile("paper")
    shipped = json.loads(K.verdicts_path(paper).read_text())
    games = GameStore(results_path(paper), "membership").games(paper)
    games = games[games.technique != "planted"].reset_index(drop=True)  # controls: no verdict
    calibration = load_calibration(paper)  # the store holds a complete one (issue 59)
    assert calibration is not None
    key = K.verdicts_key(games, load_results(paper, progress=False), paper, calibration)
    assert shipped["key"] == key, "stale: run make reproduce PROFILE=paper"
    calibrated = pd.DataFrame(shipped["calibrated"])
    assert len(calibrated) == len(pd.DataFrame(shipped["verdicts"]))
    # every calibrated "cannot tell" of a usable attack says why
    usable = calibrated["attack works on Real"] & (calibrated.targets >= game_analysis.MIN_TARGETS)
    undecided = calibrated[usable & (calibrated.verdict == game_analysis.CANNOT_TELL)]
    assert (undecided.why.str.len() > 0).all()
    verdicts = pd.DataFrame(shipped["verdicts"])
    assert set(verdicts.verdict) <= {game_analysis.AGREES, game_analysis.FALSE_ALARM,
                                     game_analysis.MISSES, game_analysis.CANNOT_TELL,
                                     game_analysis.TRACKS, game_analysis.DOES_NOT}  # fmt: skip
    assert len(verdicts) == verdicts[["dataset", "kind", "metric"]].drop_duplicates().shape[0]
    # read, not computed: another edition's headline and the metric pages pay nothing for them

    def computed(*args, **kwargs):
        raise AssertionError("the kept findings were computed again")

    monkeypatch.setattr(K, "kept_attack_table", computed)
    attacks, read = K.kept_findings(paper)
    assert set(attacks.measure) == {"AUC"} and "draws" not in attacks.columns
    assert not attacks.config.str.startswith("Planted").any()  # the ladder's are controls
    pd.testing.assert_frame_equal(read, verdicts)


def test_the_shipped_paper_ladder_curves_are_todays_and_read_not_computed(monkeypatch, tmp_path):
    """The quick edition's attacks chapter shows the paper store's ladder from
    results/ladder-paper.json while its key is today's games and code (a stale file makes every
    quick book compute them again); with the key changed they are computed, and kept only when
    asked."""
    from privmetrics.compendium.book.chapter import setup
    from privmetrics.experiments.games import ladder

    quick = setup("quick")  # it shows the paper store's ladder, as its attacks chapter does
    (membership, paper), (release, _) = quick.ladder_games(), quick.ladder_games("release")
    assert paper.name == "paper" and len(membership) and len(release)

    def computed(*args, **kwargs):
        raise AssertionError(
            "the kept curves were computed again: run make reproduce PROFILE=paper"
        )

    with monkeypatch.context() as patched:
        patched.setattr(ladder, "power_curves", computed)
        curves = K.kept_power_curves(membership, release, paper)
    assert list(curves.columns) == ladder.CURVE and curves.found.any()
    # another content is computed, and written only with keep
    monkeypatch.setattr(K, "ladder_path", lambda profile: tmp_path / "ladder.json")
    monkeypatch.setattr(ladder, "power_curves", lambda m, r: curves.head(3))
    assert len(K.kept_power_curves(membership.head(50), release, paper)) == 3
    assert not (tmp_path / "ladder.json").exists()
    K.kept_power_curves(membership.head(50), release, paper, keep=True)
    assert len(K.kept_power_curves(membership.head(50), release, paper)) == 3
