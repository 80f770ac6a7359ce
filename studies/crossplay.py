"""Cross-play: every champion against every other, all pairings in one batched tournament.

``games.match.round_robin`` plays one pair per chunk, which is right for a handful of players
but not for hundreds of champions meeting a couple of games per pairing.  Here every game of
every pairing is one *row* of a single batch: seat 0 and seat 1 are each a
:class:`GroupedStack` of all champions (players of a kind that can be stacked, such as table
policies, are evaluated together by fancy indexing) and ``members[row]`` picks who sits where.
Rows are cut into fixed chunks before anything runs and each chunk has its own random stream
(``SeedSequence.spawn``), so results are identical for any ``--jobs``; seats are swapped in
half of each pairing's games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.parallel import chunk_sizes, run_tasks
from games.arena import Seat, play_games
from games.base import Game, Outcome
from games.players import Player

DEFAULT_CHUNK = 20_000


class GroupedStack(Player):
    """Many players behind one seat: ``members[i]`` (a global index) picks game ``i``'s player.

    Players whose class offers ``stack(players)`` are stacked per class, so a hundred table
    policies cost one fancy-indexed lookup per decision; the others act on their own rows.
    """

    kind = "grouped-stack"

    def __init__(self, players: Sequence[Player]):
        super().__init__("grouped")
        self.n_members = len(players)
        by_class: dict[type, list[int]] = {}
        for index, player in enumerate(players):
            stackable = callable(getattr(type(player), "stack", None))
            key = type(player) if stackable else index  # unstackable: a group of its own
            by_class.setdefault(key, []).append(index)
        self.groups: list[Player] = []
        self.group_of = np.empty(len(players), dtype=np.int64)
        self.local = np.empty(len(players), dtype=np.int64)
        for number, indices in enumerate(by_class.values()):
            members = [players[i] for i in indices]
            first = members[0]
            self.groups.append(type(first).stack(members) if callable(getattr(type(first), "stack", None))
                               else first)
            self.group_of[indices] = number
            self.local[indices] = np.arange(len(indices))

    def begin(self, game, n, members, rng):
        members = np.zeros(n, dtype=np.int64) if members is None else np.asarray(members)
        group = self.group_of[members]
        rows = [np.flatnonzero(group == g) for g in range(len(self.groups))]
        memories = [p.begin(game, len(r), self.local[members[r]], rng) if len(r) else None
                    for p, r in zip(self.groups, rows)]
        position = np.empty(n, dtype=np.int64)
        for r in rows:
            position[r] = np.arange(len(r))
        return group, position, memories, rows

    def act(self, obs, memory, rows, rng):
        group, position, memories, _ = memory
        row_ids = np.arange(len(group)) if rows is None else np.asarray(rows)
        acting = group[row_ids]
        actions = np.empty(obs.n, dtype=np.int64)
        for g, player in enumerate(self.groups):
            local = np.flatnonzero(acting == g)
            if len(local) == obs.n and rows is None:
                actions[:] = player.act(obs, memories[g], None, rng)
            elif len(local):
                actions[local] = player.act(obs.subset(local), memories[g], position[row_ids[local]], rng)
        return actions

    def finish(self, memory, outcome, seat):
        _, _, memories, rows = memory
        for player, mem, r in zip(self.groups, memories, rows):
            if len(r):
                player.finish(mem, Outcome(outcome.scores[r], outcome.rewards[r]), seat)


@dataclass
class CrossplayResult:
    """Raw cross-play counts: pairing ``k`` is champion ``pairs[k, 0]`` against
    ``pairs[k, 1]`` over ``games_per_pairing`` games, counted from the first one's side."""

    labels: list[str]
    families: list[str]
    replicates: list[int]
    pairs: np.ndarray
    games_per_pairing: int
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray

    def to_json(self) -> dict[str, Any]:
        return {
            "labels": self.labels, "families": self.families, "replicates": self.replicates,
            "games_per_pairing": self.games_per_pairing,
            "pairs": self.pairs.tolist(), "wins": self.wins.tolist(),
            "draws": self.draws.tolist(), "losses": self.losses.tolist(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "CrossplayResult":
        from fsmarena.fileio import Fields

        f = Fields(data, "cross-play file")
        labels = f.get("labels", list)
        n = len(labels)
        pairs = f.int_array("pairs", (len(f.get("pairs", list)), 2), 0, max(n, 1))
        g = f.get("games_per_pairing", int)
        counts = [f.int_array(k, (len(pairs),), 0, g + 1) for k in ("wins", "draws", "losses")]
        if np.any(counts[0] + counts[1] + counts[2] != g):
            raise f.fail("wins + draws + losses must equal games_per_pairing")
        return cls(labels, f.get("families", list), f.get("replicates", list), pairs, g, *counts)


def games_per_pairing(families: Sequence[str], needed: int) -> int:
    """Even number of games per pairing so that every family pair (and every family with
    itself, across replicates) gets at least ``needed`` games in total."""
    sizes: dict[str, int] = {}
    for family in families:
        sizes[family] = sizes.get(family, 0) + 1
    fewest = math.inf
    names = list(sizes)
    for a_index, a in enumerate(names):
        for b in names[a_index:]:
            pairings = sizes[a] * sizes[b] if a != b else sizes[a] * (sizes[a] - 1) // 2
            if pairings:
                fewest = min(fewest, pairings)
    if fewest is math.inf:
        raise FsmarenaError("cross-play needs at least two champions")
    per = math.ceil(needed / fewest)
    return max(2, per + per % 2)


@dataclass(frozen=True)
class _Chunk:
    game: Game
    stack: GroupedStack
    seat0: np.ndarray
    seat1: np.ndarray
    seed: np.random.SeedSequence


def _play_chunk(chunk: _Chunk) -> np.ndarray:
    rng = np.random.default_rng(chunk.seed)
    outcome = play_games(chunk.game, [Seat(chunk.stack, chunk.seat0), Seat(chunk.stack, chunk.seat1)],
                         len(chunk.seat0), rng)
    return outcome.rewards[:, 0].astype(np.int8)


def crossplay(game: Game, players: Sequence[Player], families: Sequence[str], replicates: Sequence[int],
              games_each: int, seed: np.random.SeedSequence, jobs: int = 1,
              chunk: int = DEFAULT_CHUNK, desc: str | None = "cross-play") -> CrossplayResult:
    """Every pair of ``players`` (i < j) meets over ``games_each`` games (even; seats swapped
    in half of them).  Two-player games only."""
    if game.n_seats != 2:
        raise FsmarenaError("cross-play is defined for two-player games")
    if games_each <= 0 or games_each % 2:
        raise FsmarenaError(f"games per pairing must be a positive even number, got {games_each}")
    n = len(players)
    i, j = np.triu_indices(n, k=1)
    pairs = np.stack([i, j], axis=1).astype(np.int64)
    half = games_each // 2
    # rows: pairing-major; the first half of each pairing's games has i in seat 0
    pairing = np.repeat(np.arange(len(pairs)), games_each)
    i_first = np.tile(np.r_[np.ones(half, bool), np.zeros(half, bool)], len(pairs))
    a, b = pairs[pairing, 0], pairs[pairing, 1]
    seat0 = np.where(i_first, a, b)
    seat1 = np.where(i_first, b, a)
    stack = GroupedStack(players)
    sizes = chunk_sizes(len(pairing), chunk)
    seeds = seed.spawn(len(sizes))
    starts = np.cumsum([0] + sizes)
    tasks = [_Chunk(game, stack, seat0[s:e], seat1[s:e], child)
             for s, e, child in zip(starts[:-1], starts[1:], seeds)]
    results = run_tasks(_play_chunk, tasks, jobs, desc, weights=sizes, unit="game")
    seat0_reward = np.concatenate(results) if results else np.zeros(0, np.int8)
    reward_i = np.where(i_first, seat0_reward, -seat0_reward)
    count = len(pairs)
    wins = np.bincount(pairing, weights=reward_i > 0, minlength=count).astype(np.int64)
    draws = np.bincount(pairing, weights=reward_i == 0, minlength=count).astype(np.int64)
    losses = games_each - wins - draws
    return CrossplayResult([p.label for p in players], list(families), [int(r) for r in replicates],
                           pairs, games_each, wins, draws, losses)
