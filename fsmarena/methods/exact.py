"""Study methods that score every learner by the exact value of its policy, not by sampling.

A one-player game with a known model (:class:`fsmarena.games.capabilities.ExactModel`, such as 421)
gives the exact value of any table policy or table FSM, and its optimum.  Three methods use it:

* ``train-exact``: a sample-based learner of :mod:`fsmarena.rl.train` (Monte Carlo, SARSA, Q-learning,
  expected SARSA) trained by simulation; its learning curve is the exact value of its greedy
  policy at every evaluation point against the simulated games consumed.
* ``evolve-exact``: a genetic algorithm (:mod:`fsmarena.evo.run`, ``score`` protocol) evolving table
  FSMs; its curve is the exact value of each measured generation's champion against the games
  simulated for fitness (none with ``exact_fitness``).
* ``plan``: value iteration or policy iteration on the model (no simulated game): the
  reference rows.

For every method the runner's record keeps, in ``curve_win``, the curve as a *fraction of the
optimum* (in [0, 1]) and, in ``info``, the exact values themselves, the optimum, and a sampled
check of the final player (mean score over ``check_games`` games with its 95% interval, which
should contain the exact value).  The exact-values report reads them (:mod:`fsmarena.studies.exact_report`).

Training and evolution are imported where they run, as in :mod:`fsmarena.methods.adapters`: checking a
study's settings needs neither.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.evo.genome import genome_spec
from fsmarena.evo.run import EvolveConfig
from fsmarena.evo.run import evolve as run_evolution
from fsmarena.games.base import Game
from fsmarena.games.capabilities import ExactModel
from fsmarena.games.match import play_match
from fsmarena.games.players import Player
from fsmarena.games.stats import mean_interval
from fsmarena.methods.adapters import _config, evolve_games, train_games
from fsmarena.methods.base import MethodContext, Params, Trained
from fsmarena.rl.train import MODEL_BASED, TrainConfig
from fsmarena.rl.train import train as run_training

#: default number of games of the sampled check of every final player
CHECK_GAMES = 20_000


# ---- shared pieces -------------------------------------------------------------------------


def _exact_game(p: Params, game: Game) -> None:
    """Refuse games these methods cannot score exactly."""
    if game.n_seats != 1 or not isinstance(game, ExactModel):
        raise p.fail(f"needs a one-player game with a known model and exact player values (421); {game.name} has none")


def exact_model(game: Game) -> ExactModel:
    """The game's exact model (the methods and the report of this study need one)."""
    if not isinstance(game, ExactModel):
        raise FsmarenaError(f"{game.name} has no known model: the exact-values study needs one (421)")
    return game


def optimum(game: Game) -> float:
    """The optimal expected score, exact."""
    return float(exact_model(game).exact_optimum()[0])


def exact_of(game: Game, player: Player) -> float:
    return float(exact_model(game).exact_player_values(player)[0])


def _fraction(value: float, best: float) -> float:
    """``value / best`` clipped to [0, 1] (floating-point evaluation may overshoot by 1e-15)."""
    return min(1.0, max(0.0, value / best)) if best > 0 else 0.0


def sampled_check(game: Game, player: Player, games: int, seed: int) -> dict[str, float]:
    """The mean score of ``player`` over ``games`` games and its 95% interval."""
    stats = play_match(game, player, None, games, np.random.SeedSequence(seed, spawn_key=(7,)))
    low, high = mean_interval(stats.score, stats.score_sq, stats.games)
    return {
        "sampled_games": stats.games,
        "sampled_mean": stats.score / stats.games,
        "sampled_ci_low": low,
        "sampled_ci_high": high,
    }


def _trained(
    ctx: MethodContext,
    player: Player,
    games: int,
    curve: Sequence[tuple[int, float]],
    check_games: int,
    info: dict[str, Any],
) -> Trained:
    best = optimum(ctx.game)
    value = exact_of(ctx.game, player)
    player.label = ctx.label
    return Trained(
        player=player,
        games=int(games),
        curve_games=[int(g) for g, _ in curve],
        curve_win=[_fraction(v, best) for _, v in curve],
        info={
            **info,
            "exact_value": value,
            "optimum": best,
            "curve_value": [float(v) for _, v in curve],
            **sampled_check(ctx.game, player, check_games, ctx.seed),
        },
    )


def _check_games(p: Params) -> int:
    return p.positive("check_games", CHECK_GAMES)


# ---- methods ----------------------------------------------------------------------------------


