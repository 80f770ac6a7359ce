"""Fingerprints: how a player fares against a two-parameter family of probe opponents.

After Ashlock's fingerprints of evolved game-playing agents: instead of reading a machine's
tables, measure what it does against a continuum of opponents.  The probes of a game are
mixtures of three of its builtin strategies ``A``, ``B`` and ``C`` (declared in the game's
``GameEntry.probes``): at every decision the probe plays like ``A`` with probability ``x``,
like ``B`` with probability ``(1 - x) y`` and like ``C`` otherwise, so the unit square
``(x, y)`` covers every mixture (``x = 1``: pure A; ``x = 0, y = 1``: pure B; ``x = y = 0``:
pure C).  Every component sees every decision, so builtins with memory stay consistent.

The fingerprint of a player is its win rate (share of games won) against the probe of every
point of a ``grid x grid`` lattice, with seats rotated.  A family of another shape declares it
by subclassing :class:`ProbeFamily` (its components, :meth:`ProbeFamily.probe` and its
``measure``): the iterated prisoner's dilemma's Ashlock probes, in its game folder, measure the
score per turn against the Joss-Ann transform of Tit For Tat, as Axelrod's library does.  The
whole lattice is one batch: the
probes share their three components, so they stack into one mixture whose weights differ
per game (:meth:`MixturePlayer.stack`), and every decision asks each component once for all
games of the lattice instead of once per point (for a game whose engine has a cost per
decision, such as 31, that is what makes a fingerprint cheap).  It works for any player
(table FSMs, BDAs, RL policies).  One-player games have no opponents and no fingerprint.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any, ClassVar, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game, Outcome
from fsmarena.games.players import GroupedStack, Player, resolve_player
from fsmarena.games.registry import entry
from fsmarena.games.runner import Block, Chunk, play_blocks
from fsmarena.parallel import spawn

#: lattice points per axis and games per point when nothing else is asked
DEFAULT_GRID = 5
DEFAULT_GAMES = 200


class MixturePlayer(Player):
    """At every decision, plays like ``players[k]`` with probability ``weights[k]``.

    Mixtures of the same component objects stack (:meth:`stack`): member ``m`` of the stack
    has its own weights, and each component still acts once per decision for every game.
    """

    kind = "mixture"

    def __init__(self, players: Sequence[Player], weights: Sequence[float], label: str | None = None):
        super().__init__(label or "mixture")
        shares = np.asarray(weights, dtype=float)
        if len(players) != len(shares) or np.any(shares < 0) or not np.isclose(shares.sum(), 1.0):
            raise FsmarenaError("a mixture needs one non-negative weight per player, summing to 1")
        self.players = list(players)
        #: cumulative weights, one row per stack member (one row for a plain mixture)
        self.cumulative = np.cumsum(shares / shares.sum())[None, :]

    def stack_key(self) -> Any:
        return ("mixture", tuple(id(player) for player in self.players))

    @classmethod
    def stack(cls, players: Sequence[Any]) -> "MixturePlayer":
        stacked = cls(players[0].players, np.diff(players[0].cumulative[0], prepend=0.0), label="stack")
        stacked.cumulative = np.concatenate([p.cumulative for p in players])
        return stacked

    def begin(self, game, n, members, rng):
        rows = np.zeros(n, dtype=np.int64) if members is None else np.asarray(members)
        return [player.begin(game, n, None, rng) for player in self.players], self.cumulative[rows]

    def act(self, obs, memory, rows, rng):
        memories, cumulative = memory
        answers = [player.act(obs, mem, rows, rng) for player, mem in zip(self.players, memories)]
        weights = cumulative if rows is None else cumulative[np.asarray(rows)]
        draws = rng.random(obs.n)
        pick = np.minimum(np.count_nonzero(weights <= draws[:, None], axis=1), len(answers) - 1)
        return np.choose(pick, answers)

    def finish(self, memory, outcome, seat):
        for player, mem in zip(self.players, memory[0]):
            player.finish(mem, outcome, seat)


@dataclass(frozen=True)
class ProbeFamily:
    """The mixtures of three builtins ``names`` = (A, B, C) of a game (see the module doc)."""

    game: Game
    names: tuple[str, ...]
    #: what a point's value is: ``win_rate`` (share of games won) or ``score`` (mean score)
    measure: ClassVar[str] = "win_rate"

    @property
    def x_label(self) -> str:
        return f"P({self.names[0]})"

    @property
    def y_label(self) -> str:
        return f"{self.names[1]} share of the rest (vs {self.names[2]})"

    def probe(self, x: float, y: float) -> Player:
        """The probe opponent at ``(x, y)`` of the unit square."""
        if not (0.0 <= x <= 1.0 and 0.0 <= y <= 1.0):
            raise FsmarenaError(f"probe parameters must lie in [0, 1], got ({x}, {y})")
        weights = [x, (1 - x) * y, (1 - x) * (1 - y)]
        return MixturePlayer(self.components, weights, label=f"probe({x:.2f},{y:.2f})")

    @cached_property
    def components(self) -> list[Player]:
        """The three builtins, made once so that every probe of the family shares them."""
        return [resolve_player(name, self.game) for name in self.names]


def probe_family(game: Game) -> ProbeFamily:
    """The probe family the game declares (``GameEntry.probes``), checked against its builtins."""
    if game.n_seats == 1:
        raise FsmarenaError(f"{game.name} is a one-player game: a fingerprint needs opponents")
    names = tuple(entry(game.name).probes)
    if len(names) != 3:
        raise FsmarenaError(f"{game.name} declares no probe family (three builtins) for fingerprints")
    unknown = [name for name in names if name not in game.builtin_players()]
    if unknown:
        raise FsmarenaError(f"{game.name}'s probe family names unknown builtins: {', '.join(unknown)}")
    return ProbeFamily(game, (names[0], names[1], names[2]))


@dataclass(frozen=True)
class Fingerprint:
    """``values[j, i]``: the player's win rate against the probe at ``(x[i], y[j])``."""

    label: str
    x: np.ndarray
    y: np.ndarray
    values: np.ndarray
    x_label: str
    y_label: str
    games: int
    measure: str = "win_rate"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: grid, win rates (rows: y, columns: x) and games per point."""
        return {
            "label": self.label,
            "x": self.x.tolist(),
            "y": self.y.tolist(),
            self.measure: self.values.tolist(),
            "x_label": self.x_label,
            "y_label": self.y_label,
            "games_per_point": self.games,
        }


def fingerprint(
    player: Player,
    game: Game,
    grid: int = DEFAULT_GRID,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    jobs: int = 1,
    family: ProbeFamily | None = None,
) -> Fingerprint:
    """The win rate of ``player`` against the probes of a ``grid x grid`` lattice of the unit
    square, ``games`` games per point (seats rotated), the whole lattice played as one batch."""
    if isinstance(grid, bool) or not isinstance(grid, int) or grid < 2:
        raise FsmarenaError(f"a fingerprint needs a grid of at least 2 points per axis, got {grid}")
    family = family or probe_family(game)
    axis = np.linspace(0.0, 1.0, grid)
    probes = [family.probe(float(x), float(y)) for y in axis for x in axis]
    blocks = _lattice_blocks(game, player, len(probes), games)
    won = np.zeros(len(probes))
    played = np.zeros(len(probes))
    for result in play_blocks(
        game, [(spawn(seed, 1)[0], blocks)], partial(_by_point, family.measure), stack=GroupedStack(probes), jobs=jobs
    ):
        wins, counts = result.value
        won[: len(wins)] += wins
        played[: len(counts)] += counts
    values = (won / played).reshape(grid, grid)
    labels = family.x_label, family.y_label
    return Fingerprint(player.label, axis, axis.copy(), values, *labels, games, family.measure)


def _lattice_blocks(game: Game, player: Player, points: int, games: int) -> list[Block]:
    """``player`` in each seat for its share of every point's games (the probe of the point in
    the other seats), one block per seat of the player, tagged with that seat."""
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games <= 0:
        raise FsmarenaError(f"the number of games must be a positive integer, got {games}")
    seats = game.n_seats
    per_seat = [games // seats + (1 if s < games % seats else 0) for s in range(seats)]
    blocks = []
    for a_seat in range(seats):
        if per_seat[a_seat] == 0:
            continue
        members = np.repeat(np.arange(points, dtype=np.int64), per_seat[a_seat])
        seating = tuple(player if s == a_seat else members for s in range(seats))
        blocks.append(Block(seating, len(members), tag=a_seat))
    return blocks


def _by_point(measure: str, outcome: Outcome, chunk: Chunk, seconds: float) -> tuple[np.ndarray, np.ndarray]:
    """A chunk's wins (``measure`` ``win_rate``) or summed scores (``score``) and games per
    lattice point, from the side of the player in seat ``chunk.tag``."""
    members = next(s for s in chunk.seats if isinstance(s, np.ndarray))
    value = outcome.rewards[:, chunk.tag] > 0 if measure == "win_rate" else outcome.scores[:, chunk.tag]
    return np.bincount(members, weights=value), np.bincount(members).astype(float)
