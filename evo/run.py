"""The evolution run: generations, logbook, hall of fame, learning curve, checkpoints, resume.

``evolve(game, config, seed, jobs, out)`` runs a protocol (:mod:`evo.protocols`) for
``config.generations`` generations.  Each generation: breed (from the second generation on),
score everybody, record DEAP ``Logbook`` statistics of the fitness together with the number of
games simulated so far (the x-axis shared with the RL learners) and the elapsed seconds,
update the ``HallOfFame``, and, every ``curve_every`` generations and at the last one,
measure the generation's champion (highest fitness) against ``random`` over ``curve_games``
games (these measurement games are not counted as simulated).  In one-player games (the
``score`` protocol) the champion is measured alone instead: its exact expected score when the
game computes one (``game.exact_player_values``, e.g. 421), else its mean score over
``curve_games`` games, in the logbook's ``champion_score`` column.

Randomness.  Breeding, initial and fresh random genomes come from one numpy generator whose
state is saved in checkpoints; the games of generation ``g`` use streams derived from
``SeedSequence(seed, spawn_key=(1, g))`` and its learning-curve point ``(2, g)``, spawned per
chunk, so results do not depend on ``--jobs`` and a resumed run replays exactly what the
uninterrupted run would have done.  Nothing uses Python's ``random`` module.

Hall of fame.  With a fixed yardstick (thesis, panel) fitness is comparable across
generations and the hall of fame keeps the best ever seen.  Round-robin fitness is relative to
the generation's population (everybody is re-scored every generation), so there the hall of
fame holds the best of the latest generation; ``best.json`` is its first member either way.

Files in ``out``: ``checkpoint.json`` (every ``checkpoint_every`` generations and at the end,
written atomically), ``logbook.csv``, and at the end ``best.json`` and ``population.json``.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
from deap import tools

from evo import registry
from evo.genome import GENOME_SETTINGS, GENOMES, GenomeSpec, genome_spec
from evo.inputs import default_inputs
from evo.operators import Individual, hall_of_fame, statistics
from evo.protocols import (
    Protocol,
    check_seats,
    exact_values,
    generation_games,
    make_protocol,
    protocol_class,
    protocol_settings,
)
from fsmarena import limits, run_loop
from fsmarena.csvfile import csv_text, write_csv
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json, write_json
from fsmarena.options import changed_fields, check_applies
from fsmarena.parallel import check_jobs, restore_rng, seed_sequence
from games.base import Game, config_to_dict
from games.match import play_match
from games.players import Player, player_from_json, player_to_json, resolve_player, save_player

FORMAT_VERSION = 1
CHECKPOINT = "checkpoint.json"
LOGBOOK_COLUMNS = ("gen", "games", "mean", "std", "min", "max", "vs_random", "seconds", "champion_score")
#: configuration fields a resumed run may change (they do not alter what is computed)
RESUMABLE_CHANGES = ("generations", "checkpoint_every")
#: fields added after checkpoints were first written: the value an older checkpoint meant
ADDED_FIELDS = {"exact_fitness": False}


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
                raise FsmarenaError(f"{_option(name)} must be a positive whole number, got {value!r}")
        for name in ("elite", "curve_every"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise FsmarenaError(f"{_option(name)} must be zero or a positive whole number, got {value!r}")
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
                raise FsmarenaError(f"{_option(name)} must be a number between 0 and 1, got {value!r}")
        population = _resolved(self.population, "population")
        tournament = _resolved(self.tournament, "tournament")
        if population < 2:
            raise FsmarenaError(f"the {self.protocol} protocol needs a population of at least 2")
        protocol.validate(self, population, tournament)
        if not isinstance(self.exact_fitness, bool):
            raise FsmarenaError(f"exact fitness must be true or false, got {self.exact_fitness!r}")
        if game is not None:
            self.check_sizes(game)

    def check_applies(self, given: Iterable[str]) -> None:
        """Refuse a setting in ``given`` that this genome or protocol does not use (what each
        uses: :data:`evo.genome.GENOME_SETTINGS`, ``Protocol.settings``), e.g. ``--max-tests``
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
        held = _resolved(self.population, "population") + beside
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
        return _resolved(self.generations, "generations") * generation_games(self, seats)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["panel"] = list(self.panel)
        return data


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def _resolved(value: int | None, name: str) -> int:
    """A count :meth:`EvolveConfig.resolved` fills in; None means the configuration was used
    before being resolved (a programming error: validate() rejects None before any use)."""
    if value is None:
        raise ValueError(f"EvolveConfig.{name} is not set: use EvolveConfig.resolved()")
    return value


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
class _State:
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


