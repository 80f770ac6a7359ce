"""A plain-Python, one-game-at-a-time divide-the-dollar: the oracle and the benchmark baseline.

Written independently of the kernel (sorted lists of card values, the rules spelled
out step by step), it serves two purposes: tests check that the engine and this loop give the
same scores on the same deck orders, and ``fsmarena bench dtd`` reports the engine's speed as a
ratio to it, measured in the same run.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Sequence

import numpy as np

from fsmarena.games.arena import play_games
from fsmarena.games.bench import BenchCase
from fsmarena.games.players import TablePolicy


def play_one(config, deck: Sequence[int], policies: Sequence[Sequence[int]], states: dict) -> tuple[Fraction, Fraction]:
    """One game from a full deck order (card types); ``policies[s][state] -> action``.

    Returns both players' totals as exact fractions.
    """
    exact = [Fraction(c).limit_denominator(10_000) for c in config.cards]
    dollar_exact = Fraction(config.dollar).limit_denominator(10_000)
    scale = math.lcm(*(f.denominator for f in exact + [dollar_exact]))
    values = [int(f * scale) for f in exact]  # integer points: exact and fast
    dollar = int(dollar_exact * scale)
    h = config.hand_size
    cards = list(deck)
    hands = [sorted(cards[:h]), sorted(cards[h : 2 * h])]
    next_card = 2 * h
    totals = [0, 0]
    none = len(values)
    for rnd in range(config.rounds):
        leader = rnd % 2
        follower = 1 - leader
        hand = hands[leader]
        action = policies[leader][states[(none, hand[0], hand[h // 2], hand[-1])]]
        lead = hand[0] if action == 0 else hand[h // 2] if action == 1 else hand[-1]
        hand.remove(lead)
        hand = hands[follower]
        action = policies[follower][states[(lead, hand[0], hand[h // 2], hand[-1])]]
        if action == 0:
            spoil = [c for c in hand if values[c] + values[lead] > dollar]
            follow = spoil[0] if spoil else hand[-1]
        elif action == 1:
            follow = hand[h // 2]
        else:
            fit = [c for c in hand if values[c] + values[lead] <= dollar]
            follow = fit[-1] if fit else hand[0]
        hand.remove(follow)
        if values[lead] + values[follow] <= dollar:
            totals[leader] += values[lead]
            totals[follower] += values[follow]
        for seat in (0, 1):
            if next_card < len(cards):
                hands[seat].append(cards[next_card])
                hands[seat].sort()
                next_card += 1
    return Fraction(totals[0], scale), Fraction(totals[1], scale)


def state_numbers(n_types: int) -> dict:
    """The seed's numbering of (showing, smallest, median, largest) states, showing = n_types when leading."""
    numbers: dict[tuple[int, ...], int] = {}
    for showing in range(n_types + 1):
        for s in range(n_types):
            for m in range(s, n_types):
                for l in range(m, n_types):
                    numbers[(showing, s, m, l)] = len(numbers)
    return numbers


def plain_loop(config, n_games: int, tables: Sequence[Sequence[int]], seed: int) -> int:
    """The benchmark baseline: ``n_games`` complete games in plain Python; returns wins of seat 0."""
    rng = random.Random(seed)
    deck = [k for k, count in enumerate(config.counts) for _ in range(count)]
    states = state_numbers(len(config.cards))
    wins = 0
    for _ in range(n_games):
        rng.shuffle(deck)
        a, b = play_one(config, deck, tables, states)
        wins += a > b
    return wins


def bench_cases(game) -> list:
    tables = np.random.default_rng(12345).integers(0, game.n_actions, size=(2, game.n_states))
    players = [TablePolicy(tables[0]), TablePolicy(tables[1])]

    def engine(n: int, seed: int) -> object:
        rng = np.random.default_rng(seed)
        chunk = 50_000
        for start in range(0, n, chunk):
            play_games(game, players, min(chunk, n - start), rng)
        return None

    def plain(n: int, seed: int) -> object:
        return plain_loop(game.config, n, tables.tolist(), seed)

    return [BenchCase("two table players", engine, plain, engine_games=200_000, plain_games=4_000)]
