"""Nim as a plain loop, written apart from the kernel: the oracle the tests hold it to."""

from __future__ import annotations

from typing import Callable, Sequence

#: a player: (stones left, max_take) -> stones to take
Chooser = Callable[[int, int], int]


def winner(stones: int, max_take: int, choosers: Sequence[Chooser]) -> int:
    """The seat that takes the last stone, seat 0 moving first."""
    seat = 0
    while True:
        take = choosers[seat](stones, max_take)
        assert 1 <= take <= min(max_take, stones), f"seat {seat} took {take} of {stones}"
        stones -= take
        if stones == 0:
            return seat
        seat = 1 - seat


def optimal(stones: int, max_take: int) -> int:
    """Leave a multiple of max_take + 1 when possible, else take one."""
    return stones % (max_take + 1) or 1


def take_one(stones: int, max_take: int) -> int:
    return 1
