"""Row-level evidence: which real people the release exposes, each count beside what a person who
was never in the data gets, so a steward acts on the excess and not on chance.

Three signals per real row, each one a reason a data protection officer would accept:

* **copied**: the release holds a row equal to it in every column. Baseline: the share of
  holdout rows (new people of the same population) the release holds too, which twins in the
  population produce; without a holdout, the share of real rows with a twin in the real table
  itself (:func:`twin_share`);
* **closer than a non-member**: its nearest release row, relative to its nearest holdout row, is
  nearer than for all but :data:`NON_MEMBER_LEVEL` of the holdout rows (each holdout row's nearest
  release row relative to its nearest real row). An ideal release, one of fresh rows, puts about
  that share of the real rows there by chance, and the summary says so. Both sides search
  equally many rows (:func:`closer_than_non_members`), so that chance stays at that share for a
  holdout of any size; a distance of 0 over a distance of 0 (a row with twins in both tables) is
  a tie, as close as a non-member, never closer, and where twins put more than that share of the
  non-members at 0 a real row at 0 counts, beside the share of non-members there. Without a
  holdout no row is named for closeness: the summary gives the count of rows whose nearest
  release row is nearer than their nearest other real row beside its expectation under a
  release of fresh rows, n_release / (n_release + n_real - 1), since among the other rows the
  nearest is then equally likely to be any. Distances are the metrics' mixed space, fitted on the real table;
* **sensitive recovered**: the release row nearest on the key attributes carries the row's exact
  sensitive value (every sensitive attribute; numbers within 1% of the column's range), the
  attacker of Attribute Inference. With a holdout, a value that the holdout row nearest on the
  keys carries too is inference from the population, not disclosure, and is not counted. A
  secret that is missing (a gap guessed as a gap) is counted apart, never as recovered.

Every count stands beside its baseline with its excess and the excess's 95% Wilson interval
(:func:`beyond`), and a signal lists its rows only where that interval lies above zero: a release
of new people lists no one. Without a holdout "sensitive recovered" has no baseline (the
population's regularities are unknown) and lists no row.

:func:`row_evidence` returns one row per real row with at least one listed signal (sorted by the number
of signals, then by how much closer the release row is), with the row's values and those of the
release row nearest to it, and the summary lines with their baselines. With sampled targets
(``--targets``) the rows checked are the sampled ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privmetrics.attacks.alc import wilson_interval
from privmetrics.data.missing import FLAG, MISSING_CATEGORY
from privmetrics.geometry.neighbours import knn
from privmetrics.geometry.pair import Pair

SIGNALS = ("copied", "closer than a non-member", "sensitive recovered")
NUMERIC_MATCH = 0.01  # a recovered number lies within this share of the column's range
# a real row is closer than a non-member when it is closer than all but this share of them
NON_MEMBER_LEVEL = 0.05
RATE_ROWS = 10_000  # holdout rows the holdout's recovery rate is measured on


def copied_rows(real: pd.DataFrame, release: pd.DataFrame) -> np.ndarray:
    """For each real row, whether the release holds an identical row (hashes of whole rows)."""
    columns = list(real.columns)
    as_text = lambda frame: frame[columns].astype(str)  # noqa: E731  (1 and 1.0 alike per column type)
    hashes = pd.util.hash_pandas_object(as_text(release), index=False)
    return pd.util.hash_pandas_object(as_text(real), index=False).isin(set(hashes)).to_numpy()


def nearest_for(pair: Pair, query: str, index: str, positions: np.ndarray, space: str = "mixed"):
    """(distance, index) of the nearest ``index`` row for the ``query`` rows at ``positions``, from
    ``pair``'s cached search (a sampled pair answers for its target rows; ``positions`` must be
    among them)."""
    found = pair.target_positions(query)
    distances, indices = pair.neighbours(query, index, 1, space)
    at = np.searchsorted(found, positions).clip(max=len(found) - 1)
    if not np.array_equal(found[at], positions):
        raise ValueError(f"the pair's {query} rows searched do not cover the rows asked for")
    return distances[at, 0], indices[at, 0]


def twin_share(real: pd.DataFrame) -> float:
    """The share of real rows equal in every column to another real row: about the share of real
    rows that a release of new people of the same population holds by chance (people with the
    same record), the baseline of "copied" without a holdout."""
    columns = list(real.columns)
    hashes = pd.util.hash_pandas_object(real[columns].astype(str), index=False)
    return float(hashes.duplicated(keep=False).mean()) if len(real) > 1 else 0.0


def excess_copies(real: pd.DataFrame, release: pd.DataFrame, holdout=None) -> float:
    """The share of real rows the release holds exactly, beyond its baseline: the share of
    holdout rows it holds, or without a holdout :func:`twin_share`."""
    baseline = copied_rows(holdout, release).mean() if holdout is not None else twin_share(real)
    return float(copied_rows(real, release).mean() - baseline)


def excess_nearness(pair: Pair) -> float:
    """Without a holdout the real table's own rows are the non-members: the share of (target)
    real rows whose nearest release row lies nearer than their nearest *other* real row (a tie
    counts half), beyond chance, as the lower end of its 95% Wilson interval.

    For a release of new people of the same population, the nearest of the r release rows and
    the n - 1 other real rows around a real row is a release row with probability r / (r + n - 1)
    (the rows are exchangeable), so that is chance, whatever the sizes. A copy, even a jittered
    one, puts every real row's own record nearest: about 1 - chance beyond it. Twins of a row in
    the real table tie with its copy (both at distance 0) and count half."""
    to_release = pair.nearest_distance("real", "synthetic")
    to_others = pair.nearest_distance("real", "real")
    nearer = (to_release < to_others) + 0.5 * (to_release == to_others)
    r, n = len(pair.synthetic), len(pair.real)
    chance = r / (r + n - 1)
    low, _ = wilson_interval(nearer.sum(), len(nearer))
    return float(low) - chance


def recovered(pair: Pair, positions: np.ndarray, among: np.ndarray | None = None) -> np.ndarray:
    """For the real rows at ``positions`` of ``pair.real``, whether the release row nearest on the
    key attributes carries the row's sensitive values (all of them); False when the schema names
    none. ``among``: a mask over ``positions``; only those rows are searched (the others read
    False), which is what a second search needs when only the rows the first found matter."""
    schema = pair.schema
    if not schema.key or not schema.sensitive:
        return np.zeros(len(positions), dtype=bool)
    if among is None:
        rows, nearest = positions, nearest_for(pair, "real", "synthetic", positions, "keys")[1]
    else:  # the same exact search (ties to the lower index), on the rows asked for alone
        rows = positions[among]
        real_keys, synthetic_keys = pair.space("keys")
        nearest = knn(real_keys[rows], synthetic_keys)[1][:, 0] if len(rows) else rows
    truth, guess = pair.real.iloc[rows], pair.synthetic.iloc[nearest]
    hit = np.ones(len(truth), dtype=bool)
    for col in schema.sensitive:
        t, g = truth[col].to_numpy(), guess[col].to_numpy()
        if col in schema.numerical:
            span = float(pair.real[col].max() - pair.real[col].min()) or 1.0
            hit &= np.abs(t.astype(float) - g.astype(float)) <= NUMERIC_MATCH * span
        else:
            hit &= t.astype(str) == g.astype(str)
    if among is None:
        return hit
    found = np.zeros(len(positions), dtype=bool)
    found[among] = hit
    return found


def missing_secret(frame: pd.DataFrame, sensitive) -> np.ndarray:
    """Rows whose sensitive value is a gap: the ``(missing)`` category, or a numerical gap's
    flag (:mod:`privmetrics.data.missing`)."""
    gap = np.zeros(len(frame), dtype=bool)
    for col in sensitive:
        gap |= frame[col].astype(str).to_numpy() == MISSING_CATEGORY
        if FLAG.format(col) in frame:
            gap |= frame[FLAG.format(col)].astype(str).isin(["1", "1.0", "True", "yes"]).to_numpy()
    return gap


def beyond(flags: np.ndarray, baseline: float) -> tuple[str, bool]:
    """(words, listed): a signal's excess over its ``baseline`` rate with its 95% Wilson interval
    (the baseline taken as known), and whether its rows are listed: only when the interval's lower
    end lies above the baseline, so that a release of new people, whose counts are their
    baselines', lists no one."""
    n = len(flags)
    if not n:
        return "", False
    low, high = (float(v) for v in wilson_interval(int(flags.sum()), n))
    listed = low > baseline
    words = (f"; excess {flags.mean() - baseline:+.1%} [{low - baseline:+.1%}, "
             f"{high - baseline:+.1%}]")  # fmt: skip
    return words + ("" if listed else ", within chance: no row listed"), listed


