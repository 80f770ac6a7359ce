"""Goofspiel, one game at a time, compiled (the contract of :mod:`games.kernel`).

The rules are those of :mod:`games.goofspiel.game`; the kernel tests (``tests/test_kernels.py``,
which covers every registered kernel) compare the two game by game on the same prize orders.
The simultaneous bids are serialised: seats choose in seat order, each choice is kept hidden
in the state (no observation reads it) and the turn is resolved when the last seat has
chosen.  Hands are bitmasks (bit ``c - 1`` for card ``c``).

Parameters ``p`` (int64): ``[players, cards, points order (0 random, 1 descending,
2 ascending), lead clip (0 for the no-memory state)]``.  State ``s`` (int64): ``[turn, seat to choose]``, then per seat its hand,
points, last bid and pending card (``players`` values each), then the prize values in turn
order.  The deal is the prize values in turn order.
"""

from __future__ import annotations

import numpy as np

from fsmarena.jit import njit

BUILTINS = ("random", "match", "upbid", "max")
_P, _C, _ORDER, _CLIP = range(4)
_TURN, _MOVER = range(2)
_SEATS = 2


def make_params(config) -> np.ndarray:
    """The rules of a :class:`games.goofspiel.game.GoofspielConfig` as one int64 array."""
    from games.goofspiel.game import POINTS_ORDERS

    clip = config.lead_clip if config.state == "with-score" else 0
    return np.array([config.players, config.cards, POINTS_ORDERS.index(config.points_order), clip], dtype=np.int64)


@njit
def _hand_at(p, seat):
    return _SEATS + seat


@njit
def _points_at(p, seat):
    return _SEATS + p[_P] + seat


@njit
def _last_at(p, seat):
    return _SEATS + 2 * p[_P] + seat


@njit
def _pending_at(p, seat):
    return _SEATS + 3 * p[_P] + seat


@njit
def _order_at(p):
    return _SEATS + 4 * p[_P]


@njit
def state_size(p):
    return _SEATS + 4 * p[_P] + p[_C]


@njit
def deal_size(p):
    return p[_C]


@njit
def n_seats(p):
    return p[_P]


@njit
def n_actions(p):
    return p[_C]


@njit
def n_states(p):
    return p[_C] * ((1 << p[_C]) - 1) * (2 * p[_CLIP] + 1)


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
    """The prize values in turn order: fixed, or a Fisher-Yates shuffle from ``np.random``."""
    C = p[_C]
    for i in range(C):
        deal[i] = C - i if p[_ORDER] == 1 else i + 1
    if p[_ORDER] != 0:
        return
    for i in range(C - 1, 0, -1):
        j = int(np.random.random() * (i + 1))
        swap = deal[i]
        deal[i] = deal[j]
        deal[j] = swap


@njit
def reset(p, s, deal):
    s[:] = 0
    full = (1 << p[_C]) - 1
    for seat in range(p[_P]):
        s[_hand_at(p, seat)] = full
    s[_order_at(p) : _order_at(p) + p[_C]] = deal[: p[_C]]


@njit
def to_move(p, s):
    return -1 if s[_TURN] >= p[_C] else s[_MOVER]


# ---- hands ------------------------------------------------------------------------------------


@njit
def _lowest(p, hand):
    for c in range(1, p[_C] + 1):
        if hand >> (c - 1) & 1:
            return c
    return 0


@njit
def _highest(p, hand):
    for c in range(p[_C], 0, -1):
        if hand >> (c - 1) & 1:
            return c
    return 0


@njit
def _nearest(p, hand, target):
    """The remaining card nearest to ``target``, ties towards the lower card."""
    best, best_key = 0, 1 << 30
    for c in range(1, p[_C] + 1):
        if hand >> (c - 1) & 1:
            key = 2 * abs(c - target) + (1 if c > target else 0)
            if key < best_key:
                best, best_key = c, key
    return best


@njit
def _uniform(p, hand):
    """A uniformly random remaining card (one ``np.random.random`` draw)."""
    count = 0
    for c in range(1, p[_C] + 1):
        count += hand >> (c - 1) & 1
    j = int(np.random.random() * count)
    for c in range(1, p[_C] + 1):
        if hand >> (c - 1) & 1:
            if j == 0:
                return c
            j -= 1
    return 0


# ---- observations -------------------------------------------------------------------------------


@njit
def _prize(p, s):
    return s[_order_at(p) + s[_TURN]]


@njit
def _lead(p, s, seat):
    best = -(1 << 62)
    for other in range(p[_P]):
        if other != seat:
            best = max(best, s[_points_at(p, other)])
    return s[_points_at(p, seat)] - best


@njit
def observe_index(p, s, seat):
    base = (_prize(p, s) - 1) * ((1 << p[_C]) - 1) + (s[_hand_at(p, seat)] - 1)
    clip = p[_CLIP]
    if clip == 0:
        return base
    return base * (2 * clip + 1) + min(max(_lead(p, s, seat), -clip), clip) + clip


