"""Competitor methods: how a study turns a budget and a seed into a trained player.

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
budget, :mod:`fsmarena.studies.budgets`); the runner checks that the task consumed exactly that.  Here
live the generic ones: ``builtin`` (a fixed strategy as a reference competitor, no training)
and ``random-search`` (best of random table policies, a baseline every tabular learner should
beat); the evolution and RL adapters are in :mod:`fsmarena.studies.adapters`.
"""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import dumps
from fsmarena.games.base import Game
from fsmarena.games.match import play_match
from fsmarena.games.outside_player import OutsidePlayer, storable
from fsmarena.games.players import Player, TablePolicy, resolve_player
from fsmarena.games.registry import game_study_methods, lookup

if TYPE_CHECKING:  # pragma: no cover - typing only (the protocol checks budgets with this module)
    from fsmarena.studies.protocol import Competitor, Plan

#: the generic methods: name -> "module:function"; games add their own (GameEntry.study_methods)
GENERIC_METHODS: dict[str, str] = {
    "builtin": "fsmarena.studies.methods:builtin",
    "random-search": "fsmarena.studies.methods:random_search",
    "evolve": "fsmarena.studies.adapters:evolve",
    "train": "fsmarena.studies.adapters:train",
    "train-variant": "fsmarena.studies.variants:train_variant",
    "evolve-variant": "fsmarena.studies.variants:evolve_variant",
    "train-exact": "fsmarena.studies.exact_methods:train_exact",
    "evolve-exact": "fsmarena.studies.exact_methods:evolve_exact",
    "plan": "fsmarena.studies.exact_methods:plan",
    "python": "fsmarena.studies.methods:python",
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


def check_competitors(plan: Plan, game: Game) -> dict[str, dict[str, Any]]:
    """The resolved settings of every competitor of ``plan`` (:func:`check_method`), after
    checking the whole study file: every competitor at every other scale too, and every value
    of a competitor's ``params`` that a scale's budgets replace, in that scale's company.  A
    value no run of this scale reads (``generations = -3`` under budgets that all set
    ``generations``, a typo in the paper scale found by a test run) is refused like one it
    reads, rather than kept silently until a run trips on it (FsmarenaError, one line)."""
    study = plan.study
    for scale in study.scales:
        if scale == plan.scale.name:
            continue
        try:
            for competitor in study.plan(scale, plan.seed).competitors:
                check_method(competitor.method, _check_context(plan, game, competitor.params, competitor))
        except FsmarenaError as exc:
            raise FsmarenaError(f"scale '{scale}': {exc}") from None
    for scale, budgets in study.scales.items():
        for competitor in study.plan(scale, plan.seed).competitors:
            params = next(c.params for c in study.competitors if c.name == competitor.name)
            for key in sorted(set(params) & set(budgets.budgets.get(competitor.name, {}))):
                ctx = _check_context(plan, game, {**competitor.params, key: params[key]}, competitor)
                try:
                    check_method(competitor.method, ctx)
                except FsmarenaError as exc:
                    raise FsmarenaError(
                        f"{exc} (the value of '{key}' in its params, which scale '{scale}' replaces)"
                    ) from None
    return {c.name: check_method(c.method, _check_context(plan, game, c.params, c)) for c in plan.competitors}


def _check_context(plan: Plan, game: Game, params: Mapping[str, Any], competitor: Competitor) -> MethodContext:
    """The context :func:`check_method` checks ``params`` of ``competitor`` in (no champions
    yet: only the names it ``needs``)."""
    return MethodContext(game, dict(params), 0, competitor.name, [], plan.study.curve_opponent, competitor.needs)


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


# ---- generic methods -------------------------------------------------------------------------


def builtin(ctx: MethodContext) -> Trained:
    """A builtin strategy as a competitor (``params.player``); no training, no curve."""
    player = resolve_player(builtin_check(ctx)["player"], ctx.game)
    player.label = ctx.label
    return Trained(player=player, games=0)


def builtin_check(ctx: MethodContext) -> dict[str, Any]:
    p = Params(ctx)
    name = p.get("player", str)
    p.check_unused()
    resolve_player(name, ctx.game)
    return {"player": name}


def builtin_games(settings: Mapping[str, Any], game: Game) -> int:
    """A builtin strategy is not trained: no game."""
    return 0


def random_search(ctx: MethodContext) -> Trained:
    """Best of ``candidates`` uniformly random table policies, each judged on
    ``games_per_candidate`` games against the curve opponent.

    The curve records, after each candidate, the incumbent's measured win rate; it is the
    *selected maximum* of noisy estimates, so it is biased upwards (a baseline, not a learner).
    """
    settings = random_search_check(ctx)
    candidates, per = settings["candidates"], settings["games_per_candidate"]
    rng = np.random.default_rng(ctx.seed)
    tables = rng.integers(0, ctx.game.n_actions, size=(candidates, ctx.game.n_states))
    seeds = rng.integers(0, 2**62, size=candidates)
    opponent = resolve_player(ctx.curve_opponent, ctx.game)
    best, best_rate = 0, -1.0
    curve_games, curve_win = [], []
    for k in range(candidates):
        rate = win_rate(ctx.game, TablePolicy(tables[k]), opponent, per, int(seeds[k]))
        if rate > best_rate:
            best, best_rate = k, rate
        curve_games.append((k + 1) * per)
        curve_win.append(best_rate)
    return Trained(
        TablePolicy(tables[best], label=ctx.label),
        candidates * per,
        curve_games,
        curve_win,
        {"best_candidate": int(best)},
    )


def random_search_check(ctx: MethodContext) -> dict[str, Any]:
    p = Params(ctx)
    candidates = p.positive("candidates")
    per = p.positive("games_per_candidate")
    p.check_unused()
    if ctx.needs:
        raise p.fail("random-search trains against the curve opponent only; remove 'needs'")
    return {"candidates": candidates, "games_per_candidate": per}


def random_search_games(settings: Mapping[str, Any], game: Game) -> int:
    """Every game that judges a candidate."""
    return int(settings["candidates"]) * int(settings["games_per_candidate"])


def python(ctx: MethodContext) -> Trained:
    """An outside agent as a competitor: ``params.entry = "package.module:make_player"`` names a
    function ``make_player(game) -> Player``.  It runs code from outside fsmarena, so it is
    imported only when a study names it, with a one-line warning; it is not trained by the study
    (no game consumed here).  A player with no file of its own (a function of the Gymnasium
    observation) is kept by its entry (:mod:`fsmarena.games.outside_player`)."""
    entry = python_check(ctx)["entry"]
    player = outside_player(entry, ctx.game, ctx.label)
    return Trained(player=player, games=0)


def outside_player(entry: str, game: Game, label: str) -> Player:
    """The player ``entry`` makes, labelled; wrapped as an :class:`OutsidePlayer` when it has no
    player file of its own (a function of the observation), so the study can keep it by name."""
    player = _make_outside_player(entry, MethodContext(game, {"entry": entry}, 0, label))
    player.label = label
    return player if storable(player) else OutsidePlayer(player, entry, label)


def python_check(ctx: MethodContext) -> dict[str, Any]:
    p = Params(ctx)
    entry = p.get("entry", str)
    p.check_unused()
    module_name, _, attribute = entry.partition(":")
    if not module_name or not attribute:
        raise p.fail(f"entry '{entry}' is not of the form 'package.module:function'")
    return {"entry": entry}


def python_games(settings: Mapping[str, Any], game: Game) -> int:
    """The outside agent was trained elsewhere: no game is consumed by the study."""
    return 0


def _make_outside_player(entry: str, ctx: MethodContext) -> Player:
    """Import ``entry`` and call it with the game; one clear error if anything is missing or wrong."""
    module_name, _, attribute = entry.partition(":")
    print(f"warning: competitor '{ctx.label}' runs outside code from '{module_name}'", file=sys.stderr)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise FsmarenaError(f"competitor '{ctx.label}': cannot import '{module_name}' ({exc})") from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise FsmarenaError(f"competitor '{ctx.label}': '{module_name}' has no function '{attribute}'")
    player = factory(ctx.game)
    if not isinstance(player, Player):
        raise FsmarenaError(
            f"competitor '{ctx.label}': {entry} returned {type(player).__name__}, not an fsmarena Player"
        )
    return player