def _ratio(near: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """near / scale, where 0 / 0 is 1: a row with a twin both in the release and in the other
    sample is as close to the one as to the other (a tie), not infinitely closer; a row whose
    twin is in the release alone is 0, one with a twin in the other sample alone is inf."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            scale > 0, near / np.where(scale > 0, scale, 1), np.where(near > 0, np.inf, 1.0)
        )


# equal-size draws of the larger of the real table and the holdout, when their sizes differ
EQUAL_SIZE_DRAWS = 5


def closer_than_non_members(pair: Pair, held: Pair, positions, to_release, seed: int):
    """The "closer than a non-member" signal at equal sizes: (flags per real target row, count per
    draw, the distances to the nearest holdout row, the share a release of new people flags by
    chance).

    A real row's closeness is its distance to the release over that to its nearest holdout row; a
    holdout row's (the non-members') its distance to the release over that to its nearest real
    row. The two scales must come from searches of equally many rows: against a holdout a fifth
    of the real table's size, a real row's nearest holdout row lies farther, its ratio is smaller,
    and a release of new people read 8.3% closer where chance is 5%. So when the sizes differ,
    the larger side is searched in :data:`EQUAL_SIZE_DRAWS` random subsets of the smaller's size;
    a row is flagged when it is closer in at least half of the draws, and the counts per draw
    give the count's spread. Equal sizes need no draw (the pairs' cached searches).

    Twins make ties. A holdout row whose twin the release copied and the searched real rows lack
    has closeness 0; when more than :data:`NON_MEMBER_LEVEL` of the non-members have it (a copy
    of a table with 14% twin rows against a holdout of half its size), the cut is 0, "less than
    the cut" flags no one, and a copy read "closer: 0 of 2,122". At a cut of 0 a real row at 0 is
    as close as the closest non-members and counts, and chance is the share of non-members at 0
    (more than 5%), so that a release of new people still reads chance. (Ties elsewhere keep "less
    than": against a copy every non-member's closeness is 1, its nearest release row being its
    nearest real row, and "at most" would flag everyone by chance.)"""
    real_z, holdout_z = pair.space("mixed")[0], held.space("mixed")[1]
    n, m = len(real_z), len(holdout_z)
    non_members = held.target_positions("synthetic")  # every holdout row, or its targets
    h = holdout_z[non_members]
    h_to_release = knn(h, pair.space("mixed")[1])[0][:, 0]
    to_holdout = full = nearest_for(held, "real", "synthetic", positions)[0]
    to_real = nearest_for(held, "synthetic", "real", non_members)[0]
    rng = np.random.default_rng(seed)
    flags, chance = [], []
    for _ in range(1 if n == m else EQUAL_SIZE_DRAWS):
        if m > n:  # real rows search n holdout rows, as holdout rows search the n real ones
            kept = rng.choice(m, n, replace=False)
            to_holdout = knn(real_z[positions], holdout_z[kept])[0][:, 0]
        elif n > m:
            kept = rng.choice(n, m, replace=False)
            to_real = knn(h, real_z[kept])[0][:, 0]
        theirs, ours = _ratio(h_to_release, to_real), _ratio(to_release, to_holdout)
        cut = float(np.quantile(theirs, NON_MEMBER_LEVEL))
        if cut == 0:  # the cut sits on non-members at 0, twins of copied rows
            flags.append(ours <= cut)
            chance.append(float((theirs <= cut).mean()))
        else:
            flags.append(ours < cut)
            chance.append(NON_MEMBER_LEVEL)
    flags = np.array(flags)
    return flags.mean(axis=0) >= 0.5, flags.sum(axis=1), full, float(np.mean(chance))


def row_evidence(
    pair: Pair,
    holdout: pd.DataFrame | None = None,
    real_rows=None,
    holdout_pair: Pair | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """The exposed real rows of ``pair`` (real, release), by the module doc's rules, and the
    summary lines with their baselines; ``holdout``: real rows the generator never saw (the same
    columns, already prepared as the pair's). ``real_rows``: the rows' numbers in the user's file
    (default: their positions). ``holdout_pair``: the pair (real, holdout) the audit scored, whose
    searches are reused (the nearest holdout row of each real row and the nearest real row of each
    holdout row); without it one is built.

    The searches come from the pairs' caches where the metrics made them (every space here is the
    pair's, fitted on the real table), so that at 50,000 rows the evidence adds one new search in
    the mixed space (holdout to release) instead of four."""
    schema = pair.schema
    positions = pair.target_positions("real")
    real, release = pair.real.iloc[positions].reset_index(drop=True), pair.synthetic
    to_release, nearest = nearest_for(pair, "real", "synthetic", positions)
    copied = copied_rows(real, release)
    gaps = missing_secret(real, schema.sensitive)
    guessed = recovered(pair, positions)
    lines = []
    n = len(real)
    if holdout is not None:
        held = holdout_pair or Pair(pair.side, holdout, seed=pair.seed, name="holdout")
        closer, counts, to_holdout, chance = closer_than_non_members(
            pair, held, positions, to_release, pair.seed
        )
        closeness = _ratio(to_release, to_holdout)
        # recovered from the population too (the nearest holdout row on the keys carries it):
        # only the rows recovered from the release can count, so only they are searched
        population = recovered(held, positions, among=guessed & ~gaps)
        from_release = guessed & ~gaps & ~population
        spread = (f" (equal-size draws: {counts.min():,} to {counts.max():,})"
                  if len(counts) > 1 else "")  # fmt: skip
        twins = twin_share(pair.real)
        held_copied = copied_rows(holdout, release).mean()
        copied_excess, copied_listed = beyond(copied, held_copied)
        closer_excess, closer_listed = beyond(closer, chance)
        held_rate = holdout_rate(holdout, release, schema, pair.seed)
        secret = ~gaps  # rows with a secret to recover
        found_excess, found_listed = beyond((guessed & ~gaps)[secret], held_rate)
        lines += [
            f"copied: {copied.sum():,} of {n:,} real rows ({copied.mean():.1%}); holdout rows, "
            f"never in the data, copied too: {held_copied:.1%}"
            + (f"; real rows with a twin in the real table: {twins:.1%}" if twins else "")
            + copied_excess,
            f"closer than a non-member: {closer.sum():,} of {n:,} real rows ({closer.mean():.1%})"
            f"{spread}; by chance, as a release of new people would: {chance:.0%}" + closer_excess,
        ]
        recovered_line = (
            f"sensitive recovered from the release and not from the population: "
            f"{from_release.sum():,} of {n:,} real rows ({from_release.mean():.1%}); recovered "
            f"from the release in all {(guessed & ~gaps).mean():.1%}, and for holdout rows, never "
            f"in the data, {held_rate:.1%}{found_excess}"
        )
        copied, closer = copied & copied_listed, closer & closer_listed
        from_release = from_release & found_listed
        neighbour = ("distance to nearest holdout row", to_holdout)
    else:
        to_other = pair.nearest_distance("real", "real")  # of the target rows, as the pair samples
        closeness = _ratio(to_release, to_other)
        closer = np.zeros(n, dtype=bool)  # named only against a holdout
        expected = len(release) / (len(release) + len(pair.real) - 1)
        from_release = guessed & ~gaps
        copied_excess, copied_listed = beyond(copied, twin_share(pair.real))
        lines += [
            f"copied: {copied.sum():,} of {n:,} real rows ({copied.mean():.1%}); real rows with "
            f"a twin in the real table itself, about what a release of new people would copy: "
            f"{twin_share(pair.real):.1%}{copied_excess}",
            f"nearer to a release row than to another real row: {(closeness < 1).sum():,} of "
            f"{n:,} ({(closeness < 1).mean():.1%}); a release of new people would put about "
            f"{expected:.0%} there, so only the excess says anything; no row is named without a "
            "holdout (--holdout)",
        ]
        recovered_line = (
            f"sensitive recovered: {from_release.sum():,} of {n:,} real rows "
            f"({from_release.mean():.1%}), some of it inference from the population: without a "
            "holdout, which tells how much, no row is listed for it"
        )
        copied, from_release = copied & copied_listed, from_release & False
        neighbour = ("distance to nearest other real row", to_other)
    if gaps.any():
        recovered_line += (
            f"; {gaps.sum():,} rows have no secret to recover (a missing value), left out"
        )
    lines.append(recovered_line)
    signals = {"copied": copied, "closer than a non-member": closer,
               "sensitive recovered": from_release}  # fmt: skip
    labels = np.asarray(real_rows if real_rows is not None else np.arange(len(pair.real)))
    table = exposed_rows(real, release, labels[positions], signals, to_release, neighbour,
                         nearest, closeness)  # fmt: skip
    return table, lines


def exposed_rows(real, release, labels, signals, to_release, neighbour, nearest, closeness):
    """One row per real row with a signal, the most signals and then the closest first: its
    number in the user's file, its signals, its distances, and its values beside its nearest
    release row's."""
    table = pd.DataFrame({
        "real row": labels, **signals, "distance to release": to_release,
        neighbour[0]: neighbour[1], "release row": nearest,
    })  # fmt: skip
    table["signals"] = table[list(SIGNALS)].sum(axis=1)
    values = real.add_prefix("real: ").join(
        release.iloc[nearest].reset_index(drop=True).add_prefix("release: ")
    )
    table = pd.concat([table, values], axis=1).assign(_closeness=closeness)
    table = table[table["signals"] > 0]
    table = table.sort_values(["signals", "_closeness"], ascending=[False, True], kind="stable")
    return table.drop(columns="_closeness").reset_index(drop=True)


def holdout_rate(holdout: pd.DataFrame, release: pd.DataFrame, schema, seed: int) -> float:
    """The share of holdout rows whose sensitive values the attack recovers from the release,
    from at most :data:`RATE_ROWS` of them (a random sample: a share's standard error is then
    at most 0.005)."""
    from privmetrics.metrics.sampled import SampledPair

    aimed = SampledPair(holdout, release, schema, seed=seed, targets=RATE_ROWS, name="holdout")
    rows = aimed.target_positions("real")
    gaps = missing_secret(holdout.iloc[rows], schema.sensitive)
    hit = recovered(aimed, rows)
    return float(hit[~gaps].mean()) if (~gaps).any() else 0.0
