"""Study method ``train-mlp``: the network learner on 31 (two scikit-learn MLPs, :mod:`fsmarena.rl.network_training`).

Every parameter is a field of :class:`fsmarena.rl.network_training.NetworkSettings` except ``seed`` (the
study derives it per replicate): ``games``, ``batch``, ``hidden``, ``learning_rate``,
``epochs``, ``gamma``, ``epsilon``, ``epsilon_final``, ``epsilon_schedule``, ``opponents``
(builtin names, one drawn per training game; default ``["greedy"]``), ``eval_every``,
``eval_games``, ``reward``.  The curve is the agent's win rate against the study's curve opponent at
every evaluation point (epsilon 0, no learning), against training games consumed; nothing is
written to disk (the runner saves the final player).  Runs in one process: the study
parallelises over replicates.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from fsmarena.errors import FsmarenaError
from fsmarena.games.players import resolve_player
from fsmarena.methods.base import MethodContext, Params, Trained
from fsmarena.rl.network_training import NetworkSettings, train_network

#: settings the study fixes itself (the per-replicate seed) or that only shape the curve
NOT_PARAMETERS = ("seed", "eval_panel", "rolling")


def _settings(ctx: MethodContext) -> NetworkSettings:
    """The agent's settings from the competitor's parameters (FsmarenaError naming it)."""
    p = Params(ctx)
    if ctx.needs:
        raise p.fail("train-mlp trains against builtins ('opponents'), not other competitors; remove 'needs'")
    names = {f.name for f in dataclasses.fields(NetworkSettings)} - set(NOT_PARAMETERS)
    values: dict[str, Any] = {}
    for key, value in ctx.params.items():
        if key not in names:
            raise p.fail(f"unknown parameter '{key}' (known: {', '.join(sorted(names))})")
        values[key] = tuple(value) if isinstance(value, list) else value
    try:
        if ctx.game.name != "thirtyone":  # 31's method: a study method of every game belongs to the studies layer
            raise FsmarenaError(f"train-mlp is the 31 (thirtyone) study's method, not {ctx.game.name}'s")
        settings = NetworkSettings.of(ctx.game, **values, seed=ctx.seed, eval_panel=(ctx.curve_opponent,))
        for name in settings.opponents:
            resolve_player(name, ctx.game)
    except (FsmarenaError, TypeError) as exc:
        raise p.fail(str(exc)) from None
    return settings


def train_mlp(ctx: MethodContext) -> Trained:
    """Train the two-network agent against its opponents (module docstring)."""
    settings = _settings(ctx)
    game = ctx.game
    trainer = train_network(game, settings, None, panel=[resolve_player(ctx.curve_opponent, game)])
    agent = trainer.agent
    agent.trainer = None
    agent.label = ctx.label
    return Trained(
        player=agent,
        games=trainer.done,
        curve_games=[int(r["games"]) for r in trainer.curve],
        curve_win=[float(r["win"]) for r in trainer.curve],
        info={"trained_against": list(settings.opponents)},
    )


def train_mlp_check(ctx: MethodContext) -> dict[str, Any]:
    """Every setting the training will use, defaults included (the seed is the replicate's)."""
    data = dataclasses.asdict(_settings(ctx))
    return {k: list(v) if isinstance(v, tuple) else v for k, v in data.items() if k != "seed"}


def train_mlp_games(settings: dict[str, Any], game: Any) -> int:
    """Every training game (``games``; the evaluation games are not counted)."""
    return int(settings["games"])
