"""Goofspiel as a plain Python loop, written from the rules in words (no numpy, no tables).

The tests play it and the kernel on the same prize orders with the same choosers and
compare every bid, every winner and every total, so a mistake in either shows up as a
difference.  A *chooser* is ``choose(seat, turn, prize, hand, points) -> card`` with ``hand``
the sorted list of the seat's remaining cards.
"""

from __future__ import annotations

from typing import Callable, Sequence

Chooser = Callable[[int, int, int, list[int], list[int]], int]


def nearest(hand: list[int], target: int) -> int:
    """The remaining card nearest to ``target``, the lower one on a tie."""
    return min(hand, key=lambda card: (abs(card - target), card))


def play_one(players: int, cards: int, prizes: Sequence[int], choosers: Sequence[Chooser]) -> dict:
    """One game with the prizes turned up in the order ``prizes``: per turn the bids and the
    winner (-1 when the highest bid is shared), and the final points and rewards."""
    hands = [list(range(1, cards + 1)) for _ in range(players)]
    points = [0] * players
    turns = []
    for turn, prize in enumerate(prizes):
        bids = []
        for seat in range(players):
            card = choosers[seat](seat, turn, prize, list(hands[seat]), list(points))
            if card not in hands[seat]:  # never trust an illegal bid
                card = nearest(hands[seat], card)
            bids.append(card)
        for seat, card in enumerate(bids):
            hands[seat].remove(card)
        top = max(bids)
        winners = [seat for seat, card in enumerate(bids) if card == top]
        winner = winners[0] if len(winners) == 1 else -1
        if winner >= 0:
            points[winner] += prize
        turns.append({"prize": prize, "bids": bids, "winner": winner})
    return {"turns": turns, "points": points, "rewards": ranking_rewards(points)}


def ranking_rewards(points: Sequence[int]) -> list[float]:
    """+1 for the sole best total, 0 for a shared best, -1 for everybody else."""
    best = max(points)
    shared = points.count(best) > 1
    return [(0.0 if shared else 1.0) if p == best else -1.0 for p in points]


def match(seat: int, turn: int, prize: int, hand: list[int], points: list[int]) -> int:
    """Bid the prize's value (the nearest remaining card if it is gone)."""
    return nearest(hand, prize)


def upbid(seat: int, turn: int, prize: int, hand: list[int], points: list[int]) -> int:
    """Bid the smallest remaining card above the prize, else the lowest card."""
    above = [card for card in hand if card > prize]
    return min(above) if above else min(hand)


def highest(seat: int, turn: int, prize: int, hand: list[int], points: list[int]) -> int:
    """Bid the highest remaining card."""
    return max(hand)
