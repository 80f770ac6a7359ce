"""Goofspiel, one game at a time, compiled (the contract of :mod:`fsmarena.games.kernel`).

This kernel is the game's rules (:mod:`fsmarena.games.goofspiel.game` holds its configuration and
labels and documents the rules); the kernel tests (``tests/test_kernels.py``, which covers every
registered kernel) compare it game by game, on the same prize orders, with the plain-Python
reference loop (:mod:`fsmarena.games.goofspiel.reference`).
The serialised simultaneous bids, the state layout, the hands (bitmasks) and the
win/draw/loss rewards are Stupide Vautour's too and live in :mod:`fsmarena.games.bidding`.

Parameters ``p`` (int64): ``[players, cards, points order (0 random, 1 descending,
2 ascending), lead clip (0 for the no-memory state), 1 when the state reads the next seat's
hand (``public``)]``.  State: :mod:`fsmarena.games.bidding`'s layout
(the two game slots unused); the deal is the prize values in turn order.

The functions called at every decision and their helpers are compiled inline into their
callers (``inline="always"``, :mod:`fsmarena.games.bidding`).
"""

from __future__ import annotations

import numpy as np

from fsmarena.games.bidding import (
    CARDS,
    MOVER,
    N_SHARED,
    PLAYERS,
    SHARED_PARTS,
    choose,
    deal_size,
    end_turn,
    hand_at,
    highest,
    last_at,
    lead,
    n_seats,
    nearest,
    opponents_highest,
    order_at,
    pending_at,
    points_at,
    prize_slot,
    reset,
    rewards,
    scores,
    select,
    shared_part,
    spread_over_hand,
    state_size,
    to_move,
    uniform,
)
from fsmarena.games.draws import shuffle
from fsmarena.jit import njit

__all__ = ["deal_size", "n_seats", "reset", "rewards", "scores", "state_size", "to_move"]

BUILTINS = ("random", "match", "upbid", "max")
#: observation parts beyond index, features, mask and encodings (:mod:`fsmarena.games.kernel`); hands
#: and prizes left are bitmasks (bit ``c - 1``: card or prize ``c``)
PARTS = SHARED_PARTS + (("prize_value", "int"),)
_P, _C, _ORDER, _CLIP, _OPP = PLAYERS, CARDS, 2, 3, 4
_TURN = 0


def make_params(config) -> np.ndarray:
    """The rules of a :class:`fsmarena.games.goofspiel.game.GoofspielConfig` as one int64 array."""
    from fsmarena.games.goofspiel.game import POINTS_ORDERS

    clip = config.lead_clip if config.state in ("with-score", "public") else 0
    opponent = 1 if config.state == "public" else 0
    order = POINTS_ORDERS.index(config.points_order)
    return np.array([config.players, config.cards, order, clip, opponent], dtype=np.int64)


@njit
def n_actions(p):
    return p[_C]


@njit
def n_states(p):
    hands = (1 << p[_C]) - 1
    return p[_C] * hands * (hands if p[_OPP] else 1) * (2 * p[_CLIP] + 1)


@njit
def n_features(p):
    return 8


@njit
def n_encodings(p):
    return 4


@njit
def encoding_size(p, which):
    if which == 0:
        return p[_C]
    if which == 1:
        return 4
    return 3


@njit
def draw_deal(p, deal):
    """The prize values in turn order: fixed, or shuffled (:func:`fsmarena.games.draws.shuffle`)."""
    C = p[_C]
    for i in range(C):
        deal[i] = C - i if p[_ORDER] == 1 else i + 1
    if p[_ORDER] == 0:
        shuffle(deal, C)


# ---- observations -------------------------------------------------------------------------------


@njit(inline="always")
def _prize(p, s):
    return prize_slot(p, s)


@njit(inline="always")
def observe_index(p, s, seat):
    hands = (1 << p[_C]) - 1
    base = (_prize(p, s) - 1) * hands + (s[hand_at(p, seat)] - 1)
    if p[_OPP]:
        base = base * hands + (s[hand_at(p, (seat + 1) % p[_P])] - 1)
    clip = p[_CLIP]
    if clip == 0:
        return base
    return base * (2 * clip + 1) + min(max(lead(p, s, seat), -clip), clip) + clip


@njit
def features(p, s, seat, out):
    C = p[_C]
    total = C * (C + 1) // 2
    hand = s[hand_at(p, seat)]
    count, cardsum = 0, 0
    for c in range(1, C + 1):
        if hand >> (c - 1) & 1:
            count += 1
            cardsum += c
    opp_high = opponents_highest(p, s, seat)
    left = 0
    for t in range(s[_TURN] + 1, C):
        left += s[order_at(p) + t]
    out[0] = _prize(p, s) / C
    out[1] = select(p, hand, 0) / C
    out[2] = cardsum / max(count, 1) / C
    out[3] = highest(p, hand) / C
    out[4] = opp_high / C
    out[5] = s[_TURN] / (C - 1) if C > 1 else 0.0
    out[6] = 0.5 + 0.5 * min(max(lead(p, s, seat) / total, -1.0), 1.0)
    out[7] = left / total


@njit(inline="always")
def legal(p, s, seat, mask):
    hand = s[hand_at(p, seat)]
    for c in range(1, p[_C] + 1):
        mask[c - 1] = (hand >> (c - 1) & 1) == 1


@njit(inline="always")
def is_legal(p, s, seat, action, mask):
    """:func:`legal`'s rule for one action: the card is in the hand."""
    return (s[hand_at(p, seat)] >> action & 1) == 1


@njit
def always_masked(p):
    """The bids follow the hand: always a mask."""
    return True


