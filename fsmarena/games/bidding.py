"""Simultaneous bidding from a hand of cards 1..C, one game at a time: the part of the compiled
kernels (:mod:`fsmarena.games.kernel`) that Stupide Vautour and Goofspiel share.

Both games deal every seat the cards 1..C and, turn after turn, have every seat bid one card
for the prize on the table.  Their kernels serialise the simultaneous bids the same way —
seats choose in seat order, each choice is kept hidden in the state (no observation reads
it) and the turn is resolved when the last seat has chosen — and lay out their state the
same way, so the layout, the hand operations and the game-independent contract functions
live here once.

Parameters ``p`` (int64) start ``[players, cards, ...]``; the rest is the game's.

State ``s`` (int64): ``HEAD`` slots ``[turn, seat to choose, game slot, game slot]`` (Stupide
Vautour keeps its carried pot in the two game slots; Goofspiel leaves them 0), then per seat
its hand, points, last bid and pending bid (``players`` values each), then the deal: the
prizes in turn order, as the game encodes them.

A hand is a bitmask: bit ``c - 1`` is card ``c``.

The helpers here and the kernels' functions called at every decision (``to_move``, ``legal``,
``observe_index``, ``step``, ``builtin_action``) are compiled inline into their callers
(``inline="always"``): a call between compiled functions passes and reference-counts its
arrays, which cost more than these few rules (inlining halved a Stupide Vautour game).
"""

from __future__ import annotations

import numpy as np

from fsmarena.games.bits import bit_length, lowest_bit, nth_bit, popcount
from fsmarena.games.draws import uniform_float
from fsmarena.jit import njit

PLAYERS, CARDS = 0, 1
TURN, MOVER = 0, 1
#: state slots before the seats' blocks: turn, seat to choose and two slots of the game's own
HEAD = 4


# ---- the state layout ---------------------------------------------------------------------------


@njit(inline="always")
def hand_at(p, seat):
    return HEAD + seat


@njit(inline="always")
def points_at(p, seat):
    return HEAD + p[PLAYERS] + seat


@njit(inline="always")
def last_at(p, seat):
    return HEAD + 2 * p[PLAYERS] + seat


@njit(inline="always")
def pending_at(p, seat):
    return HEAD + 3 * p[PLAYERS] + seat


@njit(inline="always")
def order_at(p):
    return HEAD + 4 * p[PLAYERS]


@njit
def state_size(p):
    return HEAD + 4 * p[PLAYERS] + p[CARDS]


@njit
def deal_size(p):
    return p[CARDS]


@njit
def n_seats(p):
    return p[PLAYERS]


@njit
def reset(p, s, deal):
    """Every seat holds every card; the deal is the prizes in turn order."""
    s[:] = 0
    full = (1 << p[CARDS]) - 1
    for seat in range(p[PLAYERS]):
        s[hand_at(p, seat)] = full
    s[order_at(p) : order_at(p) + p[CARDS]] = deal[: p[CARDS]]


@njit(inline="always")
def to_move(p, s):
    return -1 if s[TURN] >= p[CARDS] else s[MOVER]


@njit(inline="always")
def prize_slot(p, s):
    """The deal's entry for this turn's prize."""
    return s[order_at(p) + s[TURN]]


@njit(inline="always")
def choose(p, s, seat, card):
    """Seat ``seat`` bids ``card`` (hidden until the last seat has chosen); True when every seat
    has chosen and the game must resolve the turn (then :func:`end_turn`)."""
    s[pending_at(p, seat)] = card
    if seat < p[PLAYERS] - 1:
        s[MOVER] = seat + 1
        return False
    return True


@njit(inline="always")
def end_turn(p, s):
    """After the game has awarded the prize: the bids leave the hands, the next turn begins."""
    for seat in range(p[PLAYERS]):
        bid = s[pending_at(p, seat)]
        s[hand_at(p, seat)] ^= 1 << (bid - 1)
        s[last_at(p, seat)] = bid
    s[TURN] += 1
    s[MOVER] = 0


# ---- states of the exact solution ---------------------------------------------------------------