def evolve(
    game: Game,
    config: EvolveConfig,
    seed: int = 0,
    jobs: int = 1,
    out: str | Path | None = None,
    resume: bool = False,
    callback: Callable[[dict], None] | None = None,
    on_curve_point: Callable[[int, Player], None] | None = None,
) -> EvolveResult:
    """Run (or, with ``resume``, continue) an evolution; see the module docstring.

    ``callback(record)`` is called after every generation (after its checkpoint, if any) with
    the logbook record; raising from it stops the run there (tests use this to interrupt).
    ``on_curve_point(games, player)`` is called at every learning-curve point with the games
    simulated so far and the hall of fame's leader, the player the run would return if it
    stopped there (a study measures these snapshots; a resumed run reports only its new points).
    """
    config = config.resolved(game)
    spec = config.check_sizes(game)
    check_jobs(jobs)
    seed_sequence(seed)  # validates the seed
    panel = [resolve_player(name, game) for name in config.panel]
    for player in panel:
        player_to_json(player, game)  # fails now if the checkpoint could not store it
    out_dir = Path(out) if out is not None else None
    state = None
    if out_dir is not None:
        checkpoint = out_dir / CHECKPOINT
        if checkpoint.exists() and not resume:
            raise FsmarenaError(
                f"{out_dir} already holds a run ({CHECKPOINT}): use --resume to continue it, "
                f"or choose another output folder"
            )
        if resume and not checkpoint.exists():  # as train --resume: a typo must not start afresh
            raise FsmarenaError(f"nothing to resume: {checkpoint} does not exist")
        if resume:
            state = load_checkpoint(checkpoint, game, spec, config, seed)
    if state is None:
        state = _fresh_state(spec, config, seed, panel)
    protocol = make_protocol(game, spec, config, state.panel)

    task = _Generations(game, spec, protocol, config, seed, jobs, state, out_dir, on_curve_point)
    run_loop.run(
        task,
        _resolved(config.generations, "generations"),
        "evolve",
        "gen",
        next_size=lambda done: 1,
        is_point=lambda done: _curve_point(config, done - 1),
        checkpoints=run_loop.Checkpoints(every=config.checkpoint_every),
        after_step=None if callback is None else lambda: callback(task.record),
    )

    result = EvolveResult(
        config,
        seed,
        game,
        spec,
        state.logbook,
        state.genomes,
        state.fitness,
        list(state.hof),
        state.games,
        state.seconds,
        state.generation,
    )
    if out_dir is not None:
        write_outputs(out_dir, result)
    return result


class _Generations:
    """An evolution run as the one run loop drives it (:class:`fsmarena.run_loop.Task`): a step
    is one generation, a curve point hands the hall of fame's leader to ``on_curve_point``, a
    save writes the checkpoint and the logbook (when the run has a folder)."""

    def __init__(
        self,
        game: Game,
        spec: GenomeSpec,
        protocol: Protocol,
        config: EvolveConfig,
        seed: int,
        jobs: int,
        state: _State,
        out_dir: Path | None,
        on_curve_point: Callable[[int, Player], None] | None,
    ):
        self.game, self.spec, self.protocol, self.config = game, spec, protocol, config
        self.seed, self.jobs, self.state, self.out_dir = seed, jobs, state, out_dir
        self.on_curve_point = on_curve_point
        self.record: dict = {}

    @property
    def done(self) -> int:
        """Generations done (the state's, so checkpoints hold it)."""
        return self.state.generation

    def step(self, size: int) -> None:
        for _ in range(size):
            self.record = _generation(
                self.game, self.spec, self.protocol, self.config, self.seed, self.jobs, self.state, self.done
            )

    def curve_point(self) -> None:
        if self.on_curve_point is not None:
            self.on_curve_point(self.state.games, self.spec.player(self.state.hof[0].genome[None]))

    def save(self) -> None:
        if self.out_dir is not None:
            save_checkpoint(self.out_dir / CHECKPOINT, self.game, self.config, self.seed, self.state)
            write_logbook(self.out_dir / "logbook.csv", self.state.logbook)


def _fresh_state(spec: GenomeSpec, config: EvolveConfig, seed: int, panel: list[Player]) -> _State:
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(0,))))
    logbook = tools.Logbook()
    logbook.header = list(LOGBOOK_COLUMNS)
    population = _resolved(config.population, "population")
    genomes = spec.random(rng, population)
    return _State(0, genomes, np.full(population, np.nan), hall_of_fame(config.hall_of_fame), logbook, rng, panel=panel)


