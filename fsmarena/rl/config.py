"""The settings of a training run: :class:`TrainConfig`, its defaults and its checks.

A run's settings are one frozen record; :meth:`TrainConfig.resolved` fills in the defaults
(the learner family's, then the game's own ``train_defaults``) and checks every value, so
that a bad setting is one clear error before any work.  Which learners exist and which
settings each takes come from :mod:`fsmarena.rl.registry`; each learner checks its own options
(``validate``).  Kept apart from the run itself so that studies and the command line can
build and check settings without importing the training loops.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any, Iterable

import numpy as np

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game
from fsmarena.games.capabilities import SegmentRewards
from fsmarena.games.kernel import has_kernel, kernel_of
from fsmarena.games.registry import resolve
from fsmarena.options import changed_fields, check_applies, check_finals
from fsmarena.rl import registry
from fsmarena.rl.schedules import (
    LOG_POINTS,
    CurvePoints,
    EpsilonSchedule,
    alpha_schedule,
    check_probability,
    curve_points,
    parse_alpha,
)
from fsmarena.rl.segments import REWARDS

#: the learners this module runs as the registry (:mod:`fsmarena.rl.registry`) lists them when it is
#: imported (the code reads the registry itself, these names serve readers and tests): those
#: that learn from simulated games by family of defaults, and the planners
MONTE_CARLO = tuple(
    e.name for e in registry.learners("sample") if e.defaults in ("mc", "mc-constant-alpha", "mc-on-policy")
)
TEMPORAL_DIFFERENCE = tuple(e.name for e in registry.learners("sample") if e.defaults == "td")
MODEL_BASED = registry.names("model")
ALGORITHMS = registry.names("sample", "model")
SAMPLE_SETTINGS = registry.SAMPLE_SETTINGS
#: per algorithm, the settings it takes (TrainConfig fields and the run's options): the planners
#: consume no game, so they take no budget, opponent, exploration or checkpoint; a setting
#: given to an algorithm that does not take it is refused (:func:`fsmarena.options.check_applies`)
SETTINGS: dict[str, tuple[str, ...]] = registry.settings("sample", "model")

#: defaults by family.  Monte Carlo: the thesis (running mean, greedy, two random opening
#: decisions); on-policy Monte Carlo: epsilon-greedy with a constant 0.1 and sample averages (the
#: outside agent of ``docs/examples/outside_agent.py``).  TD: chosen on divide-the-dollar (reward only at the end, gamma = 1) in a pilot
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
    "mc-on-policy": {
        "epsilon": 0.1,
        "epsilon_final": 0.0,
        "epsilon_schedule": "constant",
        "explore_steps": 0,
        "alpha": "1/n",
    },
}
#: defaults common to every family: the sequential algorithm (``batch`` 1) when the game has a
#: kernel; :data:`BATCH_WITHOUT_KERNEL` games per batch otherwise
SHARED_DEFAULTS = {"batch": 1}
BATCH_WITHOUT_KERNEL = 10_000
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


@dataclass(frozen=True)
class TrainConfig:
    """Settings of one training run (``None`` = the algorithm's default, see :data:`DEFAULTS`,
    :data:`SHARED_DEFAULTS` and the game's own ``train_defaults``, which take precedence).

    ``gamma`` discounts per decision of the learner (the planners use the model's own discount
    unless a ``gamma`` below 1 is given).
    ``alpha`` is a step size in (0, 1] or ``"1/n"`` (sample average); a step size follows
    ``alpha_schedule`` (``constant`` unless the game chooses otherwise) to ``alpha_final``
    (the schedules of :mod:`fsmarena.rl.schedules`); ``epsilon`` starts the
    ``epsilon_schedule`` that ends at ``epsilon_final``; ``explore_steps`` random decisions open
    every training game (exploring starts); ``eval_every`` defaults to a tenth of the budget.
    ``reward``: ``"game"`` (the final reward) or ``"segment"`` (games with segments, e.g. 31's
    rounds: every segment rewarded by a potential's change, :mod:`fsmarena.rl.segments`).
    ``eval_schedule``: ``"linear"`` (a curve point every ``eval_every`` games) or ``"log"``
    (``eval_points`` points spaced geometrically from 1,000 games to the budget, the shared
    learning-curve axis of the studies; :func:`fsmarena.rl.schedules.log_points`).
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
            known = runs + registry.names("network")
            raise FsmarenaError(f"unknown algorithm '{self.algo}' (known: {', '.join(known)})")
        learner = registry.learner(self.algo)
        api = given is None  # the Python API: a setting that differs from its default counts as given
        given = list(changed_fields(self) if given is None else given)
        check_applies(given, self.algo, registry.settings("sample", "model"))
        positive("--eval-games", self.eval_games)
        check_probability("gamma", self.gamma)
        if learner.kind == "model":
            algorithm(learner).validate(self, learner)
            return self
        episodes = positive("--episodes", self.episodes)
        if self.self_play_every is not None:
            positive("--self-play-every", self.self_play_every)
        eval_every, eval_points = self._curve_settings(episodes)
        family = learner.defaults
        defaults = {**SHARED_DEFAULTS, **DEFAULTS[family], **game_defaults(game, family)}
        if game is not None and defaults["batch"] == 1 and not has_kernel(game):
            defaults["batch"] = BATCH_WITHOUT_KERNEL
        batch = defaults["batch"] if self.batch is None else self.batch
        limits.check(positive("--batch", batch), limits.MAX_BATCH_GAMES, "--batch", "MAX_BATCH_GAMES")
        epsilon = defaults["epsilon"] if self.epsilon is None else self.epsilon
        final = defaults["epsilon_final"] if self.epsilon_final is None else self.epsilon_final
        kind = defaults["epsilon_schedule"] if self.epsilon_schedule is None else self.epsilon_schedule
        EpsilonSchedule(check_probability("epsilon", epsilon), check_probability("final epsilon", final), kind)
        alpha = defaults["alpha"] if self.alpha is None else self.alpha
        parsed = parse_alpha(alpha)
        algorithm(learner).validate(replace(self, alpha=alpha, batch=int(batch)), learner)
        alpha_kind, alpha_final = self._step_schedule(parsed, defaults)
        if api:  # a resolved configuration resolves to itself: the finals it filled in are not given
            filled = {"epsilon_final": defaults["epsilon_final"], "alpha_final": parsed}
            given = [name for name in given if name not in filled or getattr(self, name) != filled[name]]
        check_finals(given, {"epsilon": kind, "alpha": alpha_kind}, self.algo)  # a final no schedule uses
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
        (default :data:`fsmarena.rl.schedules.LOG_POINTS`) of a log-spaced one, checked."""
        if self.eval_schedule == "log":
            if self.eval_every is not None:
                raise FsmarenaError("--eval-every spaces a linear curve; a log-spaced one takes eval_points")
            return None, LOG_POINTS if self.eval_points is None else positive("eval_points", self.eval_points)
        if self.eval_points is not None:
            raise FsmarenaError("eval_points is for eval_schedule = 'log'")
        eval_every = self.eval_every if self.eval_every is not None else max(1, episodes // 10)
        return curve_points(self.eval_schedule, episodes, positive("--eval-every", eval_every)).every, None

    def curve_points(self) -> CurvePoints:
        """Where a resolved sample-based run measures its learning curve."""
        return curve_points(
            self.eval_schedule, positive("--episodes", self.episodes), self.eval_every, self.eval_points
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


def positive(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise FsmarenaError(f"{name} must be a positive whole number, got {value!r}")
    return int(value)


def algorithm(learner: registry.LearnerEntry) -> Any:
    """The object a registered learner names (``learner.target``): a
    :class:`fsmarena.rl.learners.TabularLearner` subclass, or a planner of :mod:`fsmarena.rl.planning`."""
    return resolve(learner.target, f"algorithm '{learner.name}'")