@njit
def features(p, s, seat, out):
    C = p[_C]
    total = C * (C + 1) // 2
    hand = s[_hand_at(p, seat)]
    count, cardsum = 0, 0
    for c in range(1, C + 1):
        if hand >> (c - 1) & 1:
            count += 1
            cardsum += c
    opp_high = 0
    for other in range(p[_P]):
        if other != seat:
            opp_high = max(opp_high, _highest(p, s[_hand_at(p, other)]))
    left = 0
    for t in range(s[_TURN] + 1, C):
        left += s[_order_at(p) + t]
    out[0] = _prize(p, s) / C
    out[1] = _lowest(p, hand) / C
    out[2] = cardsum / max(count, 1) / C
    out[3] = _highest(p, hand) / C
    out[4] = opp_high / C
    out[5] = s[_TURN] / (C - 1) if C > 1 else 0.0
    out[6] = 0.5 + 0.5 * min(max(_lead(p, s, seat) / total, -1.0), 1.0)
    out[7] = left / total


@njit
def legal(p, s, seat, mask):
    hand = s[_hand_at(p, seat)]
    for c in range(1, p[_C] + 1):
        mask[c - 1] = (hand >> (c - 1) & 1) == 1


@njit
def encoding(p, s, seat, which):
    """``prize``, ``opp_last``, ``phase``, ``lead`` (the engine's encodings)."""
    C = p[_C]
    if which == 0:
        return _prize(p, s) - 1
    if which == 1:
        last = s[_last_at(p, (seat + 1) % p[_P])]
        return 0 if last == 0 else 1 + min(2, (3 * (last - 1)) // C)
    if which == 2:
        return 3 * s[_TURN] // C
    lead = _lead(p, s, seat)
    return 2 if lead > 0 else (0 if lead < 0 else 1)


# ---- play ---------------------------------------------------------------------------------------


@njit
def step(p, s, action):
    seat = s[_MOVER]
    hand = s[_hand_at(p, seat)]
    card = action + 1
    if not hand >> action & 1:  # never trust an illegal bid: the nearest remaining card
        card = _nearest(p, hand, card)
    s[_pending_at(p, seat)] = card
    if seat < p[_P] - 1:
        s[_MOVER] = seat + 1
        return
    _resolve_turn(p, s)


@njit
def _resolve_turn(p, s):
    """Every seat has chosen: the single highest bid takes the prize (a shared one discards
    it), the bids leave the hands, the next turn begins."""
    P = p[_P]
    best, winner, count = 0, -1, 0
    for seat in range(P):
        bid = s[_pending_at(p, seat)]
        if bid > best:
            best, winner, count = bid, seat, 1
        elif bid == best:
            count += 1
    if count == 1:
        s[_points_at(p, winner)] += _prize(p, s)
    for seat in range(P):
        bid = s[_pending_at(p, seat)]
        s[_hand_at(p, seat)] ^= 1 << (bid - 1)
        s[_last_at(p, seat)] = bid
    s[_TURN] += 1
    s[_MOVER] = 0


@njit
def rewards(p, s, out):
    P = p[_P]
    best, count = -(1 << 62), 0
    for seat in range(P):
        points = s[_points_at(p, seat)]
        if points > best:
            best, count = points, 1
        elif points == best:
            count += 1
    for seat in range(P):
        at_best = s[_points_at(p, seat)] == best
        out[seat] = (1.0 if count == 1 else 0.0) if at_best else -1.0


@njit
def scores(p, s, out):
    for seat in range(p[_P]):
        out[seat] = s[_points_at(p, seat)]


@njit
def builtin_action(p, s, seat, code):
    """The action of builtin ``code`` (``BUILTINS``): the strategies of :mod:`games.goofspiel.players`."""
    hand = s[_hand_at(p, seat)]
    prize = _prize(p, s)
    if code == 0:
        return _uniform(p, hand) - 1
    if code == 1:
        return _nearest(p, hand, prize) - 1
    if code == 2:
        for c in range(prize + 1, p[_C] + 1):
            if hand >> (c - 1) & 1:
                return c - 1
        return _lowest(p, hand) - 1
    return _highest(p, hand) - 1


def engine_script(config, deals: np.ndarray) -> dict:
    """The batched engine's arguments that play ``deals`` (prize values, one game per row)."""
    return {"prize_order": np.asarray(deals, dtype=np.int64)}


def test_configs() -> list:
    """Configurations the kernel tests play: 2-4 players, every prize order, the default game."""
    from games.goofspiel.game import GoofspielConfig

    return [
        GoofspielConfig(cards=6),
        GoofspielConfig(players=3, cards=5, points_order="descending"),
        GoofspielConfig(cards=5, state="with-score"),
        GoofspielConfig(players=3, cards=4, state="with-score", score_clip=3),
        GoofspielConfig(players=4, cards=7, points_order="ascending"),
        GoofspielConfig(),
    ]


def random_config(seed: int):
    """A random valid configuration (2-4 players, 1-8 cards, any prize order and state)."""
    from games.goofspiel.game import POINTS_ORDERS, STATES, GoofspielConfig

    rng = np.random.default_rng(seed)
    state = str(rng.choice(STATES))
    clip = int(rng.integers(1, 6)) if state == "with-score" and rng.random() < 0.5 else None
    return GoofspielConfig(
        players=int(rng.integers(2, 5)),
        cards=int(rng.integers(1, 9)),
        points_order=str(rng.choice(POINTS_ORDERS)),
        state=state,
        score_clip=clip,
    )
