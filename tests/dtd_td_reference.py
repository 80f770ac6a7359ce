"""An independent SARSA / Q-learner for divide-the-dollar, in plain Python, as a test oracle.

Written from the rules in the design notes, not from :mod:`fsmarena.games.dtd`: hands are sorted lists
of card points (quarters of the dollar by default), the deck is a list, the abstract actions
pick cards from the sorted hand.  Only two conventions are shared with the library, because a
bit-for-bit comparison needs them:

* the random stream and the order of its draws (documented in :mod:`fsmarena.rl.sequential` and
  :func:`fsmarena.games.draws.shuffle`): per game the deck shuffle (32-bit words, several positions
  per word),
  then, decision by decision, the learner's epsilon draw (when epsilon > 0) and its random
  action (when it explores), or the random opponent's action, ``int(u * 3)``;
* the numbering of the 40 observations: ``showing * T + rank`` where ``showing`` is the
  index of the card led (the number of card types when leading), ``T`` the number of sorted
  (smallest, median, largest) triples and ``rank`` the triple's place among them in
  lexicographic order.

The learner is the textbook one (Sutton & Barto 6.4, 6.5): epsilon-greedy over the three
abstract actions, ties to the lowest action; after each of its decisions the previous one
is updated toward ``Q(s', a')`` (SARSA) or ``max_a Q(s', a)`` (Q-learning), the last one
toward the final reward (+1 / 0 / -1); epsilon and the step size move linearly from their
start to their final value over the budget, game by game.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from fsmarena.jit import njit


@njit(cache=False)
def uniform() -> float:
    """The next number of the compiled stream (the one the kernels and learners draw from)."""
    return np.random.random()


@njit(cache=False)
def word() -> int:
    """The next 32-bit word of the compiled stream."""
    return np.random.randint(0, 2**32)


class Rules:
    """Card points, counts, hand size, rounds and the dollar, in a common unit (integers)."""

    def __init__(self, cards, counts, hand_size, dollar=1.0):
        values = [Fraction(str(c)) for c in cards] + [Fraction(str(dollar))]
        unit = np.lcm.reduce([v.denominator for v in values])
        self.points = [int(v * unit) for v in values[:-1]]
        self.dollar = int(values[-1] * unit)
        self.counts = list(counts)
        self.hand_size = hand_size
        self.rounds = 1 + (sum(counts) - 2 * hand_size) // 2
        types = range(len(cards))
        self.triples = [t for t in itertools.product(types, repeat=3) if t[0] <= t[1] <= t[2]]

    def state(self, hand: list[int], led: int | None) -> int:
        """The observation of a sorted hand of card types, with the card led (None: leading)."""
        triple = (hand[0], hand[len(hand) // 2], hand[-1])
        showing = len(self.points) if led is None else led
        return showing * len(self.triples) + self.triples.index(triple)

    def card(self, hand: list[int], led: int | None, action: int) -> int:
        """The card type an abstract action plays (0 small/spoil, 1 median, 2 large/max)."""
        if action == 1:
            return hand[len(hand) // 2]
        if led is None:
            return hand[0] if action == 0 else hand[-1]
        fits = [c for c in hand if self.points[led] + self.points[c] <= self.dollar]
        spoils = [c for c in hand if self.points[led] + self.points[c] > self.dollar]
        if action == 0:
            return spoils[0] if spoils else hand[-1]
        return fits[-1] if fits else hand[0]

    def shuffled_deck(self) -> list[int]:
        """Fisher-Yates from the back, as many positions per 32-bit word ``x`` as keep the
        product of their ranges ``bound`` within 2**20: position ``i`` takes
        ``(x * (i + 1)) >> 32`` and ``x`` keeps the low 32 bits of that product; a word whose
        ``x * bound`` leaves less than ``2**32 mod bound`` in its low 32 bits is drawn again."""
        deck = [k for k, count in enumerate(self.counts) for _ in range(count)]
        i = len(deck) - 1
        while i > 0:
            ranges = [i + 1]
            while len(ranges) < i and np.prod(ranges) * (i + 1 - len(ranges)) <= 2**20:
                ranges.append(i + 1 - len(ranges))
            bound = int(np.prod(ranges))
            x = word()
            while (x * bound) % 2**32 < 2**32 % bound:
                x = word()
            for size in ranges:
                j, x = divmod(x * size, 2**32)
                deck[i], deck[j] = deck[j], deck[i]
                i -= 1
        return deck


def train(
    rules: Rules,
    algo: str,
    games: int,
    alpha: float,
    alpha_final: float,
    epsilon: float,
    epsilon_final: float,
    seat: int = -1,
    final_updates: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Q and update counts after ``games`` training games against the random player; the
    learner sits in ``seat`` (-1: seat ``g mod 2`` in game ``g``); the caller seeds the stream.
    ``final_updates`` (states x 3), if given, counts the updates made toward a final reward."""
    n_states = (len(rules.points) + 1) * len(rules.triples)
    q = np.zeros((n_states, 3))
    n = np.zeros((n_states, 3), dtype=np.int64)

    def update(x: int, a: int, target: float, step: float) -> None:
        n[x, a] += 1
        q[x, a] += step * (target - q[x, a])

    for g in range(games):
        done = g / games
        eps = epsilon + (epsilon_final - epsilon) * done
        step = alpha + (alpha_final - alpha) * done
        learner = g % 2 if seat < 0 else seat
        deck = rules.shuffled_deck()
        hands = [sorted(deck[: rules.hand_size]), sorted(deck[rules.hand_size : 2 * rules.hand_size])]
        deck = deck[2 * rules.hand_size :]
        score = [0, 0]
        pending: tuple[int, int] | None = None
        for rnd in range(rules.rounds):
            leader = rnd % 2
            played: list[int] = []
            for who in (leader, 1 - leader):
                led = played[0] if played else None
                hand = hands[who]
                if who != learner:
                    action = int(uniform() * 3)
                else:
                    x = rules.state(hand, led)
                    if pending is not None and algo == "q-learning":
                        update(*pending, max(q[x]), step)
                    action = max(range(3), key=lambda a: (q[x, a], -a))
                    if eps > 0 and uniform() < eps:
                        action = int(uniform() * 3)
                    if pending is not None and algo == "sarsa":
                        update(*pending, q[x, action], step)
                    pending = (x, action)
                card = rules.card(hand, led, action)
                hand.remove(card)
                played.append(card)
            if rules.points[played[0]] + rules.points[played[1]] <= rules.dollar:
                score[leader] += rules.points[played[0]]
                score[1 - leader] += rules.points[played[1]]
            for who in (0, 1):
                if deck:
                    hands[who] = sorted(hands[who] + [deck.pop(0)])
        if pending is not None:
            mine, theirs = score[learner], score[1 - learner]
            update(*pending, float(np.sign(mine - theirs)), step)
            if final_updates is not None:
                final_updates[pending] += 1
    return q, n
