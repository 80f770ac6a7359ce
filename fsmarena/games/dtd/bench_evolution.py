"""Benchmarks of evolution for ``fsmarena bench dtd`` (registered in ``fsmarena.games.bench.EXTRA_CASES``).

* ``thesis run``: the thesis protocol, 250 generations of 15 BDAs x 25 fresh random BDAs x 5
  games (468,750 games), logbook and hall of fame included; target 30 s on one core.
* ``round-robin generation``: 36 table FSMs (4 states over ``index+opp_last``), every ordered
  pair 20 games (25,200 games), breeding included; target 0.5 s a generation.

The unit is games so that the ratio compares like with like: the plain baseline plays games of
the same machines (random BDAs, random FSMs) one at a time in plain Python (:mod:`fsmarena.games.dtd.machines_reference`).
"""

from __future__ import annotations

import numpy as np

from fsmarena.evo.genome import genome_spec
from fsmarena.evo.run import EvolveConfig, evolve
from fsmarena.games.bench import BenchCase
from fsmarena.games.dtd.machines_reference import machine_of, play_games

THESIS_GAMES_PER_GENERATION = 15 * 25 * 5
ROUND_ROBIN_GAMES_PER_GENERATION = 36 * 35 * 20


def _plain(game, genome: str, **spec_options):
    """n plain-Python games between two random machines of the benchmarked kind."""
    spec = genome_spec(game, genome, **spec_options)

    def plain(n: int, seed: int) -> object:
        stack = spec.player(spec.random(np.random.default_rng(seed), 2))
        return play_games(game.config, [machine_of(stack, game, 0), machine_of(stack, game, 1)], n, seed)

    return plain


def bench_cases(game) -> list:
    def thesis(n: int, seed: int) -> object:
        generations = max(1, round(n / THESIS_GAMES_PER_GENERATION))
        return evolve(
            game,
            EvolveConfig(genome="bda", protocol="thesis", generations=generations, curve_every=0, curve_games=10),
            seed,
        )

    def round_robin(n: int, seed: int) -> object:
        generations = max(1, round(n / ROUND_ROBIN_GAMES_PER_GENERATION))
        return evolve(
            game,
            EvolveConfig(
                genome="fsm",
                protocol="round-robin",
                population=36,
                states=4,
                inputs="index+opp_last",
                games_per_pair=20,
                generations=generations,
                curve_every=0,
                curve_games=10,
            ),
            seed,
        )

    return [
        BenchCase(
            "evolution: thesis run, 250 generations of 15 BDAs",
            thesis,
            _plain(game, "bda", states=8),
            engine_games=250 * THESIS_GAMES_PER_GENERATION,
            plain_games=1500,
            target=f">= {250 * THESIS_GAMES_PER_GENERATION / 30:,.0f} games/s (the run in <= 30 s, one core)",
        ),
        BenchCase(
            "evolution: round-robin generation, 36 FSMs x 20 games per pair",
            round_robin,
            _plain(game, "fsm", states=4, inputs="index+opp_last"),
            engine_games=4 * ROUND_ROBIN_GAMES_PER_GENERATION,
            plain_games=1500,
            target=f">= {ROUND_ROBIN_GAMES_PER_GENERATION / 0.5:,.0f} games/s (a generation in <= 0.5 s)",
        ),
    ]
