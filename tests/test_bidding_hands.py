"""The hand arithmetic of the bidding kernels (fsmarena.games.bidding, fsmarena.games.bits) against
its plain definitions, on every hand of up to 15 cards: a hand is a bit set (card ``c`` is bit ``c - 1``), and
the kernels read it with constant-time bit tricks (nearest: every seventh hand, and the empty and
full hands)."""

from __future__ import annotations

import numpy as np

from fsmarena.games import bidding, bits

CARDS = 15
HANDS = np.arange(1 << CARDS, dtype=np.int64)


def params() -> np.ndarray:
    p = np.zeros(bidding.CARDS + 1, dtype=np.int64)
    p[bidding.CARDS] = CARDS
    return p


def cards_of(hand: int) -> list[int]:
    return [c for c in range(1, CARDS + 1) if hand >> (c - 1) & 1]


def plain_nearest(hand: int, target: int, up: bool) -> int:
    """The nearest card by its definition: smallest distance, ties down (or up with ``up``)."""
    cards = cards_of(hand)
    if not cards:
        return 0
    return min(cards, key=lambda c: (abs(c - target), (c < target) if up else (c > target)))


def test_popcount_highest_and_select_on_every_hand():
    p = params()
    for hand in HANDS.tolist():
        cards = cards_of(hand)
        assert bits.popcount(np.int64(hand)) == len(cards)
        assert bits.bit_length(np.int64(hand)) == hand.bit_length()
        assert bits.lowest_bit(np.int64(hand)) == (cards[0] if cards else 0)
        assert bidding.highest(p, np.int64(hand)) == (cards[-1] if cards else 0)
        for j in range(len(cards) + 1):
            assert bidding.select(p, np.int64(hand), np.int64(j)) == (cards[j] if j < len(cards) else 0)


def test_nearest_on_every_seventh_hand_every_target_and_tie_rule():
    p = params()
    for hand in HANDS[::7].tolist() + [0, (1 << CARDS) - 1]:
        for target in range(1, CARDS + 1):
            for up in (False, True):
                assert bidding.nearest(p, np.int64(hand), np.int64(target), up) == plain_nearest(hand, target, up)


def test_the_bit_counts_hold_for_large_sets():
    """31 keeps its ranks in bits too: the counts (and the j-th set bit) hold up to the 56-bit
    limit the docstrings give."""
    rng = np.random.default_rng(7)
    for x in rng.integers(0, 1 << 56, size=2_000).tolist() + [(1 << 56) - 1, 1 << 55]:
        assert bits.popcount(np.int64(x)) == bin(x).count("1")
        assert bits.bit_length(np.int64(x)) == x.bit_length()
        assert bits.lowest_bit(np.int64(x)) == ((x & -x).bit_length() if x else 0)
        positions = [bit + 1 for bit in range(56) if x >> bit & 1]
        for j in {0, len(positions) // 2, max(len(positions) - 1, 0), len(positions), len(positions) + 3}:
            expected = positions[j] if j < len(positions) else 0
            assert bits.nth_bit(np.int64(x), np.int64(j)) == expected


def test_the_uncompiled_counts_are_the_compiled_ones():
    """Compiled, a count is an LLVM instruction; with ``NUMBA_DISABLE_JIT=1`` it is Python's own
    (``int.bit_count``, ``int.bit_length``): both give the same numbers."""
    rng = np.random.default_rng(8)
    for x in rng.integers(0, 1 << 62, size=500).tolist() + [0, 1, (1 << 62) - 1]:
        compiled = (bits.popcount(np.int64(x)), bits.bit_length(np.int64(x)), bits.lowest_bit(np.int64(x)))
        assert compiled == (bits._python_popcount(x), bits._python_bit_length(x), bits._python_lowest_bit(x))
        j = x % 40
        assert bits.nth_bit(np.int64(x), np.int64(j)) == bits.nth_bit.py_func(x, j)
