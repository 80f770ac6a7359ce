"""The driver that seats players at a game and plays a batch: the only place where players
and the engine meet."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from games.base import Game, Observation, Outcome
from games.players import Player


@dataclass(frozen=True)
class Seat:
    """A player in one seat of every game of a batch; ``members[i]`` is the stack member
    playing game ``i`` (``None``: member 0 everywhere)."""

    player: Player
    members: np.ndarray | None = None


def play_games(
    game: Game,
    seats: Sequence[Player | Seat],
    n: int,
    rng: np.random.Generator,
    check_legal: bool = False,
) -> Outcome:
    """Play ``n`` games of ``game`` with ``seats[s]`` in seat ``s``.

    Each player's ``begin`` creates its per-game memory, every decision is routed to the
    seat's player, and ``finish`` hands learners the outcome.  With ``check_legal`` every
    action is checked against the observation's mask (for tests; costs a little time).
    """
    seated = [s if isinstance(s, Seat) else Seat(s) for s in seats]
    if len(seated) != game.n_seats:
        raise FsmarenaError(f"{game.name} needs {game.n_seats} players, got {len(seated)}")
    for seat in seated:
        if seat.members is not None and len(seat.members) != n:
            raise FsmarenaError("a seat's members array must have one entry per game")
    memories = [s.player.begin(game, n, s.members, rng) for s in seated]
    players = [s.player for s in seated]

    if check_legal:

        def decide(seat: int, obs: Observation, rows: np.ndarray | None) -> np.ndarray:
            actions = np.asarray(players[seat].act(obs, memories[seat], rows, rng))
            _check_actions(game, seat, obs, actions)
            return actions
    else:

        def decide(seat: int, obs: Observation, rows: np.ndarray | None) -> np.ndarray:
            return players[seat].act(obs, memories[seat], rows, rng)

    outcome = game.play(n, rng, decide)
    for number, (player, memory) in enumerate(zip(players, memories)):
        player.finish(memory, outcome, number)
    return outcome


def _check_actions(game: Game, seat: int, obs: Observation, actions: np.ndarray) -> None:
    if actions.shape != (obs.n,):
        raise AssertionError(f"seat {seat}: {actions.shape} actions for {obs.n} rows")
    if obs.n and (actions.min() < 0 or actions.max() >= game.n_actions):
        raise AssertionError(f"seat {seat}: action out of range")
    mask = obs.mask
    if mask is not None and not mask[np.arange(obs.n), actions].all():
        raise AssertionError(f"seat {seat}: illegal action chosen")
