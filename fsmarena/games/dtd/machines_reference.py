"""Plain-Python machines and a plain divide-the-dollar loop: test oracle and benchmark baseline.

One row, one game at a time, the rules spelled out: a BDA decision read literally from the
thesis's description (``|x - theta| < 0.05`` on thousandths), a table-FSM step, and a DTD game
that feeds them the same observations as the batched driver (index, features, opp_last).
Tests play the batched players and these side by side on the same deck orders; ``fsmarena
bench dtd`` reports the evolution's speed as a ratio to games played here.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Protocol, Sequence

from fsmarena.evo.bda import BinaryDecisionAutomaton
from fsmarena.games.dtd.reference import state_numbers


class Machine(Protocol):
    def reset(self) -> None: ...

    def decide(self, index: int, features: list[float], opp_last: int) -> int: ...


class PlainBDA:
    """One BDA, one decision at a time (``genes``: rows of the seven fields)."""

    def __init__(self, genes: Sequence[Sequence[int]], max_tests: int = 6):
        self.genes = [tuple(int(v) for v in row) for row in genes]
        self.max_tests = max_tests
        self.state = 0

    def reset(self) -> None:
        self.state = 0

    def decide(self, index: int, features: list[float], opp_last: int) -> int:
        state = self.state
        for test in range(self.max_tests):
            feature, kind, theta, true_action, true_next, false_action, false_next = self.genes[state]
            x = features[feature] * 1000
            if kind == 0:
                holds = x > theta
            elif kind == 1:
                holds = x < theta
            else:
                holds = abs(x - theta) < 50
            if holds:
                self.state = true_next
                return true_action
            if test == self.max_tests - 1:
                self.state = false_next
                return false_action
            state = false_next
        raise AssertionError("unreachable")


class PlainFSM:
    """One table FSM: ``next_state[state][input]``, ``action[state][input]``; ``inputs`` is
    ``index``, ``opp_last`` or ``index+opp_last`` (``n_opp``: the size of opp_last)."""

    def __init__(
        self,
        next_state: Sequence[Sequence[int]],
        action: Sequence[Sequence[int]],
        inputs: str = "index",
        n_opp: int = 0,
    ):
        self.next_state = [list(map(int, row)) for row in next_state]
        self.action = [list(map(int, row)) for row in action]
        if inputs not in ("index", "opp_last", "index+opp_last"):
            raise ValueError(f"the plain loop knows inputs index, opp_last and index+opp_last, not '{inputs}'")
        self.inputs = inputs
        self.n_opp = n_opp
        self.state = 0

    def reset(self) -> None:
        self.state = 0

    def decide(self, index: int, features: list[float], opp_last: int) -> int:
        if self.inputs == "index":
            x = index
        elif self.inputs == "opp_last":
            x = opp_last
        else:
            x = index * self.n_opp + opp_last
        action = self.action[self.state][x]
        self.state = self.next_state[self.state][x]
        return action


def play_one(config, deck: Sequence[int], machines: Sequence[Machine], states: dict) -> tuple[int, int]:
    """One divide-the-dollar game from a full deck order; returns both totals in card points
    (exact integers: card values times their common denominator)."""
    exact = [Fraction(c).limit_denominator(10_000) for c in config.cards]
    dollar_exact = Fraction(config.dollar).limit_denominator(10_000)
    scale = math.lcm(*(f.denominator for f in exact + [dollar_exact]))
    points = [int(f * scale) for f in exact]
    dollar = int(dollar_exact * scale)
    values = [float(c) for c in config.cards]
    h = config.hand_size
    none = len(points)
    hands = [sorted(deck[:h]), sorted(deck[h : 2 * h])]
    position = 2 * h
    totals = [0, 0]
    last = [0, 0]  # last card each seat played, 0 = none, k + 1 = type k
    scored_rounds = 0
    for machine in machines:
        machine.reset()
    for rnd in range(config.rounds):
        leader, follower = rnd % 2, 1 - rnd % 2
        coop = scored_rounds / rnd if rnd else 0.0
        hand = hands[leader]
        small, median, large = hand[0], hand[h // 2], hand[-1]
        features = [0.0, values[small], values[median], values[large], coop, 0.0]
        action = machines[leader].decide(states[(none, small, median, large)], features, last[follower])
        lead = (small, median, large)[action]
        hand.remove(lead)
        hand = hands[follower]
        small, median, large = hand[0], hand[h // 2], hand[-1]
        features = [values[lead], values[small], values[median], values[large], coop, 1.0]
        action = machines[follower].decide(states[(lead, small, median, large)], features, lead + 1)
        if action == 0:
            spoilers = [c for c in hand if points[c] + points[lead] > dollar]
            follow = spoilers[0] if spoilers else large
        elif action == 1:
            follow = median
        else:
            fitting = [c for c in hand if points[c] + points[lead] <= dollar]
            follow = fitting[-1] if fitting else small
        hand.remove(follow)
        if points[lead] + points[follow] <= dollar:
            totals[leader] += points[lead]
            totals[follower] += points[follow]
            scored_rounds += 1
        last[leader], last[follower] = lead + 1, follow + 1
        for seat in (0, 1):
            if position < len(deck):
                hands[seat].append(deck[position])
                hands[seat].sort()
                position += 1
    return totals[0], totals[1]


def play_games(config, machines: Sequence[Machine], n_games: int, seed: int) -> list[int]:
    """``n_games`` shuffled games; returns seat 0's reward (+1 / 0 / -1) in each."""
    rng = random.Random(seed)
    deck = [k for k, count in enumerate(config.counts) for _ in range(count)]
    states = state_numbers(len(config.cards))
    rewards = []
    for _ in range(n_games):
        rng.shuffle(deck)
        a, b = play_one(config, deck, machines, states)
        rewards.append((a > b) - (a < b))
    return rewards


def machine_of(player, game, member: int = 0) -> Machine:
    """The plain machine equal to member ``member`` of a batched BDA or table FSM."""

    if isinstance(player, BinaryDecisionAutomaton):
        return PlainBDA(player.genes[member].tolist(), player.max_tests)
    return PlainFSM(
        player.next_state[member].tolist(), player.action[member].tolist(), player.inputs, game.encodings["opp_last"]
    )
