"""Benchmarks of Goofspiel (``fsmarena bench goofspiel``).

* The driver over the kernel against the plain loop of :mod:`fsmarena.games.goofspiel.reference`, both playing
  ``upbid`` against ``random`` on the game's rules with two players.
* How well the default tabular state learns (opt-in, ``--case learning``): sequential
  Q-learning with every default setting, 100,000 games against ``random`` in 4-card Goofspiel,
  once per seed of :data:`LEARNING_SEEDS`; it reports the final win rate against ``random``
  (10,000 games) as the mean, lowest and highest over the seeds.  The yardstick is OpenSpiel's
  tabular Q-learner on the same games (78.6%, measured once; fsmarena/games/goofspiel/rules.md).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from fsmarena.games.arena import play_games
from fsmarena.games.bench import BenchCase
from fsmarena.games.builtin_player import BuiltinPlayer
from fsmarena.games.goofspiel.game import Goofspiel, GoofspielConfig
from fsmarena.games.goofspiel.reference import play_one, upbid
from fsmarena.games.players import RandomPlayer
from fsmarena.rl.train import TrainConfig, train

#: seeds of the learning case (its result is their mean and spread, never one seed)
LEARNING_SEEDS = (1, 2, 3, 4, 5)
LEARNING_CARDS = 4
LEARNING_GAMES = 100_000
#: OpenSpiel's tabular Q-learner after 100,000 games of 4-card Goofspiel against random
OPENSPIEL_WIN = 0.786


def bench_cases(game: Any) -> list:
    return [_engine_case(game), _learning_case()]


def _engine_case(game: Any):
    config = game.config.__class__(players=2, cards=game.config.cards, points_order=game.config.points_order)
    bench_game = Goofspiel(config)
    seats = [BuiltinPlayer("upbid"), RandomPlayer()]

    def engine(n: int, seed: int) -> object:
        rng = np.random.default_rng(seed)
        for start in range(0, n, 50_000):
            play_games(bench_game, seats, min(50_000, n - start), rng)
        return None

    def plain(n: int, seed: int) -> object:
        rng = random.Random(seed)

        def uniform(seat, turn, prize, hand, points):
            return rng.choice(hand)

        prizes = list(range(1, config.cards + 1))
        for _ in range(n):
            if config.points_order == "random":
                rng.shuffle(prizes)
            play_one(2, config.cards, prizes, [upbid, uniform])
        return None

    return BenchCase(
        f"upbid vs random ({config.cards} cards, {config.points_order} order)",
        engine,
        plain,
        engine_games=200_000,
        plain_games=4_000,
    )


def learning_win_rates(games: int, seeds: tuple[int, ...] = LEARNING_SEEDS) -> list[float]:
    """Final win rate against ``random`` of default Q-learning after ``games`` training games
    of 4-card Goofspiel (default state), one per seed."""

    game = Goofspiel(GoofspielConfig(cards=LEARNING_CARDS))
    rates = []
    for seed in seeds:
        config = TrainConfig("q-learning", episodes=games, eval_every=games, eval_games=10_000)
        result = train(game, config, seed=seed)
        rates.append(float(result.summary()["final"][0]["win"]))
    return rates


def _learning_case():
    extra: dict[str, Any] = {}

    def engine(n: int, seed: int) -> object:
        rates = learning_win_rates(max(1, n // len(LEARNING_SEEDS)))
        extra.update(
            win_mean=float(np.mean(rates)),
            win_min=min(rates),
            win_max=max(rates),
            win_per_seed=rates,
            result=(
                f"win vs random {np.mean(rates):.1%} mean over {len(rates)} seeds [{min(rates):.1%}, {max(rates):.1%}]"
            ),
        )
        return None

    return BenchCase(
        f"learning: default Q-learning, {LEARNING_CARDS} cards, {LEARNING_GAMES:,} games vs random "
        f"({len(LEARNING_SEEDS)} seeds)",
        engine,
        None,
        engine_games=LEARNING_GAMES * len(LEARNING_SEEDS),
        unit="training games",
        target=f"mean win vs random >= {OPENSPIEL_WIN:.1%} (OpenSpiel's tabular Q-learner)",
        extra=extra,
        opt_in=True,
        warmup=False,
    )
