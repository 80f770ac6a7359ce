"""One deep family's training: the model, its games, its learning curve and its player.

The learner plays one seat (alternating by game) of the game's features environment against
the family's opponent (or the champions it ``needs``, one drawn per opponent seat and game)
until exactly ``episodes`` games have ended (:class:`fsmarena.deep.budget.GameBudget`).  Every
``eval_every`` games and at the end, the network of the moment is exported as a player and
plays ``eval_games`` games against the study's curve opponent, always the same deals (common
random numbers: two points differ only because the network did); those games are not training
games.  The seed gives the model's, the environment's and the evaluation's seeds, and torch runs
deterministically on one thread (:mod:`fsmarena.deep.determinism`): the same seed gives the same
weights, curve and player.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from fsmarena.deep.algorithms import make_model
from fsmarena.deep.budget import GameBudget
from fsmarena.deep.determinism import deterministic_torch
from fsmarena.deep.environment import features_env
from fsmarena.deep.export import export_policy
from fsmarena.deep.player import PolicyNetworkPlayer
from fsmarena.games.match import play_match
from fsmarena.games.players import Player, resolve_player
from fsmarena.methods.base import MethodContext, Trained

#: Stable-Baselines3 wants a number of steps: far more than any budget takes (the games stop it)
UNBOUNDED_STEPS = 2**62


class Curve:
    """The learning curve's points: games consumed, win rate, the player measured."""

    def __init__(self, ctx: MethodContext, games: int, seed: int):
        self.ctx, self.eval_games, self.seed = ctx, games, seed
        self.opponent = resolve_player(ctx.curve_opponent, ctx.game) if ctx.game.n_seats > 1 else None
        self.games: list[int] = []
        self.wins: list[float] = []
        self.players: list[Player] = []

    def measure(self, games: int, player: PolicyNetworkPlayer) -> None:
        """Record ``player`` after ``games`` training games (nothing in a one-player game,
        where no one is there to win against)."""
        if self.opponent is None:
            return
        stats = play_match(self.ctx.game, player, self.opponent, self.eval_games, self.seed)
        self.games.append(games)
        self.wins.append(stats.win_rate)
        self.players.append(player)


def train_family(ctx: MethodContext, settings: Mapping[str, Any]) -> Trained:
    """Train the deep family of ``settings`` (resolved by :func:`fsmarena.deep.settings.deep_settings`)."""
    train_seed, eval_seed = (int(s.generate_state(1)[0]) for s in np.random.SeedSequence(ctx.seed).spawn(2))
    chosen = settings["opponent"]
    opponents: list[Any] = list(ctx.opponents) or (list(chosen) if isinstance(chosen, list) else [chosen])
    masked = settings["algo"] == "maskable-ppo"  # never illegal: raise if it ever were
    env = features_env(ctx.game, opponents, "raise" if masked else settings["illegal_action"])
    curve = Curve(ctx, settings["eval_games"], eval_seed)
    with deterministic_torch():
        model = make_model(settings, env, train_seed)
        budget = GameBudget(
            settings["episodes"],
            settings["eval_every"],
            lambda games: curve.measure(games, export_policy(model, ctx.game, ctx.label)),
        )
        model.learn(total_timesteps=UNBOUNDED_STEPS, callback=budget)
        player = export_policy(model, ctx.game, ctx.label)
    env.close()
    return Trained(
        player=player,
        games=budget.games,
        curve_games=curve.games,
        curve_win=curve.wins,
        info={
            "algo": settings["algo"],
            "steps": int(model.num_timesteps),
            "illegal_actions": budget.illegal,
            **({} if curve.opponent is None else {"curve_opponent": ctx.curve_opponent}),
        },
        snapshots=curve.players,
    )
