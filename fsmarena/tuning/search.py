"""Search a space within a budget of games: a seeded random search, or Optuna's TPE.

Both algorithms see a family only through two functions: ``cost(settings) -> games`` (the games a
trial will consume, from the method's own accounting, known before it runs) and
``evaluate(task) -> (games, score)`` (train and score one trial; ``task`` is a :class:`TrialTask`).
A trial is started only when its cost fits in what is left of the budget, so the trials' games
never exceed it; the search stops at the first drawn trial that does not fit.

The random search draws every trial's settings from one stream (``SeedSequence(seed,
spawn_key=(SAMPLER_KEY,))``) before any runs, so its trials, and the settings it chooses, are the
same for any ``--jobs``; trials already in a record are reused (a stopped search resumes).
Optuna's TPE proposes each trial from the scores of the previous ones, so it runs one trial at a
time (its sampler seeded from the same seed).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.extras import install_hint
from fsmarena.parallel import iter_tasks
from fsmarena.tuning.space import Dimension, Space

#: the spawn key of the stream the random search draws settings from
SAMPLER_KEY = 1
#: no search runs more trials than this, whatever its budget
MAX_TRIALS = 10_000
ALGORITHMS = ("random", "optuna")


@dataclass(frozen=True)
class TrialTask:
    """What one trial runs: its index (which fixes its seeds) and its settings."""

    index: int
    settings: Mapping[str, Any]


@dataclass(frozen=True)
class Trial:
    index: int
    settings: Mapping[str, Any]
    games: int
    score: float

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "settings": dict(self.settings), "games": self.games, "score": self.score}


Cost = Callable[[Mapping[str, Any]], int]
Evaluate = Callable[[TrialTask], tuple[int, float]]


def optuna_available() -> bool:
    return importlib.util.find_spec("optuna") is not None


def check_budget(budget: int, first_cost: int) -> None:
    """Refuse a budget no trial fits in, or a family that consumes no games (one line)."""
    if first_cost <= 0:
        raise FsmarenaError("this family consumes no games: there is nothing to tune at a cost")
    if budget < first_cost:
        raise FsmarenaError(f"the tuning budget of {budget:,} games is smaller than one trial ({first_cost:,} games)")


def planned_trials(space: Space, cost: Cost, budget: int, seed: int) -> list[tuple[TrialTask, int]]:
    """The random search's trials and their costs: drawn in order until one does not fit."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(SAMPLER_KEY,)))
    trials: list[tuple[TrialTask, int]] = []
    left = budget
    while len(trials) < MAX_TRIALS:
        settings = space.sample(rng)
        games = int(cost(settings))
        if not trials:
            check_budget(budget, games)
        if games > left:
            break
        trials.append((TrialTask(len(trials), settings), games))
        left -= games
    return trials


def planned_tuning_games(space: Space, cost: Cost, budget: int, seed: int) -> int:
    """The games a random search will consume, known before it runs (its trials are fixed by its
    seed): what lets a study check at load that its tuned families get budgets within 10%."""
    return sum(games for _, games in planned_trials(space, cost, budget, seed))


def random_search(
    space: Space,
    cost: Cost,
    evaluate: Evaluate,
    budget: int,
    seed: int,
    jobs: int = 1,
    done: Mapping[int, Trial] | None = None,
    on_trial: Callable[[Trial], None] = lambda trial: None,
) -> list[Trial]:
    """Every trial of the seeded random search, in index order (``done`` ones reused)."""
    planned = planned_trials(space, cost, budget, seed)
    done = dict(done or {})
    for index, trial in done.items():
        if index >= len(planned) or dict(planned[index][0].settings) != dict(trial.settings):
            raise FsmarenaError(
                f"the record's trial {index} is not this search's: give a new --out or the same options"
            )
    todo = [(task, games) for task, games in planned if task.index not in done]
    stream = iter_tasks(
        evaluate, [t for t, _ in todo], jobs, "tuning", [g for _, g in todo], unit="game", ordered=False
    )
    for position, (games, score) in stream:
        task, expected = todo[position]
        if games != expected:  # a method whose accounting disagrees with what it did is a bug
            raise ValueError(f"trial {task.index} consumed {games} games, its method said {expected}")
        done[task.index] = Trial(task.index, dict(task.settings), games, float(score))
        on_trial(done[task.index])
    return [done[i] for i in sorted(done)]


def _suggest(trial: Any, dimension: Dimension) -> Any:
    if dimension.kind == "choice":
        return trial.suggest_categorical(dimension.name, list(dimension.choices))
    if dimension.kind == "int":
        return trial.suggest_int(dimension.name, int(dimension.low), int(dimension.high), log=dimension.log)
    return trial.suggest_float(dimension.name, dimension.low, dimension.high, log=dimension.log)


def optuna_search(
    space: Space,
    cost: Cost,
    evaluate: Evaluate,
    budget: int,
    seed: int,
    on_trial: Callable[[Trial], None] = lambda trial: None,
) -> list[Trial]:
    """Optuna's TPE, one trial at a time, until a proposed trial does not fit the budget."""
    if not optuna_available():
        raise FsmarenaError(f"--algorithm optuna needs the [tune] extra: {install_hint('tune')}")
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(
        seed=int(np.random.SeedSequence(seed, spawn_key=(SAMPLER_KEY,)).generate_state(1)[0])
    )
    study = optuna.create_study(direction="maximize", sampler=sampler)
    trials: list[Trial] = []
    left = budget
    while len(trials) < MAX_TRIALS:
        proposal = study.ask()
        settings = {d.name: _suggest(proposal, d) for d in space.dimensions}
        games = int(cost(settings))
        if not trials:
            check_budget(budget, games)
        if games > left:
            study.tell(proposal, state=optuna.trial.TrialState.FAIL)
            break
        spent, score = evaluate(TrialTask(len(trials), settings))
        if spent != games:
            raise ValueError(f"trial {len(trials)} consumed {spent} games, its method said {games}")
        study.tell(proposal, float(score))
        trials.append(Trial(len(trials), settings, games, float(score)))
        on_trial(trials[-1])
        left -= games
    return trials


def best_trial(trials: list[Trial]) -> Trial:
    """The highest-scoring trial (the earliest of equals)."""
    return max(trials, key=lambda t: (t.score, -t.index))
