"""Evolution protocols: how a population is scored and how the next one is bred.

Scoring is always one plan of games played in batches: every game seats genome members of a
stacked player (``members`` arrays) or fixed panel players, so a whole generation's games are
one batch cut into chunks (:func:`score`).  Chunks, and their random streams
(``SeedSequence.spawn``), depend only on the plan, never on ``--jobs`` (the one chunked runner,
:mod:`fsmarena.games.runner`); workers receive the population's stacked player once and return reward,
win and game counts per genome, summed here in task order.

Protocols (``fitness`` always a float per individual, higher is better):

* ``thesis`` (E. Wild's steady state): 15 evolving automata each play 5 games against each of
  25 fresh random automata (125 games, the evolving one in seat 0); fitness = wins / 125.
  Breeding: shuffle, take 11, sort by fitness; the 2 worst are replaced by copies of the 2
  best, which get a two-point crossover over whole states and then 9 point mutations each.
* ``round-robin`` (generational): every ordered pair (i, j), i != j, plays ``games_per_pair``
  games with i in seat 0 (so each unordered pair plays both seatings); fitness = mean reward;
  everybody is re-scored every generation.  Breeding: elitism, tournament selection,
  crossover with probability ``crossover_rate``, point mutation of every child.
* ``panel``: like round-robin, but fitness is the mean reward against a fixed list of players
  (``games_per_pair`` games per panel player and seating), optionally mixed with the round
  robin: ``panel_weight * panel + (1 - panel_weight) * round robin``.
* ``score`` (one-player games, e.g. 421): fitness = the mean reward (the score) of each
  individual over ``games_per_pair`` games of its own, or, with ``exact_fitness``, its exact
  expected score when the game computes one (``game.exact_player_values``; no game is then
  simulated).  Breeding as in round-robin.  Sampled fitness is re-measured every generation,
  so the hall of fame holds the latest generation's best (a best-ever of noisy measurements
  would keep the luckiest, not the best); exact fitness is a fixed yardstick.

"Reward" is the game's objective (:attr:`fsmarena.games.base.Game.objective`): the ranking reward,
or the game's own score where it declares one (the prisoner's dilemma's score per turn).

``thesis``, ``round-robin`` and ``panel`` play games of 2 to 6 seats, ``score`` one-seat games
(:func:`check_seats`).  With more than two seats an individual meets *copies* of its opponent,
as in :func:`fsmarena.games.match.round_robin`: in the round robin, game ``k`` of the ordered pair
(i, j) seats i in seat ``k mod seats`` and j in every other seat; against the panel, each
individual plays ``games_per_pair`` games in each seat with the panel player in all the
others; in the thesis protocol the evolving automaton keeps seat 0 and one random automaton
fills the other seats.  With two seats these are exactly the two-player plans above.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.evo import registry
from fsmarena.evo.genome import GenomeSpec
from fsmarena.evo.operators import crossover_states, mutate_points, tournament
from fsmarena.games.base import Game, Outcome
from fsmarena.games.capabilities import ExactModel
from fsmarena.games.observation import objective_values
from fsmarena.games.players import Player
from fsmarena.games.registry import resolve
from fsmarena.games.runner import Block, Chunk, play_blocks

if TYPE_CHECKING:
    from fsmarena.evo.settings import EvolveConfig

#: the protocols as the registry (:mod:`fsmarena.evo.registry`) lists them when this module is imported
PROTOCOLS = registry.names()
#: seat counts of the protocols played against opponents (thesis, round-robin, panel)
MULTI_SEATS = (2, 3, 4, 5, 6)


# ---- scoring ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PanelSeat:
    """A seat taken by fixed player ``index`` of the panel in every game of a pairing."""

    index: int


#: one seating of a batch: per seat, the genome members playing it (one per game) or a panel seat
Pairing = tuple["np.ndarray | PanelSeat", ...]


@dataclass(frozen=True)
class Scores:
    """Per genome: summed reward, wins and games played."""

    reward: np.ndarray
    wins: np.ndarray
    games: np.ndarray


def _genome_sums(
    n_genomes: int, objective: str, outcome: Outcome, chunk: Chunk, seconds: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Worker: a chunk's (sums of the game's objective, wins, games) per genome, over the seats
    genomes hold; the objective is the ranking reward or, for a game that declares it, its own
    score (:func:`fsmarena.games.observation.objective_values`)."""
    values = objective_values(objective, outcome)
    reward = np.zeros(n_genomes)
    wins = np.zeros(n_genomes, dtype=np.int64)
    games = np.zeros(n_genomes, dtype=np.int64)
    for seat, members in enumerate(chunk.seats):
        if not isinstance(members, np.ndarray):
            continue
        reward += np.bincount(members, weights=values[:, seat], minlength=n_genomes)
        wins += np.bincount(members[outcome.rewards[:, seat] > 0], minlength=n_genomes)
        games += np.bincount(members, minlength=n_genomes)
    return reward, wins, games


