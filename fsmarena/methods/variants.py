"""Study methods that train on a variant of the study's game, or against several builtins.

``train-variant`` and ``evolve-variant`` are the ``train`` and ``evolve`` methods of
:mod:`fsmarena.methods.adapters` with two more parameters:

* ``game_params``: game parameters that differ during training only, e.g.
  ``{ action_set = "abstract" }`` so that automata and tabular learners choose among the
  abstract actions of Stupide Vautour while the study's game (``action_set = "both"``) lets
  every competitor meet.  The trained player is written out and read back in the study's game
  (:func:`fsmarena.games.players.player_from_json`): a player that does not fit there (another state
  space, an action out of range) fails loudly instead of being silently re-read.
* ``opponents`` (``train-variant`` only): builtin names; the learner trains against a
  :class:`~fsmarena.games.players.Mixture` of them (one drawn per training game), together with the
  champions of the competitors it ``needs``.  (Evolution names its opponents with the panel
  protocol's own ``panel`` parameter.)

What a competitor trained against is kept in its parameters, so a report can tell the
strategies it saw from those it never met.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.players import player_from_json, player_to_json, resolve_player
from fsmarena.methods import adapters
from fsmarena.methods.base import MethodContext, Params, Trained

#: the parameters this module adds to the adapters' own
EXTRA = ("game_params", "opponents")


def training_opponents(method: str, params: dict[str, Any]) -> list[str]:
    """The builtins a competitor trained against, from its parameters: ``opponents`` (or
    ``opponent``, default ``random``) of a training run, the ``panel`` of an evolution run."""
    if method in ("evolve", "evolve-variant"):
        return list(params.get("panel", []))
    if method in ("train", "train-variant"):
        return list(params.get("opponents") or [params.get("opponent", "random")])
    return []


def variant(game: Any, overrides: dict[str, Any]) -> Any:
    """``game`` with the parameters ``overrides`` changed (command-line conversion rules)."""

    def text(value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, (tuple, list)):
            return ",".join(map(str, value))
        return "none" if value is None else str(value)

    current = {f.name: text(getattr(game.config, f.name)) for f in dataclasses.fields(game.config)}
    return get_game(game.name, {**current, **{k: text(v) for k, v in overrides.items()}})


def _split(ctx: MethodContext, allow_opponents: bool) -> tuple[MethodContext, list[str]]:
    """The adapters' context (training game, parameters without :data:`EXTRA`) and the
    opponent names, every extra parameter checked."""
    p = Params(ctx)
    overrides = p.get("game_params", dict, {})
    names = p.get("opponents", list, [])
    if names and not allow_opponents:
        raise p.fail("'opponents' is for train-variant; evolution names its opponents with 'panel'")
    if names and "opponent" in ctx.params:
        raise p.fail("give either 'opponent' or 'opponents', not both")
    if not all(isinstance(n, str) for n in names):
        raise p.fail("'opponents' must be a list of builtin names")
    study_game = ctx.game
    try:
        game = variant(study_game, overrides) if overrides else study_game
        for name in names:
            resolve_player(name, game)
    except FsmarenaError as exc:
        raise p.fail(str(exc)) from None
    inner = {k: v for k, v in ctx.params.items() if k not in EXTRA}
    return dataclasses.replace(ctx, game=game, params=inner), names


def _in_study_game(player: Any, training_game: Any, study_game: Any, label: str) -> Any:
    """The trained player as a player of the study's game (a JSON round trip, validated)."""
    try:
        return player_from_json(player_to_json(player, training_game), study_game, f"competitor '{label}'")
    except FsmarenaError as exc:
        raise FsmarenaError(
            f"competitor '{label}': the player trained with game_params does not fit the study's game: {exc}"
        ) from None


def _run(ctx: MethodContext, method: Callable[[MethodContext], Trained], allow_opponents: bool) -> Trained:
    inner, names = _split(ctx, allow_opponents)
    if names:
        builtins = [resolve_player(name, inner.game) for name in names]
        inner = dataclasses.replace(inner, opponents=builtins + list(ctx.opponents))
    trained = method(inner)
    trained.player = _in_study_game(trained.player, inner.game, ctx.game, ctx.label)
    trained.snapshots = [_in_study_game(p, inner.game, ctx.game, ctx.label) for p in trained.snapshots]
    trained.info = {**trained.info, "trained_against": names or trained.info.get("trained_against", [])}
    return trained


def train_variant(ctx: MethodContext) -> Trained:
    """``train`` on a game variant and/or against a mixture of builtins (module docstring)."""
    return _run(ctx, adapters.train, allow_opponents=True)


def evolve_variant(ctx: MethodContext) -> Trained:
    """``evolve`` on a game variant (module docstring)."""
    return _run(ctx, adapters.evolve, allow_opponents=False)


def train_variant_check(ctx: MethodContext) -> dict[str, Any]:
    """Every setting the training will use (the adapter's), with the variant and opponents."""
    inner, names = _split(ctx, allow_opponents=True)
    settings = dict(adapters.train_check(inner) or {})
    if names:
        needs = f" and the champions of {' and '.join(ctx.needs)}" if ctx.needs else ""
        settings["opponent"] = f"one of {', '.join(names)}{needs} per game"
    return {**settings, "game_params": dict(ctx.params.get("game_params", {})), "opponents": names}


def evolve_variant_check(ctx: MethodContext) -> dict[str, Any]:
    """Every setting the evolution will use (the adapter's), with the variant."""
    inner, _names = _split(ctx, allow_opponents=False)
    settings = dict(adapters.evolve_check(inner) or {})
    return {**settings, "game_params": dict(ctx.params.get("game_params", {}))}


def train_variant_games(settings: dict[str, Any], game: Any) -> int:
    """Every training game (the variant changes the game, not the budget)."""
    return adapters.train_games(settings, game)


def evolve_variant_games(settings: dict[str, Any], game: Any) -> int:
    """Every fitness game, counted in the variant the evolution plays."""
    overrides = settings.get("game_params", {})
    return adapters.evolve_games(settings, variant(game, overrides) if overrides else game)