def _generation(
    game: Game,
    spec: GenomeSpec,
    protocol: Protocol,
    config: EvolveConfig,
    seed: int,
    jobs: int,
    state: _State,
    generation: int,
) -> dict:
    """Breed (after the first generation), score, record; updates ``state`` in place."""
    start = time.perf_counter()
    if generation > 0:
        state.genomes = protocol.breed(state.genomes, state.fitness, state.rng)
    fitness, games = protocol.evaluate(
        state.genomes, state.rng, np.random.SeedSequence(seed, spawn_key=(1, generation)), jobs
    )
    state.fitness = np.asarray(fitness, dtype=float)
    state.games += games
    population = [Individual(g, f) for g, f in zip(state.genomes, state.fitness)]
    if not protocol.absolute:
        state.hof.clear()
    state.hof.update(population)
    vs_random = champion_score = None
    if _curve_point(config, generation):
        champion = spec.player(state.genomes[int(np.argmax(state.fitness))][None])
        curve_seed = np.random.SeedSequence(seed, spawn_key=(2, generation))
        if game.n_seats == 1:
            champion_score = _solo_score(game, champion, config.curve_games, curve_seed, jobs)
        else:
            stats = play_match(game, champion, game.builtin_players()["random"](), config.curve_games, curve_seed, jobs)
            vs_random = stats.win_rate
    state.seconds += time.perf_counter() - start
    state.generation = generation + 1
    record = {
        "gen": generation,
        "games": state.games,
        **statistics().compile(population),
        "vs_random": vs_random,
        "seconds": round(state.seconds, 3),
        "champion_score": champion_score,
    }
    state.logbook.record(**record)
    return record


def _curve_point(config: EvolveConfig, generation: int) -> bool:
    """Whether generation ``generation`` is a learning-curve point (every ``curve_every``, and the last)."""
    return bool(config.curve_every and generation % config.curve_every == 0) or generation + 1 == config.generations


def _solo_score(game: Game, player: Player, games: int, seed: np.random.SeedSequence, jobs: int) -> float:
    """A one-player game's score of ``player``: exact when the game computes it for this kind of
    player (421: table FSMs), else the mean over ``games`` games (e.g. BDAs)."""
    exact = exact_values(game)
    if exact is not None:
        try:
            return float(exact(player)[0])
        except FsmarenaError:
            pass  # no exact value for this kind of player: measure it
    stats = play_match(game, player, None, games, seed, jobs)
    return stats.score / stats.games


# ---- files ----------------------------------------------------------------------------------


def logbook_csv(logbook: tools.Logbook) -> str:
    """The logbook as CSV text, one row per generation (empty cell: no curve point)."""
    return csv_text(LOGBOOK_COLUMNS, [{c: record.get(c) for c in LOGBOOK_COLUMNS} for record in logbook])


def write_logbook(path: Path, logbook: tools.Logbook) -> None:
    """The logbook as CSV, written atomically (:func:`fsmarena.csvfile.write_csv`)."""
    write_csv(path, LOGBOOK_COLUMNS, [{c: record.get(c) for c in LOGBOOK_COLUMNS} for record in logbook])


def write_outputs(out: Path, result: EvolveResult) -> None:
    """``best.json``, ``population.json`` and ``logbook.csv`` of a finished run."""
    game = result.game
    save_player(result.best, game, out / "best.json")
    members = [
        {"fitness": float(f), "player": player_to_json(p, game)}
        for f, p in zip(result.fitness, result.population_players())
    ]
    fame = [
        {
            "fitness": ind.fitness.values[0],
            "player": player_to_json(result.spec.player(ind.genome[None], label=f"hall of fame {i}"), game),
        }
        for i, ind in enumerate(result.hall_of_fame)
    ]
    write_json(
        out / "population.json",
        {
            "format_version": FORMAT_VERSION,
            "kind": "evolve-population",
            "game": game.name,
            "generation": result.generation,
            "config": result.config.to_dict(),
            "seed": result.seed,
            "members": members,
            "hall_of_fame": fame,
        },
    )
    write_logbook(out / "logbook.csv", result.logbook)


