"""The runs of the compiled training loop: the textbook sequential algorithm (``batch = 1`` on a
game with a kernel) and batched Monte Carlo on such a game against a compiled opponent.

:mod:`fsmarena.rl.sequential` plays one game at a time in compiled code and updates after every
decision (TD) or every game (Monte Carlo), against a compiled opponent
(:mod:`fsmarena.games.compiled_players`).  Runs are cut into chunks at every evaluation point, every
self-play refresh and every :data:`CHUNK` games; each chunk reseeds the compiled random
stream from the run's seed and the number of games done (:func:`chunk_seed`), so a
checkpoint (written only at chunk ends) resumes exactly and nothing depends on timing or on
``jobs``.

Batched Monte Carlo (``batch = K > 1``; :func:`compiled_batches` says when) plays in the same loop,
each chunk one batch of at most K games by the policy of the batch's start
(:mod:`fsmarena.rl.sequential`, "Batches"): the batched algorithm of :mod:`fsmarena.rl.learners`,
with the learner acting inside the compiled loop instead of once per decision in Python.  Its
random numbers come from the compiled stream, reseeded per batch, so a seed gives other (equally
distributed) games than the Python path does; that path still plays the batched TD learners and
any run whose opponent does not compile.

Builds (:mod:`fsmarena.rl.sequential`, "Builds"): a run of at least :data:`OWN_BUILD_FROM` games
plays in the loop compiled for its learner's update alone, the fastest; a shorter one in the
loop shared by every learner of the toolkit, compiled once per game for all of them, whose
compile would otherwise outlast its games (a study at its test scale trains six learners on each
game).  The two give the same numbers, bit for bit; only the time differs.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game
from fsmarena.games.compiled_players import compile_player, self_play
from fsmarena.games.kernel import has_kernel, kernel_of, params_of
from fsmarena.games.kernel import seed as seed_compiled
from fsmarena.games.players import Player, RandomPlayer
from fsmarena.games.registry import resolve
from fsmarena.parallel import seed_sequence
from fsmarena.rl import registry
from fsmarena.rl import sequential as seq
from fsmarena.rl.config import TrainConfig, algorithm, positive
from fsmarena.rl.results import TrainResult
from fsmarena.rl.training_run import TrainingRun, play_to_end

#: sequential runs reseed their compiled stream at least every CHUNK games (see the module doc)
CHUNK = 50_000
#: runs of at least this many training games get a build of the compiled loop for their update
#: alone; shorter ones share one build per game (module doc: builds)
OWN_BUILD_FROM = 100_000
#: where the toolkit's own updates live: the shared build serves every one of them
OWN_UPDATES = "fsmarena.rl.algorithms."


def sequential(game: Game, config: TrainConfig) -> bool:
    """Whether a run is the compiled sequential one: ``batch = 1`` on a game with a kernel.
    (Without a kernel, ``batch = 1`` plays the batched learners one game per engine call: the
    same textbook algorithm, only slower.)"""
    return config.sample_based and config.batch == 1 and has_kernel(game)


def compiled_batches(game: Game, config: TrainConfig, opponent: Player | None) -> bool:
    """Whether a batched run (``batch = K > 1``) plays in the compiled loop (module doc): Monte
    Carlo, on a game with a kernel, against an opponent that compiles or in self-play."""
    if not (config.sample_based and config.batch != 1 and has_kernel(game)):
        return False
    if not getattr(algorithm(registry.learner(config.algo)), "compiled_batches", False):
        return False
    try:
        compiled_opponent(game, opponent, config)
    except FsmarenaError:
        return False
    return True


def compiled_opponent(game: Game, opponent: Player | None, config: TrainConfig) -> Any:
    """The opponent as compiled arrays (self-play: the frozen greedy table); FsmarenaError
    naming the player when it cannot be compiled, or the game when it has no kernel."""

    kernel_of(game)
    if config.self_play_every:
        return self_play(game)
    return compile_player(opponent if opponent is not None else RandomPlayer(), game)


def compiled_update(algo: str) -> Callable[..., Any]:
    """The compiled update the registry names for learner ``algo`` (:mod:`fsmarena.rl.algorithms`)."""
    entry = registry.learner(algo, "sample")
    if not entry.update:
        raise FsmarenaError(f"{algo} names no compiled update: it trains only with --batch K")
    return resolve(entry.update, f"the update of algorithm '{algo}'")


def loop_updates(algo: str, games: int) -> tuple[tuple[Callable[..., Any], ...], int]:
    """The updates a run's compiled loop is built for, and the index of the run's own among them
    (module doc: builds): every update of the toolkit's own learners for a run shorter than
    :data:`OWN_BUILD_FROM` games, else (or for a learner whose update is not the toolkit's) its
    update alone."""
    update = compiled_update(algo)
    shared = shared_updates()
    if games < OWN_BUILD_FROM and update in shared:
        return shared, shared.index(update)
    return (update,), 0


def shared_updates() -> tuple[Callable[..., Any], ...]:
    """The compiled update of every learner of the registry whose update is the toolkit's own
    (:mod:`fsmarena.rl.algorithms`), each once, in registry order: what the shared build serves."""
    found: list[Callable[..., Any]] = []
    for entry in registry.LEARNERS:
        if entry.update.startswith(OWN_UPDATES):
            update = resolve(entry.update, f"the update of algorithm '{entry.name}'")
            if update not in found:
                found.append(update)
    return tuple(found)


def chunk_seed(seed: int, done: int) -> int:
    """The 32-bit seed of the compiled stream for the sequential chunk starting at game ``done``."""
    train_seed = seed_sequence(seed).spawn(2)[0]
    child = np.random.SeedSequence(train_seed.entropy, spawn_key=(*train_seed.spawn_key, int(done)))
    return int(child.generate_state(1, np.uint32)[0])


def _sequential_settings(config: TrainConfig) -> tuple[np.ndarray, np.ndarray]:
    """The int and float settings arrays of :func:`fsmarena.rl.sequential.make_runner`."""

    step = config.step_schedule()
    schedule = config.schedule()
    seat = -1 if config.learner_seat == "alternate" else int(config.learner_seat)
    ints = np.array(
        [
            config.explore_steps,
            seq.SCHEDULE_CODES[schedule.kind],
            seat,
            config.self_play_every or 0,
            1 if config.reward == "segment" else 0,
            seq.SCHEDULE_CODES["constant" if step is None else step.kind],
            0 if config.batch == 1 else 1,
        ],
        dtype=np.int64,
    )
    floats = np.array(
        [
            config.gamma,
            -1.0 if step is None else step.start,
            schedule.start,
            schedule.final,
            float(positive("--episodes", config.episodes)),
            -1.0 if step is None else step.final,
        ]
    )
    return ints, floats


def run_sequential(run: TrainingRun, opponent: Player | None, resume: bool, checkpoint_seconds: float) -> TrainResult:
    """The compiled training loop's run (module doc): the textbook algorithm (``batch = 1``,
    chunks of :data:`CHUNK` single games) or batched Monte Carlo (chunks of one batch each)."""

    game, config, seed = run.game, run.config, run.seed
    if resume:
        run.resume()
    compiled = compiled_opponent(game, opponent, config)
    kernel = kernel_of(game)
    params = params_of(game)
    runner = seq.make_runner(kernel, *loop_updates(config.algo, positive("--episodes", config.episodes)))
    ints, floats = _sequential_settings(config)
    potentials = kernel.potential_table(game.config) if config.reward == "segment" else np.zeros((1, 1))
    values = run.learner.values
    extra = run.learner.extra_tables()
    frozen = run.frozen if run.frozen is not None else np.zeros(game.n_states, dtype=np.int64)
    if config.self_play_every:
        run.frozen = frozen  # the compiled loop refreshes it in place; checkpoints keep it

    def play(k: int) -> None:
        seed_compiled(chunk_seed(seed, run.done))
        runner(
            params,
            values.q,
            values.n,
            extra,
            values.legal,
            frozen,
            run.done,
            k,
            ints,
            floats,
            compiled.ints,
            compiled.floats,
            compiled.tables,
            compiled.int_start,
            compiled.float_start,
            compiled.table_start,
            potentials,
        )

    run.play = play
    play_to_end(run, CHUNK if config.batch == 1 else positive("--batch", config.batch), checkpoint_seconds)
    return run.result()