@njit
def encoding(p, s, seat, which):
    """``prize``, ``opp_last``, ``phase``, ``lead`` (the game's encodings)."""
    C = p[_C]
    if which == 0:
        return _prize(p, s) - 1
    if which == 1:
        last = s[last_at(p, (seat + 1) % p[_P])]
        return 0 if last == 0 else 1 + min(2, (3 * (last - 1)) // C)
    if which == 2:
        return 3 * s[_TURN] // C
    ahead = lead(p, s, seat)
    return 2 if ahead > 0 else (0 if ahead < 0 else 1)


@njit
def part_size(p, which):
    return 0


@njit
def observe_part(p, data, s, seat, which, out):
    """``step``, ``hand``, ``opp_hand``, ``prizes_left`` (:func:`fsmarena.games.bidding.shared_part`),
    then ``prize_value``."""
    if which < N_SHARED:
        out[0] = shared_part(p, s, seat, which, np.int64(1))  # not a literal: one compiled version
    else:
        out[0] = _prize(p, s)


def part_data(config) -> np.ndarray:
    """No part reads a table."""
    return np.zeros((1, 1))


# ---- play ---------------------------------------------------------------------------------------


@njit(inline="always")
def bid_card(p, hand, prize, action):
    """The card action ``action`` bids: card ``action + 1``, or, never trusting an illegal bid,
    the nearest card left in ``hand`` (ties towards the lower).  The exact solution's law of the
    card reads it too (:class:`fsmarena.games.bidding_zero_sum.SolvableBidding`)."""
    card = action + 1
    if not hand >> action & 1:
        card = nearest(p, hand, card, False)
    return card


@njit(inline="always")
def step(p, s, action):
    seat = s[MOVER]
    if choose(p, s, seat, bid_card(p, s[hand_at(p, seat)], _prize(p, s), action)):
        _resolve_turn(p, s)


@njit(inline="always")
def _resolve_turn(p, s):
    """Every seat has chosen: the single highest bid takes the prize (a shared one discards
    it), then the next turn begins."""
    best, winner, count = 0, -1, 0
    for seat in range(p[_P]):
        bid = s[pending_at(p, seat)]
        if bid > best:
            best, winner, count = bid, seat, 1
        elif bid == best:
            count += 1
    if count == 1:
        s[points_at(p, winner)] += _prize(p, s)
    end_turn(p, s)


@njit(inline="always")
def builtin_action(p, s, seat, code, args):
    """The action of builtin ``code`` (``BUILTINS``; none takes arguments):

    * ``random``: a uniformly random remaining card;
    * ``match``: bid the prize's value (the card nearest to it, ties down, if already played;
      with every prize 1..n met once it never is).  The classic baseline; against a uniformly
      random opponent it maximises the expected points (Ross's theorem, 1971);
    * ``upbid``: the smallest remaining card above the prize, else the lowest card: one better
      than ``match`` wherever it can be, giving away only the prizes it cannot top.  It beats
      ``match`` (it wins every prize but the top one), which makes the panel non-transitive;
    * ``max``: the highest remaining card whatever the prize (a prize-blind reference)."""
    hand = s[hand_at(p, seat)]
    prize = _prize(p, s)
    if code == 0:
        return uniform(p, hand) - 1
    if code == 1:
        return nearest(p, hand, prize, False) - 1
    if code == 2:
        for c in range(prize + 1, p[_C] + 1):
            if hand >> (c - 1) & 1:
                return c - 1
        return select(p, hand, 0) - 1
    return highest(p, hand) - 1


@njit
def builtin_law(p, s, seat, code, args, out):
    """The exact law of :func:`builtin_action` (for exact best responses): ``random`` spread
    evenly over the hand, every other builtin its one card."""
    out[:] = 0.0
    hand = s[hand_at(p, seat)]
    if code != 0:
        out[builtin_action(p, s, seat, code, args)] = 1.0
        return
    spread_over_hand(p, hand, 1.0, out, -1)


def reference_deal(config, deals: np.ndarray) -> dict:
    """``deals`` (one kernel deal per row) in the reference's terms: the prize values in the
    order they are turned up, one game per row (the kernel's deal is that order itself)."""
    return {"prize_order": np.asarray(deals, dtype=np.int64)}


def test_configs() -> list:
    """Configurations the kernel tests play: 2-4 players, every prize order, the default game."""
    from fsmarena.games.goofspiel.game import GoofspielConfig

    return [
        GoofspielConfig(cards=6),
        GoofspielConfig(players=3, cards=5, points_order="descending"),
        GoofspielConfig(cards=5, state="with-score"),
        GoofspielConfig(players=3, cards=4, state="with-score", score_clip=3),
        GoofspielConfig(cards=4, state="public"),
        GoofspielConfig(players=3, cards=4, state="public", score_clip=2),
        GoofspielConfig(players=4, cards=7, points_order="ascending"),
        GoofspielConfig(),
    ]


def random_config(seed: int):
    """A random valid configuration (2-4 players, 1-8 cards, any prize order and state)."""
    from fsmarena.games.goofspiel.game import (
        AUTO,
        MAX_STATES,
        POINTS_ORDERS,
        SCORED_STATES,
        STATES,
        GoofspielConfig,
        state_count,
    )

    rng = np.random.default_rng(seed)
    state = str(rng.choice(STATES + (AUTO,)))
    clip = int(rng.integers(1, 6)) if state in SCORED_STATES and rng.random() < 0.5 else None
    cards = int(rng.integers(1, 9))
    if state_count(cards, state, clip or cards * (cards + 1) // 2) > MAX_STATES:  # public with many cards
        state, clip = AUTO, None
    return GoofspielConfig(
        players=int(rng.integers(2, 5)),
        cards=cards,
        points_order=str(rng.choice(POINTS_ORDERS)),
        state=state,
        score_clip=clip,
    )
