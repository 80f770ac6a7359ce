"""Benchmarks: the batched engine against a plain-Python single-game loop, in the same run.

Speed targets are ratios measured here, not timed tests: a noisy machine slows both sides.
Each game contributes :class:`BenchCase` objects through ``Game.bench_cases()``; other
modules (evolution, learners) add cases through the game's entry (``GameEntry.bench_cases``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from games.registry import entry, resolve


@dataclass
class BenchCase:
    """One measurement: ``engine(n, seed)`` and ``plain(n, seed)`` each play ``n`` games
    (or do ``n`` units of work).  ``plain`` may be None for cases with no plain baseline."""

    name: str
    engine: Callable[[int, int], object]
    plain: Callable[[int, int], object] | None
    engine_games: int
    plain_games: int = 0
    unit: str = "games"
    target: str = ""
    extra: dict = field(default_factory=dict)
    #: long cases run only when ``fsmarena bench --case`` names them
    opt_in: bool = False
    #: run a small warm-up first (tables, caches, imports); off for whole-study cases
    warmup: bool = True


def cases_for(game) -> list[BenchCase]:
    cases = list(game.bench_cases())
    for target in entry(game.name).bench_cases:
        cases.extend(resolve(target, f"benchmark {target}")(game))
    return cases


def time_case(case: BenchCase, seed: int = 0, scale: float = 1.0) -> dict:
    """Units per second of the engine and of the plain loop, measured back to back."""
    engine_n = max(1, int(case.engine_games * scale))
    if case.warmup:
        case.engine(max(1, min(engine_n, engine_n // 10)), seed)  # tables, caches, imports
    start = time.perf_counter()
    case.engine(engine_n, seed)
    engine_seconds = time.perf_counter() - start
    result = {
        "case": case.name,
        "unit": case.unit,
        "engine_units": engine_n,
        "engine_seconds": engine_seconds,
        "engine_per_second": engine_n / engine_seconds,
    }
    if case.plain is not None:
        plain_n = max(1, int(case.plain_games * scale))
        start = time.perf_counter()
        case.plain(plain_n, seed)
        plain_seconds = time.perf_counter() - start
        result.update(
            plain_units=plain_n,
            plain_seconds=plain_seconds,
            plain_per_second=plain_n / plain_seconds,
            ratio=(engine_n / engine_seconds) / (plain_n / plain_seconds),
        )
    if case.target:
        result["target"] = case.target
    result.update(case.extra)
    return result
