"""Uniform random draws for the kernels' deals (:mod:`fsmarena.games.kernel`): shuffles and dice, fast.

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

A game's own stream (:func:`seed_stream`, :func:`shuffle_stream`, :func:`fill_uniform_stream`):
chance a game may never need (31's decks after the first round, 421's throws) is drawn when
the game needs it, from a small generator whose state the game keeps (its deal holds the seed,
four words of the compiled stream drawn with the rest of the deal), so a game's chance stays a
function of its deal alone: the same whichever games share the compiled stream with it and
however a batch is cut, on every path of the driver.  The generator is xoshiro128** (D.
Blackman and S. Vigna, "Scrambled linear pseudorandom number generators", 2018): 32-bit words
from four 32-bit words of state, every operation within an int64 (no overflow, compiled or not).
Its state is the seed's four words: a state made of two random words and the same two xor
constants (two words drawn instead of four) was measured to fail, because xoshiro is linear:
its second word then nearly repeats its first (421's first two throws correlated, the optimal
player's mean four standard errors off the exact optimum).
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
#: int64 numbers of a game's own stream state (:func:`load_stream`)
STREAM_WORDS = 4
#: int64 numbers of its seed in a deal (:func:`seed_stream`): the whole state
SEED_WORDS = STREAM_WORDS


@njit(inline="always")
def word():
    """The next 32-bit word of the compiled stream, as an int in ``[0, 2**32)``."""
    return np.random.randint(0, WORD)


@njit(inline="always")
def uniform_float():
    """A float in ``[0, 1)``: exactly ``np.random.random()`` (the same two words of the compiled
    stream, the same 53 bits: ``(a >> 5) 2**26 + (b >> 6)`` over ``2**53``), at less than half
    its cost in compiled code, where numba calls a function for ``random()`` but compiles the
    words in place (8.2 against 3.6 ns a draw, measured in a bare loop).  Every compiled draw of
    a float uses it."""
    high = word() >> 5
    low = word() >> 6
    return (high * 67108864.0 + low) / 9007199254740992.0


@njit(inline="always")
def accepted_word(bound):
    """A word whose digits over ranges with product ``bound`` are uniform (module doc):
    words leaving a remainder below ``2**32 mod bound`` are drawn again."""
    while True:
        x = word()
        low = (x * bound) & MASK
        if low >= bound or low >= WORD % bound:  # the division only when the remainder is small
            return x


@njit(inline="always")
def _rotl(x, k):
    """``x`` rotated left by ``k`` bits, as a 32-bit word."""
    return ((x << k) | (x >> (32 - k))) & MASK


@njit(inline="always")
def stream_word(stream, at):
    """The next 32-bit word of the game's stream kept in ``stream[at : at + 4]``
    (xoshiro128**, module doc), which it advances."""
    s0, s1, s2, s3 = stream[at], stream[at + 1], stream[at + 2], stream[at + 3]
    result = (_rotl((s1 * 5) & MASK, 7) * 9) & MASK
    t = (s1 << 9) & MASK
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    stream[at], stream[at + 1], stream[at + 2], stream[at + 3] = s0, s1, s2, _rotl(s3, 11)
    return result


@njit(inline="always")
def seed_stream(out, at):
    """A fresh seed of a game's stream in ``out[at : at + 4]``: four independent words of the
    compiled stream (a game's deal holds them)."""
    for i in range(SEED_WORDS):
        out[at + i] = word()


@njit(inline="always")
def load_stream(stream, at, seed, start):
    """Start the stream in ``stream[at : at + 4]`` from the seed ``seed[start : start + 4]`` (of
    a deal; any int64 values, each kept to 32 bits: a scripted deal may hold anything); an
    all-zero state, which xoshiro never leaves, becomes a fixed non-zero one."""
    zero = True
    for i in range(STREAM_WORDS):
        stream[at + i] = seed[start + i] & MASK
        zero = zero and stream[at + i] == 0
    if zero:
        stream[at] = 1


@njit(inline="always")
def _accepted(bound, stream, at):
    """:func:`accepted_word` from the compiled stream (``at < 0``) or the game's stream at
    ``stream[at]``."""
    if at < 0:
        return accepted_word(bound)
    while True:
        x = stream_word(stream, at)
        low = (x * bound) & MASK
        if low >= bound or low >= WORD % bound:
            return x


@njit(inline="always")
def _shuffle(deal, start, n, stream, at):
    """Fisher-Yates on ``deal[start : start + n]`` (:func:`shuffle`), words from
    :func:`_accepted`."""
    i = n - 1
    while i > 0:
        size, bound = 1, i + 1
        while size < i and bound * (i + 1 - size) <= LIMIT:
            bound *= i + 1 - size
            size += 1
        x = _accepted(bound, stream, at)
        for _ in range(size):
            product = x * (i + 1)
            j = product >> 32
            x = product & MASK
            swap = deal[start + i]
            deal[start + i] = deal[start + j]
            deal[start + j] = swap
            i -= 1


@njit
def shuffle(deal, n):
    """Fisher-Yates on ``deal[:n]``, last position first: position ``i`` swaps with a uniform
    position in ``0..i``, as many positions per word as keep the ranges' product within
    :data:`LIMIT` (module doc); words from the compiled stream.

    Callers pass ``n`` as an int64, never a literal (``52``, or a count started at ``0``):
    numba compiles a compiled function once more for each literal argument type it meets
    (``Literal[int](52)``), docs/performance.md."""
    _shuffle(deal, 0, n, deal, -1)  # ``deal`` stands for the unused game stream


@njit(inline="always")
def shuffle_stream(deal, start, n, stream, at):
    """:func:`shuffle` of ``deal[start : start + n]`` with words from the game's stream kept in
    ``stream[at : at + 4]``."""
    _shuffle(deal, start, n, stream, at)


@njit(inline="always")
def _fill(out, start, count, low, high, stream, at):
    """:func:`fill_uniform`, words from :func:`_accepted`."""
    sides = high - low
    if sides < 2:  # one value: nothing to draw
        out[start : start + count] = low
        return
    per_word, bound = 1, sides
    while bound * sides <= LIMIT:
        bound *= sides
        per_word += 1
    at_out, end = start, start + count
    while at_out < end:
        size = min(per_word, end - at_out)
        x = _accepted(sides**size, stream, at)
        for q in range(size):
            product = x * sides
            out[at_out + q] = low + (product >> 32)
            x = product & MASK
        at_out += size


@njit
def fill_uniform(out, start, count, low, high):
    """``out[start : start + count]`` filled with independent uniform integers in
    ``[low, high)`` (dice: ``low`` 1, ``high`` 7), as many per word as keep the product of
    their ranges within :data:`LIMIT`; words from the compiled stream."""
    _fill(out, start, count, low, high, out, -1)  # ``out`` stands for the unused game stream


@njit(inline="always")
def fill_uniform_stream(out, start, count, low, high, stream, at):
    """:func:`fill_uniform` with words from the game's stream kept in ``stream[at : at + 4]``."""
    _fill(out, start, count, low, high, stream, at)


def scripted_deals(deals: np.ndarray, unit: int, least: int = 0) -> tuple[int, np.ndarray]:
    """``(K, kernel deals)`` of scripted deals (``Game.play(deals=...)``) of a game whose deal
    holds its first ``K`` units of chance (``unit`` numbers each: three dice, one deck)
    followed by the seed of its own stream, which plays the chance past them.  A script may
    leave the seed out: its rows get an all-zero seed, a fixed stream (:func:`load_stream`),
    so a script shorter than the game still plays the same game every time.  A width that is
    neither ``K * unit`` nor ``K * unit + SEED_WORDS`` for some ``K >= least`` is a ValueError
    saying what a deal holds.  (``unit`` must not divide ``SEED_WORDS``, or the two widths
    could not be told apart.)"""
    width = deals.shape[1]
    seeded = width % unit == SEED_WORDS % unit and width >= SEED_WORDS
    count = (width - SEED_WORDS) // unit if seeded else width // unit
    if (not seeded and width % unit) or count < least:
        raise ValueError(
            f"a scripted deal holds {unit} numbers per unit of chance (at least {least} units), "
            f"optionally followed by the {SEED_WORDS} seed words of the game's stream; got {width} numbers"
        )
    if seeded:
        return count, deals
    return count, np.concatenate([deals, np.zeros((len(deals), SEED_WORDS), dtype=np.int64)], axis=1)
