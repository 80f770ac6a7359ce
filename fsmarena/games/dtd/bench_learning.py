"""Benchmarks of tabular learning on divide-the-dollar (``fsmarena bench dtd``), each measured
against its baseline in the same run:

* the sequential (textbook, compiled) Monte Carlo ES and Q-learning, 2,000,000 games against
  ``random``: once against the plain-Python loop, once against the batched algorithm (K =
  50,000 for Monte Carlo, 10,000 for Q-learning, the former defaults);
* the batched Monte Carlo ES against the plain-Python loop.

The plain loop is the seed's algorithm written directly (with the credit defect fixed): the
game itself is :func:`fsmarena.games.dtd.reference.play_one`, the learner's two opening decisions are
random, every other decision is greedy in ``Q = sums / counts``, and after each game every
(state, action) the learner visited is credited with the final +1 / 0 / -1.
"""

from __future__ import annotations

import random
from typing import Sequence, cast

from fsmarena.games.bench import BenchCase
from fsmarena.games.dtd.reference import play_one, state_numbers
from fsmarena.rl.train import TrainConfig, train

MC_GAMES = 2_000_000
MC_BATCH = 50_000


class _Learner:
    """The plain loop's Monte Carlo agent, seen by ``play_one`` as a policy table."""

    def __init__(self, n_states: int, n_actions: int, rng: random.Random, explore_steps: int = 2):
        self.sums = [[0.0] * n_actions for _ in range(n_states)]
        self.counts = [[0] * n_actions for _ in range(n_states)]
        self.policy = [0] * n_states
        self.rng = rng
        self.n_actions = n_actions
        self.explore_steps = explore_steps
        self.episode: list[tuple[int, int]] = []

    def __getitem__(self, state: int) -> int:
        if len(self.episode) < self.explore_steps:
            action = self.rng.randrange(self.n_actions)
        else:
            action = self.policy[state]
        self.episode.append((state, action))
        return action

    def learn(self, reward: int) -> None:
        for state, action in self.episode:
            self.sums[state][action] += reward
            self.counts[state][action] += 1
            row = [s / c if c else 0.0 for s, c in zip(self.sums[state], self.counts[state])]
            self.policy[state] = row.index(max(row))
        self.episode = []


class _QLearner(_Learner):
    """The plain loop's Q-learning agent (epsilon-greedy, constant step, reward at the end)."""

    def __init__(self, n_states: int, n_actions: int, rng: random.Random, alpha: float, epsilon: float):
        super().__init__(n_states, n_actions, rng, explore_steps=0)
        self.q = [[0.0] * n_actions for _ in range(n_states)]
        self.alpha, self.epsilon = alpha, epsilon
        self.pending: tuple[int, int] | None = None

    def __getitem__(self, state: int) -> int:
        row = self.q[state]
        if self.pending is not None:
            self._update(max(row))
        if self.rng.random() < self.epsilon:
            action = self.rng.randrange(self.n_actions)
        else:
            action = row.index(max(row))
        self.pending = (state, action)
        return action

    def _update(self, target: float) -> None:
        if self.pending is None:
            raise ValueError("the Q-learner has no decision to update (it has not played yet)")
        state, action = self.pending
        self.q[state][action] += self.alpha * (target - self.q[state][action])

    def learn(self, reward: int) -> None:
        self._update(reward)
        self.pending = None


class _Random:
    def __init__(self, rng: random.Random, n_actions: int):
        self.rng, self.n_actions = rng, n_actions

    def __getitem__(self, state: int) -> int:
        return self.rng.randrange(self.n_actions)


def plain_monte_carlo(config, n_games: int, seed: int, q_learning: bool = False) -> _Learner:
    """``n_games`` of Monte Carlo ES (or Q-learning, alpha 0.001, epsilon 0.2) against random,
    one game at a time in plain Python."""
    rng = random.Random(seed)
    states = state_numbers(len(config.cards))
    learner = _QLearner(len(states), 3, rng, 0.001, 0.2) if q_learning else _Learner(len(states), 3, rng)
    opponent = _Random(rng, 3)
    deck = [k for k, count in enumerate(config.counts) for _ in range(count)]
    for g in range(n_games):
        rng.shuffle(deck)
        seat = g % 2
        # play_one only reads policy[state]; both tables answer that for every state number
        policies = cast(list[Sequence[int]], [learner, opponent] if seat == 0 else [opponent, learner])
        totals = play_one(config, deck, policies, states)
        mine, theirs = totals[seat], totals[1 - seat]
        learner.learn((mine > theirs) - (mine < theirs))
    return learner


def bench_cases(game) -> list:
    def trainer(algo: str, batch: int):
        def run(n: int, seed: int) -> object:
            config = TrainConfig(algo, episodes=n, batch=batch, eval_every=n, eval_games=1000)
            return train(game, config, seed=seed)

        return run

    def plain(n: int, seed: int) -> object:
        return plain_monte_carlo(game.config, n, seed)

    def plain_td(n: int, seed: int) -> object:
        return plain_monte_carlo(game.config, n, seed, q_learning=True)

    sequential = []
    for algo, batch, target, baseline in (("mc", MC_BATCH, 10, plain), ("q-learning", 10_000, 15, plain_td)):
        name = "MC-ES" if algo == "mc" else "Q-learning"
        goal = f"{MC_GAMES:,} games <= {target} s of CPU on one core"
        sequential += [
            BenchCase(
                f"sequential {name} vs random, against the plain loop",
                trainer(algo, 1),
                baseline,
                engine_games=MC_GAMES,
                plain_games=3_000,
                target=goal,
            ),
            BenchCase(
                f"sequential {name} vs random, against batched K={batch:,}",
                trainer(algo, 1),
                trainer(algo, batch),
                engine_games=MC_GAMES,
                plain_games=MC_GAMES // 4,
                target=goal,
                extra={"note": "ratio = sequential games/s over batched games/s"},
            ),
        ]
    return sequential + [
        BenchCase(
            f"MC-ES training vs random (batch {MC_BATCH})",
            trainer("mc", MC_BATCH),
            plain,
            engine_games=MC_GAMES,
            plain_games=3_000,
            target=f"{MC_GAMES:,} games <= 60 s on one core",
            extra={"note": "engine_seconds is the time for the 2M-game thesis budget"},
        ),
        BenchCase(
            "Q-learning training vs random (batch 10000)", trainer("q-learning", 10_000), None, engine_games=500_000
        ),
    ]
