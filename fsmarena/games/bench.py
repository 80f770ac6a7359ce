"""Benchmarks: the game played on its kernel against a plain-Python single-game loop, in the same run.

Speed targets are ratios measured here, not timed tests: a noisy machine slows both sides.
Each side is timed twice: wall-clock seconds and CPU seconds (processor time of this process,
so time spent waiting for a core that other programs hold does not count).  For single-process
cases, the ratio and absolute targets ("N games in at most T seconds on one core") are read
off the CPU seconds, which a busy shared machine disturbs far less than the wall clock; for
cases that run worker processes (``BenchCase.workers``) the CPU of this process leaves the
workers out, so only the wall clock counts.
Each game declares its :class:`BenchCase` makers in its entry (``GameEntry.bench_cases``): the
kernel against the game's plain-Python reference, ``reference.py``, on the same players, and
cases of other modules (evolution, learners).
Every game with a kernel also gets :func:`kernel_cases`, which run by default, so a game that
declares no cases of its own still has a benchmark: its builtins on the batched driver against
the same builtins played one game at a time by a plain Python loop over the kernel's functions;
and :func:`seat_cases` (opt-in): compiled seats against the same players asked in Python, on
the same driver, whose baseline is the driver's batched Python path rather than a plain loop.  (``engine`` in a case's fields is the side measured, ``plain`` its baseline.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from typing import Callable

import numpy as np

from fsmarena.games.arena import play_games
from fsmarena.games.builtin_player import own_random
from fsmarena.games.kernel import default_args, has_kernel, kernel_of, params_of
from fsmarena.games.kernel import seed as seed_kernel
from fsmarena.games.players import TablePolicy
from fsmarena.games.registry import entry, resolve
from fsmarena.parallel import chunk_sizes

#: games per batch in the driver cases (the runner's default chunk)
DRIVER_CHUNK = 50_000


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
    #: the case runs worker processes: its ratio is of wall-clock times, no CPU seconds
    workers: bool = False
    #: warm the baseline up too (a plain loop that calls compiled functions compiles them first)
    warm_plain: bool = False


def cases_for(game) -> list[BenchCase]:
    cases: list[BenchCase] = []
    for target in entry(game.name).bench_cases:
        cases.extend(resolve(target, f"benchmark {target}")(game))
    if has_kernel(game):
        cases.extend(kernel_cases(game))
        cases.extend(seat_cases(game))
    return cases


#: games per case of :func:`kernel_cases`: the batched driver, the plain loop
KERNEL_GAMES, LOOP_GAMES = 20_000, 500


def _lineup_names(game) -> list[str]:
    """The kernel's builtins around the table (``random`` when it has no other)."""
    builtins = list(kernel_of(game).BUILTINS[1:]) or ["random"]
    return [builtins[s % len(builtins)] for s in range(game.n_seats)]


def kernel_cases(game) -> list[BenchCase]:
    """The game's builtins on the batched driver (every seat compiled) against a plain Python
    loop over the kernel's functions that plays the same builtins one game at a time: what the
    driver's batches buy over calling the kernel from Python (every game with a kernel has it)."""
    names = _lineup_names(game)
    factories = game.builtin_players()
    players = [factories[name]() for name in names]

    def driver(n: int, seed: int) -> object:
        rng = np.random.default_rng(seed)
        for size in chunk_sizes(n, DRIVER_CHUNK):
            play_games(game, players, size, rng)
        return None

    return [
        BenchCase(
            "kernel: builtins " + " vs ".join(names),
            driver,
            partial(plain_kernel_loop, game, names),
            engine_games=KERNEL_GAMES,
            plain_games=LOOP_GAMES,
            extra={"baseline": "a plain Python loop over the kernel, one game at a time"},
            warm_plain=True,
        )
    ]


def plain_kernel_loop(game, names: list[str], n: int, seed: int) -> np.ndarray:
    """``n`` games of the builtins ``names`` (one per seat), each played by a Python loop that
    calls the kernel's functions decision by decision; the scores of every game."""
    kernel, p = kernel_of(game), params_of(game)
    codes = [kernel.BUILTINS.index(name) for name in names]
    generic_random = [name == "random" and not own_random(game) for name in names]
    args = [default_args(kernel, code) for code in codes]
    rng = np.random.default_rng(seed)
    seed_kernel(int(rng.integers(2**32)))
    deal = np.zeros(kernel.deal_size(p), dtype=np.int64)
    state = np.zeros(kernel.state_size(p), dtype=np.int64)
    mask = np.zeros(kernel.n_actions(p), dtype=np.bool_)
    scores = np.zeros((n, game.n_seats))
    for g in range(n):
        kernel.draw_deal(p, deal)
        kernel.reset(p, state, deal)
        while (seat := kernel.to_move(p, state)) >= 0:
            if generic_random[seat]:
                kernel.legal(p, state, seat, mask)
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = kernel.builtin_action(p, state, seat, codes[seat], args[seat])
            kernel.step(p, state, action)
        kernel.scores(p, state, scores[g])
    return scores


