"""A plain-Python, one-game-at-a-time 421: the oracle in tests and the benchmark baseline.

Written independently of the kernel (dice as sorted lists, the scoring rules spelled
out again, its own state numbering), it serves two purposes: tests check that the engine and
this loop give the same final dice and scores on the same scripted throws, and
``fsmarena bench 421`` reports the engine's speed as a ratio to it, measured in the same run.
"""

from __future__ import annotations

import random
from typing import Sequence

import numpy as np

from fsmarena.games.arena import play_games
from fsmarena.games.bench import BenchCase


def score(dice: Sequence[int], variant: str = "seed") -> int:
    """Score of three dice (any order) under the ``seed`` or ``sum`` score table."""
    d = sorted(dice, reverse=True)
    if variant == "sum":
        return d[0] + d[1] + d[2]
    if d == [4, 2, 1]:
        return 11
    if d == [1, 1, 1]:
        return 7
    if d == [2, 2, 1]:
        return 0
    if d[1] == 1 and d[2] == 1:
        return d[0]
    if d[0] == d[1] == d[2]:
        return d[0]
    if d[0] - d[1] == 1 and d[1] - d[2] == 1:
        return 2
    return 1


def state_numbers(rethrows: int) -> dict[tuple[int, int, int, int], int]:
    """``(throws_left, high, middle, low) -> index``: throws left major, then the
    descending triples in lexicographic order."""
    numbers: dict[tuple[int, int, int, int], int] = {}
    for left in range(rethrows + 1):
        for high in range(1, 7):
            for middle in range(1, high + 1):
                for low in range(1, middle + 1):
                    numbers[(left, high, middle, low)] = len(numbers)
    return numbers


def play_one(
    rethrows: int, throws: Sequence[Sequence[int]], policy: Sequence[int], numbers: dict, variant: str = "seed"
) -> tuple[list[int], int]:
    """One game with scripted ``throws`` (``rethrows + 1`` triples of dice values): throw
    ``j`` sets each re-thrown position of the descending dice to ``throws[j][position]``.

    Returns the final descending dice and the score.
    """
    dice = sorted(throws[0], reverse=True)
    left = rethrows
    while left > 0:
        action = policy[numbers[(left, dice[0], dice[1], dice[2])]]
        if action == 0:
            break
        throw = throws[rethrows - left + 1]
        again = [action >> 2 & 1, action >> 1 & 1, action & 1]
        dice = sorted((throw[p] if again[p] else dice[p] for p in range(3)), reverse=True)
        left -= 1
    return dice, score(dice, variant)


def plain_loop(rethrows: int, n_games: int, policy: Sequence[int], seed: int, variant: str = "seed") -> float:
    """The benchmark baseline: ``n_games`` games in plain Python; returns the mean score."""
    rng = random.Random(seed)
    numbers = state_numbers(rethrows)
    total = 0
    for _ in range(n_games):
        throws = [[int(rng.random() * 6) + 1 for _ in range(3)] for _ in range(rethrows + 1)]
        total += play_one(rethrows, throws, policy, numbers, variant)[1]
    return total / n_games


def bench_cases(game) -> list:
    player = game.optimal_player()
    policy = player.table[0].tolist()

    def engine(n: int, seed: int) -> object:
        rng = np.random.default_rng(seed)
        chunk = 100_000
        for start in range(0, n, chunk):
            play_games(game, [player], min(chunk, n - start), rng)
        return None

    def plain(n: int, seed: int) -> object:
        return plain_loop(game.config.rethrows, n, policy, seed, game.config.scores)

    return [
        BenchCase(
            "optimal policy",
            engine,
            plain,
            engine_games=2_000_000,
            plain_games=50_000,
            target=">= 500,000 games/s on one core",
        )
    ]