def public_states(
    p: np.ndarray,
    turn: int,
    prize: np.ndarray,
    public: dict[str, np.ndarray],
    offset: int,
    slots: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Kernel states, one row per public state of the two-seat exact solution
    (:mod:`fsmarena.games.vautour.exploit`), at turn ``turn`` with seat 1 to choose: ``prize``
    (positions in the sorted deck) on the table; ``public`` holds ``own`` and ``other`` (seat 0's
    and seat 1's hands), ``left`` (the positions still face down after this one), ``lead`` (seat 0's
    points minus seat 1's), ``last_own`` and ``last_other`` (their last bids, 0 before the first).
    The deal puts the prizes already won first, then ``prize``, then those left, each group in deck
    order (a seat sees only which prizes are left, never their order); deal entries are positions
    plus ``offset`` (the game's encoding).  ``slots``: the game's two state slots.  Seat 0's hidden
    bid is left 0: an observation never reads it, so these states are for reading, not stepping."""
    n = len(prize)
    states = np.zeros((n, state_size(p)), dtype=np.int64)
    states[:, TURN], states[:, MOVER] = turn, 1
    if slots is not None:
        states[:, HEAD - 2], states[:, HEAD - 1] = slots
    for seat, (hand, last) in enumerate((("own", "last_own"), ("other", "last_other"))):
        states[:, hand_at(p, seat)] = public[hand]
        states[:, last_at(p, seat)] = public[last]
    states[:, points_at(p, 0)] = public["lead"]
    positions = np.arange(p[CARDS])
    later = (public["left"][:, None] >> positions) & 1
    group = np.where(positions == prize[:, None], 1, 2 * later)
    states[:, order_at(p) : order_at(p) + p[CARDS]] = np.argsort(group, axis=1, kind="stable") + offset
    return states


# ---- observation parts ---------------------------------------------------------------------------

#: the observation parts both games show first (:mod:`fsmarena.games.kernel`), in part-number order
SHARED_PARTS = (("step", "int"), ("hand", "int"), ("opp_hand", "int"), ("prizes_left", "int"))
N_SHARED = len(SHARED_PARTS)


@njit
def shared_part(p, s, seat, which, offset):
    """Part ``which`` of :data:`SHARED_PARTS`: the turn, the seat's hand, the next seat's hand,
    and the prizes still face down after this turn's (bit ``deal entry - offset``)."""
    if which == 0:
        return s[TURN]
    if which == 1:
        return s[hand_at(p, seat)]
    if which == 2:
        return s[hand_at(p, (seat + 1) % p[PLAYERS])]
    left = 0
    for turn in range(s[TURN] + 1, p[CARDS]):
        left |= 1 << (s[order_at(p) + turn] - offset)
    return left


# ---- hands --------------------------------------------------------------------------------------


@njit(inline="always")
def select(p, hand, j):
    """The ``j``-th smallest card of ``hand``, from ``j = 0`` (0 when there is none), in constant
    time (:func:`fsmarena.games.bits.nth_bit`)."""
    return nth_bit(hand, j)


@njit(inline="always")
def highest(p, hand):
    return bit_length(hand)


@njit(inline="always")
def nearest(p, hand, target, up):
    """The remaining card nearest to ``target`` (1 to the number of cards); ties down (``up``
    False) or up.  The nearest at or below ``target`` is the highest card of the cards up to it,
    the nearest above the lowest card of the others."""
    below = bit_length(hand & ((1 << target) - 1))
    above_cards = hand >> target
    above = target + lowest_bit(above_cards) if above_cards else 0
    if below == target or above == 0:
        return below
    if below == 0:
        return above
    if up:
        return above if above - target <= target - below else below
    return below if target - below <= above - target else above


@njit(inline="always")
def uniform(p, hand):
    """A uniformly random remaining card (one :func:`fsmarena.games.draws.uniform_float` draw)."""
    return select(p, hand, int(uniform_float() * popcount(hand)))


@njit(inline="always")
def spread_over_hand(p, hand, weight, out, offset):
    """The law of :func:`uniform`: ``weight`` spread evenly over the cards of ``hand``, added to
    ``out[card + offset]`` (the exact laws of random bids read it)."""
    count = popcount(hand)
    for card in range(1, p[CARDS] + 1):
        if hand >> (card - 1) & 1:
            out[card + offset] += weight / count


# ---- scores -------------------------------------------------------------------------------------


@njit(inline="always")
def lead(p, s, seat):
    """Seat ``seat``'s points minus the best of the other seats'."""
    best = -(1 << 62)
    for other in range(p[PLAYERS]):
        if other != seat:
            best = max(best, s[points_at(p, other)])
    return s[points_at(p, seat)] - best


@njit(inline="always")
def opponents_highest(p, s, seat):
    """The highest card any other seat still holds."""
    best = 0
    for other in range(p[PLAYERS]):
        if other != seat:
            best = max(best, highest(p, s[hand_at(p, other)]))
    return best


@njit
def rewards(p, s, out):
    """+1 to the single seat with the most points, 0 to every seat sharing the most, -1 to the rest."""
    P = p[PLAYERS]
    best, count = -(1 << 62), 0
    for seat in range(P):
        points = s[points_at(p, seat)]
        if points > best:
            best, count = points, 1
        elif points == best:
            count += 1
    for seat in range(P):
        at_best = s[points_at(p, seat)] == best
        out[seat] = (1.0 if count == 1 else 0.0) if at_best else -1.0


@njit
def scores(p, s, out):
    for seat in range(p[PLAYERS]):
        out[seat] = s[points_at(p, seat)]
