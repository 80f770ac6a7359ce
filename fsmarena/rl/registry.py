"""The learner registry: every learning algorithm of fsmarena, declared once.

Like the game registry (:mod:`fsmarena.games.registry`), a learner is one line of :data:`LEARNERS`: its
name, the ``"module:attribute"`` of the object that *is* the algorithm (its docstring carries
the pseudocode, as DEAP's ``algorithms.py`` does; its ``validate(config, entry)`` checks the
options only it cares about), and the settings it takes.  A learner from simulated games also
names its compiled *update* (``update``: one function of :mod:`fsmarena.rl.algorithms`, with its
pseudocode), which the one compiled training loop (:mod:`fsmarena.rl.sequential`) is built with.  ``fsmarena train`` reads this table
for its ``--algo`` help and for which options apply (:func:`fsmarena.options.check_applies`);
:mod:`fsmarena.rl.config` and :mod:`fsmarena.rl.train` read it to build and validate a learner.  Adding a learner is its own module
and one line here.

This module names things only (strings and tuples, no numpy, no engine), so that the command
line can read it at start-up without importing the learners.

Kinds of learner:

* ``sample``: learns from simulated games in :mod:`fsmarena.rl.train`'s loop (Monte Carlo, TD); the
  target is a :class:`fsmarena.rl.learners.TabularLearner` subclass built with ``options`` (it
  holds the tables; the batched algorithm of ``--batch K`` is its own ``act``, which the learners
  written only as a compiled update do not have: :class:`fsmarena.rl.learners.SequentialLearner`),
  and ``update`` the compiled update;
* ``model``: plans on the game's known model (value and policy iteration, :mod:`fsmarena.rl.planning`);
* ``network``: learns action-value networks from the game's features in its own run
  (:mod:`fsmarena.rl.network_training`); the target's ``validate`` checks its settings and ``start``
  begins a run, on any game with features;
* ``search``: run by another command (``fsmarena search``), listed so that the catalogue is whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from fsmarena.errors import FsmarenaError

#: what the learners from simulated games take: every TrainConfig setting but the planners'
#: ``tolerance``, and the run's opponent, curve panel, checkpoint period and ``--resume``
SAMPLE_SETTINGS: tuple[str, ...] = (
    "episodes",
    "batch",
    "epsilon",
    "epsilon_final",
    "epsilon_schedule",
    "alpha",
    "alpha_final",
    "alpha_schedule",
    "gamma",
    "explore_steps",
    "q_init",
    "learner_seat",
    "self_play_every",
    "eval_every",
    "eval_games",
    "eval_schedule",
    "eval_points",
    "reward",
    "opponent",
    "eval_panel",
    "checkpoint_seconds",
    "resume",
)
#: what the network learner takes: its own network options and the run's budget,
#: exploration, reward, opponent and curve settings
NETWORK_SETTINGS: tuple[str, ...] = (
    "episodes",
    "batch",
    "hidden",
    "learning_rate",
    "epochs",
    "gamma",
    "epsilon",
    "epsilon_final",
    "epsilon_schedule",
    "opponent",
    "eval_every",
    "eval_games",
    "eval_panel",
    "reward",
    "resume",
)
KINDS = ("sample", "model", "network", "search")


@dataclass(frozen=True)
class LearnerEntry:
    """One learning algorithm (see the module docstring).

    ``defaults`` names the family of default settings it starts from (``mc``,
    ``mc-constant-alpha``, ``mc-on-policy``, ``td``: :data:`fsmarena.rl.config.DEFAULTS`, which a
    game may tune through ``Game.train_defaults[family]``); ``options`` are the keyword arguments
    its target is built with (``visits="first-visit"``); ``step`` what its ``alpha`` may be:
    ``average`` (only ``1/n``), ``size`` (only a step size) or ``either``; ``summary`` is its line
    in ``--help``; ``update`` the ``"module:function"`` of its compiled update (``sample``
    learners, :mod:`fsmarena.rl.algorithms`)."""

    name: str
    kind: str
    target: str
    settings: tuple[str, ...]
    summary: str
    defaults: str = ""
    options: Mapping[str, object] = field(default_factory=dict)
    step: str = "either"
    update: str = ""


LEARNERS: tuple[LearnerEntry, ...] = (
    LearnerEntry(
        "mc",
        "sample",
        "fsmarena.rl.learners:MonteCarlo",
        SAMPLE_SETTINGS,
        "Monte Carlo control, every visit, sample averages (the thesis)",
        "mc",
        {"visits": "every-visit"},
        "average",
        "fsmarena.rl.algorithms.monte_carlo:every_visit_monte_carlo",
    ),
    LearnerEntry(
        "mc-first-visit",
        "sample",
        "fsmarena.rl.learners:MonteCarlo",
        SAMPLE_SETTINGS,
        "Monte Carlo control, first visit, sample averages",
        "mc",
        {"visits": "first-visit"},
        "average",
        "fsmarena.rl.algorithms.monte_carlo:first_visit_monte_carlo",
    ),
    LearnerEntry(
        "mc-constant-alpha",
        "sample",
        "fsmarena.rl.learners:MonteCarlo",
        SAMPLE_SETTINGS,
        "Monte Carlo control, every visit, a step size",
        "mc-constant-alpha",
        {"visits": "every-visit"},
        "size",
        "fsmarena.rl.algorithms.monte_carlo:every_visit_monte_carlo",
    ),
    LearnerEntry(
        "mc-seed",
        "sample",
        "fsmarena.rl.learners:MonteCarlo",
        SAMPLE_SETTINGS,
        "the seed notebook's Monte Carlo: credits its policy's action, not the one taken",
        "mc",
        {"visits": "every-visit", "credit": "policy"},
        "average",
        "fsmarena.rl.algorithms.seed_monte_carlo:seed_monte_carlo",
    ),
    LearnerEntry(
        "mc-on-policy",
        "sample",
        "fsmarena.rl.learners:SequentialLearner",
        SAMPLE_SETTINGS,
        "on-policy Monte Carlo control, every visit, epsilon-greedy, no exploring starts",
        "mc-on-policy",
        update="fsmarena.rl.algorithms.on_policy_monte_carlo:on_policy_monte_carlo",
    ),
    LearnerEntry(
        "sarsa",
        "sample",
        "fsmarena.rl.learners:TemporalDifference",
        SAMPLE_SETTINGS,
        "one-step SARSA",
        "td",
        {"method": "sarsa"},
        update="fsmarena.rl.algorithms.temporal_difference:sarsa",
    ),
    LearnerEntry(
        "q-learning",
        "sample",
        "fsmarena.rl.learners:TemporalDifference",
        SAMPLE_SETTINGS,
        "one-step Q-learning",
        "td",
        {"method": "q-learning"},
        update="fsmarena.rl.algorithms.temporal_difference:q_learning",
    ),
    LearnerEntry(
        "expected-sarsa",
        "sample",
        "fsmarena.rl.learners:TemporalDifference",
        SAMPLE_SETTINGS,
        "one-step expected SARSA",
        "td",
        {"method": "expected-sarsa"},
        update="fsmarena.rl.algorithms.temporal_difference:expected_sarsa",
    ),
    LearnerEntry(
        "double-q-learning",
        "sample",
        "fsmarena.rl.learners:SequentialLearner",
        SAMPLE_SETTINGS,
        "double Q-learning (two estimates, each updated toward the other's value)",
        "td",
        {"tables": 4},
        update="fsmarena.rl.algorithms.double_q_learning:double_q_learning",
    ),
    LearnerEntry(
        "value-iteration",
        "model",
        "fsmarena.rl.planning:ValueIteration",
        ("gamma", "tolerance", "eval_games", "eval_panel"),
        "value iteration on the game's known model",
    ),
    LearnerEntry(
        "policy-iteration",
        "model",
        "fsmarena.rl.planning:PolicyIteration",
        ("gamma", "eval_games", "eval_panel"),
        "policy iteration (exact evaluation) on the game's known model",
    ),
    LearnerEntry(
        "mlp",
        "network",
        "fsmarena.rl.network_training:NetworkLearner",
        NETWORK_SETTINGS,
        "Monte Carlo control with action-value networks on the game's features (games with features)",
    ),
    LearnerEntry(
        "policy-search",
        "search",
        "fsmarena.rl.policy_search:search_policy",
        (),
        "direct policy search over table policies (fsmarena search)",
    ),
)


def learners(*kinds: str) -> tuple[LearnerEntry, ...]:
    """The registered learners of the given kinds (every kind when none is given), in order."""
    return tuple(e for e in LEARNERS if not kinds or e.kind in kinds)


def names(*kinds: str) -> tuple[str, ...]:
    """The names of :func:`learners`."""
    return tuple(e.name for e in learners(*kinds))


def learner(name: str, *kinds: str) -> LearnerEntry:
    """The entry called ``name`` among ``kinds``; an unknown name is one FsmarenaError listing
    the known ones."""
    for item in learners(*kinds):
        if item.name == name:
            return item
    raise FsmarenaError(f"unknown algorithm '{name}' (known: {', '.join(names(*kinds))})")


def settings(*kinds: str) -> dict[str, tuple[str, ...]]:
    """Per learner, the settings it takes: the table :func:`fsmarena.options.check_applies`
    refuses the others with."""
    return {e.name: e.settings for e in learners(*kinds)}


def option_names(*kinds: str) -> tuple[str, ...]:
    """Every setting some learner of ``kinds`` (every kind when none is given) takes, in
    registry order, each once (the options ``fsmarena train`` passes on when given)."""
    seen: dict[str, None] = {}
    for item in learners(*kinds):
        seen.update(dict.fromkeys(item.settings))
    return tuple(seen)


def check_registry() -> None:
    """TypeError for a malformed table (a programming error): a duplicate name, an unknown kind."""
    found = [e.name for e in LEARNERS]
    if len(set(found)) != len(found):
        raise TypeError(f"two learners share a name: {found}")
    for item in LEARNERS:
        if item.kind not in KINDS:
            raise TypeError(f"learner '{item.name}' has unknown kind '{item.kind}'")
        if item.kind == "sample" and ":" not in item.update:
            raise TypeError(f"learner '{item.name}' names no compiled update ('module:function')")
