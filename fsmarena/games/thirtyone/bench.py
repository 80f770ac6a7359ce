"""Benchmark of 31 (``fsmarena bench thirtyone``): ``greedy`` against ``greedy``, the driver over the
kernel against the plain reference loop (:mod:`fsmarena.games.thirtyone.reference`)."""

from __future__ import annotations

import time

import numpy as np

from fsmarena.games.arena import play_games
from fsmarena.games.bench import BenchCase
from fsmarena.games.builtin_player import BuiltinPlayer
from fsmarena.games.thirtyone.reference import plain_loop


def bench_cases(game) -> list:
    """1v1 greedy against greedy: the driver over the kernel against the plain reference loop."""

    players = [BuiltinPlayer("greedy") for _ in range(game.n_seats)]
    extra: dict = {}

    def engine(n: int, seed: int) -> object:
        rng = np.random.default_rng(seed)
        chunk = 50_000
        start_cpu = time.process_time()
        for start in range(0, n, chunk):
            play_games(game, players, min(chunk, n - start), rng)
        # CPU time of this process too: on a shared machine wall-clock speed understates it
        extra["engine_cpu_games_per_second"] = n / max(time.process_time() - start_cpu, 1e-9)
        return None

    def plain(n: int, seed: int) -> object:
        return plain_loop(game.config, n, seed)

    return [
        BenchCase(
            "greedy vs greedy",
            engine,
            plain,
            engine_games=100_000,
            plain_games=300,
            target=">= 20,000 games/s on one core (2 players)",
            extra=extra,
        )
    ]
