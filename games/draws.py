"""Uniform random draws for the kernels' deals (:mod:`games.kernel`): shuffles and dice, fast.

A deal is drawn once per game, so its cost counts as much as the whole game's play in a
batch of tiny games.  The textbook draws cost a float and a division per position; these
take several positions out of one 32-bit word of the compiled stream (numba's
``np.random``, the same Mersenne Twister as numpy's legacy generator, so
``NUMBA_DISABLE_JIT=1`` draws the same numbers) with multiplications and shifts only, and
stay exactly uniform.

How (Lemire's multiply-shift, batched; D. Lemire, "Fast random integer generation in an
interval", 2019, and N. Brackett-Rozinsky and D. Lemire, "Batched ranged random integer
generation", 2024): for ranges ``r1, ..., rk`` with product ``bound``, a word ``x`` gives the
digits ``d1 = (x * r1) >> 32``, then with the remainder ``x1 = (x * r1) mod 2**32``,
``d2 = (x1 * r2) >> 32``, and so on.  Together they are the mixed-radix digits of
``(x * bound) >> 32``, and the last remainder is ``(x * bound) mod 2**32``; rejecting the
words whose remainder is below ``2**32 mod bound`` (a fraction below ``bound / 2**32``, here at
most 1 in 4,096) makes every value of ``(x * bound) >> 32`` equally likely, so the digits are
independent and each uniform over its range.
"""

from __future__ import annotations

import numpy as np

from fsmarena.jit import njit

#: the number of values of one word of the stream
WORD = 1 << 32
#: low 32 bits
MASK = WORD - 1
#: the largest product of ranges drawn from one word (bounds the rejection rate at 2**-12)
LIMIT = 1 << 20


@njit(inline="always")
def word():
    """The next 32-bit word of the compiled stream, as an int in ``[0, 2**32)``."""
    return np.random.randint(0, WORD)


@njit(inline="always")
def accepted_word(bound):
    """A word whose digits over ranges with product ``bound`` are uniform (module doc):
    words leaving a remainder below ``2**32 mod bound`` are drawn again."""
    while True:
        x = word()
        low = (x * bound) & MASK
        if low >= bound or low >= WORD % bound:  # the division only when the remainder is small
            return x


@njit
def shuffle(deal, n):
    """Fisher-Yates on ``deal[:n]``, last position first: position ``i`` swaps with a uniform
    position in ``0..i``, as many positions per word as keep the ranges' product within
    :data:`LIMIT` (module doc)."""
    i = n - 1
    while i > 0:
        size, bound = 1, i + 1
        while size < i and bound * (i + 1 - size) <= LIMIT:
            bound *= i + 1 - size
            size += 1
        x = accepted_word(bound)
        for _ in range(size):
            product = x * (i + 1)
            j = product >> 32
            x = product & MASK
            swap = deal[i]
            deal[i] = deal[j]
            deal[j] = swap
            i -= 1


@njit
def fill_uniform(out, start, count, low, high):
    """``out[start : start + count]`` filled with independent uniform integers in
    ``[low, high)`` (dice: ``low`` 1, ``high`` 7), as many per word as keep the product of
    their ranges within :data:`LIMIT`."""
    sides = high - low
    if sides < 2:  # one value: nothing to draw
        out[start : start + count] = low
        return
    per_word, bound = 1, sides
    while bound * sides <= LIMIT:
        bound *= sides
        per_word += 1
    at, end = start, start + count
    while at < end:
        size = min(per_word, end - at)
        x = accepted_word(sides**size)
        for q in range(size):
            product = x * sides
            out[at + q] = low + (product >> 32)
            x = product & MASK
        at += size
