"""Replicate-level inference: every family-vs-family statement rests on replicates, not games.

A study's unit of replication is the champion (one per replicate): games between two fixed
champions are a correlated block, and a statement about *families* must carry the spread
between champions.  This module holds the estimators the reports use (docs/statistics.md):

* :func:`mean_interval`: the mean over replicates with a 95% interval (scipy's percentile
  bootstrap from :data:`MIN_BOOTSTRAP` replicates on, the Student-t interval below, where a
  bootstrap cannot see the tails);
* :func:`a12_interval`: Vargha-Delaney A12 with its percentile bootstrap interval (the two
  families' replicates resampled independently);
* :func:`difference_interval`: the difference of two families' means, bootstrap (Welch below
  :data:`MIN_BOOTSTRAP`);
* :func:`detectable_difference`: the smallest difference the replicate counts would have
  detected with 80% power (two-sample normal approximation on the replicate means);
* :func:`crossplay_inference`: the two-way cluster bootstrap of a cross-play's mean net score
  (champions of the two families resampled independently) and a champion-level sign test;
* :func:`beats_median`: P(one run of A beats the median run of B).

Every resampling takes a :class:`numpy.random.Generator` from :func:`generator`, derived from
the study's master seed, so a report is reproducible to the last digit.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Any, Sequence, Union

import numpy as np
from scipy import stats as sps

#: spawn key (under the master seed) of the statistics' resampling streams
STATISTICS_KEY = 2**32 + 1000
#: bootstrap resamples per interval
RESAMPLES = 2000
#: below this many replicates a bootstrap interval is too narrow (it cannot see the tails):
#: means use the Student-t interval, differences Welch's
MIN_BOOTSTRAP = 10
#: the power a "cannot be separated" statement quotes the detectable difference at
POWER = 0.8
LEVEL = 0.95

Sample = Union[Sequence[float], np.ndarray]


def generator(seed: int, *names: str) -> np.random.Generator:
    """The resampling stream of one statistic: ``SeedSequence(seed, spawn_key=(STATISTICS_KEY,
    crc32(name), ...))``; the same names give the same stream whatever else the study computes."""
    keys = tuple(zlib.crc32(name.encode()) for name in names)
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(STATISTICS_KEY, *keys)))


@dataclass(frozen=True)
class Interval:
    """An estimate with its 95% interval; ``degenerate`` when every replicate is the same value
    (the interval is then the point, and reports say "all N replicates" instead)."""

    value: float
    low: float
    high: float
    degenerate: bool = False


NAN_INTERVAL = Interval(math.nan, math.nan, math.nan)


def _is_constant(x: np.ndarray) -> bool:
    """Two or more values, all equal (one value is no sample of a spread: it has no interval)."""
    return len(x) > 1 and float(np.ptp(x)) == 0.0


def _bootstrap(samples: tuple[np.ndarray, ...], statistic: Any, rng: np.random.Generator) -> tuple[float, float]:
    """scipy's percentile bootstrap interval, the samples resampled independently."""
    result = sps.bootstrap(
        samples,
        statistic,
        n_resamples=RESAMPLES,
        confidence_level=LEVEL,
        method="percentile",
        vectorized=True,
        random_state=rng,
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis)