#: games per case of :func:`seat_cases`, on each side
SEAT_GAMES = 100_000


def seat_cases(game) -> list[BenchCase]:
    """Compiled seats against the same players asked in Python, on the same driver
    (:mod:`fsmarena.games.driver`), in chunks of the runner's size: random table policies, and the
    kernel's builtins against the game's Python builtins of the same names.  ``ratio`` is
    compiled / Python: what playing a seat inside the compiled loop buys over the batched
    Python path (both are measured in the same run).  They run when ``--case`` names them
    (``fsmarena bench --case "compiled vs Python seats"``).  Each game's own cases time the
    kernel against its plain-Python reference (``reference.py``) on the same players."""
    from fsmarena.games.kernel import kernel_of

    tables = np.random.default_rng(12345).integers(0, game.n_actions, size=(game.n_seats, game.n_states))
    builtins = list(kernel_of(game).BUILTINS[1:]) or ["random"]
    factories = game.builtin_players()
    lineups = {
        "table vs table": [TablePolicy(table) for table in tables],
        "builtins " + " vs ".join(builtins[s % len(builtins)] for s in range(game.n_seats)): [
            factories[builtins[s % len(builtins)]]() for s in range(game.n_seats)
        ],
    }
    return [_seat_case(game, f"compiled vs Python seats: {name}", players) for name, players in lineups.items()]


def _seat_case(game, name: str, players: list) -> BenchCase:
    def playing(compiled: bool) -> Callable[[int, int], object]:
        def work(n: int, seed: int) -> object:
            rng = np.random.default_rng(seed)
            for size in chunk_sizes(n, DRIVER_CHUNK):
                play_games(game, players, size, rng, compiled=compiled)
            return None

        return work

    return BenchCase(
        name,
        playing(True),
        playing(False),
        engine_games=SEAT_GAMES,
        plain_games=SEAT_GAMES,
        extra={"baseline": "the same players asked in Python"},
        opt_in=True,  # the first batch compiles the driver's loops: seconds per game
    )


def _timed(work: Callable[[int, int], object], n: int, seed: int) -> tuple[float, float]:
    """Wall-clock and CPU seconds of ``work(n, seed)``."""
    start, cpu_start = time.perf_counter(), time.process_time()
    work(n, seed)
    return time.perf_counter() - start, time.process_time() - cpu_start


def time_case(case: BenchCase, seed: int = 0, scale: float = 1.0) -> dict:
    """Units per second of the engine and of the plain loop, measured back to back (module
    doc: per CPU second for single-process cases, per wall-clock second otherwise)."""
    engine_n = max(1, int(case.engine_games * scale))
    if case.warmup:
        case.engine(max(1, min(engine_n, engine_n // 10)), seed)  # tables, caches, imports
    wall, cpu = _timed(case.engine, engine_n, seed)
    engine_time = wall if case.workers else cpu
    result = {
        "case": case.name,
        "unit": case.unit,
        "clock": "wall" if case.workers else "cpu",
        "engine_units": engine_n,
        "engine_seconds": wall,
        "engine_per_second": engine_n / engine_time,
    }
    if not case.workers:
        result["engine_cpu_seconds"] = cpu
    if case.plain is not None:
        plain_n = max(1, int(case.plain_games * scale))
        if case.warm_plain:
            case.plain(1, seed)
        wall, cpu = _timed(case.plain, plain_n, seed)
        plain_time = wall if case.workers else cpu
        result.update(
            plain_units=plain_n,
            plain_seconds=wall,
            plain_per_second=plain_n / plain_time,
            ratio=(engine_n / engine_time) / (plain_n / plain_time),
        )
        if not case.workers:
            result["plain_cpu_seconds"] = cpu
    if case.target:
        result["target"] = case.target
    result.update(case.extra)
    return result
