"""DEAP individuals and variation operators over integer genomes (see :mod:`fsmarena.evo.genome`).

* :func:`crossover_states` — two-point crossover over whole states: the states between two
  cut points are exchanged (DEAP's ``cxTwoPoint`` convention for the cuts: ``1 <= c1 < c2 <=
  S``, states ``c1 .. c2-1`` swapped), so every state of a child is a complete state of a parent.
* :func:`mutate_points` — point mutation: an entry (BDA: one of a state's seven fields; table
  FSM: one transition's target or action) is re-drawn uniformly among the *other* values its
  range allows, either a fixed number of times (the thesis: 9) or independently per entry.
* :func:`tournament` — tournament selection (aspirants drawn with replacement, as DEAP's
  ``selTournament``).

Every operator draws its randomness from a numpy ``Generator`` passed in (never Python's
``random`` module), so a run's whole random state is one generator state that checkpoints
save and restore.  Operators only move whole states or redraw an entry within its range, so
offspring are valid by construction.

:class:`Individual` and :class:`FitnessMax` are ordinary classes of this module rather than
``deap.creator`` classes made at run time (those cannot be unpickled in loky or dask
workers); and workers are sent genome arrays, not individuals, anyway.
"""

from __future__ import annotations

import numpy as np
from deap import base, tools


class FitnessMax(base.Fitness):
    """A single fitness value, maximised."""

    weights = (1.0,)


class Individual:
    """A genome (an integer array, copied) with its DEAP fitness."""

    __slots__ = ("genome", "fitness")

    def __init__(self, genome: np.ndarray, fitness: float | None = None):
        self.genome = np.array(genome, dtype=np.int64)
        self.fitness = FitnessMax()
        if fitness is not None:
            self.fitness.values = (float(fitness),)

    def __repr__(self) -> str:
        value = self.fitness.values[0] if self.fitness.valid else None
        return f"<Individual fitness={value}>"


def same_genome(a: Individual, b: Individual) -> bool:
    """Hall-of-fame similarity: identical genomes (numpy arrays need an explicit test)."""
    return bool(np.array_equal(a.genome, b.genome))


def hall_of_fame(size: int) -> tools.HallOfFame:
    """A DEAP hall of fame that recognises duplicate genomes."""
    return tools.HallOfFame(size, similar=same_genome)


def crossover_states(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> tuple[int, int]:
    """Exchange, in place, the whole states ``c1 .. c2-1`` of genomes ``a`` and ``b``; returns
    the cut points.  Machines with a single state have nothing to exchange (``(0, 0)``)."""
    n_states = min(len(a), len(b))
    if n_states < 2:
        return 0, 0
    c1 = int(rng.integers(1, n_states + 1))
    c2 = int(rng.integers(1, n_states))
    if c2 >= c1:
        c2 += 1
    else:
        c1, c2 = c2, c1
    segment = a[c1:c2].copy()
    a[c1:c2] = b[c1:c2]
    b[c1:c2] = segment
    return c1, c2


def mutate_points(
    genome: np.ndarray, high: np.ndarray, rng: np.random.Generator, count: int | None = None, rate: float | None = None
) -> np.ndarray:
    """Re-draw entries of ``genome`` in place; returns their flat positions, in order.

    With ``count``, exactly ``count`` re-draws at positions drawn uniformly (with replacement)
    among the entries that have another value to take; with ``rate``, each such entry
    independently with probability ``rate``.  A re-drawn entry takes a uniformly random value
    in its range other than its current one.
    """
    flat = genome.reshape(-1)
    limits = high.reshape(-1)
    mutable = np.flatnonzero(limits > 1)
    if not len(mutable):
        return np.empty(0, dtype=np.int64)
    if count is not None:
        positions = mutable[rng.integers(0, len(mutable), size=count)]
    elif rate is not None:
        positions = mutable[rng.random(len(mutable)) < rate]
    else:
        raise ValueError("give a mutation count or a rate")
    for position in positions:
        value = int(rng.integers(0, limits[position] - 1))
        flat[position] = value + (value >= flat[position])
    return positions


def tournament(fitness: np.ndarray, size: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` winners (indices) of tournaments of ``size`` aspirants drawn with replacement;
    the first best aspirant wins a tie."""
    aspirants = rng.integers(0, len(fitness), size=(n, size))
    return aspirants[np.arange(n), np.argmax(fitness[aspirants], axis=1)]


def statistics() -> tools.Statistics:
    """DEAP statistics of a population's fitness: mean, std, min, max (as Python floats)."""
    stats = tools.Statistics(key=lambda individual: individual.fitness.values[0])
    for name, function in (("mean", np.mean), ("std", np.std), ("min", np.min), ("max", np.max)):
        stats.register(name, lambda values, f=function: float(f(values)))
    return stats
