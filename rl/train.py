"""Training runs: one algorithm, one game, one seed -> a greedy table policy and its learning curve.

:func:`train` is the Python API (the study layer calls it per replicate, with any player as
opponent, e.g. an evolved champion); ``fsmarena train`` is a thin wrapper around it.

Sample-based algorithms (Monte Carlo, SARSA, Q-learning, expected SARSA) play ``episodes``
training games.  ``batch = 1`` (the default for every game with a single-game kernel) is the
textbook *sequential* algorithm: :mod:`rl.sequential` plays one game at a time in compiled
code and updates after every decision (TD) or every game (Monte Carlo), against a compiled
opponent (:mod:`rl.compiled_players`); a game without a kernel plays the same algorithm with
the batched learners, one game per engine call (slowly).  ``batch = K > 1`` is a *different algorithm*, the
batched one: K games are played with the batched engine by a policy frozen for the batch
(Monte Carlo) or updated step-major across the K games (TD), see :mod:`rl.learners`.

Sequential runs are cut into chunks at every evaluation point, every self-play refresh and
every :data:`CHUNK` games; each chunk reseeds the compiled random stream from the run's seed
and the number of games done (:func:`chunk_seed`), so a checkpoint (written only at chunk
ends) resumes exactly and nothing depends on timing or on ``jobs``.

In the batched algorithm, batches are of ``batch`` games with the batched engine.  Batch boundaries also
fall on every multiple of ``eval_every`` (a learning-curve point) and of ``self_play_every``
(the frozen self-play copy is refreshed), so the schedule depends only on the settings.  In a
batch the learner takes seat ``g mod n_seats`` in training game ``g`` (``learner_seat =
"alternate"``) or a fixed seat (``0`` is the thesis: the learner leads the even rounds); a
batch is played as one engine call per learner seat, in seat order, so ``batch = 1``
alternates seats game by game.  Every other seat holds the opponent (a builtin, a player
file, an evolved machine) or, in self-play, a frozen copy of the learner's greedy policy.

One random stream drives all training games (saved in every checkpoint); the learning-curve
evaluations use fixed seeds of their own, the same at every checkpoint (common random
numbers: two points of a curve differ only because the policy did), so ``jobs`` (which only
parallelises evaluation matches) never changes a number.

Model-based algorithms (value iteration, policy iteration) need ``game.model()`` and consume
no simulated games; their curve has one row per iteration with the exact value.

Which learners exist, the settings each takes and the class that is each algorithm (its
pseudocode in its docstring, its own option checks in ``validate``) are one line each of
:mod:`rl.registry`; the run itself goes through the one run loop (:mod:`fsmarena.run_loop`).

Function-approximation agents are the games' own (31's two MLPs): a game lists them in
the game's entry (``GameEntry.approximators``, ``{"mlp": "module:function"}``) and :func:`approximator` finds the
trainer behind ``fsmarena train --algo NAME``; nothing here depends on a particular game.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from fsmarena import limits, run_loop
from fsmarena.csvfile import csv_text
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import atomic_path, dumps, write_text
from fsmarena.options import changed_fields, check_applies
from fsmarena.parallel import check_jobs, restore_rng, seed_sequence
from fsmarena.text import clean_text
from games.arena import play_games
from games.base import Game, config_to_dict
from games.capabilities import ExactModel, SegmentRewards
from games.kernel import has_kernel, kernel_of, params_of
from games.match import play_match
from games.players import Player, RandomPlayer, TablePolicy, player_to_json
from games.registry import entry, resolve
from games.stats import mean_interval, wilson_interval
from rl import checkpoint as ckpt
from rl import registry
from rl.learners import TabularLearner
from rl.mdp import TabularMDP, expected_return
from rl.planning import PlanResult
from rl.schedules import (
    LOG_POINTS,
    CurvePoints,
    EpsilonSchedule,
    alpha_schedule,
    check_probability,
    curve_points,
    parse_alpha,
)
from rl.segments import REWARDS

#: the learners this module runs as the registry (:mod:`rl.registry`) lists them when it is
#: imported (the code reads the registry itself, these names serve readers and tests): those
#: that learn from simulated games by family of defaults, and the planners
MONTE_CARLO = tuple(e.name for e in registry.learners("sample") if e.defaults in ("mc", "mc-constant-alpha"))
TEMPORAL_DIFFERENCE = tuple(e.name for e in registry.learners("sample") if e.defaults == "td")
MODEL_BASED = registry.names("model")
ALGORITHMS = registry.names("sample", "model")
SAMPLE_SETTINGS = registry.SAMPLE_SETTINGS
#: per algorithm, the settings it takes (TrainConfig fields and the run's options): the planners
#: consume no game, so they take no budget, opponent, exploration or checkpoint; a setting
#: given to an algorithm that does not take it is refused (:func:`fsmarena.options.check_applies`)
SETTINGS: dict[str, tuple[str, ...]] = registry.settings("sample", "model")

#: defaults by family.  Monte Carlo: the thesis (running mean, greedy, two random opening
#: decisions).  TD: chosen on divide-the-dollar (reward only at the end, gamma = 1) in a pilot
#: at the thesis budget: a small constant step and epsilon decaying linearly to 0 found
#: clearly better policies than 1/n (which averages returns of long-gone policies) and than a
#: constant epsilon (off-policy Q-learning then oscillates under the aliased 40-state view).
DEFAULTS = {
    "mc": {"epsilon": 0.0, "epsilon_final": 0.0, "epsilon_schedule": "constant", "explore_steps": 2, "alpha": "1/n"},
    "mc-constant-alpha": {
        "epsilon": 0.0,
        "epsilon_final": 0.0,
        "epsilon_schedule": "constant",
        "explore_steps": 2,
        "alpha": 0.001,
    },
    "td": {"epsilon": 0.2, "epsilon_final": 0.0, "epsilon_schedule": "linear", "explore_steps": 0, "alpha": 0.001},
}
#: defaults common to every family: the sequential algorithm (``batch`` 1) when the game has a
#: kernel; :data:`BATCH_WITHOUT_KERNEL` games per batch otherwise
SHARED_DEFAULTS = {"batch": 1}
BATCH_WITHOUT_KERNEL = 10_000
#: sequential runs reseed their compiled stream at least every CHUNK games (see the module doc)
CHUNK = 50_000
#: settings a game may tune through ``Game.train_defaults = {family: {key: value}}``
GAME_DEFAULT_KEYS = (
    "batch",
    "epsilon",
    "epsilon_final",
    "epsilon_schedule",
    "alpha",
    "alpha_final",
    "alpha_schedule",
    "explore_steps",
    "reward",
)

CURVE_COLUMNS = (
    "games",
    "iteration",
    "opponent",
    "eval_games",
    "win",
    "draw",
    "loss",
    "win_ci_low",
    "win_ci_high",
    "mean_reward",
    "mean_score",
    "score_ci_low",
    "score_ci_high",
    "exact_value",
    "epsilon",
)


@dataclass(frozen=True)
class TrainConfig:
    """Settings of one training run (``None`` = the algorithm's default, see :data:`DEFAULTS`,
    :data:`SHARED_DEFAULTS` and the game's own ``train_defaults``, which take precedence).

    ``gamma`` discounts per decision of the learner (the planners use the model's own discount
    unless a ``gamma`` below 1 is given).
    ``alpha`` is a step size in (0, 1] or ``"1/n"`` (sample average); a step size follows
    ``alpha_schedule`` (``constant`` unless the game chooses otherwise) to ``alpha_final``
    (the schedules of :mod:`rl.schedules`); ``epsilon`` starts the
    ``epsilon_schedule`` that ends at ``epsilon_final``; ``explore_steps`` random decisions open
    every training game (exploring starts); ``eval_every`` defaults to a tenth of the budget.
    ``reward``: ``"game"`` (the final reward) or ``"segment"`` (games with segments, e.g. 31's
    rounds: every segment rewarded by a potential's change, :mod:`rl.segments`).
    ``eval_schedule``: ``"linear"`` (a curve point every ``eval_every`` games) or ``"log"``
    (``eval_points`` points spaced geometrically from 1,000 games to the budget, the shared
    learning-curve axis of the studies; :func:`rl.schedules.log_points`).
    """

    algo: str
    episodes: int | None = None
    batch: int | None = None
    epsilon: float | None = None
    epsilon_final: float | None = None
    epsilon_schedule: str | None = None
    alpha: float | str | None = None
    alpha_final: float | None = None
    alpha_schedule: str | None = None
    gamma: float = 1.0
    explore_steps: int | None = None
    q_init: float = 0.0
    learner_seat: str | int = "alternate"
    self_play_every: int | None = None
    eval_every: int | None = None
    eval_games: int = 10_000
    tolerance: float = 1e-12
    reward: str | None = None
    eval_schedule: str = "linear"
    eval_points: int | None = None

    @property
    def sample_based(self) -> bool:
        return self.algo not in registry.names("model")

    def resolved(self, game: Game | None = None, given: Iterable[str] | None = None) -> "TrainConfig":
        """The same settings with defaults filled in, every value checked (FsmarenaError).

        With ``game``, the game's ``train_defaults[family]`` (family ``mc``,
        ``mc-constant-alpha`` or ``td``), if it has one, replaces the generic defaults: settings
        measured for that game.  Explicit settings always win.

        ``given`` names the settings the user gave (command-line options, a study's
        parameters): one the algorithm does not take (:data:`SETTINGS`) is refused, even at its
        default value.  Without it, the settings that differ from their defaults count as given.
        """
        runs = registry.names("sample", "model")
        if self.algo in registry.names("search"):
            raise FsmarenaError(f"{self.algo} is run by 'fsmarena search', not by train")
        if self.algo not in runs:
            known = runs + (tuple(entry(game.name).approximators) if game is not None else ())
            raise FsmarenaError(f"unknown algorithm '{self.algo}' (known: {', '.join(known)})")
        learner = registry.learner(self.algo)
        check_applies(changed_fields(self) if given is None else given, self.algo, registry.settings("sample", "model"))
        _positive("--eval-games", self.eval_games)
        check_probability("gamma", self.gamma)
        if learner.kind == "model":
            algorithm(learner).validate(self, learner)
            return self
        episodes = _positive("--episodes", self.episodes)
        if self.self_play_every is not None:
            _positive("--self-play-every", self.self_play_every)
        eval_every, eval_points = self._curve_settings(episodes)
        family = learner.defaults
        defaults = {**SHARED_DEFAULTS, **DEFAULTS[family], **game_defaults(game, family)}
        if game is not None and defaults["batch"] == 1 and not has_kernel(game):
            defaults["batch"] = BATCH_WITHOUT_KERNEL
        batch = defaults["batch"] if self.batch is None else self.batch
        limits.check(_positive("--batch", batch), limits.MAX_BATCH_GAMES, "--batch", "MAX_BATCH_GAMES")
        epsilon = defaults["epsilon"] if self.epsilon is None else self.epsilon
        final = defaults["epsilon_final"] if self.epsilon_final is None else self.epsilon_final
        kind = defaults["epsilon_schedule"] if self.epsilon_schedule is None else self.epsilon_schedule
        EpsilonSchedule(check_probability("epsilon", epsilon), check_probability("final epsilon", final), kind)
        alpha = defaults["alpha"] if self.alpha is None else self.alpha
        parsed = parse_alpha(alpha)
        algorithm(learner).validate(replace(self, alpha=alpha), learner)
        alpha_kind, alpha_final = self._step_schedule(parsed, defaults)
        explore = defaults["explore_steps"] if self.explore_steps is None else self.explore_steps
        if isinstance(explore, bool) or not isinstance(explore, int) or explore < 0:
            raise FsmarenaError(f"--explore-steps must be zero or more, got {explore!r}")
        if not (isinstance(self.q_init, (int, float)) and math.isfinite(self.q_init)):
            raise FsmarenaError(f"--q-init must be a finite number, got {self.q_init!r}")
        seat = self.learner_seat
        if not (seat == "alternate" or (isinstance(seat, int) and not isinstance(seat, bool) and seat >= 0)):
            raise FsmarenaError(f"learner seat must be 'alternate' or a seat number, got {seat!r}")
        reward = defaults.get("reward", "game") if self.reward is None else self.reward
        _check_reward(reward, game, int(batch))
        return replace(
            self,
            epsilon=float(epsilon),
            alpha="1/n" if parsed is None else parsed,
            alpha_final=alpha_final,
            alpha_schedule=alpha_kind,
            reward=reward,
            explore_steps=explore,
            eval_every=eval_every,
            eval_points=eval_points,
            q_init=float(self.q_init),
            batch=int(batch),
            epsilon_final=float(final),
            epsilon_schedule=kind,
            gamma=float(self.gamma),
        )

    def _curve_settings(self, episodes: int) -> tuple[int | None, int | None]:
        """``eval_every`` (default: a tenth of the budget) of a linear curve, or ``eval_points``
        (default :data:`rl.schedules.LOG_POINTS`) of a log-spaced one, checked."""
        if self.eval_schedule == "log":
            if self.eval_every is not None:
                raise FsmarenaError("--eval-every spaces a linear curve; a log-spaced one takes eval_points")
            return None, LOG_POINTS if self.eval_points is None else _positive("eval_points", self.eval_points)
        if self.eval_points is not None:
            raise FsmarenaError("eval_points is for eval_schedule = 'log'")
        eval_every = self.eval_every if self.eval_every is not None else max(1, episodes // 10)
        return curve_points(self.eval_schedule, episodes, _positive("--eval-every", eval_every)).every, None

    def curve_points(self) -> CurvePoints:
        """Where a resolved sample-based run measures its learning curve."""
        return curve_points(
            self.eval_schedule, _positive("--episodes", self.episodes), self.eval_every, self.eval_points
        )

    def _step_schedule(self, alpha: float | None, defaults: dict[str, Any]) -> tuple[str, float | None]:
        """The step-size schedule's kind and final value (``constant`` and None for ``1/n``).

        A step size given on its own keeps the default schedule: ``--alpha 0.01`` on a game
        whose default step decays to 0 decays from 0.01.  Given settings must fit ``1/n``."""
        kind = self.alpha_schedule
        if alpha is None:
            if kind not in (None, "constant") or self.alpha_final is not None:
                raise FsmarenaError("alpha 1/n has no schedule: --alpha-final and --alpha-schedule need a step size")
            return "constant", None
        kind = defaults.get("alpha_schedule", "constant") if kind is None else kind
        final = self.alpha_final
        if final is None:
            final = alpha if kind == "constant" else defaults.get("alpha_final", 0.0)
        if isinstance(final, bool) or not isinstance(final, (int, float)):
            raise FsmarenaError(f"final alpha must be a number in [0, 1], got {final!r}")
        alpha_schedule(alpha, float(final), kind)  # checks both values and the kind
        return kind, float(final)

    def step_schedule(self) -> EpsilonSchedule | None:
        """The step-size schedule (None: ``1/n``); :meth:`resolved` fills in its settings."""
        alpha = parse_alpha(self.alpha)
        if alpha is None:
            return None
        if self.alpha_final is None or self.alpha_schedule is None:
            raise ValueError("TrainConfig.step_schedule() needs a resolved configuration (TrainConfig.resolved())")
        return alpha_schedule(alpha, self.alpha_final, self.alpha_schedule)

    def schedule(self) -> EpsilonSchedule:
        """The exploration schedule; :meth:`resolved` fills in its three settings."""
        if self.epsilon is None or self.epsilon_final is None or self.epsilon_schedule is None:
            raise ValueError("TrainConfig.schedule() needs a resolved configuration (TrainConfig.resolved())")
        return EpsilonSchedule(self.epsilon, self.epsilon_final, self.epsilon_schedule)

    def to_dict(self) -> dict[str, Any]:
        """The settings as a dict (run.json, checkpoint fingerprints); a constant step size
        leaves out its schedule (its final value plays no part), so runs and checkpoints made
        before step-size schedules existed read the same."""
        settings = asdict(self)
        if self.alpha_schedule in (None, "constant"):  # the final step plays no part
            del settings["alpha_final"], settings["alpha_schedule"]
        if self.eval_schedule == "linear":  # so are runs made before log-spaced curves existed
            del settings["eval_schedule"], settings["eval_points"]
        return settings


def _check_reward(reward: Any, game: Game | None, batch: int) -> None:
    """A known reward mode; segment rewards need a game with segments (and, for the compiled
    sequential learners, a kernel that reads them: ``segment``, ``potential``, ``potential_table``)."""
    if reward not in REWARDS:
        raise FsmarenaError(f"unknown reward '{reward}' (known: {', '.join(REWARDS)})")
    if reward == "segment" and game is not None:
        if not isinstance(game, SegmentRewards):
            raise FsmarenaError(f"{game.name} has no segments: use --reward game")
        if batch == 1 and has_kernel(game):  # the compiled sequential learners
            missing = [f for f in ("segment", "potential", "potential_table") if not hasattr(kernel_of(game), f)]
            if missing:
                raise FsmarenaError(
                    f"the kernel of {game.name} has no {', '.join(missing)}: segment rewards need "
                    "the batched learners (--batch 2 or more), or use --reward game"
                )


def game_defaults(game: Game | None, family: str) -> dict[str, Any]:
    """``game.train_defaults[family]`` (settings measured for that game), or nothing (no game)."""
    if game is None:
        return {}
    chosen = dict(game.train_defaults.get(family, {}))
    unknown = set(chosen) - set(GAME_DEFAULT_KEYS)
    if unknown:  # a programming error in the game's table, not user input
        raise ValueError(f"{game.name}: unknown training defaults {sorted(unknown)}")
    return chosen


def approximator(game: Game, algo: str) -> Callable[..., Any] | None:
    """The trainer of the function-approximation agent ``algo`` that ``game`` offers
    (declared in its entry: ``GameEntry.approximators[algo]``), or None."""
    target = entry(game.name).approximators.get(algo)
    return None if target is None else resolve(target, f"agent '{algo}'")


def _positive(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise FsmarenaError(f"{name} must be a positive whole number, got {value!r}")
    return int(value)


@dataclass
class TrainResult:
    """What a run produced: the greedy ``policy``, the ``q`` and ``counts`` tables, the
    learning ``curve`` (rows with :data:`CURVE_COLUMNS`), training ``games`` consumed,
    wall-clock ``seconds``, the resolved ``config``, the exact value of the policy when the
    game has a model, and the learner (sample-based) or planner result (model-based)."""

    policy: TablePolicy
    q: np.ndarray
    counts: np.ndarray
    curve: list[dict[str, Any]]
    games: int
    seconds: float
    config: TrainConfig
    exact_value: float | None = None
    learner: TabularLearner | None = None
    plan: PlanResult | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        last = [row for row in self.curve if row["games"] == self.games and row["iteration"] in ("", None)]
        return {
            "algo": self.config.algo,
            "games": self.games,
            "seconds": self.seconds,
            "exact_value": self.exact_value,
            "final": last,
            "config": self.config.to_dict(),
        }


# ---- building blocks ------------------------------------------------------------------------


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


def algorithm(learner: registry.LearnerEntry) -> Any:
    """The object a registered learner names (``learner.target``): a
    :class:`rl.learners.TabularLearner` subclass, or a planner of :mod:`rl.planning`."""
    return resolve(learner.target, f"algorithm '{learner.name}'")


def streams(seed: int) -> tuple[np.random.Generator, int]:
    """The generator of every training game of a run, and the integer seed of its evaluations."""
    train_seed, eval_seed = seed_sequence(seed).spawn(2)
    return np.random.default_rng(train_seed), int(eval_seed.generate_state(1)[0])


def game_model(game: Game) -> TabularMDP | None:
    """``game.model()`` when the game has a known model, else None."""
    model = game.model if isinstance(game, ExactModel) else None
    return model() if callable(model) else None


def table_on_model(mdp: TabularMDP, table: np.ndarray) -> np.ndarray:
    """A policy table over the game's states as a policy over the model's states: entries the
    model calls illegal play the first legal action (what TablePolicy does), extra model
    states (terminal ones) their first legal action."""
    full = np.argmax(mdp.legal, axis=1)
    n = min(len(table), mdp.n_states)
    ok = mdp.legal[np.arange(n), table[:n]]
    full[:n] = np.where(ok, table[:n], full[:n])
    return full


def exact_value(mdp: TabularMDP | None, table: np.ndarray, game: Game | None = None) -> float | None:
    """The exact expected return of a policy table: the game's own evaluator when it has one
    (``game.exact_player_values``, e.g. 421's backward induction: no linear algebra, so learning
    curves stay cheap), else a linear solve on the model, else None (no model)."""
    evaluator = game.exact_player_values if isinstance(game, ExactModel) else None
    if callable(evaluator):
        return float(evaluator(TablePolicy(table))[0])
    if mdp is None:
        return None
    return expected_return(mdp, table_on_model(mdp, table))


def evaluate(
    game: Game,
    policy: Player,
    panel: Sequence[Player],
    games: int,
    seed: int,
    jobs: int = 1,
    mdp: TabularMDP | None = None,
    table: np.ndarray | None = None,
) -> list[dict[str, Any]]:
    """Curve rows for ``policy``: one match per panel member (seats swapped), or one solo
    measurement in a one-player game; the same ``seed`` gives the same deals every time."""
    exact = exact_value(mdp, table, game) if table is not None else None
    rows = []
    opponents: Sequence[Player | None] = panel if game.n_seats > 1 else [None]
    for number, opponent in enumerate(opponents):
        stats = play_match(game, policy, opponent, games, seed + number, jobs=jobs)
        n = stats.games
        score_low, score_high = mean_interval(stats.score, stats.score_sq, n)
        row = {
            "opponent": "" if opponent is None else opponent.label,
            "eval_games": n,
            "mean_score": stats.score / n,
            "score_ci_low": score_low,
            "score_ci_high": score_high,
            "exact_value": exact,
        }
        if opponent is None:
            row.update(win="", draw="", loss="", win_ci_low="", win_ci_high="", mean_reward=stats.score / n)
        else:
            low, high = wilson_interval(stats.wins, n)
            row.update(
                win=stats.wins / n,
                draw=stats.draws / n,
                loss=stats.losses / n,
                win_ci_low=low,
                win_ci_high=high,
                mean_reward=(stats.wins - stats.losses) / n,
            )
        rows.append(row)
    return rows


def describe_player(player: Player | None, game: Game) -> Any:
    """A JSON description of a player (its file content when it has one), for checkpoints."""
    if player is None:
        return None
    try:
        return player_to_json(player, game)
    except FsmarenaError:
        return {"kind": player.kind, "label": player.label}


def _batch_plan(done: int, batch: int, points: CurvePoints, refresh: int | None) -> int:
    """Games in the next batch: up to ``batch``, never across an evaluation or refresh point."""
    return run_loop.step_size(done, points.next_after(done), batch, refresh)


def _loop(run: "_Run", batch: int, checkpoint_seconds: float) -> None:
    """Play ``run`` to the end of its budget through the one run loop (:mod:`fsmarena.run_loop`):
    batches of at most ``batch`` games, a curve point and a checkpoint at every evaluation point
    (a fresh run's first at 0 games), a checkpoint at least every ``checkpoint_seconds``."""
    config = run.config
    total, points, refresh = config.episodes, config.curve_points(), config.self_play_every
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


# ---- the run --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """Checked settings of a run: resolved config, integer seed, opponent and panel."""

    config: TrainConfig
    seed: int
    opponent: Player | None
    panel: list[Player]


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
        _compiled_opponent(game, opponent, config)
    if out is not None and config.sample_based:
        path = Path(out) / ckpt.FILENAME
        if resume and not path.exists():
            raise FsmarenaError(f"nothing to resume: {path} does not exist")
        if resume:  # the whole checkpoint, before any work (the run reads it again to continue)
            fingerprint = _fingerprint(game, config, seed, opponent, panel)
            read_checkpoint(path, game, config, fingerprint, panel, make_learner(game, config))
        if not resume and path.exists():
            raise FsmarenaError(
                f"{out} already holds a training checkpoint: pass --resume to continue it, "
                "or choose another output folder"
            )
    return Setup(config, seed, opponent, list(panel))


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
        run = _Run(game, config, seed, setup.opponent, setup.panel, jobs, out_dir, label, on_curve_point)
        loop = _train_sequential if sequential(game, config) else _train_sampled
        result = loop(run, setup.opponent, resume, checkpoint_seconds)
    else:
        result = _plan(game, config, seed, setup.panel, jobs, label)
    if out_dir is not None:
        write_outputs(out_dir, game, result, seed)
    return result


def _fingerprint(
    game: Game, config: TrainConfig, seed: int, opponent: Player | None, panel: Sequence[Player]
) -> dict[str, Any]:
    return {
        "game": game.name,
        "parameters": config_to_dict(game.config),
        "config": config.to_dict(),
        "seed": int(seed),
        "opponent": describe_player(opponent, game),
        "panel": [describe_player(p, game) for p in panel],
    }


def sequential(game: Game, config: TrainConfig) -> bool:
    """Whether a run is the compiled sequential one: ``batch = 1`` on a game with a kernel.
    (Without a kernel, ``batch = 1`` plays the batched learners one game per engine call: the
    same textbook algorithm, only slower.)"""
    return config.sample_based and config.batch == 1 and has_kernel(game)


def _compiled_opponent(game: Game, opponent: Player | None, config: TrainConfig) -> Any:
    """The opponent as compiled arrays (self-play: the frozen greedy table); FsmarenaError
    naming the player when it cannot be compiled, or the game when it has no kernel."""
    from rl.compiled_players import compile_player, self_play

    kernel_of(game)
    if config.self_play_every:
        return self_play()
    return compile_player(opponent if opponent is not None else RandomPlayer(), game)


def chunk_seed(seed: int, done: int) -> int:
    """The 32-bit seed of the compiled stream for the sequential chunk starting at game ``done``."""
    train_seed = seed_sequence(seed).spawn(2)[0]
    child = np.random.SeedSequence(train_seed.entropy, spawn_key=(*train_seed.spawn_key, int(done)))
    return int(child.generate_state(1, np.uint32)[0])


def _sequential_settings(config: TrainConfig) -> tuple[np.ndarray, np.ndarray]:
    """The int and float settings arrays of :func:`rl.sequential.make_runner`."""
    from rl import sequential as seq

    step = config.step_schedule()
    schedule = config.schedule()
    seat = -1 if config.learner_seat == "alternate" else int(config.learner_seat)
    ints = np.array(
        [
            seq.ALGORITHM_CODES[config.algo],
            config.explore_steps,
            seq.SCHEDULE_CODES[schedule.kind],
            seat,
            config.self_play_every or 0,
            1 if config.reward == "segment" else 0,
            seq.SCHEDULE_CODES["constant" if step is None else step.kind],
        ],
        dtype=np.int64,
    )
    floats = np.array(
        [
            config.gamma,
            -1.0 if step is None else step.start,
            schedule.start,
            schedule.final,
            float(_positive("--episodes", config.episodes)),
            -1.0 if step is None else step.final,
        ]
    )
    return ints, floats


def _no_algorithm(k: int) -> None:
    raise ValueError("a training run needs its algorithm (_Run.play) before it plays")


class _Run:
    """The state a training run carries between chunks and into checkpoints; the task the one
    run loop drives (:class:`fsmarena.run_loop.Task`)."""

    def __init__(self, game, config, seed, opponent, panel, jobs, out_dir, label, on_curve_point=None):
        self.game, self.config, self.seed, self.panel, self.jobs, self.label = game, config, seed, panel, jobs, label
        self.on_curve_point = on_curve_point
        self.learner = make_learner(game, config, label)
        self.schedule = config.schedule()
        self.rng, self.eval_seed = streams(seed)
        self.mdp = game_model(game)
        self.fingerprint = _fingerprint(game, config, seed, opponent, panel)
        self.path = out_dir / ckpt.FILENAME if out_dir is not None else None
        self.done, self.curve, self.elapsed_before = 0, [], 0.0
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
        saved = read_checkpoint(self.path, self.game, self.config, self.fingerprint, self.panel, self.learner)
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
        eps = self.schedule.value(self.done, self.config.episodes)
        for row in rows:
            self.curve.append({"games": self.done, "iteration": "", **row, "epsilon": eps})

    def save(self) -> None:
        if self.path is None:
            return
        tables = dict(self.learner.arrays())
        if self.frozen is not None:
            tables["frozen"] = self.frozen
        rng = ckpt.rng_state(self.rng) if self.config.batch != 1 else {"sequential": "reseeded per chunk"}
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


@dataclass(frozen=True)
class Resumed:
    """What a checkpoint hands on to a resumed run (besides the learner's tables): games done,
    curve rows, seconds spent, the batched algorithm's random stream, the self-play table."""

    done: int
    curve: list[dict[str, Any]]
    seconds: float
    rng: np.random.Generator | None
    frozen: np.ndarray | None


def read_checkpoint(
    path: Path,
    game: Game,
    config: TrainConfig,
    fingerprint: dict[str, Any],
    panel: Sequence[Player],
    learner: TabularLearner,
) -> Resumed:
    """The checkpoint at ``path`` checked in full against this run (settings, every curve row,
    every table) and its tables loaded into ``learner``; FsmarenaError (one line) for any
    defect.  :func:`prepare` calls it on a scratch learner so that a bad checkpoint is refused
    before any work starts; the run calls it again to take the state over."""
    source = f"checkpoint {path}"
    expected: dict[str, np.ndarray | None] = {**learner.arrays(), "frozen": np.zeros(game.n_states, dtype=np.int64)}
    meta, tables = ckpt.load_checkpoint(path, max_done=_positive("--episodes", config.episodes), expected=expected)
    saved, current = meta.get("fingerprint"), _jsonable(fingerprint)
    if saved != current:
        raise FsmarenaError(f"{source} was made with different settings: {_differences(saved, current)}")
    done = int(meta["done"])
    curve = ckpt.check_rows(meta["curve"], _curve_columns(panel, done), source, "curve")
    frozen = _frozen_table(tables, game, source)
    learner.load_arrays(tables, source)
    rng = restore_rng(meta.get("rng"), source) if config.batch != 1 else None
    return Resumed(done, list(curve), float(meta.get("seconds", 0.0)), rng, frozen)


def _curve_columns(panel: Sequence[Player], done: int) -> dict[str, ckpt.Column]:
    """What each column of a sample-based run's curve row may hold (:meth:`_Run.evaluate_now`):
    a point at most ``done`` games in, against a member of ``panel`` (``""`` when solo)."""
    fraction = ckpt.Column(float, 0.0, 1.0, empty=True)  # blank in one-player games
    number = ckpt.Column(float, empty=True)  # null when not finite or not known (no model)
    return {
        "games": ckpt.Column(int, 0, done),
        "iteration": ckpt.Column(str, choices=("",)),
        "opponent": ckpt.Column(str, choices=tuple(p.label for p in panel) or ("",)),
        "eval_games": ckpt.Column(int, 1, limits.MAX_GAMES, limit="MAX_GAMES"),
        "win": fraction,
        "draw": fraction,
        "loss": fraction,
        "win_ci_low": fraction,
        "win_ci_high": fraction,
        "mean_reward": number,
        "mean_score": number,
        "score_ci_low": number,
        "score_ci_high": number,
        "exact_value": number,
        "epsilon": ckpt.Column(float, 0.0, 1.0),
    }


def _frozen_table(tables: dict[str, np.ndarray], game: Game, source: str) -> np.ndarray | None:
    """The checkpoint's frozen self-play policy, if it has one: one action of the game per
    state (compiled code indexes with it).  Tables the learner does not know are refused."""
    unknown = sorted(set(tables) - {"q", "n", "legal", "sums", "frozen"})
    if unknown:
        raise FsmarenaError(f"{source}: unexpected table '{clean_text(unknown[0], limits.MAX_SHOWN_CHARS)}'")
    if "frozen" not in tables:
        return None
    frozen = ckpt.check_table(tables["frozen"], np.zeros(game.n_states, dtype=np.int64), source, "frozen")
    if frozen.size and frozen.max() >= game.n_actions:
        raise FsmarenaError(f"{source}: table 'frozen' names actions beyond {game.n_actions - 1}")
    return np.array(frozen, dtype=np.int64)


def _train_sequential(run, opponent, resume, checkpoint_seconds):
    """The textbook algorithm (``batch = 1``): compiled chunks of single games (module doc)."""
    from games.kernel import seed as seed_compiled
    from rl.sequential import make_runner

    game, config, seed = run.game, run.config, run.seed
    if resume:
        run.resume()
    compiled = _compiled_opponent(game, opponent, config)
    kernel = kernel_of(game)
    params = params_of(game)
    runner = make_runner(kernel)
    ints, floats = _sequential_settings(config)
    potentials = kernel.potential_table(game.config) if config.reward == "segment" else np.zeros((1, 1))
    values = run.learner.values
    sums = getattr(run.learner, "sums", np.zeros((1, 1)))
    frozen = run.frozen if run.frozen is not None else np.zeros(game.n_states, dtype=np.int64)
    if config.self_play_every:
        run.frozen = frozen  # the compiled loop refreshes it in place; checkpoints keep it

    def play(k: int) -> None:
        seed_compiled(chunk_seed(seed, run.done))
        runner(
            params,
            values.q,
            values.n,
            sums,
            values.legal,
            frozen,
            run.done,
            k,
            ints,
            floats,
            compiled.ints,
            compiled.floats,
            compiled.int_start,
            compiled.float_start,
            potentials,
        )

    run.play = play
    _loop(run, CHUNK, checkpoint_seconds)
    return run.result()


def _train_sampled(run, opponent, resume, checkpoint_seconds):
    """The batched algorithm (``batch = K > 1``): the learner plays batches of K games with the
    batched engine, one engine call per learner seat (module doc)."""
    game, config = run.game, run.config
    if resume:
        run.resume()
    learner, schedule, step = run.learner, run.schedule, config.step_schedule()
    total, refresh = config.episodes, config.self_play_every
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
        for seat, count in enumerate(_seat_counts(done, k, game.n_seats, config.learner_seat)):
            if count:
                seats = [rival] * game.n_seats
                seats[seat] = learner
                play_games(game, seats, count, run.rng)

    run.play = play
    _loop(run, config.batch, checkpoint_seconds)
    return run.result()


def _plan(game, config, seed, panel, jobs, label) -> TrainResult:
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


# ---- outputs --------------------------------------------------------------------------------


def curve_csv(rows: Sequence[dict[str, Any]]) -> str:
    """The learning curve as CSV text with :data:`CURVE_COLUMNS` (missing cells empty)."""
    return csv_text(CURVE_COLUMNS, [{key: _cell(row.get(key, "")) for key in CURVE_COLUMNS} for row in rows])


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return value


def write_outputs(out_dir: Path, game: Game, result: TrainResult, seed: int) -> None:
    """policy.json, curve.csv, tables.npz and run.json: every text is made first (anything that
    could fail on the data fails before a file is touched), then each file is written atomically."""
    policy = dumps(player_to_json(result.policy, game)) + "\n"
    curve = curve_csv(result.curve)
    run = dumps(
        {
            "game": game.name,
            "parameters": config_to_dict(game.config),
            "seed": int(seed),
            **result.summary(),
            **result.extra,
        }
    )
    tables = {"q": result.q, "counts": result.counts}
    if result.plan is not None:
        tables["values"] = result.plan.values
    write_text(out_dir / "policy.json", policy)
    write_text(out_dir / "curve.csv", curve)
    with atomic_path(out_dir / "tables.npz", suffix=".npz") as tmp:
        with open(tmp, "wb") as handle:
            np.savez(handle, allow_pickle=False, **tables)
    write_text(out_dir / "run.json", run + "\n")


def _jsonable(data: Any) -> Any:
    """``data`` as it reads back from JSON (tuples -> lists), to compare with a checkpoint."""
    from fsmarena.fileio import dumps, loads

    return loads(dumps(data))


#: a checkpoint's settings against this run's, as one line (:func:`fsmarena.run_loop.differences`)
_differences = run_loop.differences
