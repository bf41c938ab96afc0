"""Issue 62's steward cases: on three public tables the rest of the project never uses, releases
whose answer is known, audited with holdouts of 20%, 50% and 100% of the training table's size
and without one. Copies and jittered copies read high risk; shuffles and fresh rows never do;
with any holdout fresh rows read low risk with "closer than a non-member" inside its chance
interval; ``--fail-on near-real`` exits as documented (1 for what must fail, 0 with a holdout for
what must pass, never 1 without one for what must pass: 0 or 3, "cannot decide")."""

import numpy as np
import pytest

from privmetrics.audit.verdict import FAILED, UNDECIDED
from privmetrics.compendium.benchmarks.steward_cases import (
    MUST_FAIL,
    MUST_PASS,
    TABLES,
    case_table,
    chance_limit,
    known_releases,
    load_table,
    verdict_grid,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cases():
    return case_table()


def test_the_tables_are_new_and_one_has_many_twins():
    for name in TABLES:
        frame, sensitive = load_table(name)
        assert sensitive in frame and len(frame) >= 3 * TABLES[name][2]
    fair, _ = load_table("fair")
    assert fair.duplicated(keep=False).mean() >= 0.15  # the twins case of item 2


def test_known_releases_are_what_they_say():
    frame, _ = load_table("anes96")
    train, pool, releases = known_releases(frame, ["age", "popul"], 100, seed=1)
    assert releases["copy"].equals(train) and len(pool) == 100
    moved = (releases["jittered copy (5%)"]["age"] - train["age"]).abs()
    assert 0 < moved.mean() < 0.2 * train["age"].std()
    assert (releases["jittered copy (5%)"]["vote"] == train["vote"]).all()  # codes stay
    shuffled = releases["columns shuffled"]
    assert all(sorted(shuffled[c]) == sorted(train[c]) for c in train)
    fresh = releases["fresh rows"]
    assert not fresh.merge(train, how="inner").shape[0] > 0.5 * len(train)  # other people


def test_what_must_fail_reads_high_risk_and_fails_the_gate(cases):
    bad = cases[cases.release.isin(MUST_FAIL)]
    assert len(bad) == len(TABLES) * len(MUST_FAIL) * 4
    assert (bad.level == "high risk").all(), bad
    assert (bad.exit == FAILED).all(), bad


def test_what_must_pass_never_reads_high_risk(cases):
    good = cases[cases.release.isin(MUST_PASS)]
    assert len(good) == len(TABLES) * len(MUST_PASS) * 4
    assert (good.level != "high risk").all(), good
    alone = good[good.holdout == "none"]
    assert alone.exit.isin([0, UNDECIDED]).all(), alone  # never a failure without a holdout
    assert (good[good.holdout != "none"].exit == 0).all(), good


def test_fresh_rows_read_low_risk_and_closer_at_chance_with_any_holdout(cases):
    fresh = cases[(cases.release == "fresh rows") & (cases.holdout != "none")]
    assert len(fresh) == len(TABLES) * 3
    assert (fresh.level == "low risk").all(), fresh
    assert (fresh.closer <= fresh["chance limit"]).all(), fresh
    assert cases[cases.holdout == "none"].closer.isna().all()  # named only against a holdout
    # twins included (a tie at zero is as close); at a fifth-size holdout the fair survey's
    # coarse rows leave the copy's closeness at 0 (its exact copies carry the verdict)
    copies = cases[(cases.release == "copy") & cases.holdout.isin(["50%", "100%"])]
    assert (copies.closer >= 0.75).all(), copies


def test_the_chance_limit_counts_the_cuts_own_spread():
    assert chance_limit(600) == pytest.approx(0.05 + 2.576 * np.sqrt(0.05 * 0.95 / 600))
    p = (0.05 * 119 + 1) / 121
    assert chance_limit(600, 120) == pytest.approx(
        p + 2.576 * np.sqrt(p * (1 - p) * (1 / 600 + 1 / 120))
    )
    assert chance_limit(600, 120) > chance_limit(600, 600) > chance_limit(600) > 0.05


def test_the_chance_limit_holds_for_exchangeable_rows():
    """Simulated: members and non-members from one distribution, the cut the non-members' 5%
    quantile; the flagged share of members exceeds the limit in about 1% of trials, while the
    binomial limit alone is exceeded far more often at a fifth-size holdout."""
    rng = np.random.default_rng(0)
    shares = []
    for _ in range(2000):
        cut = np.quantile(rng.random(120), 0.05)
        shares.append((rng.random(600) < cut).mean())
    shares = np.array(shares)
    assert 0.002 < (shares > chance_limit(600, 120)).mean() < 0.02
    assert (shares > chance_limit(600)).mean() > 0.05


def test_the_verdict_grid_has_a_cell_per_case(cases):
    grid = verdict_grid(cases).splitlines()
    assert (
        grid[0] == "| table | release | holdout 20% | holdout 50% | holdout 100% | holdout none |"
    )
    assert len(grid) == 2 + len(TABLES) * 5
    assert "| fair | copy | high risk, closer" in verdict_grid(cases)
    assert all(line.count("exit ") == 4 for line in grid[2:])
