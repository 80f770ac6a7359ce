"""The tables of a multi-seat league, with the champion as the unit of every family claim.

From a league (:mod:`fsmarena.games.multiseat`: every champion, every builtin and the *field* against
copies of each other; "A against B" = A against ``n - 1`` copies of B), per player count:

* ``league``: every ordered pair of groups, with the counts pooled over their pairings and the
  mean win rate and advantage over the pairings.  Its interval says what the rows are samples
  of (column ``unit``): the champions of a family are samples of what training gives, so a
  family's interval resamples its champions, both families' independently when both are
  families (the two-way cluster interval of the cross-play, :mod:`fsmarena.stats.inference`); only
  between two fixed players (two builtins, or a builtin and the field) is it the games' Wilson
  (win rate) or normal (advantage) interval.  A group *beats* another when the advantage's
  interval lies above zero.
* ``champions``: every champion against every builtin and the field (one fixed pair of players:
  an interval over its games), with whether the builtin was a training opponent (*seen*).
* ``reference``: each group against the reference builtin head to head, against the field, and
  its mean win rate over the other builtins beside the reference's own mean against them; a
  family's differences have intervals over its champions (the reference's rates, one fixed
  player's, are taken as given).
* ``generalisation``: per champion, its mean advantage over seen and unseen builtins;
  ``generalisation_summary`` (per family, over champions) and ``generalisation_tests``
  (Mann-Whitney and A12 on the unseen advantage, Holm over the study's declared questions).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from fsmarena.games.multiseat import COUNTS, LeagueResult, advantage_interval
from fsmarena.games.stats import Z95, wilson_interval
from fsmarena.methods.variants import training_opponents
from fsmarena.stats import comparisons as st
from fsmarena.stats import inference as inf
from fsmarena.studies.analysis import Analysis, declared_questions
from fsmarena.studies.runner import StudyData

FIELD = "field"
#: what a league row's interval resamples
UNITS = ("games", "champions", "champions of both")


@dataclass
class LeagueTables:
    """Every table of one player count's league, and what the text needs to read them."""

    n: int
    families: list[str]
    builtins: list[str]
    reference: str
    seen: dict[str, list[str]]
    league: list[dict[str, Any]]
    champions: list[dict[str, Any]]
    refs: list[dict[str, Any]]
    general: list[dict[str, Any]]
    summary: list[dict[str, Any]]
    tests: list[dict[str, Any]]
    seed: int
    #: the study's declared questions (pairs of competitor names)
    questions: tuple[tuple[str, str], ...] = ()
    pairs: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.pairs = {(r["group"], r["opponent"]): r for r in self.league}

    def csv_tables(self) -> dict[str, list[dict[str, Any]]]:
        """The tables by their file stem (``tables/<stem>.csv``)."""
        tag = f"{self.n}p"
        return {
            f"league_{tag}": self.league,
            f"champions_{tag}": self.champions,
            f"reference_{tag}": self.refs,
            f"generalisation_{tag}": self.general,
            f"generalisation_summary_{tag}": self.summary,
            f"generalisation_tests_{tag}": self.tests,
        }

    def champion_values(self, family: str, opponent: str, key: str) -> list[float]:
        """``key`` (``win_rate``, ``advantage``) of each champion of ``family`` against ``opponent``."""
        return [c[key] for c in self.champions if c["family"] == family and c["opponent"] == opponent]

    def champion_level(self, opponent: str, key: str = "advantage") -> dict[str, inf.Interval]:
        """Per family, the mean over its champions of ``key`` against ``opponent`` with its 95%
        interval over champions."""
        lowest = 0.0 if key == "win_rate" else -1.0 / (self.n - 1)
        return {
            f: _clipped(
                inf.mean_interval(
                    self.champion_values(f, opponent, key), inf.generator(self.seed, f"{self.n}p", key, opponent, f)
                ),
                lowest,
                1.0,
            )
            for f in self.families
        }


def league_tables(data: StudyData, analysis: Analysis, result: LeagueResult, reference: str) -> LeagueTables:
    """Every table of one player count (module docstring)."""
    plan = data.plan
    families = [c.label for c in plan.competitors]
    builtins = list(plan.study.panel)
    seen = {c.label: training_opponents(c.method, dict(c.params)) for c in plan.competitors}
    champions = champion_rows(data, result)
    league = group_rows(result, plan.seed)
    pairs = {(r["group"], r["opponent"]): r for r in league}
    general = generalisation_rows(champions)
    summary: list[dict[str, Any]] = []
    tests: list[dict[str, Any]] = []
    for part in ("seen", "unseen"):
        groups = {f: [r[f"{part}_advantage"] for r in general if r["family"] == f] for f in families}
        groups = {f: v for f, v in groups.items() if v and all(math.isfinite(x) for x in v)}
        summary += st.summarize(groups, part, bounds=(-1.0, 1.0), seed=plan.seed)
        if part == "unseen":
            tests = st.pairwise(groups, "unseen", declared_questions(plan.study, analysis.labels), plan.seed)
    refs = reference_rows(families, builtins, reference, pairs, champions, plan.seed)
    n = data.game.n_seats
    return LeagueTables(
        n,
        families,
        builtins,
        reference,
        seen,
        league,
        champions,
        refs,
        general,
        summary,
        tests,
        plan.seed,
        tuple(plan.study.questions),
    )


