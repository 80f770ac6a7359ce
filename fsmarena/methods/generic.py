"""The generic study methods: a builtin strategy, random search over table policies, an outside agent.

``builtin`` enters a fixed strategy as a reference competitor (no training); ``random-search``
keeps the best of random table policies, a baseline every tabular learner should beat;
``python`` enters an outside agent by its ``"package.module:function"`` entry.  Each has its
``_check`` and ``_games`` companions (:mod:`fsmarena.methods.base`).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Mapping

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game
from fsmarena.games.outside_player import OutsidePlayer, storable
from fsmarena.games.players import Player, TablePolicy, resolve_player
from fsmarena.methods.base import MethodContext, Params, Trained, win_rate


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
