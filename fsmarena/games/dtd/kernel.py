"""Divide-the-dollar, one game at a time, compiled (the contract of :mod:`fsmarena.games.kernel`).

This kernel is the game's rules (:mod:`fsmarena.games.dtd.game` holds its configuration and
labels and documents the rules); the tests compare it game by game, on the same deck orders,
with the plain-Python reference loop (:mod:`fsmarena.games.dtd.reference`).  A hand is a count vector over the card types; the sorted views the
actions need (smallest, median at sorted position ``hand_size // 2``, largest) are read off
the counts.

Parameters ``p`` (int64): ``[K, hand_size, deck_size, rounds, dollar_points, n_triples,
scale]`` (scale: the common denominator of the cards and the dollar),
then the K card points, the K card counts, the K card values as float64 bit patterns (the
features use the configuration's own floats) and the ``K**3`` triple ids (``-1`` for
unsorted triples) numbering sorted (smallest, median, largest) triples as the game's ``index`` does.

State ``s`` (int64): ``[round, phase, next card, lead card, scored rounds, points 0,
points 1, last 0, last 1]`` (phase 0: the leader decides, 1: the follower, 2: over; ``last``
= a seat's most recent card + 1, 0 before its first), the sorted views (smallest, median,
largest card) of seat 0's and of seat 1's hand (kept up to date after every change: they
are read at every decision), then seat 0's and seat 1's counts (K each), then the deck
order (the deal).

The functions called at every decision and their helpers are compiled inline into their
callers (``inline="always"``, as in :mod:`fsmarena.games.bidding`: a call costs more than the rule).
"""

from __future__ import annotations

import numpy as np

from fsmarena.games.draws import shuffle, uniform_float
from fsmarena.jit import njit

BUILTINS = ("random", "always-small", "always-median", "always-large")
#: observation parts beyond index, features, mask and encodings (:mod:`fsmarena.games.kernel`): the
#: round, whether the seat leads, its hand as counts per card type
PARTS = (("step", "int"), ("leading", "bool"), ("hand", "int"))

_K, _HAND, _DECK, _ROUNDS, _DOLLAR, _TRIPLES, _SCALE = range(7)
_HEAD = 7
_ROUND, _PHASE, _NEXT, _LEAD, _SCORED, _POINTS, _LAST = 0, 1, 2, 3, 4, 5, 7
_TRIPLE = 9  # (smallest, median, largest) of seat 0, then of seat 1
_HANDS = 15


def make_params(config) -> np.ndarray:
    """The rules of a :class:`fsmarena.games.dtd.game.DTDConfig` as one int64 array (module doc)."""
    from fsmarena.games.dtd.game import _exact, _tables

    tables = _tables(config)
    K = tables.K
    triples = np.full(K**3, -1, dtype=np.int64)
    for number, (a, b, c) in enumerate(tables.triples):
        triples[(a * K + b) * K + c] = number
    dollar_points = int(_exact(config.dollar) * tables.scale)
    head = [K, config.hand_size, config.deck_size, config.rounds, dollar_points, tables.n_triples, tables.scale]
    values = np.asarray(config.cards, dtype=np.float64).view(np.int64)
    return np.concatenate(
        [
            np.array(head, dtype=np.int64),
            tables.points.astype(np.int64),
            np.asarray(config.counts, dtype=np.int64),
            values,
            triples,
        ]
    )


@njit(inline="always")
def _points(p, k):
    return p[_HEAD + k]


@njit(inline="always")
def _value(p, k):
    K = p[_K]
    return p[_HEAD + 2 * K : _HEAD + 3 * K].view(np.float64)[k]


@njit
def state_size(p):
    return _HANDS + 2 * p[_K] + p[_DECK]


@njit
def deal_size(p):
    return p[_DECK]


@njit
def n_seats(p):
    return 2


@njit
def n_actions(p):
    return 3


@njit
def n_states(p):
    return (p[_K] + 1) * p[_TRIPLES]


@njit
def n_features(p):
    return 6


@njit
def n_encodings(p):
    return 1


