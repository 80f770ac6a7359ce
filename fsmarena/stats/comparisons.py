"""Statistics of a study: intervals per method, pairwise tests with effect sizes, cross-play tables.

Replicates (one champion each) are the independent units; games within a replicate, or between
two fixed champions, are not (docs/statistics.md; the estimators are in :mod:`fsmarena.stats.inference`).

* Per method: the mean of the replicates' outcomes with a 95% interval (bootstrap, Student-t
  with few replicates), quartiles and the 10% and 90% quantiles.
* Between methods: the difference of the means with its interval, two-sided Mann-Whitney U on
  the replicate outcomes (scipy), the Vargha-Delaney effect size A = P(X > Y) + P(X = Y) / 2 with
  its bootstrap interval (0.5 = no difference; 0.56, 0.64 and 0.71 are the conventional small,
  medium and large thresholds), the rank-biserial correlation 2A - 1, P(one run of A beats the
  median run of B), and, for the questions the study declares, Holm-corrected p-values and the
  difference the replicate counts would have detected with 80% power.
* Cross-play: family-vs-family win rates and net scores (wins - losses per game) averaged over
  every pairing of their champions, with two-way cluster intervals (both families' champions
  resampled), sign tests over champions and the spread over champions.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence, Union

import numpy as np
from scipy import stats as sps

from fsmarena.games.crossplay import CrossplayResult
from fsmarena.games.stats import Z95, wilson_interval
from fsmarena.stats import inference as inf

ALPHA = 0.05
#: a family pair is *level* when both ends of its 95% interval lie within this distance of 0
LEVEL_MARGIN = 0.01

#: a sample of replicate values: a list or a numpy array
Sample = Union[Sequence[float], np.ndarray]


def mean_ci(values: Sample, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t confidence interval; the interval is NaN with fewer than 2 values."""
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(x.mean())
    if len(x) < 2:
        return (mean, math.nan, math.nan)
    half = float(sps.t.ppf(0.5 + level / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return (mean, mean - half, mean + half)


def vargha_delaney(xs: Sample, ys: Sample) -> float:
    """A = P(X > Y) + P(X = Y) / 2 for one value drawn from each sample."""
    x, y = np.asarray(xs, float), np.asarray(ys, float)
    if len(x) == 0 or len(y) == 0:
        return math.nan
    ranks = sps.rankdata(np.concatenate([x, y]))
    r1 = ranks[: len(x)].sum()
    return float((r1 / len(x) - (len(x) + 1) / 2) / len(y))


def mann_whitney(xs: Sample, ys: Sample) -> dict[str, float]:
    """Two-sided Mann-Whitney U test with Vargha-Delaney A and rank-biserial r."""
    x, y = np.asarray(xs, float), np.asarray(ys, float)
    a = vargha_delaney(x, y)
    if len(x) < 2 or len(y) < 2:
        return {"u": math.nan, "p": math.nan, "a12": a, "rank_biserial": 2 * a - 1}
    if np.ptp(np.concatenate([x, y])) == 0:  # all equal: no evidence of any difference
        return {"u": len(x) * len(y) / 2, "p": 1.0, "a12": 0.5, "rank_biserial": 0.0}
    result = sps.mannwhitneyu(x, y, alternative="two-sided", method="auto")
    return {"u": float(result.statistic), "p": float(result.pvalue), "a12": a, "rank_biserial": 2 * a - 1}


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (NaN entries stay NaN and do not count)."""
    p = np.asarray(pvalues, dtype=float)
    adjusted = np.full(len(p), math.nan)
    valid = np.flatnonzero(np.isfinite(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = len(order)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return adjusted.tolist()


def effect_words(a12: float) -> str:
    """Vargha & Delaney's (2000) magnitude labels for A (symmetric around 0.5)."""
    if not math.isfinite(a12):
        return "n/a"
    d = round(abs(a12 - 0.5), 9)  # 0.71 - 0.5 must count as 0.21
    return "negligible" if d < 0.06 else "small" if d < 0.14 else "medium" if d < 0.21 else "large"


# ---- tables ---------------------------------------------------------------------------------


def summarize(
    groups: Mapping[str, Sequence[float]],
    opponent: str = "",
    bounds: tuple[float, float] = (0.0, 1.0),
    seed: int = 0,
) -> list[dict[str, Any]]:
    """One row per method: replicates, mean with its 95% interval over replicates
    (:func:`fsmarena.stats.inference.mean_interval`, resampled with a stream of ``seed`` named by the
    opponent and method), median, quartiles, 10% and 90% quantiles, min, max; ``all_equal`` when
    every replicate has the same outcome (the interval is then that value).

    The interval is clipped to ``bounds`` (rates cannot leave [0, 1]; with few replicates
    the t-interval can).
    """
    rows = []
    for method, values in groups.items():
        x = np.asarray(values, float)
        mean = inf.mean_interval(x, inf.generator(seed, "mean", opponent, method))
        q10, q1, median, q3, q90 = inf.quantiles(x)
        rows.append(
            {
                "opponent": opponent,
                "method": method,
                "replicates": len(x),
                "mean": mean.value,
                "ci_low": max(mean.low, bounds[0]),
                "ci_high": min(mean.high, bounds[1]),
                "all_equal": mean.degenerate,
                "median": median,
                "q1": q1,
                "q3": q3,
                "q10": q10,
                "q90": q90,
                "min": float(x.min()) if len(x) else math.nan,
                "max": float(x.max()) if len(x) else math.nan,
            }
        )
    return rows


def comparisons(
    names: Sequence[str], questions: Sequence[tuple[str, str]] | None
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(declared, exploratory) pairs of ``names``: the declared questions in their order and
    orientation (those naming an absent method are left out), then every other pair; with no
    declared questions every pair is declared."""
    every = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    if questions is None:
        return every, []
    declared = [(a, b) for a, b in questions if a in names and b in names]
    asked = {frozenset(q) for q in declared}
    return declared, [q for q in every if frozenset(q) not in asked]


def pairwise(
    groups: Mapping[str, Sequence[float]],
    opponent: str = "",
    questions: Sequence[tuple[str, str]] | None = None,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Pairs of methods, the declared ``questions`` first (see :func:`comparisons`): the
    difference of the means with its interval, Mann-Whitney U, A12 with its interval,
    rank-biserial r, P(one run of A beats B's median run).  Holm runs over the declared
    questions only (``p_holm`` is empty for the others); ``holm_alpha`` = ALPHA / m, Holm's
    first threshold, is the level of ``detectable``: the difference of means the replicate
    counts would have detected with 80% power from the observed spread, and ``attainable`` says
    whether an exact test with these replicate counts could reach it at all."""
    declared, exploratory = comparisons(list(groups), questions)
    alpha = ALPHA / max(1, len(declared))
    rows: list[dict[str, Any]] = []
    for a, b in declared + exploratory:
        x, y = groups[a], groups[b]
        test = mann_whitney(x, y)
        difference = inf.difference_interval(x, y, inf.generator(seed, "difference", opponent, a, b))
        a12 = inf.a12_interval(x, y, inf.generator(seed, "a12", opponent, a, b))
        rows.append(
            {
                "opponent": opponent,
                "method_a": a,
                "method_b": b,
                "declared": (a, b) in declared,
                "replicates_a": len(x),
                "replicates_b": len(y),
                "mean_a": float(np.mean(x)) if len(x) else math.nan,
                "mean_b": float(np.mean(y)) if len(y) else math.nan,
                "median_a": float(np.median(x)) if len(x) else math.nan,
                "median_b": float(np.median(y)) if len(y) else math.nan,
                "difference": difference.value,
                "difference_low": difference.low,
                "difference_high": difference.high,
                **test,
                "a12_low": a12.low,
                "a12_high": a12.high,
                "a_beats_median_b": inf.beats_median(x, y),
                "holm_alpha": alpha if (a, b) in declared else math.nan,
                "standard_error": inf.two_sample_error(x, y),
                "detectable": inf.detectable_difference(inf.two_sample_error(x, y), alpha),
                "attainable": inf.smallest_mann_whitney_p(len(x), len(y)) < alpha,
            }
        )
    adjusted = holm([r["p"] for r in rows[: len(declared)]])
    for row, p_holm in zip(rows, adjusted + [math.nan] * len(exploratory)):
        row["p_holm"] = p_holm
        row["effect"] = effect_words(row["a12"])
    return rows


def holm_over_family(*tables: Sequence[dict[str, Any]]) -> int:
    """Holm over every declared test of a study at once (all declared questions x all measures,
    one table of :func:`pairwise` rows per measure), not within each measure: rewrites
    ``p_holm``, ``holm_alpha`` (ALPHA / m, Holm's first threshold), ``family_size``,
    ``detectable`` and ``attainable`` of the declared rows in place; exploratory rows keep an
    empty ``p_holm``.  Returns m, the size of the family."""
    declared = [row for rows in tables for row in rows if row["declared"]]
    m = len(declared)
    alpha = ALPHA / max(1, m)
    for row, p_holm in zip(declared, holm([row["p"] for row in declared])):
        row.update(p_holm=p_holm, holm_alpha=alpha, family_size=m)
        row["detectable"] = inf.detectable_difference(row["standard_error"], alpha)
        row["attainable"] = inf.smallest_mann_whitney_p(row["replicates_a"], row["replicates_b"]) < alpha
    for rows in tables:
        for row in rows:
            row.setdefault("family_size", m if row["declared"] else 0)
    return m


def replicates_needed(alpha: float) -> int:
    """The smallest n for which an exact two-sided Mann-Whitney test with n replicates in each
    family can reach ``alpha`` at all (complete separation: 2 / C(2n, n) < alpha)."""
    n = 1
    while inf.smallest_mann_whitney_p(n, n) >= alpha:
        n += 1
    return n


def unreachable(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The declared tests whose replicate counts cannot reach Holm's first level ``holm_alpha``
    whatever the data (:func:`holm_over_family` sets it)."""
    return [row for row in rows if row["declared"] and not row["attainable"]]


def verdict(row: Mapping[str, Any]) -> str:
    """A declared comparison in words: "ahead", "behind" (A relative to B; Holm p below ALPHA),
    "level" (not separated and the difference's interval within +-LEVEL_MARGIN), "unattainable"
    (no test with these replicate counts could reach Holm's level) or "not separated"."""
    if math.isfinite(row["p_holm"]) and row["p_holm"] < ALPHA:
        return "ahead" if row["a12"] > 0.5 else "behind"
    if not row["attainable"]:
        return "unattainable"
    low, high = row["difference_low"], row["difference_high"]
    if math.isfinite(low) and math.isfinite(high) and -LEVEL_MARGIN <= low and high <= LEVEL_MARGIN:
        return "level"
    return "not separated"


def net_interval(wins: int, draws: int, losses: int, z: float = Z95) -> tuple[float, float, float]:
    """(wins - losses) / games and its normal interval (per-game outcome in {+1, 0, -1})."""
    n = wins + draws + losses
    if n == 0:
        return (math.nan, math.nan, math.nan)
    pw, pl = wins / n, losses / n
    net = pw - pl
    half = z * math.sqrt(max(0.0, pw + pl - net * net) / n)
    return (net, net - half, net + half)


def pair_matrices(result: CrossplayResult, a: str, b: str) -> tuple[np.ndarray, np.ndarray]:
    """``(net, win)``: for champion i of family ``a`` and j of ``b`` (``a != b``; in the order
    of ``result.labels``), i's net score (wins - losses per game) and win rate against j."""
    fam = np.asarray(result.families)
    rows, cols = np.flatnonzero(fam == a), np.flatnonzero(fam == b)
    row_of, col_of = np.full(len(fam), -1), np.full(len(fam), -1)
    row_of[rows], col_of[cols] = np.arange(len(rows)), np.arange(len(cols))
    first, second = result.pairs[:, 0], result.pairs[:, 1]
    games, wins, losses = (np.asarray(x, dtype=np.float64) for x in (result.games, result.wins, result.losses))
    net, win = np.full((len(rows), len(cols)), np.nan), np.full((len(rows), len(cols)), np.nan)
    forward = (row_of[first] >= 0) & (col_of[second] >= 0)
    at = row_of[first[forward]], col_of[second[forward]]
    net[at], win[at] = (wins[forward] - losses[forward]) / games[forward], wins[forward] / games[forward]
    backward = (row_of[second] >= 0) & (col_of[first] >= 0)
    at = row_of[second[backward]], col_of[first[backward]]
    net[at], win[at] = (losses[backward] - wins[backward]) / games[backward], losses[backward] / games[backward]
    return net, win


def crossplay_tables(
    result: CrossplayResult, order: Sequence[str], seed: int = 0, fixed: frozenset[str] = frozenset()
) -> tuple[list[dict], list[dict]]:
    """Family-vs-family rows and champion-vs-family rows.

    Between two families, the win rate and the net score are averaged over every pairing of
    their champions (each pairing plays the same number of games, so this is also the pooled
    rate) with two-way cluster intervals (:func:`fsmarena.stats.inference.crossplay_inference`, both
    families' champions resampled with a stream of ``seed``); ``sign_p`` is the champion-level
    sign test and ``detectable`` the net difference the champion counts would have detected
    with 80% power at ALPHA.  The families in ``fixed`` are fixed players (builtin strategies):
    against one, only the other family's champions are resampled and counted
    (:func:`fsmarena.stats.inference.crossplay_inference`).  Each unordered pair is estimated once, in ``order``; the reverse
    row is its exact mirror (:func:`_mirror`).  There are no self rows: a family against its own
    champions is no comparison of families (its net score is 0 by construction).
    """
    fam = np.asarray(result.families)
    first, second = result.pairs[:, 0], result.pairs[:, 1]
    champion_rows = []
    # per champion c and family B: c's record against every champion of B but itself
    n = len(result.labels)
    per_w = np.zeros((n, len(order)), np.int64)
    per_d = np.zeros_like(per_w)
    per_l = np.zeros_like(per_w)
    column = {f: k for k, f in enumerate(order)}
    fam_index = np.array([column[f] for f in fam])
    np.add.at(per_w, (first, fam_index[second]), result.wins)
    np.add.at(per_d, (first, fam_index[second]), result.draws)
    np.add.at(per_l, (first, fam_index[second]), result.losses)
    np.add.at(per_w, (second, fam_index[first]), result.losses)
    np.add.at(per_d, (second, fam_index[first]), result.draws)
    np.add.at(per_l, (second, fam_index[first]), result.wins)
    for c in range(n):
        for k, opponent in enumerate(order):
            games = per_w[c, k] + per_d[c, k] + per_l[c, k]
            if games:
                champion_rows.append(
                    {
                        "champion": result.labels[c],
                        "family": fam[c],
                        "replicate": result.replicates[c],
                        "opponent_family": opponent,
                        "games": int(games),
                        "wins": int(per_w[c, k]),
                        "draws": int(per_d[c, k]),
                        "losses": int(per_l[c, k]),
                        "win_rate": per_w[c, k] / games,
                        "net": (per_w[c, k] - per_l[c, k]) / games,
                    }
                )
    pooled = _PooledCounts(result, fam_index, len(order))
    spreads: dict[tuple[str, str], list[float]] = {}
    for row in champion_rows:
        spreads.setdefault((row["family"], row["opponent_family"]), []).append(row["win_rate"])
    family_rows = []
    for k, a in enumerate(order):
        for b in order[k + 1 :]:
            pair = (column[a], column[b])
            forward = _family_row(result, pooled.of(*pair), spreads.get((a, b), []), a, b, seed, fixed)
            if forward is not None:
                counts = pooled.of(*pair[::-1])
                backward = _family_row(result, counts, spreads.get((b, a), []), b, a, seed, fixed, mirror=forward)
                family_rows += [forward, backward] if backward is not None else [forward]
    return family_rows, champion_rows


class _PooledCounts:
    """Every family pair's pooled pairings, games, wins and losses, summed once over the
    pairings (at 1,220 champions a mask over the 743,590 pairings per family pair took most
    of a report's time): ``of(a, b)`` counts from ``a``'s side, ``a`` and ``b`` being the
    families' indices."""

    def __init__(self, result: CrossplayResult, fam_index: np.ndarray, families: int):
        code = fam_index[result.pairs[:, 0]] * families + fam_index[result.pairs[:, 1]]
        size = families * families
        self.families = families
        self.pairings = np.bincount(code, minlength=size)
        self.games, self.wins, self.losses = (
            np.bincount(code, weights=np.asarray(x, np.float64), minlength=size).astype(np.int64)
            for x in (result.games, result.wins, result.losses)
        )

    def of(self, a: int, b: int) -> tuple[int, int, int, int]:
        """``(pairings, games, wins, losses)`` of family ``a`` against ``b`` (``a != b``), from
        the pairings listing either first."""
        ab, ba = a * self.families + b, b * self.families + a
        return (
            int(self.pairings[ab] + self.pairings[ba]),
            int(self.games[ab] + self.games[ba]),
            int(self.wins[ab] + self.losses[ba]),
            int(self.losses[ab] + self.wins[ba]),
        )


#: the champion-level columns of a family row and how each maps onto the mirrored row (B vs A):
#: (column of the mirror, sign): a net score negates, a win rate becomes 1 - p (loss rate of A)
_MIRRORED = {
    "net_ci_low": ("net_ci_high", -1),
    "net_ci_high": ("net_ci_low", -1),
    "champions_ahead": ("opponents_ahead", 0),
    "champions_behind": ("opponents_behind", 0),
    "opponents_ahead": ("champions_ahead", 0),
    "opponents_behind": ("champions_behind", 0),
}


def _mirror(
    result: CrossplayResult, forward: Mapping[str, Any], seed: int, fixed: tuple[bool, bool] = (False, False)
) -> dict[str, Any]:
    """The champion-level columns of B vs A from those of A vs B: one estimate and one interval
    per unordered pair, so the two directions never disagree (exact antisymmetry of the net
    score).  B's win rate is A's loss rate: without draws its interval is 1 - A's, mirrored;
    with draws it is the two-way interval of A's loss rate (the pair's own stream)."""
    level = {
        column: forward[source] * sign if sign else forward[source] for column, (source, sign) in _MIRRORED.items()
    }
    a, b = forward["family"], forward["opponent_family"]
    if forward["draws"] == 0:
        low, high = 1.0 - forward["ci_high"], 1.0 - forward["ci_low"]
    else:
        loss = pair_matrices(result, b, a)[1].T  # A's loss rate against each champion of B
        rate = inf.crossplay_inference(loss, inf.generator(seed, "crossplay-loss", a, b), fixed[::-1]).net
        low, high = max(rate.low, 0.0), min(rate.high, 1.0)
    level.update(ci_low=low, ci_high=high, opponent_champions=forward["champions"])
    for key in ("net_se", "detectable", "sign_p", "sign_attainable"):
        level[key] = forward[key]
    return level


def _family_row(
    result: CrossplayResult,
    counts: tuple[int, int, int, int],
    spread_rates: Sequence[float],
    a: str,
    b: str,
    seed: int,
    fixed: frozenset[str] = frozenset(),
    mirror: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Family ``a`` against ``b`` (``a != b``): pooled ``counts`` (pairings, games, wins, losses
    from ``a``'s side), the champion-level statistics (computed for the pair in ``order``,
    mirrored from ``mirror`` for the reverse direction), the spread of ``a``'s champions' win
    rates against ``b``; None when the two never met."""
    pairings, games, wins, losses = counts
    if not games:
        return None
    spread = np.array(spread_rates)
    q1, median, q3 = np.percentile(spread, [25, 50, 75])
    row = {
        "family": a,
        "opponent_family": b,
        "pairings": pairings,
        "games": games,
        "wins": wins,
        "draws": games - wins - losses,
        "losses": losses,
        "win_rate": wins / games,
        "loss_rate": losses / games,
        "net": (wins - losses) / games,
    }
    pair = (a in fixed, b in fixed)
    row.update(_champion_level(result, a, b, seed, pair) if mirror is None else _mirror(result, mirror, seed, pair))
    row["fixed_pair"] = all(pair)
    if all(pair):  # two fixed players: no champions to resample, the games decide
        _, low, high = net_interval(wins, games - wins - losses, losses)
        rate_low, rate_high = wilson_interval(wins, games)
        row.update(net_ci_low=max(low, -1.0), net_ci_high=min(high, 1.0), ci_low=rate_low, ci_high=rate_high)
    row.update(
        champions=len(spread),
        champion_median=float(median),
        champion_q1=float(q1),
        champion_q3=float(q3),
        champion_min=float(spread.min()),
        champion_max=float(spread.max()),
    )
    return row


def _champion_level(
    result: CrossplayResult, a: str, b: str, seed: int, fixed: tuple[bool, bool] = (False, False)
) -> dict[str, Any]:
    """The champion-level columns of a family-vs-family row (``a != b``; ``fixed``: whether
    each is a fixed player)."""
    net, win = pair_matrices(result, a, b)
    stats = inf.crossplay_inference(net, inf.generator(seed, "crossplay", a, b), fixed)
    rate = inf.crossplay_inference(win, inf.generator(seed, "crossplay-win", a, b), fixed).net
    return {
        "ci_low": max(rate.low, 0.0),  # (NaN stays NaN)
        "ci_high": min(rate.high, 1.0),
        "net_ci_low": max(stats.net.low, -1.0),
        "net_ci_high": min(stats.net.high, 1.0),
        "net_se": stats.standard_error,
        "detectable": inf.detectable_difference(stats.standard_error, ALPHA, df=stats.df),
        "champions_ahead": stats.ahead_a,
        "champions_behind": stats.behind_a,
        "opponents_ahead": stats.ahead_b,
        "opponents_behind": stats.behind_b,
        "sign_p": stats.p,
        "opponent_champions": net.shape[1],
        "sign_attainable": inf.sign_test(_sign_champions(net.shape, fixed), 0) < ALPHA,
    }


def _sign_champions(shape: tuple[int, ...], fixed: tuple[bool, bool]) -> int:
    """How many champions the deciding sign test counts: the smaller family, or against a
    fixed player the other family's alone (none between two fixed players)."""
    if all(fixed):
        return 0
    if any(fixed):
        return shape[0] if fixed[1] else shape[1]
    return min(shape)


def crossplay_verdict(row: Mapping[str, Any]) -> str:
    """A family pair in words: "ahead"/"behind" (the net score's interval excludes 0 and the
    champion-level sign test agrees at ALPHA), "level" (the interval within +-LEVEL_MARGIN) or
    "not separated"."""
    low, high = row["net_ci_low"], row["net_ci_high"]
    if not (math.isfinite(low) and math.isfinite(high)):
        return "not separated"
    decided = row["sign_p"] < ALPHA or bool(row.get("fixed_pair"))  # two builtins: their games decide
    if decided and (low > 0 or high < 0):
        return "ahead" if low > 0 else "behind"
    if -LEVEL_MARGIN <= low and high <= LEVEL_MARGIN:
        return "level"
    return "not separated"


def matrices(family_rows: Sequence[Mapping[str, Any]], order: Sequence[str], key: str = "win_rate"):
    """``(value, ci_low, ci_high)`` matrices, row family vs column family, NaN where absent."""
    index = {f: i for i, f in enumerate(order)}
    shape = (len(order), len(order))
    value, low, high = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
    for row in family_rows:
        i, j = index[row["family"]], index[row["opponent_family"]]
        value[i, j], low[i, j], high[i, j] = row[key], row["ci_low"], row["ci_high"]
    return value, low, high
