"""The settings of an evolution run: :class:`EvolveConfig`, its defaults and its checks.

One frozen record per run; :meth:`EvolveConfig.resolved` fills in the protocol's and the
genome's defaults and every value is checked before any work (one clear error line).  Kept
apart from the run so that studies and the command line can build and check settings
without the generation loop.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterable

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.evo import registry
from fsmarena.evo.genome import GENOME_SETTINGS, GENOMES, GenomeSpec, genome_spec
from fsmarena.evo.inputs import default_inputs
from fsmarena.evo.protocols import (
    Protocol,
    check_seats,
    generation_games,
    protocol_class,
    protocol_settings,
)
from fsmarena.games.base import Game
from fsmarena.options import changed_fields, check_applies


@dataclass(frozen=True)
class EvolveConfig:
    """Everything that defines an evolution run except the game, the seed and ``--jobs``.

    ``None`` fields take the protocol's default in :meth:`resolved` (thesis: 250 generations
    of 15 automata, tournament of 11, 9 mutations; round-robin and panel: 50 generations of
    36 machines, tournament of 3, 2 mutations per child; 8 states for BDAs, 4 for FSMs).
    """

    genome: str = "bda"
    protocol: str = "thesis"
    generations: int | None = None
    population: int | None = None
    states: int | None = None
    #: FSM inputs; None: the game's declared default (``Game.fsm_inputs``), set by resolved(game)
    inputs: str | None = None
    max_tests: int = 6
    # thesis
    opponents: int = 25
    games_per_opponent: int = 5
    replaced: int = 2
    # round-robin and panel
    games_per_pair: int = 20
    elite: int = 2
    crossover_rate: float = 0.7
    panel: tuple[str, ...] = ()
    panel_weight: float = 1.0
    # score (one-player games): exact expected scores instead of games_per_pair sampled games
    exact_fitness: bool = False
    # breeding
    tournament: int | None = None
    mutations: int | None = None
    mutation_rate: float | None = None
    # run
    hall_of_fame: int = 5
    checkpoint_every: int = 10
    curve_every: int = 10
    curve_games: int = 1000
    chunk: int = 8192

    def resolved(self, game: Game | None = None, given: Iterable[str] | None = None) -> "EvolveConfig":
        """This configuration with the protocol's defaults filled in, validated (against
        ``game``'s seats and genome size too when it is given: see :meth:`validate`).

        ``given`` names the settings the user gave (command-line options, a study's
        parameters): one the genome or protocol does not use is refused, even at its default
        value.  Without it, the settings that differ from their defaults count as given."""
        # an unknown protocol is refused by validate(), after an unknown genome
        defaults = protocol_class(self.protocol).defaults if self.protocol in registry.names() else Protocol.defaults
        changes: dict[str, Any] = {}
        for name in ("generations", "population", "tournament"):
            if getattr(self, name) is None:
                changes[name] = defaults[name]
        if self.mutations is None and self.mutation_rate is None:
            changes["mutations"] = defaults["mutations"]
        if self.states is None:
            changes["states"] = 8 if self.genome == "bda" else 4
        if self.inputs is None and game is not None and self.genome == "fsm":  # BDAs read features, no inputs
            changes["inputs"] = default_inputs(game)
        config = dataclasses.replace(self, **changes, panel=tuple(self.panel))
        config.validate(game, changed_fields(self) if given is None else given)
        return config

    def validate(self, game: Game | None = None, given: Iterable[str] | None = None) -> None:
        """FsmarenaError for any value a run cannot use, and for a setting in ``given`` (default:
        those that differ from their defaults) that the genome or protocol does not use
        (:meth:`check_applies`).  With ``game``, also what the options multiply into there
        (:meth:`check_sizes`): :func:`evolve` always gives it, so every run is bounded before
        its first game or file."""
        if self.genome not in GENOMES:
            raise FsmarenaError(f"unknown genome '{self.genome}' (known: {', '.join(GENOMES)})")
        protocol = protocol_class(self.protocol)  # an unknown name: one line listing the known ones
        self.check_applies(changed_fields(self) if given is None else given)
        for name in (
            "generations",
            "population",
            "states",
            "max_tests",
            "opponents",
            "games_per_opponent",
            "replaced",
            "games_per_pair",
            "tournament",
            "hall_of_fame",
            "checkpoint_every",
            "curve_games",
            "chunk",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise FsmarenaError(f"{option_name(name)} must be a positive whole number, got {value!r}")
        for name in ("elite", "curve_every"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise FsmarenaError(f"{option_name(name)} must be zero or a positive whole number, got {value!r}")
        if self.mutations is not None and self.mutation_rate is not None:
            raise FsmarenaError("give --mutations or --mutation-rate, not both")
        if self.mutations is not None and (
            isinstance(self.mutations, bool) or not isinstance(self.mutations, int) or self.mutations < 0
        ):
            raise FsmarenaError(f"--mutations must be zero or more, got {self.mutations!r}")
        if self.mutations is not None:
            limits.check(self.mutations, limits.MAX_MUTATIONS, "--mutations", "MAX_MUTATIONS")
        for name in ("crossover_rate", "panel_weight", "mutation_rate"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and 0.0 <= value <= 1.0):
                raise FsmarenaError(f"{option_name(name)} must be a number between 0 and 1, got {value!r}")
        population = resolved_count(self.population, "population")
        tournament = resolved_count(self.tournament, "tournament")
        if population < 2:
            raise FsmarenaError(f"the {self.protocol} protocol needs a population of at least 2")
        protocol.validate(self, population, tournament)
        if not isinstance(self.exact_fitness, bool):
            raise FsmarenaError(f"exact fitness must be true or false, got {self.exact_fitness!r}")
        if game is not None:
            self.check_sizes(game)

    def check_applies(self, given: Iterable[str]) -> None:
        """Refuse a setting in ``given`` that this genome or protocol does not use (what each
        uses: :data:`fsmarena.evo.genome.GENOME_SETTINGS`, ``Protocol.settings``), e.g. ``--max-tests``
        with table FSMs or ``--opponents`` with the round robin; exact fitness simulates no game,
        so ``--games-per-pair`` does not apply to it either."""
        names = set(given)
        check_applies(names, self.genome, GENOME_SETTINGS, "genome")
        check_applies(names, self.protocol, protocol_settings(), "protocol")
        if self.exact_fitness is True and "games_per_pair" in names:
            raise FsmarenaError("--games-per-pair is not used with --exact-fitness (no game is simulated)")

    def check_sizes(self, game: Game) -> GenomeSpec:
        """The genome spec of this (validated) configuration for ``game``, after checking what
        the options multiply into, each within its own limit: the games of a generation and
        their parallel tasks, and the genome entries held at once.  FsmarenaError naming the
        limit otherwise (fsmarena.limits)."""
        spec = genome_spec(game, self.genome, self.states, self.inputs, self.max_tests)
        check_seats(game, self.protocol)
        games = generation_games(self, game.n_seats)
        limits.check(
            games,
            limits.MAX_GENERATION_GAMES,
            f"a generation's games ({protocol_class(self.protocol).games_counted})",
            "MAX_GENERATION_GAMES",
        )
        tasks = -(-games // self.chunk)
        limits.check(
            tasks, limits.MAX_GENERATION_TASKS, "a generation's tasks (its games / --chunk)", "MAX_GENERATION_TASKS"
        )
        beside, option = protocol_class(self.protocol).held_beside(self)  # the thesis's random opponents
        held = resolved_count(self.population, "population") + beside
        held_genomes = "--population" + (f" + {option}" if beside else "")
        limits.check(
            held * spec.size,
            limits.MAX_GENOME_ENTRIES,
            f"the genome entries held at once ({held_genomes} genomes of {spec.size:,})",
            "MAX_GENOME_ENTRIES",
        )
        return spec

    def fitness_games(self, seats: int) -> int:
        """The games a run of this resolved configuration consumes with games of ``seats`` seats:
        every game of every fitness evaluation (the learning-curve measurements are not counted),
        known before any is played (a study's budget)."""
        return resolved_count(self.generations, "generations") * generation_games(self, seats)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["panel"] = list(self.panel)
        return data


def option_name(name: str) -> str:
    return "--" + name.replace("_", "-")


def resolved_count(value: int | None, name: str) -> int:
    """A count :meth:`EvolveConfig.resolved` fills in; None means the configuration was used
    before being resolved (a programming error: validate() rejects None before any use)."""
    if value is None:
        raise ValueError(f"EvolveConfig.{name} is not set: use EvolveConfig.resolved()")
    return value