@njit
def encoding_size(p, which):
    return p[_K] + 1


@njit
def draw_deal(p, deal):
    """A uniformly random deck order: the cards by type, then :func:`fsmarena.games.draws.shuffle`."""
    K = p[_K]
    at = np.int64(0)  # not a literal 0: shuffle would compile twice (draws.shuffle)
    for k in range(K):
        for _ in range(p[_HEAD + K + k]):
            deal[at] = k
            at += 1
    shuffle(deal, at)


@njit(inline="always")
def _draw(p, s, seat):
    """Seat ``seat`` draws the next card of the deck order, if any is left."""
    K = p[_K]
    if s[_NEXT] < p[_DECK]:
        card = s[_HANDS + 2 * K + s[_NEXT]]
        s[_HANDS + seat * K + card] += 1
        s[_NEXT] += 1


@njit
def reset(p, s, deal):
    K = p[_K]
    s[:] = 0
    s[_HANDS + 2 * K :] = deal[: p[_DECK]]
    for seat in range(2):
        for _ in range(p[_HAND]):
            _draw(p, s, seat)
    _sort_hands(p, s)


@njit(inline="always")
def to_move(p, s):
    if s[_PHASE] == 2:
        return -1
    leader = s[_ROUND] % 2
    return leader if s[_PHASE] == 0 else 1 - leader


@njit(inline="always")
def _sort_hands(p, s):
    """Recompute both seats' sorted views (one pass over the counts) after a change."""
    K, middle = p[_K], p[_HAND] // 2
    for seat in range(2):
        base = _HANDS + seat * K
        small, median, large, seen = -1, -1, K - 1, 0
        for k in range(K):
            count = s[base + k]
            if count == 0:
                continue
            if small < 0:
                small = k
            seen += count
            if median < 0 and seen > middle:
                median = k
            large = k
        at = _TRIPLE + 3 * seat
        s[at] = small
        s[at + 1] = median
        s[at + 2] = large


@njit(inline="always")
def _triple(p, s, seat):
    at = _TRIPLE + 3 * seat
    return s[at], s[at + 1], s[at + 2]


@njit(inline="always")
def observe_index(p, s, seat):
    K = p[_K]
    small, median, large = _triple(p, s, seat)
    showing = K if s[_PHASE] == 0 else s[_LEAD]
    return showing * p[_TRIPLES] + p[_HEAD + 3 * K + (small * K + median) * K + large]


@njit
def features(p, s, seat, out):
    small, median, large = _triple(p, s, seat)
    following = s[_PHASE] == 1
    out[0] = _value(p, s[_LEAD]) if following else 0.0
    out[1] = _value(p, small)
    out[2] = _value(p, median)
    out[3] = _value(p, large)
    rnd = s[_ROUND]
    out[4] = s[_SCORED] / rnd if rnd else 0.0
    out[5] = 1.0 if following else 0.0


@njit(inline="always")
def legal(p, s, seat, mask):
    mask[:] = True


@njit(inline="always")
def is_legal(p, s, seat, action, mask):
    """Every card choice is always legal."""
    return True


@njit
def always_masked(p):
    """Every card choice is always legal: no mask."""
    return False


@njit
def encoding(p, s, seat, which):
    """``opp_last``: the opponent's most recent card + 1 (the lead card when following)."""
    if s[_PHASE] == 1:
        return s[_LEAD] + 1
    return s[_LAST + 1 - seat]


@njit
def part_size(p, which):
    return p[_K] if which == 2 else 0


@njit
def observe_part(p, data, s, seat, which, out):
    """``step`` (the round), ``leading``, ``hand`` (the seat's count of each card type)."""
    if which == 0:
        out[0] = s[_ROUND]
    elif which == 1:
        out[0] = 1.0 if s[_PHASE] == 0 else 0.0
    else:
        K = p[_K]
        for k in range(K):
            out[k] = s[_HANDS + seat * K + k]


def part_data(config) -> np.ndarray:
    """No part reads a table."""
    return np.zeros((1, 1))


