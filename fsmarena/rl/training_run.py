"""A sample-based training run as the one run loop drives it, and the batched algorithm.

:class:`TrainingRun` is the state a run carries between batches and into checkpoints (the
learner, the curve, games done, the self-play table); :func:`play_to_end` drives it through
:mod:`fsmarena.run_loop` with batch boundaries on every curve and self-play refresh point.

:func:`run_batched` is the batched algorithm (``batch = K > 1``, or ``batch = 1`` on a game
without a kernel): K games per engine call by a policy frozen for the batch (Monte Carlo) or
updated step-major (TD), the learner taking seat ``g mod n_seats`` in training game ``g``
(``learner_seat = "alternate"``) or a fixed seat; every other seat holds the opponent or,
in self-play, a frozen copy of the learner's greedy policy.  One random stream, saved in
every checkpoint, drives every training game.  Batched Monte Carlo on a game with a kernel,
against an opponent that compiles, plays the same algorithm in the compiled training loop
instead (:func:`fsmarena.rl.sequential_run.compiled_batches`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from fsmarena import run_loop
from fsmarena.errors import FsmarenaError
from fsmarena.games.arena import play_games
from fsmarena.games.base import Game
from fsmarena.games.players import Player, TablePolicy
from fsmarena.rl import checkpoint as ckpt
from fsmarena.rl import registry
from fsmarena.rl.config import TrainConfig, algorithm, positive
from fsmarena.rl.evaluation import evaluate, exact_value, game_model, streams
from fsmarena.rl.learners import TabularLearner
from fsmarena.rl.results import TrainResult
from fsmarena.rl.resume import read_checkpoint, run_fingerprint
from fsmarena.rl.schedules import (
    CurvePoints,
    parse_alpha,
)


def make_learner(game: Game, config: TrainConfig, label: str | None = None) -> TabularLearner:
    """The learner of a resolved sample-based ``config`` for ``game``."""
    alpha = parse_alpha(config.alpha)
    common = dict(
        gamma=config.gamma,
        epsilon=config.epsilon,
        explore_steps=config.explore_steps,
        q_init=config.q_init,
        label=label or config.algo,
        reward=config.reward or "game",
    )
    learner = registry.learner(config.algo, "sample")
    return algorithm(learner)(game.n_states, game.n_actions, alpha=alpha, **learner.options, **common)


def _batch_plan(done: int, batch: int, points: CurvePoints, refresh: int | None) -> int:
    """Games in the next batch: up to ``batch``, never across an evaluation or refresh point."""
    return run_loop.step_size(done, points.next_after(done), batch, refresh)


def play_to_end(run: "TrainingRun", batch: int, checkpoint_seconds: float) -> None:
    """Play ``run`` to the end of its budget through the one run loop (:mod:`fsmarena.run_loop`):
    batches of at most ``batch`` games, a curve point and a checkpoint at every evaluation point
    (a fresh run's first at 0 games), a checkpoint at least every ``checkpoint_seconds``."""
    config = run.config
    total, points, refresh = positive("--episodes", config.episodes), config.curve_points(), config.self_play_every
    run_loop.run(
        run,
        total,
        f"train {config.algo}",
        "game",
        next_size=lambda done: _batch_plan(done, batch, points, refresh),
        is_point=points.is_point,
        checkpoints=run_loop.Checkpoints(seconds=checkpoint_seconds, at_points=True, first=True),
        first_point=run.done == 0 and not run.curve,
    )


def _seat_counts(done: int, k: int, n_seats: int, seat: str | int) -> list[int]:
    """How many of training games ``done .. done + k - 1`` put the learner in each seat."""
    if seat != "alternate":
        return [k if s == seat else 0 for s in range(n_seats)]
    return np.bincount(np.arange(done, done + k) % n_seats, minlength=n_seats).tolist()


def _no_algorithm(k: int) -> None:
    raise ValueError("a training run needs its algorithm (TrainingRun.play) before it plays")


class TrainingRun:
    """The state a training run carries between chunks and into checkpoints; the task the one
    run loop drives (:class:`fsmarena.run_loop.Task`)."""

    def __init__(
        self,
        game: Game,
        config: TrainConfig,
        seed: int,
        opponent: Player | None,
        panel: Sequence[Player],
        jobs: int,
        out_dir: Path | None,
        label: str,
        on_curve_point: Callable[[int, Player], None] | None = None,
        compiled: bool = False,
    ):
        #: whether the compiled training loop plays the run (:mod:`fsmarena.rl.sequential_run`)
        self.compiled = compiled
        self.game, self.config, self.seed, self.panel, self.jobs, self.label = game, config, seed, panel, jobs, label
        self.on_curve_point = on_curve_point
        self.learner = make_learner(game, config, label)
        self.schedule = config.schedule()
        self.rng, self.eval_seed = streams(seed)
        self.mdp = game_model(game)
        self.fingerprint = run_fingerprint(game, config, seed, opponent, panel, compiled)
        self.path = out_dir / ckpt.FILENAME if out_dir is not None else None
        self.done, self.elapsed_before = 0, 0.0
        self.curve: list[dict[str, Any]] = []
        self.frozen: np.ndarray | None = None
        self.start_time = time.perf_counter()
        #: plays ``k`` training games from ``done`` (set by the sequential or batched algorithm)
        self.play: Callable[[int], None] = _no_algorithm

    def step(self, size: int) -> None:
        """The run loop's step: ``size`` more training games (:mod:`fsmarena.run_loop`)."""
        self.play(size)
        self.done += size

    def curve_point(self) -> None:
        self.evaluate_now()

    def resume(self) -> None:
        if self.path is None:
            raise FsmarenaError("--resume needs an output folder holding a checkpoint")
        saved = read_checkpoint(
            self.path, self.game, self.config, self.fingerprint, self.panel, self.learner, self.compiled
        )
        if saved.rng is not None:
            self.rng = saved.rng
        self.done, self.curve, self.elapsed_before = saved.done, saved.curve, saved.seconds
        if saved.frozen is not None:
            self.frozen = saved.frozen

    def evaluate_now(self) -> None:
        table = self.learner.values.greedy_table()
        policy = TablePolicy(table, label=self.label)
        if self.on_curve_point is not None:
            self.on_curve_point(self.done, policy)
        rows = evaluate(
            self.game,
            policy,
            self.panel,
            self.config.eval_games,
            self.eval_seed,
            self.jobs,
            self.mdp,
            table,
        )
        eps = self.schedule.value(self.done, positive("--episodes", self.config.episodes))
        for row in rows:
            self.curve.append({"games": self.done, "iteration": "", **row, "epsilon": eps})

    def save(self) -> None:
        if self.path is None:
            return
        tables = dict(self.learner.arrays())
        if self.frozen is not None:
            tables["frozen"] = self.frozen
        rng = {"sequential": "reseeded per chunk"} if self.compiled else ckpt.rng_state(self.rng)
        meta = {
            "fingerprint": self.fingerprint,
            "done": self.done,
            "rng": rng,
            "curve": self.curve,
            "seconds": self.elapsed_before + time.perf_counter() - self.start_time,
        }
        ckpt.save_checkpoint(self.path, meta, tables)

    def result(self) -> TrainResult:
        seconds = self.elapsed_before + time.perf_counter() - self.start_time
        table = self.learner.values.greedy_table()
        values = self.learner.values
        return TrainResult(
            TablePolicy(table, label=self.label),
            values.q.copy(),
            values.n.copy(),
            self.curve,
            self.done,
            seconds,
            self.config,
            exact_value(self.mdp, table, self.game),
            learner=self.learner,
        )


def run_batched(run: TrainingRun, opponent: Player | None, resume: bool, checkpoint_seconds: float) -> TrainResult:
    """The batched algorithm (``batch = K > 1``): the learner plays batches of K games with the
    batched driver, one driver call per learner seat (module doc)."""
    game, config = run.game, run.config
    if resume:
        run.resume()
    learner, schedule, step = run.learner, run.schedule, config.step_schedule()
    total, refresh = positive("--episodes", config.episodes), config.self_play_every
    frozen = None if run.frozen is None else TablePolicy(run.frozen, label="self (frozen)")

    def play(k: int) -> None:
        nonlocal frozen
        done = run.done
        if refresh is not None and done % refresh == 0:
            frozen = TablePolicy(learner.values.greedy_table(), label="self (frozen)")
            run.frozen = frozen.table[0]
        learner.epsilon = schedule.value(done, total)
        if step is not None:
            learner.alpha = step.value(done, total)
        rival = frozen if refresh is not None else opponent
        if rival is None and game.n_seats > 1:  # prepare() gives every such run an opponent
            raise ValueError("a batched run of a game of several seats needs an opponent or self-play")
        for seat, count in enumerate(_seat_counts(done, k, game.n_seats, config.learner_seat)):
            if count:
                seats: list[Player] = [learner if rival is None else rival] * game.n_seats
                seats[seat] = learner
                play_games(game, seats, count, run.rng)

    run.play = play
    play_to_end(run, positive("--batch", config.batch), checkpoint_seconds)
    return run.result()