# ---- the league, pair of groups by pair of groups -------------------------------------------


def _pairing_matrix(values: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The per-pairing ``values`` as a matrix: members of the first group by members of the other."""
    row_ids, r = np.unique(rows, return_inverse=True)
    col_ids, c = np.unique(cols, return_inverse=True)
    matrix = np.full((len(row_ids), len(col_ids)), np.nan)
    matrix[r, c] = values
    return matrix


def group_interval(matrix: np.ndarray, rng: np.random.Generator) -> tuple[inf.Interval, str]:
    """The mean of a pairing matrix with the interval its samples allow (module docstring),
    and its unit; ``(NaN interval, "games")`` for one pair of fixed players (the caller has the
    games' interval)."""
    n_rows, n_cols = matrix.shape
    if n_rows >= 2 and n_cols >= 2:
        return inf.crossplay_inference(matrix, rng).net, "champions of both"
    if n_rows >= 2 or n_cols >= 2:
        return inf.mean_interval(matrix.ravel(), rng), "champions"
    return inf.NAN_INTERVAL, "games"


def group_rows(result: LeagueResult, seed: int) -> list[dict[str, Any]]:
    """One row per ordered pair of groups (module docstring): the pooled counts, the mean win
    rate and advantage over the pairings with their intervals, and whether the row's group beats
    the column's."""
    names = list(dict.fromkeys(result.groups))
    group = np.array([names.index(g) for g in result.groups])
    a, b = group[result.first], group[result.other]
    games = result.games.astype(float)
    win = result.wins / games
    advantage = (result.wins - result.other_wins / (result.seats - 1)) / games
    rows = []
    for i, g in enumerate(names):
        for j, h in enumerate(names):
            pick = (a == i) & (b == j)
            if not pick.any():
                continue
            c = {k: int(getattr(result, k)[pick].sum()) for k in COUNTS}
            first, other = result.first[pick], result.other[pick]
            rates = _pairing_matrix(win[pick], first, other)
            rate, unit = group_interval(rates, inf.generator(seed, "league", "win", g, h))
            above = int((np.nanmean(rates, axis=1) > 1.0 / result.seats).sum())  # members above a fair share
            adv, _ = group_interval(
                _pairing_matrix(advantage[pick], first, other), inf.generator(seed, "league", "advantage", g, h)
            )
            rate = _clipped(rate, 0.0, 1.0)
            adv = _clipped(adv, -1.0 / (result.seats - 1), 1.0)
            if unit == "games":
                low, high = wilson_interval(c["wins"], c["games"])
                value, adv_low, adv_high = advantage_interval(c["wins"], c["other_wins"], c["games"], result.seats)
                rate = inf.Interval(c["wins"] / c["games"], low, high)
                adv = inf.Interval(value, adv_low, adv_high, degenerate=adv_low == adv_high)
            rows.append(
                {
                    "group": g,
                    "opponent": h,
                    **c,
                    "pairings": int(pick.sum()),
                    "members": int(rates.shape[0]),
                    "members_above_fair_share": above,
                    "unit": unit,
                    "win_rate": rate.value,
                    "ci_low": rate.low,
                    "ci_high": rate.high,
                    "all_equal": rate.degenerate,
                    "other_seat_win_rate": c["other_wins"] / (result.seats - 1) / c["games"],
                    "advantage": adv.value,
                    "advantage_low": adv.low,
                    "advantage_high": adv.high,
                    "advantage_all_equal": adv.degenerate,
                    "beats": adv.low > 0,
                }
            )
    return rows


def _clipped(interval: inf.Interval, lowest: float, highest: float) -> inf.Interval:
    """An interval kept within the statistic's possible range (a Student-t interval over two
    champions can leave it)."""
    return inf.Interval(interval.value, max(interval.low, lowest), min(interval.high, highest), interval.degenerate)


# ---- champions --------------------------------------------------------------------------------


def champion_rows(data: StudyData, result: LeagueResult) -> list[dict[str, Any]]:
    """Every champion against every builtin and the field (its own games: one fixed pair of
    players), with the seen flag."""
    plan = data.plan
    label_of = {c.label: c for c in plan.competitors}
    builtins = set(plan.study.panel) | {FIELD}
    rows = []
    for k in range(len(result.first)):
        a, b = int(result.first[k]), int(result.other[k])
        family, opponent = result.groups[a], result.groups[b]
        if family not in label_of or opponent not in builtins:
            continue
        c = label_of[family]
        counts = {key: int(getattr(result, key)[k]) for key in COUNTS}
        adv, low, high = advantage_interval(counts["wins"], counts["other_wins"], counts["games"], result.seats)
        rows.append(
            {
                "champion": result.labels[a],
                "family": family,
                "competitor": c.name,
                "opponent": opponent,
                "seen": opponent in training_opponents(c.method, dict(c.params)),
                **counts,
                "win_rate": counts["wins"] / counts["games"],
                "advantage": adv,
                "advantage_low": low,
                "advantage_high": high,
                "beats": low > 0,
            }
        )
    return rows


def generalisation_rows(champions: Sequence[dict]) -> list[dict[str, Any]]:
    """Per champion: mean advantage and win rate over seen and unseen builtins, beats counts."""
    rows = []
    for who in dict.fromkeys(r["champion"] for r in champions):
        mine = [r for r in champions if r["champion"] == who and r["opponent"] != FIELD]
        row = {"champion": who, "family": mine[0]["family"], "competitor": mine[0]["competitor"]}
        for part, seen in (("seen", True), ("unseen", False)):
            chosen = [r for r in mine if r["seen"] == seen]
            row[f"{part}_opponents"] = len(chosen)
            row[f"{part}_advantage"] = float(np.mean([r["advantage"] for r in chosen])) if chosen else math.nan
            row[f"{part}_win_rate"] = float(np.mean([r["win_rate"] for r in chosen])) if chosen else math.nan
            row[f"{part}_beaten"] = sum(r["beats"] for r in chosen)
        row["beats_all_seen"] = row["seen_beaten"] == row["seen_opponents"]
        rows.append(row)
    return rows


# ---- the reference --------------------------------------------------------------------------


def reference_rows(
    families: Sequence[str],
    builtins: Sequence[str],
    reference: str,
    pairs: dict[tuple[str, str], dict],
    champions: Sequence[dict],
    seed: int,
) -> list[dict[str, Any]]:
    """Each family and builtin against the reference (head to head, the field, the other
    builtins), module docstring: a family's differences over its champions, a builtin's over
    its games."""
    rows = []
    for g in [*families, *builtins]:
        others = [b for b in builtins if b not in (g, reference)]
        ref_mean = float(np.mean([pairs[(reference, b)]["win_rate"] for b in others]))
        ref_field = pairs[(reference, FIELD)]["win_rate"]
        if g in families:
            mine = [c for c in champions if c["family"] == g]
            who = list(dict.fromkeys(c["champion"] for c in mine))
            means = [
                np.mean([c["win_rate"] for c in mine if c["champion"] == x and c["opponent"] in others]) for x in who
            ]
            fields = [next(c["win_rate"] for c in mine if c["champion"] == x and c["opponent"] == FIELD) for x in who]
            diff = inf.mean_interval(np.array(means) - ref_mean, inf.generator(seed, "reference", "builtins", g))
            field_diff = inf.mean_interval(np.array(fields) - ref_field, inf.generator(seed, "reference", FIELD, g))
            unit, units = "champions", len(who)
        else:
            diff = _fixed_difference([pairs[(g, b)] for b in others], [pairs[(reference, b)] for b in others])
            field_diff = _fixed_difference([pairs[(g, FIELD)]], [pairs[(reference, FIELD)]])
            unit, units = "games", 0
        head = pairs.get((g, reference))
        rows.append(
            {
                "group": g,
                "unit": unit,
                "units": units,
                "vs_reference_games": head["games"] if head else 0,
                **{
                    f"vs_reference_{k}": head[k] if head else math.nan
                    for k in ("win_rate", "ci_low", "ci_high", "advantage", "advantage_low", "advantage_high")
                },
                "vs_reference_all_equal": bool(head and head["all_equal"]),
                "vs_reference_advantage_all_equal": bool(head and head["advantage_all_equal"]),
                "field_win_rate": pairs[(g, FIELD)]["win_rate"],
                "field_difference": field_diff.value,
                "field_difference_low": field_diff.low,
                "field_difference_high": field_diff.high,
                "field_difference_all_equal": field_diff.degenerate,
                "opponents": " ".join(others),
                "mean_win_rate": diff.value + ref_mean,
                "reference_mean_win_rate": ref_mean,
                "difference": diff.value,
                "difference_low": diff.low,
                "difference_high": diff.high,
                "difference_all_equal": diff.degenerate,
            }
        )
    return rows


def _fixed_difference(mine: Sequence[dict], theirs: Sequence[dict]) -> inf.Interval:
    """Mean win rate of one fixed player's rows minus another's, with the games' normal 95%
    interval (the only sampling between fixed players is the games')."""
    rows = [*mine, *theirs]
    diff = float(np.mean([r["win_rate"] for r in mine]) - np.mean([r["win_rate"] for r in theirs]))
    var = sum(r["win_rate"] * (1 - r["win_rate"]) / r["games"] for r in rows) / len(mine) ** 2
    half = Z95 * math.sqrt(var)
    return inf.Interval(diff, diff - half, diff + half)
