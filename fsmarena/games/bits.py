"""Counting in bit sets, for the kernels that keep a set of cards as the bits of one int64
(Stupide Vautour's and Goofspiel's hands, 31's ranks): constant time, no loop, so a decision that
reads a hand costs the same whatever its size.

Compiled, each count is one of LLVM's bit-counting instructions (``ctpop``, ``ctlz``,
``cttz``: one machine instruction each on the processors that have them), written as numba
intrinsics; a decision of Stupide Vautour reads a hand several times, and the portable
shifts-and-masks counts took a dozen dependent operations each (the three counts of a hand,
in a bare loop: 1.34 ns with them, 0.27 ns with the instructions).  Without numba
(``NUMBA_DISABLE_JIT=1``) they are Python's own ``int.bit_count`` and ``int.bit_length``.
Every function is for ``0 <= x < 2**63``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from llvmlite import ir

from fsmarena.jit import intrinsic_or_python, njit


def _same_type(count: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """The typing of a count: an integer of ``x``'s type, computed by ``count(builder, x)``."""

    def typing(typingctx: Any, x: Any) -> Any:
        return x(x), lambda context, builder, signature, args: count(builder, args[0])

    return typing


#: LLVM's flag of ``ctlz`` / ``cttz``: the count of zero is the width (not undefined)
_DEFINED_AT_ZERO = ir.Constant(ir.IntType(1), 0)


def _ones(builder: Any, x: Any) -> Any:
    """The code of :func:`popcount`: LLVM's population count."""
    return builder.ctpop(x)


def _length(builder: Any, x: Any) -> Any:
    """The code of :func:`bit_length`: the width minus the leading zeros."""
    width = x.type(x.type.width)
    return builder.sub(width, builder.ctlz(x, _DEFINED_AT_ZERO))


def _lowest(builder: Any, x: Any) -> Any:
    """The code of :func:`lowest_bit`: one more than the trailing zeros, 0 for 0."""
    zero = x.type(0)
    position = builder.add(builder.cttz(x, _DEFINED_AT_ZERO), x.type(1))
    return builder.select(builder.icmp_signed("==", x, zero), zero, position)


def _python_popcount(x: int) -> int:
    """:func:`popcount` without numba."""
    return int(x).bit_count()


def _python_bit_length(x: int) -> int:
    """:func:`bit_length` without numba."""
    return int(x).bit_length()


def _python_lowest_bit(x: int) -> int:
    """:func:`lowest_bit` without numba."""
    return (int(x) & -int(x)).bit_length()


#: the counts' code in compiled callers (numba intrinsics), or Python's without numba
_count_ones: Any = intrinsic_or_python(_same_type(_ones), _python_popcount)
_highest_position: Any = intrinsic_or_python(_same_type(_length), _python_bit_length)
_lowest_position: Any = intrinsic_or_python(_same_type(_lowest), _python_lowest_bit)


@njit(inline="always")
def popcount(x: int) -> int:
    """The number of set bits of ``x``."""
    return _count_ones(x)


@njit(inline="always")
def bit_length(x: int) -> int:
    """The position of the highest set bit of ``x``, counted from 1 (0 for none)."""
    return _highest_position(x)


@njit(inline="always")
def lowest_bit(x: int) -> int:
    """The position of the lowest set bit of ``x``, counted from 1 (0 for none)."""
    return _lowest_position(x)


def _nth_in_byte() -> np.ndarray:
    """``table[byte, j]``: the position, from 1, of the set bit of ``byte`` with ``j`` set bits below
    it (0 when there is none)."""
    table = np.zeros((256, 8), dtype=np.int8)
    for byte in range(256):
        positions = [bit + 1 for bit in range(8) if byte >> bit & 1]
        table[byte, : len(positions)] = positions
    return table


#: :func:`nth_bit` within one byte, looked up (2 KB: a random card reads it every time)
_NTH_IN_BYTE = _nth_in_byte()


@njit(inline="always")
def nth_bit(x: int, j: int) -> int:
    """The position, counted from 1, of the set bit of ``x`` that has ``j`` set bits below it
    (``j = 0``: the lowest); 0 when ``x`` has ``j`` set bits or fewer.  For ``0 <= j``.

    Constant time: a binary search over halves of the word by their counts (three steps, each a
    count and a choice that compiles to a conditional move) down to one byte, then a table.
    Dropping the ``j`` lowest bits one at a time, as a textbook select does, ends its loop at a
    different place for every ``j``; the branch the processor mispredicts there made a random
    card of Stupide Vautour's builtins cost about 19 ns (a game of builtins ran 15-20% faster
    without it)."""
    if j >= popcount(x):
        return 0
    position = 0
    for width in (32, 16, 8):
        below = popcount(x & ((1 << width) - 1))
        skip = j >= below
        x = x >> width if skip else x
        j = j - below if skip else j
        position = position + width if skip else position
    return position + int(_NTH_IN_BYTE[x & 255, j])
