"""Players in seats: the only place where players and the engine meet.

:func:`play_games` seats one player (or a stack with a member per game) in every seat and plays
a batch on the game's generic driver (:mod:`fsmarena.games.driver`).  Seats whose player compiles
(random, fixed action, table policy, table FSM, BDA, the kernel's builtins, mixtures of them,
and stacks of them with a member per game: :mod:`fsmarena.games.compiled_players`) decide inside the driver's compiled loop; when every
seat compiles, the batch is one compiled loop.  The other seats (outside agents, networks,
players the compiler refuses) decide in Python, in batches, with ``begin`` before and
``finish`` after the batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game, Observation, Outcome
from fsmarena.games.compiled_players import compile_player, compile_stack
from fsmarena.games.driver import DEFAULT_CHUNK, Program, Trace, driver_for, python_program, traced
from fsmarena.games.kernel import has_kernel
from fsmarena.games.players import Player


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
    *,
    deals: np.ndarray | None = None,
    compiled: bool = True,
    chunk: int = DEFAULT_CHUNK,
    trace: Trace | None = None,
) -> Outcome:
    """Play ``n`` games of ``game`` with ``seats[s]`` in seat ``s`` (module doc).

    Each Python player's ``begin`` creates its per-game memory, every decision is routed to
    the seat's player, and ``finish`` hands learners the outcome.  With ``check_legal`` every
    Python action is checked against the observation's mask (for tests; compiled players are
    legal by construction).  ``deals`` scripts the chance (:meth:`fsmarena.games.base.Game.play`);
    ``compiled=False`` asks every player in Python (the same decisions for deterministic
    players: the tests' second implementation); ``chunk`` (games per compiled call) changes
    no result.  ``trace(seat, rows, observation, actions)`` sees every decision
    (:func:`fsmarena.games.driver.traced`; every player is then asked in Python).
    """
    seated = [s if isinstance(s, Seat) else Seat(s) for s in seats]
    if len(seated) != game.n_seats:
        raise FsmarenaError(f"{game.name} needs {game.n_seats} players, got {len(seated)}")
    for seat in seated:
        if seat.members is not None and len(seat.members) != n:
            raise FsmarenaError("a seat's members array must have one entry per game")
    driver = driver_for(game) if has_kernel(game) else None
    python: list[Seat | None] = [*seated]  # a game outside the registry (the toy MDPs) plays its own batches
    if driver is not None:
        driver, dealt = driver.scripted(n, deals) if deals is not None else (driver, driver.deals(n, rng))
        program = python_program(game.n_seats, game.n_actions)
        if compiled and trace is None:
            program, python = compile_seats(game, seated, n, rng)
    memories = {s: seat.player.begin(game, n, seat.members, rng) for s, seat in enumerate(python) if seat is not None}
    if driver is not None and not memories:
        return driver.play_compiled(dealt, program, rng, chunk)

    def decide(seat: int, obs: Observation, rows: np.ndarray | None) -> np.ndarray:
        player = python[seat]
        assert player is not None  # only Python seats are asked
        actions = player.player.act(obs, memories[seat], rows, rng)
        if check_legal:
            _check_actions(game, seat, obs, np.asarray(actions))
        return actions

    ask = decide if trace is None else traced(decide, trace)
    if driver is None:
        outcome = game.play(n, rng, ask, deals)
    else:
        outcome = driver.play_program(dealt, program, rng, ask)
    for s, memory in memories.items():
        player = python[s]
        assert player is not None
        player.player.finish(memory, outcome, s)
    return outcome


def compile_seats(
    game: Game, seats: Sequence[Seat], n: int, rng: np.random.Generator
) -> tuple[Program, list[Seat | None]]:
    """The program of the seats that compile, and the Python seats (``None`` where the seat
    compiled).  A seat with a member per game (a stack: evolution's population, cross-play's
    players) compiles its stack once, as a pool indexed by the seat's ``members``.  A pool of
    several members (a mixture) has one member drawn per game, as the batched mixture does
    (``rng.integers(0, members, n)``; drawn here in seat order, before the Python players begin).
    When no seat's member varies from game to game, the program has one row for every game."""
    packs = _packs(game, seats)
    per_game = any(
        packed is not None and (seat.members is not None or packed.n_members > 1) for seat, packed in zip(seats, packs)
    )
    arrays: list[list[np.ndarray]] = [[], [], []]  # the compiled seats' ints, floats and tables
    offsets: dict[int, list[int]] = {}  # where each packed player's arrays start (once per player)
    starts = [np.full((n if per_game else 1, len(seats)), -1, dtype=np.int64) for _ in arrays]
    for number, (seat, packed) in enumerate(zip(seats, packs)):
        if packed is None:
            continue
        if seat.members is not None:
            member = np.asarray(seat.members, dtype=np.int64)
        elif packed.n_members == 1:
            member = np.zeros(len(starts[0]), dtype=np.int64)
        else:
            member = rng.integers(0, packed.n_members, size=n)
        if id(packed) not in offsets:
            offsets[id(packed)] = [sum(len(earlier) for earlier in part) for part in arrays]
            for part, array in zip(arrays, packed.arrays):
                part.append(array)
        for which, first in enumerate(packed.starts):
            starts[which][:, number] = offsets[id(packed)][which] + first[member]
    empty = python_program(0, game.n_actions).arrays()[:3]
    ends = [np.concatenate(parts) if parts else nothing for parts, nothing in zip(arrays, empty)]
    python = [seat if packed is None else None for seat, packed in zip(seats, packs)]
    return Program(*ends, *starts), python


def _packs(game: Game, seats: Sequence[Seat]) -> list[Any]:
    """Each seat's compiled player (:func:`_compiled`, :func:`_fitting`); a player in several
    seats, as a population in a round robin, is compiled once."""
    keys = [(id(seat.player), seat.members is not None) for seat in seats]
    compiled: dict[tuple[int, bool], Any] = {}
    for key, seat in zip(keys, seats):
        if key not in compiled:
            compiled[key] = _compiled(compile_stack if seat.members is not None else compile_player, seat, game)
    return [_fitting(compiled[key], seat) for key, seat in zip(keys, seats)]


def _compiled(compile: Callable[[Player, Game], Any], seat: Seat, game: Game) -> Any:
    """The compiled form of the seat's player (its stack's members when the seat has members
    per game), or None when it decides in Python (a player the compiler refuses)."""
    if seat.members is None and getattr(seat.player, "n_members", 1) != 1:
        return None
    try:
        return compile(seat.player, game)
    except FsmarenaError:
        return None


def _fitting(packed: Any, seat: Seat) -> Any:
    """``packed``, or None when the seat's members are out of its range (the seat then plays
    in Python, where the player's own checks speak)."""
    members = seat.members
    if packed is not None and members is not None and len(members):
        if np.min(members) < 0 or np.max(members) >= packed.n_members:
            return None
    return packed


def _check_actions(game: Game, seat: int, obs: Observation, actions: np.ndarray) -> None:
    if actions.shape != (obs.n,):
        raise AssertionError(f"seat {seat}: {actions.shape} actions for {obs.n} rows")
    if obs.n and (actions.min() < 0 or actions.max() >= game.n_actions):
        raise AssertionError(f"seat {seat}: action out of range")
    mask = obs.mask
    if mask is not None and not mask[np.arange(obs.n), actions].all():
        raise AssertionError(f"seat {seat}: illegal action chosen")
