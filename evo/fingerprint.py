"""Fingerprints: how a player fares against a two-parameter family of probe opponents.

After Ashlock's fingerprints of evolved game-playing agents: instead of reading a machine's
tables, measure what it does against a continuum of opponents.  The probes of a game are
mixtures of three of its builtin strategies ``A``, ``B`` and ``C`` (declared in the game's
``GameEntry.probes``): at every decision the probe plays like ``A`` with probability ``x``,
like ``B`` with probability ``(1 - x) y`` and like ``C`` otherwise, so the unit square
``(x, y)`` covers every mixture (``x = 1``: pure A; ``x = 0, y = 1``: pure B; ``x = y = 0``:
pure C).  Every component sees every decision, so builtins with memory stay consistent.

The fingerprint of a player is its win rate (share of games won) against the probe of every
point of a ``grid x grid`` lattice, each point a match with seats rotated
(:func:`games.match.play_match`) and its own seed.  It works for any player (table FSMs,
BDAs, RL policies).  One-player games have no opponents and no fingerprint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.parallel import spawn
from games.base import Game
from games.match import play_match
from games.players import Player, resolve_player
from games.registry import entry

#: lattice points per axis and games per point when nothing else is asked
DEFAULT_GRID = 5
DEFAULT_GAMES = 200


class MixturePlayer(Player):
    """At every decision, plays like ``players[k]`` with probability ``weights[k]``."""

    kind = "mixture"

    def __init__(self, players: Sequence[Player], weights: Sequence[float], label: str | None = None):
        super().__init__(label or "mixture")
        shares = np.asarray(weights, dtype=float)
        if len(players) != len(shares) or np.any(shares < 0) or not np.isclose(shares.sum(), 1.0):
            raise FsmarenaError("a mixture needs one non-negative weight per player, summing to 1")
        self.players = list(players)
        self.cumulative = np.cumsum(shares / shares.sum())

    def begin(self, game, n, members, rng):
        return [player.begin(game, n, None, rng) for player in self.players]

    def act(self, obs, memory, rows, rng):
        answers = [player.act(obs, mem, rows, rng) for player, mem in zip(self.players, memory)]
        pick = np.minimum(np.searchsorted(self.cumulative, rng.random(obs.n), side="right"), len(answers) - 1)
        return np.choose(pick, answers)

    def finish(self, memory, outcome, seat):
        for player, mem in zip(self.players, memory):
            player.finish(mem, outcome, seat)


@dataclass(frozen=True)
class ProbeFamily:
    """The mixtures of three builtins ``names`` = (A, B, C) of a game (see the module doc)."""

    game: Game
    names: tuple[str, str, str]

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
        players = [resolve_player(name, self.game) for name in self.names]
        weights = [x, (1 - x) * y, (1 - x) * (1 - y)]
        return MixturePlayer(players, weights, label=f"probe({x:.2f},{y:.2f})")


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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: grid, win rates (rows: y, columns: x) and games per point."""
        return {
            "label": self.label,
            "x": self.x.tolist(),
            "y": self.y.tolist(),
            "win_rate": self.values.tolist(),
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
    square, ``games`` games per point (seats rotated), every point with its own seed."""
    if isinstance(grid, bool) or not isinstance(grid, int) or grid < 2:
        raise FsmarenaError(f"a fingerprint needs a grid of at least 2 points per axis, got {grid}")
    family = family or probe_family(game)
    axis = np.linspace(0.0, 1.0, grid)
    seeds = spawn(seed, grid * grid)
    values = np.empty((grid, grid))
    for j, y in enumerate(axis):
        for i, x in enumerate(axis):
            stats = play_match(game, player, family.probe(float(x), float(y)), games, seeds[j * grid + i], jobs=jobs)
            values[j, i] = stats.win_rate
    return Fingerprint(player.label, axis, axis.copy(), values, family.x_label, family.y_label, games)