@njit(inline="always")
def _follow_card(p, s, seat, shown, action):
    K = p[_K]
    small, median, large = _triple(p, s, seat)
    if action == 1:
        return median
    dollar = p[_DOLLAR]
    base = _HANDS + seat * K
    if action == 0:  # smallest spoiler, else the largest card
        for k in range(K):
            if s[base + k] > 0 and _points(p, shown) + _points(p, k) > dollar:
                return k
        return large
    for k in range(K - 1, -1, -1):  # largest that fits, else the smallest card
        if s[base + k] > 0 and _points(p, shown) + _points(p, k) <= dollar:
            return k
    return small


@njit(inline="always")
def step(p, s, action):
    K = p[_K]
    seat = to_move(p, s)
    if s[_PHASE] == 0:
        small, median, large = _triple(p, s, seat)
        card = small if action == 0 else (median if action == 1 else large)
        s[_LEAD] = card
        s[_PHASE] = 1
        return
    leader = 1 - seat
    lead = s[_LEAD]
    card = _follow_card(p, s, seat, lead, action)
    s[_HANDS + leader * K + lead] -= 1
    s[_HANDS + seat * K + card] -= 1
    if _points(p, lead) + _points(p, card) <= p[_DOLLAR]:
        s[_POINTS + leader] += _points(p, lead)
        s[_POINTS + seat] += _points(p, card)
        s[_SCORED] += 1
    s[_LAST + leader] = lead + 1
    s[_LAST + seat] = card + 1
    if s[_ROUND] == p[_ROUNDS] - 1:
        s[_PHASE] = 2
        _sort_hands(p, s)
        return
    _draw(p, s, 0)
    _draw(p, s, 1)
    _sort_hands(p, s)
    s[_ROUND] += 1
    s[_PHASE] = 0


@njit
def rewards(p, s, out):
    a, b = s[_POINTS], s[_POINTS + 1]
    out[0] = 1.0 if a > b else (0.0 if a == b else -1.0)
    out[1] = 1.0 if b > a else (0.0 if a == b else -1.0)


@njit
def scores(p, s, out):
    scale = p[_SCALE]
    out[0] = s[_POINTS] / scale
    out[1] = s[_POINTS + 1] / scale


@njit(inline="always")
def builtin_action(p, s, seat, code, args):
    """``random`` (uniform), ``always-small``, ``always-median``, ``always-large`` (actions 0, 1, 2)."""
    if code == 0:
        return int(uniform_float() * 3)
    return code - 1


def reference_deal(config, deals: np.ndarray) -> dict:
    """``deals`` (one kernel deal per row) in the reference's terms: the deck orders, one per
    row (the kernel's deal is the deck order itself)."""
    return {"deck_order": np.asarray(deals, dtype=np.int64)}


def test_configs() -> list:
    """Configurations the kernel tests play: the thesis deck, a tiny deck with two-card hands,
    and an odd one (four card types, a dollar of 1.2, hands of 3)."""
    from fsmarena.games.dtd.game import DTDConfig

    return [
        DTDConfig(),
        DTDConfig(counts=(2, 2, 2), hand_size=2),
        DTDConfig(cards=(0.1, 0.3, 0.5, 0.9), counts=(5, 4, 6, 3), hand_size=3, dollar=1.2),
    ]


def random_config(seed: int):
    """A random valid configuration (2-4 card types, small decks, hands of 1-5, a dollar that
    lets some pairs score), for the kernel tests' parameter search."""
    from fsmarena.games.dtd.game import DTDConfig

    rng = np.random.default_rng(seed)
    types = int(rng.integers(2, 5))
    cards = tuple(sorted(float(c) for c in rng.choice(np.arange(1, 20), types, replace=False) / 20))
    hand = int(rng.integers(1, 6))
    counts = [int(c) for c in rng.integers(0, 8, types)]
    counts[0] += max(0, 2 * hand - sum(counts))
    return DTDConfig(cards=cards, counts=tuple(counts), hand_size=hand, dollar=float(rng.choice([0.5, 1.0, 1.25])))
