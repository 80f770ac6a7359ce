"""Training runs: one algorithm, one game, one seed -> a greedy table policy and its learning curve.

:func:`train` is the Python API (the study layer calls it per replicate, with any player as
opponent, e.g. an evolved champion); ``fsmarena train`` is a thin wrapper around it.
:func:`prepare` checks everything about a run before any work or output.

Sample-based algorithms (Monte Carlo, SARSA, Q-learning, expected SARSA) play ``episodes``
training games.  ``batch = 1`` (the default for every game with a single-game kernel) is the
textbook *sequential* algorithm (:mod:`fsmarena.rl.sequential_run`); a game without a kernel plays
the same algorithm with the batched learners, one game per engine call (slowly).
``batch = K > 1`` is a *different algorithm*, the batched one (:mod:`fsmarena.rl.training_run`): K
games with the batched driver by a policy frozen for the batch (Monte Carlo) or updated
step-major across the K games (TD), see :mod:`fsmarena.rl.learners`.  Batched Monte Carlo on a
game with a kernel, against an opponent that compiles (or in self-play), plays the same
algorithm in the compiled training loop (:func:`fsmarena.rl.sequential_run.compiled_batches`),
its random numbers from the compiled stream.  Both cut the run at every
learning-curve point (:mod:`fsmarena.rl.evaluation`) and self-play refresh, so the schedule depends
only on the settings, and both resume exactly from a checkpoint (:mod:`fsmarena.rl.resume`).

Model-based algorithms (value iteration, policy iteration) need ``game.model()`` and consume
no simulated games; their curve has one row per iteration with the exact value.

The pieces, one concept each: the settings and their checks (:mod:`fsmarena.rl.config`), the curve
matches and exact values (:mod:`fsmarena.rl.evaluation`), the run state and the batched algorithm
(:mod:`fsmarena.rl.training_run`), the sequential algorithm (:mod:`fsmarena.rl.sequential_run`), checkpoints
(:mod:`fsmarena.rl.resume`), the result and its files (:mod:`fsmarena.rl.results`).  Which learners exist, the
settings each takes and the class that is each algorithm (its pseudocode in its docstring,
its own option checks in ``validate``) are one line each of :mod:`fsmarena.rl.registry`; the run
itself goes through the one run loop (:mod:`fsmarena.run_loop`).  The network learner
(``--algo mlp``) has its own run (:mod:`fsmarena.rl.network_training`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game
from fsmarena.games.capabilities import ExactModel
from fsmarena.games.players import Player, RandomPlayer, TablePolicy
from fsmarena.options import check_applies
from fsmarena.parallel import check_jobs, seed_sequence
from fsmarena.rl import checkpoint as ckpt
from fsmarena.rl import registry
from fsmarena.rl.config import (
    TrainConfig,
    algorithm,
)
from fsmarena.rl.evaluation import evaluate, exact_value, game_model, streams
from fsmarena.rl.results import TrainResult, write_outputs
from fsmarena.rl.resume import read_checkpoint, run_fingerprint
from fsmarena.rl.sequential_run import compiled_batches, compiled_opponent, run_sequential, sequential
from fsmarena.rl.training_run import TrainingRun, make_learner, run_batched

#: re-exported: the study methods (``fsmarena/methods/adapters.py``, ``fsmarena/methods/exact.py``) read
#: the planners' names from here
MODEL_BASED = registry.names("model")

# ---- the run --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """Checked settings of a run: resolved config, integer seed, opponent and panel."""

    config: TrainConfig
    seed: int
    opponent: Player | None
    panel: list[Player]
    #: whether the compiled training loop plays the run (:mod:`fsmarena.rl.sequential_run`)
    compiled: bool = False


def prepare(
    game: Game,
    config: TrainConfig,
    seed: int = 0,
    opponent: Player | None = None,
    panel: Sequence[Player] | None = None,
    out: str | Path | None = None,
    resume: bool = False,
) -> Setup:
    """Check everything about a run before any work or output (FsmarenaError, one line)."""
    config = config.resolved(game)
    run_options = {"opponent": opponent is not None, "resume": resume}
    check_applies(
        [name for name, given in run_options.items() if given], config.algo, registry.settings("sample", "model")
    )
    entropy = seed_sequence(seed).entropy  # validates the seed
    if not isinstance(entropy, int):
        raise FsmarenaError(f"a seed must be a non-negative integer, got {seed!r}")
    seed = entropy
    if config.sample_based:
        seat = config.learner_seat
        if isinstance(seat, int) and seat >= game.n_seats:
            raise FsmarenaError(f"learner seat {seat} does not exist: {game.name} has {game.n_seats} seat(s)")
    elif not isinstance(game, ExactModel):
        raise FsmarenaError(f"{config.algo} needs a game with a known model (e.g. 421); {game.name} has none")
    if game.n_seats == 1:
        if opponent is not None or panel or config.self_play_every:
            raise FsmarenaError(f"{game.name} is a one-player game: opponents and self-play do not apply")
        panel = []
    else:
        if opponent is not None and config.self_play_every:
            raise FsmarenaError("give either an opponent or self-play, not both")
        if opponent is None and not config.self_play_every:
            opponent = RandomPlayer()
        panel = list(panel) if panel else [RandomPlayer()]
    if sequential(game, config):
        compiled_opponent(game, opponent, config)
    compiled = sequential(game, config) or compiled_batches(game, config, opponent)
    if out is not None and config.sample_based:
        path = Path(out) / ckpt.FILENAME
        if resume and not path.exists():
            raise FsmarenaError(f"nothing to resume: {path} does not exist")
        if resume:  # the whole checkpoint, before any work (the run reads it again to continue)
            fingerprint = run_fingerprint(game, config, seed, opponent, panel, compiled)
            read_checkpoint(path, game, config, fingerprint, panel, make_learner(game, config), compiled)
        if not resume and path.exists():
            raise FsmarenaError(
                f"{out} already holds a training checkpoint: pass --resume to continue it, "
                "or choose another output folder"
            )
    return Setup(config, seed, opponent, list(panel), compiled)


def train(
    game: Game,
    config: TrainConfig,
    seed: int = 0,
    opponent: Player | None = None,
    panel: Sequence[Player] | None = None,
    jobs: int = 1,
    out: str | Path | None = None,
    resume: bool = False,
    checkpoint_seconds: float = 60.0,
    label: str | None = None,
    on_curve_point: Callable[[int, Player], None] | None = None,
) -> TrainResult:
    """Train ``config.algo`` on ``game``; with ``out``, write policy, curve, tables and checkpoints.

    ``opponent`` (default ``random``) fills the other seats; ``panel`` (default ``[random]``)
    is what the learning curve measures against.  ``resume`` continues from ``out``'s
    checkpoint (same settings required) to the same result as an uninterrupted run.
    ``on_curve_point(games, policy)`` is called at every learning-curve point of a
    sample-based run with the games played so far and the greedy policy measured there (a
    study measures these snapshots; a resumed run reports only its new points).
    """
    setup = prepare(game, config, seed, opponent, panel, out, resume)
    check_jobs(jobs)
    config, seed = setup.config, setup.seed
    label = label or f"{config.algo} {game.name} seed {seed}"
    out_dir = Path(out) if out is not None else None
    if config.sample_based:
        run = TrainingRun(
            game, config, seed, setup.opponent, setup.panel, jobs, out_dir, label, on_curve_point, setup.compiled
        )
        loop = run_sequential if setup.compiled else run_batched
        result = loop(run, setup.opponent, resume, checkpoint_seconds)
    else:
        result = _plan(game, config, seed, setup.panel, jobs, label)
    if out_dir is not None:
        write_outputs(out_dir, game, result, seed)
    return result


def _plan(game: Game, config: TrainConfig, seed: int, panel: Sequence[Player], jobs: int, label: str) -> TrainResult:
    """A model-based run: plan on the game's model, then measure the policy once."""
    start_time = time.perf_counter()
    mdp = game_model(game)
    if mdp is None:
        raise FsmarenaError(f"{config.algo} needs a game with a known model; {game.name} has none")
    if mdp.n_states < game.n_states:
        raise FsmarenaError(f"{game.name}'s model has fewer states than its observations")
    if not math.isclose(mdp.gamma, config.gamma) and config.gamma != 1.0:
        mdp = replace(mdp, gamma=config.gamma)
    plan = algorithm(registry.learner(config.algo, "model")).plan(mdp, config)
    table = plan.policy[: game.n_states]
    curve = [
        {"games": 0, "iteration": row["iteration"], "opponent": "", "exact_value": row["value"]} for row in plan.history
    ]
    _, eval_seed = streams(seed)
    policy = TablePolicy(table, label=label)
    for row in evaluate(game, policy, panel, config.eval_games, eval_seed, jobs, mdp, table):
        curve.append({"games": 0, "iteration": "", **row, "epsilon": ""})
    q = np.nan_to_num(plan.q[: game.n_states], nan=-np.inf)
    counts = np.zeros(q.shape, dtype=np.int64)
    return TrainResult(
        policy,
        q,
        counts,
        curve,
        0,
        time.perf_counter() - start_time,
        config,
        exact_value(mdp, table, game),
        plan=plan,
        extra={"optimal_value": float(mdp.start @ plan.values)},
    )
