"""The one chunked runner: seat the players, cut the games into chunks, give every chunk its own
random stream, run the chunks (here, on loky workers or on a dask cluster), and reduce each
chunk to a small result in the worker.

Every batch of games in the toolkit goes through :func:`play_blocks`: matches and round robins
(:mod:`fsmarena.games.match`), cross-play and leagues (:mod:`fsmarena.games.crossplay`,
:mod:`fsmarena.games.multiseat`), evolution's fitness (:mod:`fsmarena.evo.protocols`) and fixed tables
(31's three-player table).

The work is described as *groups* of *blocks*.  A block is a number of games played with one
seating; ``seats[s]`` is either a :class:`~games.players.Player` (the same one in every game)
or an array of members of the run's shared ``stack`` (one member per game: who sits in seat
``s`` of that game).  Each block is cut into chunks of at most ``chunk`` games, and each group
spawns one child stream per chunk of its blocks, in order, from its own SeedSequence::

    for seed, blocks in groups:
        streams = seed.spawn(number of chunks of the group)
        for block in blocks:
            for size in chunk_sizes(block.games, chunk):
                chunk k plays `size` games of `block` with streams[k]

The plan depends only on the arguments, never on ``jobs`` or the backend, so results are
identical for any number of processes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Generic, Sequence, TypeVar

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.arena import Seat, play_games
from fsmarena.games.base import Game, Outcome
from fsmarena.games.players import Player
from fsmarena.parallel import chunk_sizes, run_tasks

R = TypeVar("R")
SeatSpec = Player | np.ndarray


@dataclass(frozen=True)
class Block:
    """``games`` games with the seating ``seats`` (a Player, or stack members per game, for
    each seat); ``tag`` is the caller's label, handed back with each chunk's result."""

    seats: tuple[SeatSpec, ...]
    games: int
    tag: Any = None


@dataclass(frozen=True)
class Chunk:
    """One task: ``games`` games of block ``block`` (its seats sliced to these games)."""

    group: int
    block: int
    tag: Any
    seats: tuple[SeatSpec, ...]
    games: int
    seed: np.random.SeedSequence


#: what the worker does with a chunk's outcome: ``reduce(outcome, chunk, seconds) -> result``
Reduce = Callable[[Outcome, Chunk, float], R]


@dataclass(frozen=True)
class ChunkResult(Generic[R]):
    group: int
    block: int
    tag: Any
    games: int
    value: R


@dataclass(frozen=True)
class _Shared:
    game: Game
    stack: Player | None
    reduce: Callable[..., Any]


def plan_chunks(groups: Sequence[tuple[np.random.SeedSequence, Sequence[Block]]], chunk: int) -> list[Chunk]:
    """The chunks of ``groups`` in order, each with its stream (module docstring)."""
    chunks = []
    for g, (seed, blocks) in enumerate(groups):
        cut = [(b, size, start) for b, block in enumerate(blocks) for size, start in _pieces(block.games, chunk)]
        streams = seed.spawn(len(cut))
        for (b, size, start), stream in zip(cut, streams):
            block = blocks[b]
            seats = tuple(s[start : start + size] if isinstance(s, np.ndarray) else s for s in block.seats)
            chunks.append(Chunk(g, b, block.tag, seats, size, stream))
    return chunks


def _pieces(games: int, chunk: int) -> list[tuple[int, int]]:
    sizes = chunk_sizes(games, chunk)
    starts = np.cumsum([0] + sizes[:-1]).tolist() if sizes else []
    return list(zip(sizes, starts))


def _stack(shared: _Shared) -> Player:
    if shared.stack is None:
        raise FsmarenaError("a block seats stack members but the run has no stack")
    return shared.stack


def _play_chunk(shared: _Shared, chunk: Chunk) -> ChunkResult:
    start = time.perf_counter()
    seats = [Seat(_stack(shared), s) if isinstance(s, np.ndarray) else Seat(s) for s in chunk.seats]
    outcome = play_games(shared.game, seats, chunk.games, np.random.default_rng(chunk.seed))
    value = shared.reduce(outcome, chunk, time.perf_counter() - start)
    return ChunkResult(chunk.group, chunk.block, chunk.tag, chunk.games, value)


def play_blocks(
    game: Game,
    groups: Sequence[tuple[np.random.SeedSequence, Sequence[Block]]],
    reduce: Reduce,
    *,
    stack: Player | None = None,
    jobs: int = 1,
    chunk: int = 50_000,
    desc: str | None = None,
) -> list[ChunkResult]:
    """Play every block of every group in chunks and return each chunk's reduced result, in
    plan order.  ``reduce`` runs in the worker (a module-level function, so that it pickles)
    and should return something small (counts, sums, per-game rewards as int8)."""
    chunks = plan_chunks(groups, chunk)
    return run_tasks(
        _play_chunk,
        chunks,
        jobs,
        desc,
        weights=[c.games for c in chunks],
        unit="game",
        shared=_Shared(game, stack, reduce),
    )


def rewards_int8(outcome: Outcome, chunk: Chunk, seconds: float) -> np.ndarray:
    """A reducer: every game's rewards, ``(games, seats)`` int8 (win/draw/loss games)."""
    return outcome.rewards.astype(np.int8)


def concatenated(results: Sequence[ChunkResult], seats: int) -> np.ndarray:
    """The per-game arrays of :func:`rewards_int8` results, in plan order."""
    return np.concatenate([r.value for r in results]) if results else np.zeros((0, seats), np.int8)
