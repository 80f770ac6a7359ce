"""Matches and round-robin tournaments, chunked and parallel, reproducible for any ``--jobs``.

A match of A against B plays ``games`` games with A in each seat equally often (two-player
games: seats swapped in half of them; more seats: B fills the other seats); a one-player game
just measures A's score.  Games are cut into chunks before anything runs and every chunk has
its own random stream (``SeedSequence(seed).spawn``), so the result is bit-identical for any
number of processes.  Chunks only return running sums, so ten million games run in bounded
memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game, Outcome
from fsmarena.games.players import Player
from fsmarena.games.runner import Block, Chunk, play_blocks
from fsmarena.games.stats import mean_interval, wilson_interval
from fsmarena.parallel import spawn

DEFAULT_CHUNK = 50_000


@dataclass
class MatchStats:
    """Running sums of a match from A's side (mergeable across chunks)."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    score: float = 0.0
    score_sq: float = 0.0
    opp_score: float = 0.0
    seconds: float = 0.0

    def add(self, other: "MatchStats") -> "MatchStats":
        for name in ("games", "wins", "draws", "losses", "score", "score_sq", "opp_score", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else float("nan")

    def to_dict(self, one_player: bool = False) -> dict[str, Any]:
        """The ``play --json`` fields (DESIGN.md's contract)."""
        n = self.games
        rate = n / self.seconds if self.seconds > 0 else None
        if one_player:
            return {
                "games": n,
                "mean_score": self.score / n if n else None,
                "score_ci95": list(mean_interval(self.score, self.score_sq, n)),
                "games_per_second": rate,
            }
        return {
            "games": n,
            "win": self.wins / n,
            "draw": self.draws / n,
            "loss": self.losses / n,
            "score": self.score / n,
            "opp_score": self.opp_score / n,
            "win_ci95": list(wilson_interval(self.wins, n)),
            "score_ci95": list(mean_interval(self.score, self.score_sq, n)),
            "games_per_second": rate,
        }


def _stats(outcome: Outcome, chunk: Chunk, seconds: float) -> MatchStats:
    """A chunk's running sums from the side of A, who sits in seat ``chunk.tag``."""
    a = chunk.tag
    reward = outcome.rewards[:, a]
    score = outcome.scores[:, a]
    others = np.delete(outcome.scores, a, axis=1)
    return MatchStats(
        games=chunk.games,
        wins=int(np.count_nonzero(reward > 0)),
        draws=int(np.count_nonzero(reward == 0)),
        losses=int(np.count_nonzero(reward < 0)),
        score=float(score.sum()),
        score_sq=float(np.square(score).sum()),
        opp_score=float(others.mean(axis=1).sum()) if others.shape[1] else 0.0,
        seconds=seconds,
    )


def _check_games(games: int) -> None:
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games <= 0:
        raise FsmarenaError(f"the number of games must be a positive integer, got {games}")


def _match_blocks(game: Game, a: Player, b: Player | None, games: int) -> list[Block]:
    """A in each seat for an equal share of the games (B in the other seats), one block per
    seat of A, tagged with that seat."""
    seats = game.n_seats
    if seats > 1 and b is None:
        raise FsmarenaError(f"{game.name} is a {seats}-player game: give an opponent")
    other = a if b is None else b  # (one-player games never seat it)
    per_seat = [games // seats + (1 if s < games % seats else 0) for s in range(seats)]
    return [
        Block(tuple(a if s == a_seat else other for s in range(seats)), per_seat[a_seat], tag=a_seat)
        for a_seat in range(seats)
    ]


def play_match(
    game: Game,
    a: Player,
    b: Player | None,
    games: int,
    seed: int | np.random.SeedSequence,
    jobs: int = 1,
    chunk: int = DEFAULT_CHUNK,
    desc: str | None = None,
) -> MatchStats:
    """A against B (or A alone in a one-player game) over ``games`` games, seats rotated."""
    _check_games(games)
    groups = [(spawn(seed, 1)[0], _match_blocks(game, a, b, games))]
    total = MatchStats()
    for result in play_blocks(game, groups, _stats, jobs=jobs, chunk=chunk, desc=desc):
        total.add(result.value)
    return total


@dataclass
class TournamentResult:
    """A round robin: ``pairs[(i, j)]`` is the match of player i against player j (i's side).

    In a two-player game one match per unordered pair serves both directions (j's wins are
    i's losses).  With three or more seats "i against j" means i against copies of j, which
    is a different game from j against copies of i, so every ordered pair is its own match.
    """

    labels: list[str]
    pairs: dict[tuple[int, int], MatchStats] = field(default_factory=dict)
    one_player: bool = False
    mirrored: bool = True

    def ordered(self) -> dict[tuple[int, int], MatchStats]:
        """Every ordered pair's stats from the first player's side."""
        out = dict(self.pairs)
        if self.mirrored:
            out.update({(j, i): _reverse(stats) for (i, j), stats in self.pairs.items() if i != j})
        return out

    def win_matrix(self) -> np.ndarray:
        """``W[i, j]`` = i's win rate against j (NaN on the diagonal)."""
        n = len(self.labels)
        matrix = np.full((n, n), np.nan)
        for (i, j), stats in self.ordered().items():
            matrix[i, j] = stats.wins / stats.games
        return matrix

    def rows(self) -> list[dict[str, Any]]:
        """One row per ordered pair, for CSV and JSON output."""
        return [
            {"player": self.labels[i], "opponent": self.labels[j], **stats.to_dict()}
            for (i, j), stats in sorted(self.ordered().items())
        ]


def _reverse(stats: MatchStats) -> MatchStats:
    """The same two-player match seen from the other side (score sums of squares are not
    tracked for the opponent, so its score interval is not reported)."""
    return MatchStats(
        games=stats.games,
        wins=stats.losses,
        draws=stats.draws,
        losses=stats.wins,
        score=stats.opp_score,
        score_sq=float("nan"),
        opp_score=stats.score,
        seconds=stats.seconds,
    )


def round_robin(
    game: Game,
    players: Sequence[Player],
    games_per_pair: int,
    seed: int,
    jobs: int = 1,
    chunk: int = DEFAULT_CHUNK,
    desc: str | None = "tournament",
) -> TournamentResult:
    """Every pair of ``players`` meets once over ``games_per_pair`` games (seats rotated).

    For a one-player game each player is measured alone (``pairs[(i, i)]``).
    """
    _check_games(games_per_pair)
    if len(players) < 2 and game.n_seats > 1:
        raise FsmarenaError("a tournament needs at least two players")
    labels = _unique_labels([p.label for p in players])
    count = len(players)
    if game.n_seats == 1:
        pairs = [(i, i) for i in range(count)]
    elif game.n_seats == 2:
        pairs = [(i, j) for i in range(count) for j in range(i + 1, count)]
    else:
        pairs = [(i, j) for i in range(count) for j in range(count) if i != j]
    groups = [
        (child, _match_blocks(game, players[i], None if game.n_seats == 1 else players[j], games_per_pair))
        for (i, j), child in zip(pairs, spawn(seed, len(pairs)))
    ]
    result = TournamentResult(labels, one_player=game.n_seats == 1, mirrored=game.n_seats == 2)
    for chunk_result in play_blocks(game, groups, _stats, jobs=jobs, chunk=chunk, desc=desc):
        result.pairs.setdefault(pairs[chunk_result.group], MatchStats()).add(chunk_result.value)
    return result


def _unique_labels(labels: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return out
