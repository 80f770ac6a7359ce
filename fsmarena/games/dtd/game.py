"""Deck-based divide-the-dollar (seed 001; E. Wild's thesis game).

Rules (defaults from the seed): cards 1/4, 1/2, 3/4 with counts 16, 28, 16; two players; hands
of 5 kept sorted; 1 + (60 - 2*5) // 2 = 26 rounds; seat 0 leads round 0 and the lead
alternates.  The leader plays a card, the follower sees it and plays one; if the two sum to at
most one dollar each scores its own card, otherwise nobody scores.  After each round seat 0
then seat 1 draws while the deck lasts.  Highest total wins; reward +1 / 0 / -1.

Abstract actions (``small_spoil``, ``median``, ``large_max``):

* leading: the smallest, the median (sorted position ``hand_size // 2``), the largest card;
* following: ``small_spoil`` = the smallest card that pushes the sum over one dollar, else the
  largest card; ``median`` = the median card; ``large_max`` = the largest card that keeps the
  sum within one dollar, else the *smallest* card.

Tables.  A hand is a count vector over the card types; every possible count vector of size
0..hand_size gets an id, and the rules the kernel (:mod:`fsmarena.games.dtd.kernel`, the game as it is
played) and the labels read become lookup tables over hand ids computed once per
configuration (``_Tables``): each full hand's smallest, median and largest card
and the tabular state.  Card values are turned into exact integer points (a common
denominator), so "sum <= 1" and ties between totals are exact.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game

SMALL_SPOIL, MEDIAN, LARGE_MAX = 0, 1, 2
ACTION_NAMES = ("small_spoil", "median", "large_max")
FEATURE_NAMES = ("Ttl", "Sml", "Med", "Lrg", "Coop", "Idx")
MAX_HANDS = 200_000
MAX_DECK = 10_000
MAX_VALUE = 1e6


@dataclass(frozen=True)
class DTDConfig:
    """Deck-based divide-the-dollar rules.  ``cards`` are the distinct card values (in
    dollars, ascending), ``counts`` how many of each the deck holds, ``dollar`` the amount
    two cards may sum to and still score."""

    cards: tuple[float, ...] = (0.25, 0.5, 0.75)
    counts: tuple[int, ...] = (16, 28, 16)
    hand_size: int = 5
    dollar: float = 1.0

    def __post_init__(self) -> None:
        if len(self.cards) == 0 or len(self.cards) != len(self.counts):
            raise FsmarenaError("dtd: 'cards' and 'counts' must be non-empty and of equal length")
        if any(not (isinstance(c, (int, float)) and math.isfinite(c) and c > 0) for c in self.cards):
            raise FsmarenaError("dtd: card values must be positive numbers")
        if list(self.cards) != sorted(set(self.cards)):
            raise FsmarenaError("dtd: card values must be distinct and in ascending order")
        if any(not isinstance(c, int) or c < 0 for c in self.counts):
            raise FsmarenaError("dtd: card counts must be non-negative integers")
        if not isinstance(self.hand_size, int) or self.hand_size < 1:
            raise FsmarenaError("dtd: hand_size must be a positive integer")
        self._check_sizes()
        if sum(self.counts) < 2 * self.hand_size:
            raise FsmarenaError(f"dtd: a deck of {sum(self.counts)} cards cannot deal two hands of {self.hand_size}")
        if not (math.isfinite(self.dollar) and self.dollar > 0):
            raise FsmarenaError("dtd: dollar must be a positive number")

    def _check_sizes(self) -> None:
        """The size limits, checked before any table is enumerated: a deck of at most MAX_DECK
        cards (a game lasts about deck/2 rounds), card values and the dollar at most MAX_VALUE,
        and at most MAX_HANDS count vectors of up to hand_size cards over the card types."""
        if sum(self.counts) > MAX_DECK:
            raise FsmarenaError(f"dtd: a deck of {sum(self.counts):,} cards; the limit is {MAX_DECK:,} (MAX_DECK)")
        if max(self.cards) > MAX_VALUE or not (isinstance(self.dollar, (int, float)) and self.dollar <= MAX_VALUE):
            raise FsmarenaError(f"dtd: card values and the dollar must be at most {MAX_VALUE:g} (MAX_VALUE)")
        hands = math.comb(len(self.cards) + self.hand_size, self.hand_size)  # count vectors of size <= h
        if hands > MAX_HANDS:
            raise FsmarenaError(
                f"dtd: {len(self.cards)} card types and hands of {self.hand_size} give "
                f"{limits.shown(hands)} possible hands; the limit is {MAX_HANDS:,} (MAX_HANDS)"
            )

    @property
    def deck_size(self) -> int:
        return sum(self.counts)

    @property
    def rounds(self) -> int:
        """Rounds per game: 1 + (deck - 2 hands) // 2, so hands are full at every decision."""
        return 1 + (self.deck_size - 2 * self.hand_size) // 2