def score(
    game: Game,
    spec: GenomeSpec,
    genomes: np.ndarray,
    pairings: Sequence[Pairing],
    seed: np.random.SeedSequence,
    jobs: int = 1,
    chunk: int = 8192,
    panel: Sequence[Player] = (),
) -> tuple[Scores, int]:
    """Play every pairing (cut into chunks of at most ``chunk`` games by the one chunked
    runner, :mod:`fsmarena.games.runner`) and sum the scores of each genome; returns the scores and the
    number of games played."""
    blocks = []
    for pairing in pairings:
        n = next(len(e) for e in pairing if not isinstance(e, PanelSeat))
        seats = tuple(panel[e.index] if isinstance(e, PanelSeat) else e for e in pairing)
        blocks.append(Block(seats, n))
    n_genomes = len(genomes)
    results = play_blocks(
        game,
        [(seed, blocks)],
        functools.partial(_genome_sums, n_genomes, game.objective),
        stack=spec.player(genomes),
        jobs=jobs,
        chunk=chunk,
    )
    reward = np.zeros(n_genomes)
    wins = np.zeros(n_genomes, dtype=np.int64)
    games = np.zeros(n_genomes, dtype=np.int64)
    for result in results:
        r, w, g = result.value
        reward += r
        wins += w
        games += g
    return Scores(reward, wins, games), sum(block.games for block in blocks)


def round_robin_pairing(population: int, games_per_pair: int, seats: int = 2) -> Pairing:
    """Every ordered pair (i, j), i != j, ``games_per_pair`` times: two seats, i in seat 0;
    more seats, game ``k`` of the pair puts i in seat ``k mod seats`` and j in the others."""
    first, second = np.nonzero(~np.eye(population, dtype=bool))
    single, copies = np.repeat(first, games_per_pair), np.repeat(second, games_per_pair)
    if seats == 2:
        return (single, copies)
    where = np.tile(np.arange(games_per_pair) % seats, len(first))
    return tuple(np.where(where == s, single, copies) for s in range(seats))


def round_robin_games(population: int, games_per_pair: int) -> int:
    """The games of :func:`round_robin_pairing`: ``games_per_pair`` for every ordered pair."""
    return population * (population - 1) * games_per_pair


def panel_pairings(population: int, n_panel: int, games_per_pair: int, seats: int = 2) -> list[Pairing]:
    """Every individual against every panel player, ``games_per_pair`` games in each seat
    (seat order), the panel player filling every other seat."""
    members = np.repeat(np.arange(population), games_per_pair)
    pairings: list[Pairing] = []
    for k in range(n_panel):
        pairings += [tuple(members if t == s else PanelSeat(k) for t in range(seats)) for s in range(seats)]
    return pairings


# ---- protocols --------------------------------------------------------------------------------


