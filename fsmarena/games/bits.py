"""Counting in bit sets, for the kernels that keep a set of cards as the bits of one int64
(Stupide Vautour's and Goofspiel's hands, 31's ranks): constant time, no loop, so a decision that
reads a hand costs the same whatever its size."""

from __future__ import annotations

from fsmarena.jit import njit


@njit(inline="always")
def popcount(x: int) -> int:
    """The number of set bits of ``0 <= x < 2**56`` (bytewise sums, no loop)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return x & 0x7F


@njit(inline="always")
def bit_length(x: int) -> int:
    """The position of the highest set bit of ``0 <= x < 2**56``, counted from 1 (0 for none):
    every bit below the highest set, then counted."""
    x |= x >> 1
    x |= x >> 2
    x |= x >> 4
    x |= x >> 8
    x |= x >> 16
    x |= x >> 32
    return popcount(x)


@njit(inline="always")
def lowest_bit(x: int) -> int:
    """The position of the lowest set bit of ``0 <= x < 2**56``, counted from 1 (0 for none)."""
    return popcount((x & -x) - 1) + 1 if x else 0
