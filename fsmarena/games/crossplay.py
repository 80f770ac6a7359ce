"""Cross-play: every champion against every other, all pairings in one batched tournament.

``fsmarena.games.match.round_robin`` plays one pair per block, which is right for a handful of players
but not for hundreds of champions meeting a couple of games per pairing.  Here every game of
every pairing is one *row* of a single batch: seat 0 and seat 1 are each a
:class:`~games.players.GroupedStack` of all champions (players of one kind are evaluated
together by fancy indexing) and ``members[row]`` picks who sits where.  Each family pair gets
its own number of games per pairing, so that every pooled family-vs-family rate reaches the
same precision whatever the numbers of replicates.
Rows are cut into fixed chunks by the one chunked runner (:mod:`fsmarena.games.runner`), each chunk with
its own random stream (``SeedSequence.spawn``), so results are identical for any ``--jobs``; seats are swapped in
half of each pairing's games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields
from fsmarena.games.base import Game
from fsmarena.games.players import GroupedStack, Player
from fsmarena.games.runner import Block, concatenated, play_blocks, rewards_int8

DEFAULT_CHUNK = 20_000


@dataclass
class CrossplayResult:
    """Raw cross-play counts: pairing ``k`` is champion ``pairs[k, 0]`` against
    ``pairs[k, 1]`` over ``games[k]`` games, counted from the first one's side."""

    labels: list[str]
    families: list[str]
    replicates: list[int]
    pairs: np.ndarray
    games: np.ndarray
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray

    def to_json(self) -> dict[str, Any]:
        """The counts as JSON.  ``pairs`` is left out when it is every pairing i < j in
        ``numpy.triu_indices`` order (what :func:`crossplay` plays), which a reader rebuilds from
        the labels: at 1,220 champions the list took 1.7 MB of a 2.2 MB compressed stage."""
        data: dict[str, Any] = {"labels": self.labels, "families": self.families, "replicates": self.replicates}
        if not np.array_equal(self.pairs, every_pairing(len(self.labels))):
            data["pairs"] = self.pairs.tolist()
        return data | {
            "games": self.games.tolist(),
            "wins": self.wins.tolist(),
            "draws": self.draws.tolist(),
            "losses": self.losses.tolist(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], source: str = "cross-play file") -> "CrossplayResult":
        f = Fields(data, source)
        labels = f.get("labels", list)
        n = len(labels)
        if "pairs" in data:
            count = len(f.get("pairs", list))
            pairs = f.int_array("pairs", (count, 2), 0, max(n, 1))
        else:  # every pairing: as many counts as pairings, checked before the pairings are built
            count = n * (n - 1) // 2
            if len(f.get("games", list)) != count:
                raise f.fail(f"without 'pairs', {n} champions need {count} counts of every pairing")
            pairs = every_pairing(n)
        games = f.int_array("games", (count,), 1, 2**31)
        counts = [f.int_array(k, (count,), 0, 2**31) for k in ("wins", "draws", "losses")]
        if np.any(counts[0] + counts[1] + counts[2] != games):
            raise f.fail("wins + draws + losses must equal games for every pairing")
        families, replicates = f.get("families", list), f.get("replicates", list)
        if len(families) != n or len(replicates) != n:
            raise f.fail("labels, families and replicates differ in length")
        return cls(labels, families, replicates, pairs, games, *counts)


def every_pairing(n: int) -> np.ndarray:
    """Every pairing of ``n`` champions, i < j in ``numpy.triu_indices`` order, one row each."""
    i, j = np.triu_indices(n, k=1)
    return np.stack([i, j], axis=1).astype(np.int64)


def pairing_games(families: Sequence[str], needed: int) -> np.ndarray:
    """Games for every pairing (i < j, in ``numpy.triu_indices`` order): for each family pair,
    the smallest even number per pairing that gives the pair at least ``needed`` games in
    total (a family with itself: its champions' pairings across replicates), at least 2."""
    fam = np.asarray(families)
    names, codes = np.unique(fam, return_inverse=True)
    sizes = np.bincount(codes, minlength=len(names))
    i, j = np.triu_indices(len(fam), k=1)
    if not len(i):
        raise FsmarenaError("cross-play needs at least two champions")
    a, b = codes[i], codes[j]
    pairings = np.where(a == b, sizes[a] * (sizes[a] - 1) // 2, sizes[a] * sizes[b])
    per = -(-needed // pairings)  # ceiling division
    return np.maximum(2, per + per % 2).astype(np.int64)


def crossplay(
    game: Game,
    players: Sequence[Player],
    families: Sequence[str],
    replicates: Sequence[int],
    games: np.ndarray,
    seed: np.random.SeedSequence,
    jobs: int = 1,
    chunk: int = DEFAULT_CHUNK,
    desc: str | None = "cross-play",
) -> CrossplayResult:
    """Every pair of ``players`` (i < j, ``numpy.triu_indices`` order) meets over ``games[k]``
    games (even; seats swapped in half of them).  Two-player games only."""
    if game.n_seats != 2:
        raise FsmarenaError("cross-play is defined for two-player games")
    pairs = every_pairing(len(players))
    games = np.asarray(games, dtype=np.int64)
    if games.shape != (len(pairs),) or np.any(games <= 0) or np.any(games % 2):
        raise FsmarenaError("games per pairing must be positive even numbers, one per pairing")
    # rows: pairing-major; the first half of each pairing's games has its first champion in seat 0
    pairing = np.repeat(np.arange(len(pairs)), games)
    offset = np.arange(len(pairing)) - np.repeat(np.cumsum(games) - games, games)
    i_first = offset < np.repeat(games // 2, games)
    a, b = pairs[pairing, 0], pairs[pairing, 1]
    seat0 = np.where(i_first, a, b)
    seat1 = np.where(i_first, b, a)
    results = play_blocks(
        game,
        [(seed, [Block((seat0, seat1), len(pairing))])],
        rewards_int8,
        stack=GroupedStack(players),
        jobs=jobs,
        chunk=chunk,
        desc=desc,
    )
    seat0_reward = concatenated(results, 2)[:, 0]
    reward_i = np.where(i_first, seat0_reward, -seat0_reward)
    count = len(pairs)
    wins = np.bincount(pairing, weights=reward_i > 0, minlength=count).astype(np.int64)
    draws = np.bincount(pairing, weights=reward_i == 0, minlength=count).astype(np.int64)
    losses = games - wins - draws
    return CrossplayResult(
        [p.label for p in players], list(families), [int(r) for r in replicates], pairs, games, wins, draws, losses
    )