def save_checkpoint(path: Path, game: Game, config: EvolveConfig, seed: int, state: _State) -> None:
    """Write everything the run needs to continue exactly (atomically)."""
    write_json(
        path,
        {
            "format_version": FORMAT_VERSION,
            "kind": "evolve-checkpoint",
            "game": game.name,
            "game_config": config_to_dict(game.config),
            "config": config.to_dict(),
            "seed": seed,
            "generation": state.generation,
            "games": state.games,
            "seconds": state.seconds,
            "population": state.genomes.tolist(),
            "fitness": state.fitness.tolist(),
            "hall_of_fame": [{"genome": ind.genome.tolist(), "fitness": ind.fitness.values[0]} for ind in state.hof],
            "logbook": [dict(record) for record in state.logbook],
            "rng": state.rng.bit_generator.state,
            "panel": [player_to_json(p, game) for p in state.panel],
        },
    )


def load_checkpoint(path: Path, game: Game, spec: GenomeSpec, config: EvolveConfig, seed: int) -> _State:
    """Validate a checkpoint against this run's game, options and seed, and restore it."""
    source = f"checkpoint {path}"
    fields = Fields(read_json(path, "checkpoint"), source)
    version = fields.get("format_version", int)
    if version != FORMAT_VERSION:
        raise fields.fail(f"unsupported format_version {version} (this fsmarena reads {FORMAT_VERSION})")
    if fields.get("kind", str) != "evolve-checkpoint":
        raise fields.fail("not an evolution checkpoint")
    if fields.get("game", str) != game.name:
        raise fields.fail(f"written for the game '{fields.get('game', str)}', not '{game.name}'")
    if fields.get("game_config", dict) != config_to_dict(game.config):
        raise fields.fail("written with other game parameters (--param)")
    if fields.get("seed", int) != seed:
        raise fields.fail(f"written with --seed {fields.get('seed', int)}, not {seed}")
    saved = fields.get("config", dict)
    current = {key: value for key, value in config.to_dict().items() if key not in RESUMABLE_CHANGES}
    # a field added since the checkpoint was written: the value it meant then; another missing field differs
    before = {key: saved[key] if key in saved else ADDED_FIELDS.get(key, "(missing)") for key in current}
    if before != current:
        changed = run_loop.differences(before, current, "{name} {old} (this run: {new})", _option)
        raise fields.fail(f"written with {changed}: resume with the same options")
    generation = fields.int_in("generation", 1, 10**9)
    if generation > _resolved(config.generations, "generations"):
        raise fields.fail(f"already at generation {generation}, beyond --generations {config.generations}")
    genomes = spec.check(fields.get("population", list), f"{source}: population")
    if len(genomes) != config.population:
        raise fields.fail(f"population has {len(genomes)} members, expected {config.population}")
    fitness = fields.float_array("fitness", (config.population,))
    hof = hall_of_fame(config.hall_of_fame)
    entries = fields.get("hall_of_fame", list)
    if not 1 <= len(entries) <= config.hall_of_fame:
        raise fields.fail("hall_of_fame has the wrong number of members")
    individuals = []
    for number, raw in enumerate(entries):
        entry = Fields(raw, f"{source}: hall of fame member {number}")
        genome = spec.check([entry.get("genome", list)], entry.source)[0]
        individuals.append(Individual(genome, entry.number_in("fitness", -math.inf, math.inf)))
    hof.items = individuals
    hof.keys = [ind.fitness for ind in reversed(individuals)]
    logbook = tools.Logbook()
    logbook.header = list(LOGBOOK_COLUMNS)
    records = fields.get("logbook", list)
    if len(records) != generation:
        raise fields.fail(f"logbook has {len(records)} records for {generation} generations")
    for number, raw in enumerate(records):
        record = Fields(raw, f"{source}: logbook record {number}")
        if record.get("gen", int) != number:
            raise record.fail("generations out of order")
        values: dict[str, float | None] = {"gen": number, "games": record.int_in("games", 0, 2**62)}
        for key in ("mean", "std", "min", "max", "seconds"):
            values[key] = record.number_in(key, -math.inf, math.inf)
        values["vs_random"] = None if raw.get("vs_random") is None else record.number_in("vs_random", 0.0, 1.0)
        values["champion_score"] = (
            None if raw.get("champion_score") is None else record.number_in("champion_score", -math.inf, math.inf)
        )
        logbook.record(**{c: values[c] for c in LOGBOOK_COLUMNS})
    rng = restore_rng(fields.get("rng", dict), source)
    panel = []
    for number, raw in enumerate(fields.get("panel", list)):
        panel.append(player_from_json(raw, game, f"{source}: panel player {number}"))
    if len(panel) != len(config.panel):
        raise fields.fail("the stored panel does not match --panel")
    return _State(
        generation,
        genomes,
        fitness,
        hof,
        logbook,
        rng,
        fields.int_in("games", 0, 2**62),
        fields.number_in("seconds", 0.0, math.inf),
        panel,
    )
