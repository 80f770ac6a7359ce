"""A league for games of any number of seats: every player against copies of every other.

:mod:`fsmarena.games.crossplay` seats two champions face to face.  With ``S >= 2`` seats, "A against
B" means A in one seat and copies of B in all the others (as :func:`fsmarena.games.match.round_robin`
and the evolution protocols do); game ``k`` of a pairing puts A in seat ``k mod S``, so A
sits in every seat equally often.  Entrants belong to *groups* (a study's competitor family
with its replicates, or a single builtin); each ordered pair of different groups gets enough
games per pairing of their members that the pooled group-vs-group rate rests on at least
``needed`` games.  Every game of every pairing is one row of a single batched tournament
(:class:`~games.players.GroupedStack` in every seat, ``members[row]`` choosing who sits
where), cut into fixed chunks with their own random streams by the one chunked runner
(:mod:`fsmarena.games.runner`): identical for any ``--jobs``.

Counts per pairing, from A's side: ``wins`` (A the sole winner), ``draws`` (A shares first
place), ``losses``, and ``other_wins`` (one of B's copies the sole winner).  The *advantage*
of A over B is A's sole-win rate minus the sole-win rate of one of B's seats,
``(wins - other_wins / (S - 1)) / games``; with two seats it is wins minus losses per game,
the cross-play's net advantage.  A *beats* B when the 95% interval of the advantage lies
above zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields
from fsmarena.games.base import Game
from fsmarena.games.players import GroupedStack, Player
from fsmarena.games.runner import Block, concatenated, play_blocks, rewards_int8
from fsmarena.games.stats import Z95

DEFAULT_CHUNK = 20_000
COUNTS = ("games", "wins", "draws", "losses", "other_wins")


@dataclass
class LeagueResult:
    """Raw counts: pairing ``k`` is entrant ``first[k]`` against copies of ``other[k]``."""

    labels: list[str]
    groups: list[str]
    seats: int
    first: np.ndarray
    other: np.ndarray
    games: np.ndarray
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray
    other_wins: np.ndarray

    def to_json(self) -> dict[str, Any]:
        return {
            "labels": self.labels,
            "groups": self.groups,
            "seats": self.seats,
            "first": self.first.tolist(),
            "other": self.other.tolist(),
            **{k: getattr(self, k).tolist() for k in COUNTS},
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "league file") -> "LeagueResult":
        f = Fields(data, source)
        labels, groups = f.get("labels", list), f.get("groups", list)
        if len(labels) != len(groups) or not all(isinstance(x, str) for x in labels + groups):
            raise f.fail("labels and groups must be lists of strings of the same length")
        seats = f.int_in("seats", 2, 64)
        count = len(f.get("first", list))
        first = f.int_array("first", (count,), 0, max(len(labels), 1))
        other = f.int_array("other", (count,), 0, max(len(labels), 1))
        counts = {k: f.int_array(k, (count,), 0, 2**40) for k in COUNTS}
        if np.any(counts["wins"] + counts["draws"] + counts["losses"] != counts["games"]) or np.any(
            counts["other_wins"] > counts["losses"]
        ):
            raise f.fail("inconsistent counts (wins + draws + losses must equal games, other_wins <= losses)")
        return cls(labels, groups, seats, first, other, **counts)


def advantage_interval(
    wins: int, other_wins: int, games: int, seats: int, z: float = Z95
) -> tuple[float, float, float]:
    """A's advantage over one of B's seats per game (module docstring) and its normal 95%
    interval, clipped to the possible range: the per-game value is 1 (A sole winner),
    -1 / (S - 1) (a B copy) or 0."""
    if games == 0:
        return (math.nan, math.nan, math.nan)
    share = 1.0 / (seats - 1)
    mean = (wins - share * other_wins) / games
    second = (wins + share * share * other_wins) / games
    half = z * math.sqrt(max(0.0, second - mean * mean) / games)
    return (mean, max(-share, mean - half), min(1.0, mean + half))


def pairings(groups: Sequence[str], needed: int, seats: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(first, other, games)`` for every ordered pair of entrants of different groups, group
    pair by group pair in order of first appearance: the smallest multiple of ``seats`` per
    pairing that gives each group pair at least ``needed`` games."""
    names = list(dict.fromkeys(groups))
    members = {g: [i for i, x in enumerate(groups) if x == g] for g in names}
    first, other, games = [], [], []
    for g in names:
        for h in names:
            if g == h:
                continue
            per = -(-needed // (len(members[g]) * len(members[h])))
            per = max(seats, -(-per // seats) * seats)
            for a in members[g]:
                for b in members[h]:
                    first.append(a)
                    other.append(b)
                    games.append(per)
    if not first:
        raise FsmarenaError("a league needs entrants of at least two groups")
    return np.array(first, np.int64), np.array(other, np.int64), np.array(games, np.int64)


def league(
    game: Game,
    players: Sequence[Player],
    groups: Sequence[str],
    needed: int,
    seed: np.random.SeedSequence,
    jobs: int = 1,
    chunk: int = DEFAULT_CHUNK,
    desc: str | None = "league",
) -> LeagueResult:
    """Every entrant against copies of every entrant of another group (module docstring)."""
    seats = game.n_seats
    if seats < 2:
        raise FsmarenaError("a league needs a game of at least two seats")
    if len(players) != len(groups):
        raise FsmarenaError("one group name per player")
    first, other, games = pairings(groups, needed, seats)
    pairing = np.repeat(np.arange(len(first)), games)
    offset = np.arange(len(pairing)) - np.repeat(np.cumsum(games) - games, games)
    single_seat = offset % seats
    members = tuple(np.where(single_seat == s, first[pairing], other[pairing]) for s in range(seats))
    results = play_blocks(
        game,
        [(seed, [Block(members, len(pairing))])],
        rewards_int8,
        stack=GroupedStack(players),
        jobs=jobs,
        chunk=chunk,
        desc=desc,
    )
    rewards = concatenated(results, seats)
    rows = np.arange(len(pairing))
    mine = rewards[rows, single_seat]
    theirs = np.where(np.arange(seats)[None, :] == single_seat[:, None], 0, rewards).max(axis=1) > 0
    count = len(first)

    def tally(flags: np.ndarray) -> np.ndarray:
        return np.bincount(pairing, weights=flags, minlength=count).astype(np.int64)

    return LeagueResult(
        [p.label for p in players],
        list(groups),
        seats,
        first,
        other,
        games,
        tally(mine > 0),
        tally(mine == 0),
        tally(mine < 0),
        tally(theirs),
    )
