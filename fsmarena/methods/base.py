"""The method contract: how a competitor turns a budget and a seed into a trained player.

A method is a function ``method(ctx: MethodContext) -> Trained``.  It receives the game, the
competitor's parameters (budgets already resolved for the scale), an integer seed derived
from the study's master seed, and the champions of the competitors it ``needs`` from the same
replicate; it returns the final player, its learning curve (win rate against the study's
curve opponent, by default ``random``, against the number of simulated games consumed) and
the total number of simulated games it used.

Methods are registered in :func:`methods` as ``"module:function"`` so that a study worker
imports only what it runs; ``function_check(ctx)`` validates the parameters without training
(a typo fails before a study writes anything) and returns every setting the method will use,
defaults included: result files record these settings, so results computed under other
defaults (another version of a package) are recognised as stale.  ``function_games(settings,
game)`` says, from those settings alone, how many simulated games a task will consume (its
budget, :mod:`fsmarena.studies.budgets`); the runner checks that the task consumed exactly that.
The generic methods are in :mod:`fsmarena.methods.generic` (a builtin, random search, an outside
agent), the evolution and RL adapters in :mod:`fsmarena.methods.adapters`, training on a variant
in :mod:`fsmarena.methods.variants`, scoring by exact values in :mod:`fsmarena.methods.exact`, the
deep families in :mod:`fsmarena.deep.method`; a game adds its own (``GameEntry.study_methods``).
Studies, tuning and the deep families use this package; it uses none of them.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import dumps
from fsmarena.games.base import Game
from fsmarena.games.match import play_match
from fsmarena.games.players import Player, resolve_player
from fsmarena.games.registry import game_study_methods, lookup

#: the generic methods: name -> "module:function"; games add their own (GameEntry.study_methods)
GENERIC_METHODS: dict[str, str] = {
    "builtin": "fsmarena.methods.generic:builtin",
    "random-search": "fsmarena.methods.generic:random_search",
    "evolve": "fsmarena.methods.adapters:evolve",
    "train": "fsmarena.methods.adapters:train",
    "train-variant": "fsmarena.methods.variants:train_variant",
    "evolve-variant": "fsmarena.methods.variants:evolve_variant",
    "train-exact": "fsmarena.methods.exact:train_exact",
    "evolve-exact": "fsmarena.methods.exact:evolve_exact",
    "plan": "fsmarena.methods.exact:plan",
    "python": "fsmarena.methods.generic:python",
    "deep": "fsmarena.deep.method:train_deep",
}


def methods() -> dict[str, str]:
    """Every study method: the generic ones and those the games declare."""
    return {**GENERIC_METHODS, **game_study_methods()}


@dataclass
class MethodContext:
    """What a method gets: ``opponents`` are the champions of the competitors it ``needs``
    (loaded when it runs; empty when only its parameters are being checked)."""

    game: Game
    params: Mapping[str, Any]
    seed: int
    label: str
    opponents: list[Player] = field(default_factory=list)
    curve_opponent: str = "random"
    needs: tuple[str, ...] = ()


@dataclass
class Trained:
    """A method's result.  ``curve_games[k]`` simulated games had been consumed when the
    player of the moment won ``curve_win[k]`` of its games against the curve opponent.
    ``snapshots[k]``, when the method keeps them, is the player training would have returned
    had it stopped at curve point ``k`` (so the last one is ``player``): the runner measures
    them where the game offers an exact measure (:mod:`fsmarena.studies.runner`)."""

    player: Player
    games: int
    curve_games: list[int] = field(default_factory=list)
    curve_win: list[float] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    snapshots: list[Player] = field(default_factory=list)


def get_method(name: str) -> Callable[[MethodContext], Trained]:
    return lookup(methods(), name, "study method")


def check_method(name: str, ctx: MethodContext) -> dict[str, Any]:
    """Validate a competitor's parameters (FsmarenaError naming it) without training; return
    its resolved settings as plain JSON data."""
    method = get_method(name)
    check = getattr(importlib.import_module(method.__module__), f"{method.__name__}_check", None)
    settings = check(ctx) if check is not None else dict(ctx.params)
    return json.loads(dumps(settings))


def require_method(name: str) -> None:
    """Fail in one line when what method ``name`` needs to train is not installed (its module's
    ``<function>_require``, where it has one: the deep families' optional extra), so a run
    stops before any task starts rather than at the first task of that method."""
    method = get_method(name)
    require = getattr(importlib.import_module(method.__module__), f"{method.__name__}_require", None)
    if require is not None:
        require()


def planned_games(name: str, settings: Mapping[str, Any], game: Game) -> int:
    """The simulated games a task of method ``name`` with resolved ``settings`` (what
    :func:`check_method` returns) will consume in ``game`` (:mod:`fsmarena.studies.budgets`)."""
    method = get_method(name)
    count = getattr(importlib.import_module(method.__module__), f"{method.__name__}_games", None)
    if count is None:  # a programming error in a method module, not user input
        raise ValueError(f"study method '{name}' does not say how many games it consumes ({method.__name__}_games)")
    return int(count(settings, game))


class Params:
    """Typed, checked access to a competitor's parameters (errors name the competitor)."""

    def __init__(self, ctx: MethodContext):
        self.data, self.label = ctx.params, ctx.label
        self.used: set[str] = set()

    def fail(self, message: str) -> FsmarenaError:
        return FsmarenaError(f"competitor '{self.label}': {message}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        self.used.add(key)
        if key not in self.data:
            if default is ...:
                raise self.fail(f"missing parameter '{key}'")
            return default
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            raise self.fail(f"parameter '{key}' has the wrong type ({type(value).__name__})")
        return value

    def positive(self, key: str, default: Any = ...) -> int:
        value = self.get(key, int, default)
        if value <= 0:
            raise self.fail(f"parameter '{key}' must be positive, got {value}")
        return value

    def check_unused(self) -> None:
        """Unknown parameters are typos: refuse them rather than silently ignore them."""
        unknown = set(self.data) - self.used
        if unknown:
            raise self.fail(f"unknown parameters: {', '.join(sorted(unknown))}")


def win_rate(game: Game, player: Player, opponent: str | Player, games: int, seed: int) -> float:
    """``player``'s win rate against ``opponent`` over ``games`` games (seats rotated)."""

    other = resolve_player(opponent, game) if isinstance(opponent, str) else opponent
    return play_match(game, player, other, games, seed).win_rate