class Protocol:
    """Scoring and breeding of one protocol; see the module docstring."""

    name: str = ""
    #: True when fitness values of different generations are comparable (a fixed yardstick)
    absolute: bool = True
    #: numbers of seats of the games this protocol can play
    seats: tuple[int, ...] = MULTI_SEATS
    #: what :meth:`fsmarena.evo.settings.EvolveConfig.resolved` fills in when not given
    defaults: dict[str, int] = {"generations": 50, "population": 36, "tournament": 3, "mutations": 2}
    #: the smallest tournament it can breed with
    smallest_tournament = 1
    #: how a generation's games are counted, for the error naming their limit
    games_counted = ""

    def __init__(self, game: Game, spec: GenomeSpec, config: "EvolveConfig", panel: Sequence[Player] = ()):
        self.game, self.spec, self.config, self.panel = game, spec, config, tuple(panel)

    @classmethod
    def validate(cls, config: "EvolveConfig", population: int, tournament: int) -> None:
        """FsmarenaError for a setting this protocol cannot breed or score with (the shared
        settings are checked by :meth:`fsmarena.evo.settings.EvolveConfig.validate`)."""
        if not cls.smallest_tournament <= tournament <= population:
            raise FsmarenaError(
                f"--tournament must be between {cls.smallest_tournament} and the population ({population})"
            )

    @classmethod
    def held_beside(cls, config: "EvolveConfig") -> tuple[int, str]:
        """The genomes a generation holds beside the population, and the option that sets
        their number (none here)."""
        return 0, ""

    @classmethod
    def generation_games(cls, config: "EvolveConfig", seats: int) -> int:
        """The games :meth:`evaluate` plays in one generation of ``config`` with games of ``seats``
        seats (what its seating arrays hold, so the run can be bounded before it starts)."""
        raise NotImplementedError

    def evaluate(
        self, genomes: np.ndarray, rng: np.random.Generator, seed: np.random.SeedSequence, jobs: int
    ) -> tuple[np.ndarray, int]:
        """Fitness of every genome and the number of games played to get it."""
        raise NotImplementedError

    def breed(self, genomes: np.ndarray, fitness: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The next population from the current one and its fitness."""
        raise NotImplementedError

    def _mutate(self, genome: np.ndarray, rng: np.random.Generator) -> None:
        mutate_points(genome, self.spec.high, rng, count=self.config.mutations, rate=self.config.mutation_rate)


class ThesisProtocol(Protocol):
    """``thesis``: steady state against fresh random automata (E. Wild's thesis).

    Pseudocode (one generation)::

        R <- `opponents` fresh random automata
        for each individual i:  fitness(i) <- wins of i (seat 0) in
                                `games_per_opponent` games against each r in R / games
        S <- a random sample of `tournament` individuals, sorted by fitness
        best, worst <- the `replaced` first and last of S
        children <- copies of best; two-point crossover (whole states) of each pair
        mutate every child (`mutations` points, or each entry with `mutation_rate`)
        the worst are replaced by the children
    """

    name = "thesis"
    absolute = True
    defaults = {"generations": 250, "population": 15, "tournament": 11, "mutations": 9}
    smallest_tournament = 2  # it ranks a drawn sample
    games_counted = "--population x --opponents x --games-per-opponent"

    @classmethod
    def held_beside(cls, config):
        return config.opponents, "--opponents"  # the fresh random automata

    @classmethod
    def validate(cls, config, population, tournament):
        super().validate(config, population, tournament)
        if 2 * config.replaced > tournament:
            raise FsmarenaError(
                f"{config.replaced} replaced individuals need a tournament of at least {2 * config.replaced}"
            )

    @classmethod
    def generation_games(cls, config, seats):
        return config.population * config.opponents * config.games_per_opponent

    def evaluate(self, genomes, rng, seed, jobs):
        c = self.config
        population = len(genomes)
        opponents = self.spec.random(rng, c.opponents)
        per_member = c.opponents * c.games_per_opponent
        evolving = np.repeat(np.arange(population), per_member)
        rivals = population + np.tile(np.repeat(np.arange(c.opponents), c.games_per_opponent), population)
        entrants = np.concatenate([genomes, opponents])
        seating = (evolving,) + (rivals,) * (self.game.n_seats - 1)
        scores, games = score(self.game, self.spec, entrants, [seating], seed, jobs, c.chunk)
        return scores.wins[:population] / per_member, games

    def breed(self, genomes, fitness, rng):
        c = self.config
        chosen = rng.permutation(len(genomes))[: c.tournament]
        ranked = chosen[np.argsort(-fitness[chosen], kind="stable")]
        best, worst = ranked[: c.replaced], ranked[len(ranked) - c.replaced :]
        children = genomes[best].copy()
        for i in range(0, len(children) - 1, 2):
            crossover_states(children[i], children[i + 1], rng)
        for child in children:
            self._mutate(child, rng)
        out = genomes.copy()
        out[worst] = children
        return out


class RoundRobinProtocol(Protocol):
    """``round-robin``: generational GA scored by a round robin within the population.

    Pseudocode (one generation)::

        for each ordered pair (i, j), i != j:  `games_per_pair` games, i in seat 0
                                               (more seats: i in seat k mod seats)
        fitness(i) <- mean reward of i over its games
        next <- the `elite` fittest, unchanged
        until the population is full:
            two parents by tournaments of `tournament`; their copies get a two-point
            crossover with probability `crossover_rate`; mutate each child
    """

    name = "round-robin"
    absolute = False
    games_counted = "ordered pairs of the population x --games-per-pair"

    @classmethod
    def validate(cls, config, population, tournament):
        super().validate(config, population, tournament)
        if config.elite >= population:
            raise FsmarenaError(f"--elite ({config.elite}) must be smaller than the population ({population})")

    @classmethod
    def generation_games(cls, config, seats):
        return round_robin_games(config.population, config.games_per_pair)

    def evaluate(self, genomes, rng, seed, jobs):
        c = self.config
        pairing = round_robin_pairing(len(genomes), c.games_per_pair, self.game.n_seats)
        scores, games = score(self.game, self.spec, genomes, [pairing], seed, jobs, c.chunk)
        return scores.reward / scores.games, games

    def breed(self, genomes, fitness, rng):
        c = self.config
        size = len(genomes)
        elite = np.argsort(-fitness, kind="stable")[: c.elite]
        n_children = size - len(elite)
        parents = tournament(fitness, c.tournament, n_children + n_children % 2, rng)
        children = genomes[parents].copy()
        for i in range(0, len(children), 2):
            if rng.random() < c.crossover_rate:
                crossover_states(children[i], children[i + 1], rng)
        for child in children:
            self._mutate(child, rng)
        return np.concatenate([genomes[elite], children[:n_children]])


class PanelProtocol(RoundRobinProtocol):
    """``panel``: fitness against a fixed panel of players, optionally mixed with the round robin.

    Pseudocode (one generation)::

        for each individual i, panel player p and seat s:
            `games_per_pair` games, i in seat s, p in every other seat
        fitness(i) <- panel_weight * mean reward against the panel
                      + (1 - panel_weight) * mean reward of the round robin (if weight < 1)
        breed as round-robin (elites, tournaments, crossover, mutation)
    """

    name = "panel"
    games_counted = "--population x panel players x seats x --games-per-pair, plus a round robin if --panel-weight < 1"

    @classmethod
    def validate(cls, config, population, tournament):
        super().validate(config, population, tournament)
        if not config.panel:
            raise FsmarenaError("the panel protocol needs at least one panel player (--panel)")

    @classmethod
    def generation_games(cls, config, seats):
        panel = config.population * len(config.panel) * seats * config.games_per_pair
        robin = round_robin_games(config.population, config.games_per_pair) if config.panel_weight < 1.0 else 0
        return panel + robin

    def __init__(self, game, spec, config, panel=()):
        super().__init__(game, spec, config, panel)
        if not self.panel:
            raise FsmarenaError("the panel protocol needs at least one panel player (--panel)")
        self.absolute = config.panel_weight == 1.0

    def evaluate(self, genomes, rng, seed, jobs):
        c = self.config
        panel_seed, robin_seed = seed.spawn(2)
        pairings = panel_pairings(len(genomes), len(self.panel), c.games_per_pair, self.game.n_seats)
        scores, games = score(self.game, self.spec, genomes, pairings, panel_seed, jobs, c.chunk, self.panel)
        fitness = scores.reward / scores.games
        if c.panel_weight < 1.0:
            robin, robin_games = score(
                self.game,
                self.spec,
                genomes,
                [round_robin_pairing(len(genomes), c.games_per_pair, self.game.n_seats)],
                robin_seed,
                jobs,
                c.chunk,
            )
            fitness = c.panel_weight * fitness + (1 - c.panel_weight) * robin.reward / robin.games
            games += robin_games
        return fitness, games


class ScoreProtocol(RoundRobinProtocol):
    """``score``: one-player games; fitness is each individual's mean score, sampled or exact.

    Pseudocode (one generation)::

        fitness(i) <- exact_fitness ? the game's exact expected score of i
                                    : mean score of i over `games_per_pair` games of its own
        breed as round-robin (elites, tournaments, crossover, mutation)
    """

    name = "score"
    seats = (1,)
    games_counted = "--population x --games-per-pair"

    @classmethod
    def generation_games(cls, config, seats):
        return 0 if config.exact_fitness else config.population * config.games_per_pair

    def __init__(self, game, spec, config, panel=()):
        super().__init__(game, spec, config, panel)
        if config.exact_fitness and exact_values(game) is None:
            raise FsmarenaError(f"{game.name} has no exact evaluation of players: drop --exact-fitness")
        self.absolute = bool(config.exact_fitness)

    def evaluate(self, genomes, rng, seed, jobs):
        c = self.config
        if c.exact_fitness:
            return exact_values(self.game)(self.spec.player(genomes)), 0
        members = np.repeat(np.arange(len(genomes)), c.games_per_pair)
        scores, games = score(self.game, self.spec, genomes, [(members,)], seed, jobs, c.chunk)
        return scores.reward / scores.games, games


def exact_values(game: Game):
    """The game's exact evaluator of players (``exact_player_values``), or None."""
    return game.exact_player_values if isinstance(game, ExactModel) else None


def protocol_class(name: str) -> type[Protocol]:
    """The :class:`Protocol` registered as ``name`` (:mod:`fsmarena.evo.registry`); an unknown name is
    one FsmarenaError listing the known ones."""
    entry = registry.protocol(name)
    return resolve(entry.target, f"protocol '{name}'")


def protocol_settings() -> dict[str, tuple[str, ...]]:
    """Per protocol, the settings only some protocols use that it takes (:mod:`fsmarena.evo.registry`):
    the table :func:`fsmarena.options.check_applies` refuses the others with."""
    return registry.settings()


def check_seats(game: Game, protocol: str) -> None:
    """FsmarenaError unless ``protocol`` can play ``game`` (the protocols against opponents
    need 2 to 6 seats, ``score`` one)."""
    seats = protocol_class(protocol).seats if protocol in registry.names() else (2,)
    if game.n_seats not in seats:
        fitting = [name for name in registry.names() if game.n_seats in protocol_class(name).seats]
        plays = f"{seats[0]}-player games" + (f" and games of up to {seats[-1]} players" if len(seats) > 1 else "")
        raise FsmarenaError(
            f"the {protocol} protocol plays {plays}; "
            f"{game.name} is set up for {game.n_seats} player(s)" + (f" (use: {', '.join(fitting)})" if fitting else "")
        )


def generation_games(config: "EvolveConfig", seats: int) -> int:
    """The games one generation of ``config`` plays (``seats`` seats a game), before any is played."""
    return protocol_class(config.protocol).generation_games(config, seats)


def make_protocol(game: Game, spec: GenomeSpec, config: "EvolveConfig", panel: Sequence[Player] = ()) -> Protocol:
    return protocol_class(config.protocol)(game, spec, config, panel)