def train_exact(ctx: MethodContext) -> Trained:
    """Train a tabular learner by simulation; curve = exact value of its greedy policy."""

    config, check_games = _train_config(ctx)
    result = run_training(ctx.game, config, seed=ctx.seed, jobs=1, label=ctx.label)
    curve = [
        (int(r["games"]), float(r["exact_value"]))
        for r in result.curve
        if r.get("iteration") in ("", None) and r.get("exact_value") not in ("", None)
    ]
    return _trained(ctx, result.policy, result.games, curve, check_games, {"algo": config.algo})


def train_exact_games(settings: dict[str, Any], game: Game) -> int:
    """Every training game."""
    return train_games(settings, game)


def train_exact_check(ctx: MethodContext) -> dict[str, Any]:
    """Every setting the training will use (FsmarenaError naming the competitor if invalid)."""
    config, check_games = _train_config(ctx)
    return {**config.to_dict(), "check_games": check_games}


def _train_config(ctx: MethodContext) -> tuple[Any, int]:
    p = Params(ctx)
    _exact_game(p, ctx.game)
    check_games = _check_games(p)
    if ctx.needs:
        raise p.fail("a one-player learner trains alone; remove 'needs'")
    config = _config(TrainConfig, p, exclude=("check_games",))
    if config.algo in MODEL_BASED:
        raise p.fail(f"{config.algo} plans on the model: use the 'plan' method")
    try:  # a parameter the algorithm does not take is refused
        return config.resolved(ctx.game, given=ctx.params), check_games
    except FsmarenaError as exc:
        raise p.fail(str(exc)) from None


def evolve_exact(ctx: MethodContext) -> Trained:
    """Evolve table FSMs with the score protocol; curve = exact value of the champions."""

    config, check_games = _evolve_config(ctx)
    result = run_evolution(ctx.game, config, seed=ctx.seed, jobs=1)
    evaluations = result.generation * config.population
    return _trained(
        ctx,
        result.best,
        result.games,
        result.score_curve(),
        check_games,
        {
            "generations": int(result.generation),
            "exact_evaluations": evaluations if config.exact_fitness else 0,
            "best_fitness": float(result.best_fitness),
        },
    )


def evolve_exact_games(settings: dict[str, Any], game: Game) -> int:
    """Every simulated fitness game (none with exact fitness)."""
    return evolve_games(settings, game)


def evolve_exact_check(ctx: MethodContext) -> dict[str, Any]:
    """Every setting the evolution will use (FsmarenaError naming the competitor if invalid)."""
    config, check_games = _evolve_config(ctx)
    return {**config.to_dict(), "check_games": check_games}


def _evolve_config(ctx: MethodContext) -> tuple[Any, int]:
    p = Params(ctx)
    _exact_game(p, ctx.game)
    check_games = _check_games(p)
    if ctx.needs:
        raise p.fail("evolution on a one-player game needs no other competitor; remove 'needs'")
    config = _config(EvolveConfig, p, exclude=("check_games",))
    if config.protocol != "score":
        raise p.fail('one-player evolution uses protocol = "score"')
    if config.genome != "fsm":
        raise p.fail('only table FSMs have exact values (genome = "fsm")')
    try:
        config = config.resolved(ctx.game, given=ctx.params)  # a parameter the protocol does not use is refused
        genome_spec(ctx.game, config.genome, config.states, config.inputs, config.max_tests)
    except FsmarenaError as exc:
        raise p.fail(str(exc)) from None
    return config, check_games


def plan(ctx: MethodContext) -> Trained:
    """Value or policy iteration on the model: the optimum as a reference (no simulated game)."""

    config, check_games = _plan_config(ctx)
    result = run_training(ctx.game, config, seed=ctx.seed, jobs=1, label=ctx.label)
    iterations = sum(1 for r in result.curve if r.get("iteration") not in ("", None))
    return _trained(ctx, result.policy, 0, [], check_games, {"algo": config.algo, "iterations": iterations})


def plan_games(settings: dict[str, Any], game: Game) -> int:
    """Planning on the model simulates no game."""
    return 0


def plan_check(ctx: MethodContext) -> dict[str, Any]:
    """The planner and the sampled check's size (FsmarenaError naming the competitor if invalid)."""
    config, check_games = _plan_config(ctx)
    return {"algo": config.algo, "tolerance": config.tolerance, "check_games": check_games}


def _plan_config(ctx: MethodContext) -> tuple[Any, int]:
    p = Params(ctx)
    _exact_game(p, ctx.game)
    check_games = _check_games(p)
    algo = p.get("algo", str)
    p.check_unused()
    if algo not in MODEL_BASED:
        raise p.fail(f"plan runs one of: {', '.join(MODEL_BASED)}")
    return TrainConfig(algo=algo, eval_games=1).resolved(ctx.game), check_games
