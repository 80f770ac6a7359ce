"""The evolution run: generations, logbook, hall of fame, learning curve, checkpoints, resume.

``evolve(game, config, seed, jobs, out)`` runs a protocol (:mod:`fsmarena.evo.protocols`) for
``config.generations`` generations.  Each generation: breed (from the second generation on),
score everybody, record DEAP ``Logbook`` statistics of the fitness together with the number of
games simulated so far (the x-axis shared with the RL learners) and the elapsed seconds,
update the ``HallOfFame``, and, every ``curve_every`` generations and at the last one,
measure the generation's champion (highest fitness) against the curve opponent over
``curve_games`` games (these measurement games are not counted as simulated).  The curve
opponent is ``random`` unless the caller names another (a study names its curve opponent, so
that automata and learners are measured against the same player); the logbook's column keeps
its name, ``vs_random``.  In one-player games (the
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

The pieces: the settings and their checks (:mod:`fsmarena.evo.settings`), the state a run carries and
its result (:mod:`fsmarena.evo.evolve_state`), its files and checkpoints (:mod:`fsmarena.evo.run_files`); this
module is the generation loop.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np
from deap import tools

from fsmarena import run_loop
from fsmarena.errors import FsmarenaError
from fsmarena.evo.evolve_state import EvolveResult, State
from fsmarena.evo.genome import GenomeSpec
from fsmarena.evo.operators import Individual, hall_of_fame, statistics
from fsmarena.evo.protocols import (
    Protocol,
    exact_values,
    make_protocol,
)
from fsmarena.evo.run_files import (
    CHECKPOINT,
    LOGBOOK_COLUMNS,
    load_checkpoint,
    save_checkpoint,
    write_logbook,
    write_outputs,
)
from fsmarena.evo.settings import EvolveConfig, resolved_count
from fsmarena.games.base import Game
from fsmarena.games.match import play_match
from fsmarena.games.players import Player, player_to_json, resolve_player
from fsmarena.parallel import check_jobs, seed_sequence


def evolve(
    game: Game,
    config: EvolveConfig,
    seed: int = 0,
    jobs: int = 1,
    out: str | Path | None = None,
    resume: bool = False,
    callback: Callable[[dict], None] | None = None,
    on_curve_point: Callable[[int, Player], None] | None = None,
    curve_opponent: Player | None = None,
) -> EvolveResult:
    """Run (or, with ``resume``, continue) an evolution; see the module docstring.

    ``callback(record)`` is called after every generation (after its checkpoint, if any) with
    the logbook record; raising from it stops the run there (tests use this to interrupt).
    ``on_curve_point(games, player)`` is called at every learning-curve point with the games
    simulated so far and the hall of fame's leader, the player the run would return if it
    stopped there (a study measures these snapshots; a resumed run reports only its new points).
    ``curve_opponent``: whom each curve point's champion plays (default: the game's ``random``).
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

    opponent = None  # a one-player game's champion is measured alone
    if game.n_seats > 1:
        opponent = curve_opponent if curve_opponent is not None else game.builtin_players()["random"]()
    task = _Generations(game, spec, protocol, config, seed, jobs, state, out_dir, on_curve_point, opponent)
    run_loop.run(
        task,
        resolved_count(config.generations, "generations"),
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
        state: State,
        out_dir: Path | None,
        on_curve_point: Callable[[int, Player], None] | None,
        curve_opponent: Player | None,
    ):
        self.game, self.spec, self.protocol, self.config = game, spec, protocol, config
        self.seed, self.jobs, self.state, self.out_dir = seed, jobs, state, out_dir
        self.on_curve_point, self.curve_opponent = on_curve_point, curve_opponent
        self.record: dict = {}

    @property
    def done(self) -> int:
        """Generations done (the state's, so checkpoints hold it)."""
        return self.state.generation

    def step(self, size: int) -> None:
        for _ in range(size):
            self.record = _generation(
                self.game,
                self.spec,
                self.protocol,
                self.config,
                self.seed,
                self.jobs,
                self.state,
                self.done,
                self.curve_opponent,
            )

    def curve_point(self) -> None:
        if self.on_curve_point is not None:
            self.on_curve_point(self.state.games, self.spec.player(self.state.hof[0].genome[None]))

    def save(self) -> None:
        if self.out_dir is not None:
            save_checkpoint(self.out_dir / CHECKPOINT, self.game, self.config, self.seed, self.state)
            write_logbook(self.out_dir / "logbook.csv", self.state.logbook)


def _fresh_state(spec: GenomeSpec, config: EvolveConfig, seed: int, panel: list[Player]) -> State:
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(0,))))
    logbook = tools.Logbook()
    logbook.header = list(LOGBOOK_COLUMNS)
    population = resolved_count(config.population, "population")
    genomes = spec.random(rng, population)
    return State(0, genomes, np.full(population, np.nan), hall_of_fame(config.hall_of_fame), logbook, rng, panel=panel)


def _generation(
    game: Game,
    spec: GenomeSpec,
    protocol: Protocol,
    config: EvolveConfig,
    seed: int,
    jobs: int,
    state: State,
    generation: int,
    curve_opponent: Player | None,
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
        if curve_opponent is None:  # one player: the champion alone
            champion_score = _solo_score(game, champion, config.curve_games, curve_seed, jobs)
        else:
            stats = play_match(game, champion, curve_opponent, config.curve_games, curve_seed, jobs)
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