def _exact(value: float) -> Fraction:
    fraction = Fraction(value).limit_denominator(10_000)
    if abs(float(fraction) - value) > 1e-9:
        raise FsmarenaError(f"dtd: card value {value} is not a fraction with a small denominator")
    return fraction


class _Tables:
    """The hand tables the kernel's rules, the state numbering and the labels read, over hand
    ids (built once per config)."""

    def __init__(self, config: DTDConfig):
        K, h = len(config.cards), config.hand_size
        self.K, self.h = K, h
        fractions = [_exact(c) for c in config.cards]
        dollar = _exact(config.dollar)
        scale = math.lcm(*(f.denominator for f in fractions + [dollar]))
        self.scale = scale
        self.points = np.array([int(f * scale) for f in fractions], dtype=np.int64)

        hands = [c for size in range(h + 1) for c in _count_vectors(K, size)]
        if len(hands) > MAX_HANDS:
            raise FsmarenaError(f"dtd: {len(hands)} possible hands is too many for the game's tables")
        H = len(hands)
        self.counts = np.array(hands, dtype=np.int16).reshape(H, K)
        self.size = self.counts.sum(axis=1)

        # sorted-hand views of full hands (other sizes never decide)
        self.smallest = np.zeros(H, dtype=np.int64)
        self.median = np.zeros(H, dtype=np.int64)
        self.largest = np.zeros(H, dtype=np.int64)
        triples = [t for t in itertools.product(range(K), repeat=3) if t[0] <= t[1] <= t[2]]
        triple_id = {t: i for i, t in enumerate(triples)}
        self.n_triples = len(triples)
        self.triple = np.zeros(H, dtype=np.int64)
        for i, c in enumerate(hands):
            if sum(c) != h:
                continue
            cards = [k for k in range(K) for _ in range(c[k])]  # sorted ascending
            s, m, l = cards[0], cards[h // 2], cards[-1]
            self.smallest[i], self.median[i], self.largest[i] = s, m, l
            self.triple[i] = triple_id[(s, m, l)]
        self.triples = triples
        # the seed's state numbering: ravel (showing, s, m, l) with showing = K meaning none
        self.n_states = (K + 1) * len(triples)

    def state_index(self, hand: np.ndarray, showing: np.ndarray | int) -> np.ndarray:
        """Observation index: ``showing`` is the card type shown, or K when leading."""
        return showing * self.n_triples + self.triple[hand]


@functools.lru_cache(maxsize=32)
def _tables(config: DTDConfig) -> _Tables:
    return _Tables(config)


def _count_vectors(K: int, size: int) -> list[tuple[int, ...]]:
    """All length-K tuples of non-negative integers summing to ``size``, in lexicographic order."""
    if K == 1:
        return [(size,)]
    return [(first,) + rest for first in range(size, -1, -1) for rest in _count_vectors(K - 1, size - first)]


def _fraction_label(value: float) -> str:
    return str(Fraction(value).limit_denominator(10_000))


class DivideTheDollar(Game):
    """Deck-based divide-the-dollar; see the module docstring for rules and tables."""

    name = "dtd"
    title = "deck-based divide-the-dollar (2 players, thesis game)"
    Config = DTDConfig
    phrases = "fsmarena.games.dtd.phrases:PHRASES"

    def __init__(self, config: DTDConfig | None = None):
        super().__init__(config)
        self.tables = _tables(self.config)

    n_seats = 2
    action_names = ACTION_NAMES
    feature_names = FEATURE_NAMES

    @property
    def n_states(self) -> int:
        return self.tables.n_states

    @property
    def encodings(self):
        # opp_last: the opponent's most recently played card (0 = none yet, k + 1 = type k)
        return {"opp_last": self.tables.K + 1}

    def state_label(self, index: int) -> str:
        t = self.tables
        showing, triple = divmod(int(index), t.n_triples)
        cards = " ".join(_fraction_label(self.config.cards[k]) for k in t.triples[triple])
        shown = "lead" if showing == t.K else f"on {_fraction_label(self.config.cards[showing])}"
        return f"{shown}: {cards}"

    def encoding_label(self, name: str, value: int) -> str:
        """Human-readable value of an encoding (``opp_last``) for figures of FSM inputs."""
        if name == "opp_last":
            return "opp: none" if value == 0 else f"opp: {_fraction_label(self.config.cards[int(value) - 1])}"
        return f"{name}={value}"