def t_interval(x: np.ndarray) -> tuple[float, float]:
    """The Student-t 95% interval of the mean (NaN with fewer than 2 values)."""
    if len(x) < 2:
        return math.nan, math.nan
    half = float(sps.t.ppf(0.5 + LEVEL / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return float(x.mean()) - half, float(x.mean()) + half


def mean_interval(values: Sample, rng: np.random.Generator) -> Interval:
    """The mean over replicates with its 95% interval (module docstring)."""
    x = np.asarray(values, float)
    if len(x) == 0:
        return NAN_INTERVAL
    mean = float(x.mean())
    if _is_constant(x):
        return Interval(mean, mean, mean, degenerate=True)
    if len(x) < 2:
        return Interval(mean, math.nan, math.nan)
    if len(x) < MIN_BOOTSTRAP:
        return Interval(mean, *t_interval(x))
    return Interval(mean, *_bootstrap((x,), _mean, rng))


def _a12(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Vectorised A12 = P(X > Y) + P(X = Y) / 2 over the last axis."""
    x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
    greater = (x[..., :, None] > y[..., None, :]).mean(axis=(-2, -1))
    equal = (x[..., :, None] == y[..., None, :]).mean(axis=(-2, -1))
    return greater + equal / 2


def a12_interval(xs: Sample, ys: Sample, rng: np.random.Generator) -> Interval:
    """Vargha-Delaney A12 of A's replicates over B's with its percentile bootstrap interval."""
    x, y = np.asarray(xs, float), np.asarray(ys, float)
    if len(x) == 0 or len(y) == 0:
        return NAN_INTERVAL
    value = float(_a12(x, y))
    if len(x) < 2 or len(y) < 2:
        return Interval(value, math.nan, math.nan)
    if _is_constant(np.concatenate([x, y])):
        return Interval(value, value, value, degenerate=True)
    return Interval(value, *_bootstrap((x, y), _a12, rng))


def _difference(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def difference_interval(xs: Sample, ys: Sample, rng: np.random.Generator) -> Interval:
    """Mean of A's replicates minus mean of B's, with its 95% interval (bootstrap with both
    families resampled independently; Welch's interval below :data:`MIN_BOOTSTRAP`)."""
    x, y = np.asarray(xs, float), np.asarray(ys, float)
    if len(x) == 0 or len(y) == 0:
        return NAN_INTERVAL
    value = float(x.mean() - y.mean())
    if len(x) < 2 or len(y) < 2:
        return Interval(value, math.nan, math.nan)
    if _is_constant(x) and _is_constant(y):
        return Interval(value, value, value, degenerate=True)
    if min(len(x), len(y)) < MIN_BOOTSTRAP:
        v1, v2 = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
        df = (v1 + v2) ** 2 / (v1 * v1 / (len(x) - 1) + v2 * v2 / (len(y) - 1))
        half = float(sps.t.ppf(0.5 + LEVEL / 2, df) * math.sqrt(v1 + v2))
        return Interval(value, value - half, value + half)
    return Interval(value, *_bootstrap((x, y), _difference, rng))


def detectable_difference(standard_error: float, alpha: float, power: float = POWER, df: float = math.inf) -> float:
    """The smallest true difference a two-sided test at level ``alpha`` detects with probability
    ``power``: (z_{1-alpha/2} + z_power) * standard_error (normal approximation; Student-t
    quantiles with ``df`` degrees of freedom when given, as for an interval with few champions)."""
    if not math.isfinite(standard_error) or not 0 < alpha < 1:
        return math.nan
    if math.isfinite(df):
        return float((sps.t.ppf(1 - alpha / 2, df) + sps.t.ppf(power, df)) * standard_error)
    return float((sps.norm.ppf(1 - alpha / 2) + sps.norm.ppf(power)) * standard_error)


def two_sample_error(xs: Sample, ys: Sample) -> float:
    """sqrt(s1^2/n1 + s2^2/n2) of two families' replicate means (NaN with fewer than 2 each)."""
    x, y = np.asarray(xs, float), np.asarray(ys, float)
    if len(x) < 2 or len(y) < 2:
        return math.nan
    return math.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))


def smallest_mann_whitney_p(n1: int, n2: int) -> float:
    """The smallest two-sided p-value an exact Mann-Whitney test can give with n1 and n2
    replicates (complete separation): 2 / C(n1 + n2, n1)."""
    if n1 < 1 or n2 < 1:
        return math.nan
    return min(1.0, 2.0 / math.comb(n1 + n2, n1))


def beats_median(xs: Sample, ys: Sample) -> float:
    """P(one run of A beats the median run of B): the share of A's replicates above the median
    of B's, ties counting one half."""
    x, y = np.asarray(xs, float), np.asarray(ys, float)
    if len(x) == 0 or len(y) == 0:
        return math.nan
    median = float(np.median(y))
    return float(np.mean((x > median) + 0.5 * (x == median)))


QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def quantiles(values: Sample) -> list[float]:
    """The :data:`QUANTILES` of a family's replicate outcomes (its empirical distribution)."""
    x = np.asarray(values, float)
    if len(x) == 0:
        return [math.nan] * len(QUANTILES)
    return [float(q) for q in np.quantile(x, QUANTILES)]


# ---- cross-play ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CrossplayInference:
    """Family A against family B at the champion level: the mean net score (wins - losses per
    game, averaged over pairs of champions) with its two-way cluster interval, its standard
    error, and the sign tests over each family's champions."""

    net: Interval
    standard_error: float
    df: float  # degrees of freedom of the interval: min(n_A, n_B) - 1
    ahead_a: int  # A's champions with a positive net score against the whole of family B
    behind_a: int
    ahead_b: int  # B's champions with a positive net score against the whole of family A
    behind_b: int
    p: float  # the larger of the two sign tests' p-values (both families' champions must agree)


def sign_test(positive: int, negative: int) -> float:
    """Two-sided sign test (exact binomial, ties left out): 1.0 when nothing is left."""
    n = positive + negative
    return 1.0 if n == 0 else float(sps.binomtest(positive, n, 0.5).pvalue)


def two_way_variance(net: np.ndarray, rng: np.random.Generator) -> float:
    """Variance of the mean of ``net[i, j]`` (champion i of A against champion j of B) when both
    families' champions are samples: A's rows and B's columns are resampled independently.

    The plain two-way ("pigeonhole") bootstrap counts the pair-level term (interaction and
    games) three times and is conservative (Owen 2007); its variance ``V_AB`` splits into the
    rows-only ``V_A``, the columns-only ``V_B`` and that term, so ``2 (V_A + V_B) - V_AB``
    counts it once (the two-way cluster variance of Cameron, Gelbach and Miller 2011), floored
    at ``max(V_A, V_B)``, which never exceeds the truth."""
    n_a, n_b = net.shape
    rows = rng.multinomial(n_a, np.full(n_a, 1 / n_a), size=RESAMPLES)
    cols = rng.multinomial(n_b, np.full(n_b, 1 / n_b), size=RESAMPLES)
    v_a = float((rows @ net.mean(axis=1) / n_a).var())
    v_b = float((cols @ net.mean(axis=0) / n_b).var())
    v_ab = float((((rows @ net) * cols).sum(axis=1) / (n_a * n_b)).var())
    return max(2 * (v_a + v_b) - v_ab, v_a, v_b)


def crossplay_inference(
    net: np.ndarray, rng: np.random.Generator, fixed: tuple[bool, bool] = (False, False)
) -> CrossplayInference:
    """The champion-level statement about family A (rows of ``net``) against B (columns); the
    interval is mean +- t * sqrt(two-way variance), with min(n_A, n_B) - 1 degrees of freedom.

    ``fixed``: whether A, B is a fixed player (a builtin strategy), not a sample of champions.
    Against a fixed player only the other side is resampled: the interval is the Student-t
    interval over its champions' mean net scores (n - 1 degrees of freedom), and only its
    champions' sign test decides.  Two fixed players make no replicate-level statement (NaN)."""
    net = np.asarray(net, float)
    if fixed[0] and not fixed[1]:  # B's statement about A, read back from A's side
        flipped = crossplay_inference(-net.T, rng, (False, True))
        interval = Interval(-flipped.net.value, -flipped.net.high, -flipped.net.low, flipped.net.degenerate)
        return CrossplayInference(
            interval,
            flipped.standard_error,
            flipped.df,
            flipped.ahead_b,
            flipped.behind_b,
            flipped.ahead_a,
            flipped.behind_a,
            flipped.p,
        )
    if fixed[1]:
        return _against_a_fixed_player(net, both_fixed=fixed[0])
    n_a, n_b = net.shape
    mean = float(net.mean())
    row, col = net.mean(axis=1), net.mean(axis=0)
    counts = (int((row > 0).sum()), int((row < 0).sum()), int((col < 0).sum()), int((col > 0).sum()))
    p = max(sign_test(counts[0], counts[1]), sign_test(counts[2], counts[3]))
    if min(n_a, n_b) < 2:
        return CrossplayInference(Interval(mean, math.nan, math.nan), math.nan, math.nan, *counts, p)
    df = min(n_a, n_b) - 1
    if _is_constant(net.ravel()):
        return CrossplayInference(Interval(mean, mean, mean, degenerate=True), 0.0, df, *counts, p)
    error = math.sqrt(two_way_variance(net, rng))
    half = float(sps.t.ppf(0.5 + LEVEL / 2, df)) * error
    return CrossplayInference(Interval(mean, mean - half, mean + half), error, df, *counts, p)


def _against_a_fixed_player(net: np.ndarray, both_fixed: bool) -> CrossplayInference:
    """Family A (rows) against a fixed player B: a one-way interval over A's champions."""
    n_a = net.shape[0]
    mean = float(net.mean())
    row, col = net.mean(axis=1), net.mean(axis=0)
    counts = (int((row > 0).sum()), int((row < 0).sum()), int((col < 0).sum()), int((col > 0).sum()))
    p = 1.0 if both_fixed else sign_test(counts[0], counts[1])
    if both_fixed or n_a < 2:
        return CrossplayInference(Interval(mean, math.nan, math.nan), math.nan, math.nan, *counts, p)
    if _is_constant(row):
        return CrossplayInference(Interval(mean, mean, mean, degenerate=True), 0.0, n_a - 1, *counts, p)
    error = float(row.std(ddof=1)) / math.sqrt(n_a)
    half = float(sps.t.ppf(0.5 + LEVEL / 2, n_a - 1)) * error
    return CrossplayInference(Interval(mean, mean - half, mean + half), error, n_a - 1, *counts, p)
