"""What an evolution run carries: the state between generations (population, logbook, hall
of fame, random stream, games simulated), which checkpoints save, and the result it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from deap import tools

from fsmarena.evo.genome import GenomeSpec
from fsmarena.evo.operators import Individual
from fsmarena.evo.settings import EvolveConfig
from fsmarena.games.base import Game
from fsmarena.games.players import Player


@dataclass
class EvolveResult:
    """What a run produced (also what the study layer consumes per replicate)."""

    config: EvolveConfig
    seed: int
    game: Game
    spec: GenomeSpec
    logbook: tools.Logbook
    genomes: np.ndarray
    fitness: np.ndarray
    hall_of_fame: list[Individual]
    games: int
    seconds: float
    generation: int

    @property
    def best(self) -> Player:
        """The hall of fame's first member, as a player."""
        return self.spec.player(
            self.hall_of_fame[0].genome[None], label=f"evolved-{self.config.genome}-{self.config.protocol}"
        )

    @property
    def best_fitness(self) -> float:
        return self.hall_of_fame[0].fitness.values[0]

    def curve(self) -> list[tuple[int, float]]:
        """Learning curve: (games simulated so far, champion's win rate against random)."""
        return [(r["games"], r["vs_random"]) for r in self.logbook if r["vs_random"] is not None]

    def score_curve(self) -> list[tuple[int, float]]:
        """One-player learning curve: (games simulated so far, champion's score, exact when
        the game computes it)."""
        return [(r["games"], r["champion_score"]) for r in self.logbook if r.get("champion_score") is not None]

    def population_players(self) -> list[Player]:
        return [self.spec.player(g[None], label=f"member {i}") for i, g in enumerate(self.genomes)]


@dataclass
class State:
    """Everything a checkpoint holds: the run continues from it exactly."""

    generation: int
    genomes: np.ndarray
    fitness: np.ndarray  # NaN until the first generation is scored
    hof: tools.HallOfFame
    logbook: tools.Logbook
    rng: np.random.Generator
    games: int = 0
    seconds: float = 0.0
    panel: list[Player] = field(default_factory=list)
