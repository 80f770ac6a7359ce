"""Study methods backed by the evolution and reinforcement-learning packages.

``evolve``: every parameter is a field of :class:`fsmarena.evo.run.EvolveConfig` (genome, protocol,
generations, population, ...); the champion is the run's hall-of-fame leader and the curve is
the one the run records (each measured generation's champion against the study's curve
opponent, as the learners' curves are, against the number of games simulated so far); the
snapshots are the hall of fame's leader at each curve point.

``train``: every parameter is a field of :class:`fsmarena.rl.train.TrainConfig` (algo, episodes,
batch, epsilon, learner_seat, eval_every, eval_games, ...) plus ``opponent``, a builtin name
(default ``random``).  Without ``batch`` (or with ``batch = 1``) a competitor is the textbook
sequential learner (:mod:`fsmarena.rl.sequential`, the default for games with a kernel); ``batch = K``
asks for the batched algorithm.  A competitor that ``needs`` others trains instead against a
:class:`~fsmarena.games.players.Mixture` of their champions from the same replicate (one drawn per
training game; compiled into a pool for the sequential learners).  The final player is the greedy table policy; the curve is its win rate
against the study's curve opponent at every evaluation point, and the snapshots are the greedy
policies measured there.

Both run in one process (``jobs=1``): the study parallelises over replicates instead.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from fsmarena.errors import FsmarenaError
from fsmarena.evo.run import EvolveConfig
from fsmarena.evo.run import evolve as run_evolution
from fsmarena.games.base import Game
from fsmarena.games.players import Mixture, Player, resolve_player
from fsmarena.methods.base import MethodContext, Params, Trained
from fsmarena.rl.train import MODEL_BASED, TrainConfig
from fsmarena.rl.train import train as run_training


def _config(cls: type, params: Params, exclude: tuple[str, ...] = ()) -> Any:
    """A config dataclass from the competitor's parameters (unknown names are refused)."""
    names = {f.name for f in dataclasses.fields(cls)}
    values = {}
    for key, value in params.data.items():
        if key in exclude:
            continue
        if key not in names:
            raise params.fail(f"unknown parameter '{key}' (known: {', '.join(sorted(names | set(exclude)))})")
        values[key] = tuple(value) if isinstance(value, list) else value
        params.used.add(key)
    try:
        return cls(**values)
    except TypeError as exc:
        raise params.fail(str(exc)) from None


def evolve(ctx: MethodContext) -> Trained:
    """Evolve a BDA or table FSM with one of the evolution protocols."""

    config = _evolve_config(ctx)
    against = ctx.curve_opponent if ctx.game.n_seats > 1 else None  # one player: the champion alone
    snapshots: list[Player] = []
    result = run_evolution(
        ctx.game,
        config,
        seed=ctx.seed,
        jobs=1,
        on_curve_point=lambda _games, player: snapshots.append(player),
        curve_opponent=None if against is None else resolve_player(against, ctx.game),
    )
    curve = result.curve()
    return Trained(
        player=result.best,
        games=int(result.games),
        curve_games=[int(g) for g, _ in curve],
        curve_win=[float(w) for _, w in curve],
        info={
            "best_fitness": float(result.best_fitness),
            "generations": int(result.generation),
            **({} if against is None else {"curve_opponent": against}),
        },
        snapshots=snapshots,
    )


def train(ctx: MethodContext) -> Trained:
    """Train a tabular RL agent against a builtin or against the needed champions."""

    config, opponent_name = _train_config(ctx)
    opponent: Player
    if ctx.opponents:
        opponent = Mixture(ctx.opponents, label="champions")
    else:
        opponent = resolve_player(opponent_name, ctx.game)
    curve_opponent = resolve_player(ctx.curve_opponent, ctx.game)
    snapshots: list[Player] = []
    result = run_training(
        ctx.game,
        config,
        seed=ctx.seed,
        opponent=opponent,
        panel=[curve_opponent],
        jobs=1,
        label=ctx.label,
        on_curve_point=lambda _games, policy: snapshots.append(policy),
    )
    rows = [r for r in result.curve if r.get("win") not in ("", None)]
    return Trained(
        player=result.policy,
        games=int(result.games),
        curve_games=[int(r["games"]) for r in rows],
        curve_win=[float(r["win"]) for r in rows],
        snapshots=snapshots,
    )


def _evolve_config(ctx: MethodContext) -> Any:
    """The resolved evolution settings (FsmarenaError naming the competitor if invalid)."""

    p = Params(ctx)
    if ctx.needs:
        raise p.fail("evolution protocols do not train against other competitors' champions; remove 'needs'")
    config = _config(EvolveConfig, p)
    try:
        return config.resolved(ctx.game, given=ctx.params)  # a parameter the genome or protocol ignores is refused
    except FsmarenaError as exc:
        raise p.fail(str(exc)) from None


def _train_config(ctx: MethodContext) -> tuple[Any, str]:
    """The resolved training settings (with the game's own defaults) and the opponent's name."""

    p = Params(ctx)
    opponent_name = p.get("opponent", str, "random")
    config = _config(TrainConfig, p, exclude=("opponent",))
    if ctx.needs and "opponent" in ctx.params:
        raise p.fail("give either 'opponent' or 'needs', not both")
    resolve_player(opponent_name, ctx.game)
    try:  # a parameter the algorithm does not take is refused
        return config.resolved(ctx.game, given=ctx.params), opponent_name
    except FsmarenaError as exc:
        raise p.fail(str(exc)) from None


def evolve_check(ctx: MethodContext) -> dict[str, Any]:
    """Every setting the evolution will use, defaults included."""
    return _evolve_config(ctx).to_dict()


def train_check(ctx: MethodContext) -> dict[str, Any]:
    """Every setting the training will use, defaults included, and its opponent."""
    config, opponent_name = _train_config(ctx)
    opponent = f"champions of {' and '.join(ctx.needs)} (one per game)" if ctx.needs else opponent_name
    return {**config.to_dict(), "opponent": opponent}


def evolve_games(settings: Mapping[str, Any], game: Game) -> int:
    """Every game of every fitness evaluation of the resolved ``settings`` in ``game``."""

    names = {f.name for f in dataclasses.fields(EvolveConfig)}
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in settings.items() if k in names}
    return EvolveConfig(**values).fitness_games(game.n_seats)


def train_games(settings: Mapping[str, Any], game: Game) -> int:
    """Every training game (``episodes``); a planner on the model simulates none."""

    return 0 if settings["algo"] in MODEL_BASED else int(settings["episodes"])
