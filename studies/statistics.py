"""Statistics of a study: intervals per method, pairwise tests with effect sizes, cross-play tables.

* Per method: the mean of the replicates' outcomes with a 95% Student-t interval (replicates
  are the independent units; games within a replicate are not).
* Between methods: two-sided Mann-Whitney U on the replicate outcomes (scipy), the
  Vargha-Delaney effect size A = P(X > Y) + P(X = Y) / 2 (0.5 = no difference; 0.56, 0.64 and
  0.71 are the conventional small, medium and large thresholds) and the rank-biserial
  correlation 2A - 1, with p-values Holm-corrected within each family of tests.
* Cross-play: family-vs-family win rates pooled over every pairing of their champions, with
  Wilson intervals over games, the net advantage (wins - losses) / games with its interval, and
  the spread over champions (each champion's rate against the whole other family).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence, Union

import numpy as np
from scipy import stats as sps

from games.stats import Z95, wilson_interval
from studies.crossplay import CrossplayResult

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
    groups: Mapping[str, Sequence[float]], opponent: str = "", bounds: tuple[float, float] = (0.0, 1.0)
) -> list[dict[str, Any]]:
    """One row per method: replicates, mean with 95% CI, median, quartiles, min, max.

    The interval is clipped to ``bounds`` (rates cannot leave [0, 1]; with few replicates
    the t-interval can).
    """
    rows = []
    for method, values in groups.items():
        x = np.asarray(values, float)
        mean, low, high = mean_ci(x)
        low, high = max(low, bounds[0]), min(high, bounds[1])
        q1, median, q3 = np.percentile(x, [25, 50, 75]) if len(x) else (math.nan,) * 3
        rows.append(
            {
                "opponent": opponent,
                "method": method,
                "replicates": len(x),
                "mean": mean,
                "ci_low": low,
                "ci_high": high,
                "median": float(median),
                "q1": float(q1),
                "q3": float(q3),
                "min": float(x.min()) if len(x) else math.nan,
                "max": float(x.max()) if len(x) else math.nan,
            }
        )
    return rows


def pairwise(groups: Mapping[str, Sequence[float]], opponent: str = "") -> list[dict[str, Any]]:
    """Every pair of methods: Mann-Whitney U, A12, rank-biserial, Holm-adjusted p (this family)."""
    names = list(groups)
    rows: list[dict[str, Any]] = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            test = mann_whitney(groups[a], groups[b])
            rows.append(
                {
                    "opponent": opponent,
                    "method_a": a,
                    "method_b": b,
                    "median_a": float(np.median(groups[a])) if len(groups[a]) else math.nan,
                    "median_b": float(np.median(groups[b])) if len(groups[b]) else math.nan,
                    **test,
                }
            )
    for row, adjusted in zip(rows, holm([r["p"] for r in rows])):
        row["p_holm"] = adjusted
        row["effect"] = effect_words(row["a12"])
    return rows


def net_interval(wins: int, draws: int, losses: int, z: float = Z95) -> tuple[float, float, float]:
    """(wins - losses) / games and its normal interval (per-game outcome in {+1, 0, -1})."""
    n = wins + draws + losses
    if n == 0:
        return (math.nan, math.nan, math.nan)
    pw, pl = wins / n, losses / n
    net = pw - pl
    half = z * math.sqrt(max(0.0, pw + pl - net * net) / n)
    return (net, net - half, net + half)


def crossplay_tables(result: CrossplayResult, order: Sequence[str]) -> tuple[list[dict], list[dict]]:
    """Family-vs-family rows (pooled over pairings) and champion-vs-family rows.

    A family against itself pools the pairings of its champions across replicates, each game
    counted once, from the side of the champion listed first.
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
                    }
                )
    family_rows = []
    for a in order:
        for b in order:
            forward = (fam[first] == a) & (fam[second] == b)
            backward = (fam[first] == b) & (fam[second] == a) & (a != b)
            wins = int(result.wins[forward].sum() + result.losses[backward].sum())
            losses = int(result.losses[forward].sum() + result.wins[backward].sum())
            games = int(result.games[forward].sum() + result.games[backward].sum())
            if not games:
                continue
            draws = games - wins - losses
            low, high = wilson_interval(wins, games)
            net, net_low, net_high = net_interval(wins, draws, losses)
            spread = np.array([r["win_rate"] for r in champion_rows if r["family"] == a and r["opponent_family"] == b])
            q1, median, q3 = np.percentile(spread, [25, 50, 75])
            family_rows.append(
                {
                    "family": a,
                    "opponent_family": b,
                    "pairings": int(forward.sum() + backward.sum()),
                    "games": games,
                    "wins": wins,
                    "draws": draws,
                    "losses": losses,
                    "win_rate": wins / games,
                    "ci_low": low,
                    "ci_high": high,
                    "loss_rate": losses / games,
                    "net": net,
                    "net_ci_low": net_low,
                    "net_ci_high": net_high,
                    "champions": len(spread),
                    "champion_median": float(median),
                    "champion_q1": float(q1),
                    "champion_q3": float(q3),
                    "champion_min": float(spread.min()),
                    "champion_max": float(spread.max()),
                }
            )
    return family_rows, champion_rows


def matrices(family_rows: Sequence[Mapping[str, Any]], order: Sequence[str], key: str = "win_rate"):
    """``(value, ci_low, ci_high)`` matrices, row family vs column family, NaN where absent."""
    index = {f: i for i, f in enumerate(order)}
    shape = (len(order), len(order))
    value, low, high = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
    for row in family_rows:
        i, j = index[row["family"]], index[row["opponent_family"]]
        value[i, j], low[i, j], high[i, j] = row[key], row["ci_low"], row["ci_high"]
    return value, low, high
