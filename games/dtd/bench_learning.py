"""Benchmark of the thesis' Monte Carlo with exploring starts on divide-the-dollar: the batched
learner against a plain-Python one-game-at-a-time loop, in the same run (``fsmarena bench dtd``).

The plain loop is the seed's algorithm written directly (with the credit defect fixed): the
game itself is :func:`games.dtd.reference.play_one`, the learner's two opening decisions are
random, every other decision is greedy in ``Q = sums / counts``, and after each game every
(state, action) the learner visited is credited with the final +1 / 0 / -1.
"""

from __future__ import annotations

import random


from games.dtd.reference import play_one, state_numbers

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


class _Random:
    def __init__(self, rng: random.Random, n_actions: int):
        self.rng, self.n_actions = rng, n_actions

    def __getitem__(self, state: int) -> int:
        return self.rng.randrange(self.n_actions)


def plain_monte_carlo(config, n_games: int, seed: int) -> _Learner:
    """``n_games`` of Monte Carlo ES against random, one game at a time in plain Python."""
    rng = random.Random(seed)
    states = state_numbers(len(config.cards))
    learner = _Learner(len(states), 3, rng)
    opponent = _Random(rng, 3)
    deck = [k for k, count in enumerate(config.counts) for _ in range(count)]
    for g in range(n_games):
        rng.shuffle(deck)
        seat = g % 2
        policies = [learner, opponent] if seat == 0 else [opponent, learner]
        totals = play_one(config, deck, policies, states)
        mine, theirs = totals[seat], totals[1 - seat]
        learner.learn((mine > theirs) - (mine < theirs))
    return learner


def bench_cases(game) -> list:
    from games.bench import BenchCase
    from rl.train import TrainConfig, train

    def engine(n: int, seed: int) -> object:
        config = TrainConfig("mc", episodes=n, batch=MC_BATCH, eval_every=n, eval_games=1000)
        return train(game, config, seed=seed)

    def engine_td(n: int, seed: int) -> object:
        config = TrainConfig("q-learning", episodes=n, batch=10_000, eval_every=n, eval_games=1000)
        return train(game, config, seed=seed)

    def plain(n: int, seed: int) -> object:
        return plain_monte_carlo(game.config, n, seed)

    return [
        BenchCase(f"MC-ES training vs random (batch {MC_BATCH})", engine, plain, engine_games=MC_GAMES,
                  plain_games=3_000, target=f"{MC_GAMES:,} games <= 60 s on one core",
                  extra={"note": "engine_seconds is the time for the 2M-game thesis budget"}),
        BenchCase("Q-learning training vs random (batch 10000)", engine_td, None, engine_games=500_000),
    ]
