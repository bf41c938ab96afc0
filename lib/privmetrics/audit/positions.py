"""Positions: where a release's score sits between the references built from the user's own real
table (Random, Algorithm 22, or the holdout; Real, a copy), and the words for it.

Pure arithmetic on scores; :mod:`.run` computes them.
"""

from __future__ import annotations

import numpy as np

from privmetrics.metrics.registry import MIN_SPAN

# score bands for the reading without baselines: the upper bound of each band, and what it says
BANDS = ((0.2, "low risk"), (0.5, "moderate risk"), (0.8, "high risk"), (1.01, "very high risk"))


# With baselines: where the score sits between Random (0) and Real (1) on the same real table.
# Thirds, because nothing calibrates an absolute cut-off (the ALC paper finds no evidential basis
# for anonymity thresholds): the bands only say which end of what this data allows the release
# is nearer to, and a band is named only when the whole position interval lies inside it.
# With a holdout (real rows the generator never saw) the lower end is the holdout instead: what a
# generator of new people from the same population would score.
POSITION_BANDS = ((1 / 3, "near {low}"), (2 / 3, "between {low} and Real"), (np.inf, "near Real"))
# The same thirds against a holdout, in a steward's words (issue 43): the release as seen by its
# members beside unseen people. Below -1/3 the release lies further from its members than from
# people it never saw (a position the holdout's own spread rarely reaches by chance).
HOLDOUT_BANDS = (
    (-1 / 3, "further than unseen people"),
    (1 / 3, "no closer than unseen people"),
    (2 / 3, "closer than unseen people"),
    (np.inf, "as close as a copy"),
)


RANDOM_RUNS = 3  # Random draws per audit: their spread is the position's uncertainty


def reading(score: float) -> str:
    """A short reading of a score on the paper's scale (0 = private, 1 = no privacy), by fixed
    bands; used only when no baselines are computed."""
    for upper, words in BANDS:
        if score < upper:
            return words
    return BANDS[-1][1]


def position(score: float, random: float, real: float) -> float:
    """Where ``score`` sits between the Random (0) and Real (1) scores of the same real table;
    NaN when they are closer than ``MIN_SPAN``."""
    span = real - random
    if not np.isfinite(span) or abs(span) < MIN_SPAN:
        return np.nan
    return float((score - random) / span)


def standard_error(values) -> float:
    """SEM of the Random draws: sample SD / sqrt(n); 0 for a single draw."""
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


def position_interval(score: float, randoms, real: float) -> tuple[float, float, float]:
    """The position (:func:`position`, against the mean of the Random draws) and its interval: the
    positions against the mean Random score plus and minus its standard error over the draws.

    The release and Real are fixed tables, so their scores are fixed; the Random baseline is one
    random draw of many, and that is the uncertainty in where the release sits.
    """
    mean, sem = float(np.mean(randoms)), standard_error(randoms)
    ends = sorted(position(score, mean + d, real) for d in (-sem, sem))
    return position(score, mean, real), ends[0], ends[1]


def band_words(where: float, anchor: str) -> str:
    """The band of a position in words, against ``anchor`` (the holdout has its own words)."""
    bands = HOLDOUT_BANDS if anchor == "holdout" else POSITION_BANDS
    return next(words for upper, words in bands if where < upper).format(low=anchor)


def relative_reading(
    score: float, random: float, real: float, low=None, high=None, anchor: str = "Random"
) -> str:
    """The reading relative to what this data allows: thirds of the distance from the lower end
    (``random``: the Random baseline's score, or the holdout's with ``anchor="holdout"``) to Real
    (a release a third of the way towards a copy is "near Random", two thirds "near Real"). With a
    position interval (``low``, ``high``) that straddles a band boundary, both bands are named."""
    where = position(score, random, real)
    if np.isnan(where):
        return f"uninformative here ({anchor} and Real score alike on this data)"
    low, high = (where, where) if low is None or np.isnan(low) else (low, high)
    bands = list(dict.fromkeys(band_words(x, anchor) for x in (low, where, high)))
    words = bands[0] if len(bands) == 1 else f"on the border: {' / '.join(bands)}"
    spread = f", {whole_percent(low)}-{whole_percent(high)}" if high - low >= 0.005 else ""
    return f"{words} ({whole_percent(where)} of the way from {anchor} to Real{spread})"


def whole_percent(where: float) -> str:
    """A position in whole per cent."""
    return f"{round(where * 100)}%"  # an int: -0.3% reads 0%, not -0%
