"""Stupide Vautour, one game at a time, compiled (the contract of :mod:`games.kernel`).

The rules are those of :mod:`games.vautour.game` (both tie rules, any deck, 2-5 players, the
three action sets and the three state spaces); tests compare the two game by game on the
same prize orders.  The simultaneous bids are serialised: seats choose in seat order, each
choice is kept hidden in the state (no observation reads it) and the turn is resolved when
the last seat has chosen.  Hands are bitmasks (bit ``c - 1`` for card ``c``); the rules the
engine reads from its per-hand tables are computed here from the bits.

Parameters ``p`` (int64): ``[players, cards, cancel (0/1), action set (0 bids, 1 abstract,
2 both), state (0 no-memory, 1 with-score, 2 buckets), lead clip, negative sum, positive
sum, span, largest size]``, then the C prize values in ascending order, then their ranks.

State ``s`` (int64): ``[turn, seat to choose (-1 over), carry, carried]``, then per seat its
hand, points, last bid and pending card (P values each), then the prize order (positions).
The deal is the prize order as positions into the sorted deck.
"""

from __future__ import annotations

import numpy as np

from fsmarena.jit import njit

BUILTINS = ("random", "max", "min", "bonus-craving", "negative-adverse", "get-rid-of-bad-cards", "prize-rank")
#: abstract actions whose card the engine draws at random: the kernel-vs-engine tests do not
#: script them (the two draw from different generators); their legality is tested instead
CHANCE_ACTIONS = (6,)

LOWEST, MEDIAN, HIGHEST, BID_RANK, RANK_UP, RANK_DOWN, RANDOM = range(7)
N_ABSTRACT = 7
_P, _C, _CANCEL, _ACTIONS, _STATE, _CLIP, _NEG, _POS, _SPAN, _LARGEST = range(10)
_HEAD = 10
_TURN, _MOVER, _CARRY, _CARRIED = range(4)
_SEATS = 4


def make_params(config) -> np.ndarray:
    """The rules of a :class:`games.vautour.game.VautourConfig` as one int64 array."""
    from games.vautour.game import ACTION_SETS, STATES, _tables

    t = _tables(config.cards, config.prizes)
    head = [
        config.players,
        config.cards,
        int(config.tie_rule == "cancel"),
        ACTION_SETS.index(config.action_set),
        STATES.index(config.state),
        config.lead_clip,
        t.negative_sum,
        t.positive_sum,
        t.span,
        t.largest_size,
    ]
    return np.concatenate([np.array(head, dtype=np.int64), t.values.astype(np.int64), t.rank.astype(np.int64)])


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
    return N_ABSTRACT if p[_ACTIONS] == 1 else N_ABSTRACT + p[_C]


@njit
def _carry_values(p):
    return 2 if p[_CANCEL] else 1


@njit
def n_states(p):
    C = p[_C]
    if p[_STATE] == 2:
        return C * 3 * 3 * 5 * _carry_values(p)
    base = C * ((1 << C) - 1)
    if p[_STATE] == 1:
        return base * (2 * p[_CLIP] + 1) * _carry_values(p)
    return base


@njit
def n_features(p):
    return 9


@njit
def n_encodings(p):
    return 5


@njit
def encoding_size(p, which):
    if which == 0:
        return p[_C]
    if which == 1:
        return 4
    if which == 2:
        return 2
    return 3


@njit
def draw_deal(p, deal):
    """A uniformly random prize order (Fisher-Yates from ``np.random.random``)."""
    C = p[_C]
    for i in range(C):
        deal[i] = i
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
def _popcount(hand):
    count = 0
    while hand:
        hand &= hand - 1
        count += 1
    return count


@njit
def _select(p, hand, j):
    """The ``j``-th smallest card of ``hand`` (0 when there is none)."""
    for c in range(1, p[_C] + 1):
        if hand >> (c - 1) & 1:
            if j == 0:
                return c
            j -= 1
    return 0


@njit
def _highest(p, hand):
    for c in range(p[_C], 0, -1):
        if hand >> (c - 1) & 1:
            return c
    return 0


@njit
def _nearest(p, hand, target, up):
    """The remaining card nearest to ``target``; ties down (``up`` False) or up."""
    best, best_key = 0, 1 << 30
    for c in range(1, p[_C] + 1):
        if hand >> (c - 1) & 1:
            key = 2 * abs(c - target) + ((c < target) if up else (c > target))
            if key < best_key:
                best, best_key = c, key
    return best


@njit
def _card(p, hand, prize, action):
    """The card action ``action`` bids (the engine's ``_Tables.resolve``)."""
    if action > RANDOM:
        card = action - (N_ABSTRACT - 1)
        if hand >> (card - 1) & 1:
            return card
        return _nearest(p, hand, card, False)
    count = _popcount(hand)
    if action == LOWEST:
        return _select(p, hand, 0)
    if action == MEDIAN:
        return _select(p, hand, max(count - 1, 0) // 2)
    if action == HIGHEST:
        return _highest(p, hand)
    C = p[_C]
    rank = p[_HEAD + C + prize]
    if action == BID_RANK:
        return _nearest(p, hand, rank, False)
    if action == RANK_UP:
        return _nearest(p, hand, min(rank + 1, C), True)
    if action == RANK_DOWN:
        return _nearest(p, hand, max(rank - 1, 1), False)
    return _select(p, hand, int(np.random.random() * count))


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
def _opp_high(p, s, seat):
    best = 0
    for other in range(p[_P]):
        if other != seat:
            best = max(best, _highest(p, s[_hand_at(p, other)]))
    return best


@njit
def _sign(x):
    return 1 if x > 0 else (-1 if x < 0 else 0)


@njit
def observe_index(p, s, seat):
    C = p[_C]
    prize = _prize(p, s)
    hand = s[_hand_at(p, seat)]
    state = p[_STATE]
    if state == 0:
        return prize * ((1 << C) - 1) + (hand - 1)
    lead = _lead(p, s, seat)
    if state == 1:
        clip = p[_CLIP]
        index = (prize * ((1 << C) - 1) + (hand - 1)) * (2 * clip + 1) + min(max(lead, -clip), clip) + clip
    else:
        far = p[_LARGEST]
        bucket = 0 if lead < -far else (1 if lead < 0 else (2 if lead == 0 else (3 if lead <= far else 4)))
        high = _sign(_highest(p, hand) - _opp_high(p, s, seat)) + 1
        phase = 3 * s[_TURN] // C
        index = ((prize * 3 + phase) * 3 + high) * 5 + bucket
    if p[_CANCEL]:
        index = index * 2 + (1 if s[_CARRIED] > 0 else 0)
    return index


@njit
def _stake(p, s):
    value = p[_HEAD + _prize(p, s)]
    return s[_CARRY] + value if p[_CANCEL] else value


@njit
def features(p, s, seat, out):
    C = p[_C]
    prize = _prize(p, s)
    hand = s[_hand_at(p, seat)]
    vmin, vmax = p[_HEAD], p[_HEAD + C - 1]
    out[0] = (p[_HEAD + prize] - vmin) / (vmax - vmin) if vmax > vmin else 0.5
    out[1] = (p[_HEAD + C + prize] - 1) / (C - 1) if C > 1 else 0.0
    out[2] = (_stake(p, s) - p[_NEG]) / (p[_POS] - p[_NEG])
    count = _popcount(hand)
    total = 0
    for c in range(1, C + 1):
        if hand >> (c - 1) & 1:
            total += c
    out[3] = _select(p, hand, 0) / C
    out[4] = total / max(count, 1) / C
    out[5] = _highest(p, hand) / C
    out[6] = _opp_high(p, s, seat) / C
    out[7] = s[_TURN] / (C - 1) if C > 1 else 0.0
    out[8] = 0.5 + 0.5 * min(max(_lead(p, s, seat) / p[_SPAN], -1.0), 1.0)


@njit
def legal(p, s, seat, mask):
    if p[_ACTIONS] == 1:
        mask[:] = True
        return
    hand = s[_hand_at(p, seat)]
    for a in range(N_ABSTRACT):
        mask[a] = p[_ACTIONS] == 2
    for c in range(1, p[_C] + 1):
        mask[N_ABSTRACT + c - 1] = (hand >> (c - 1) & 1) == 1


@njit
def encoding(p, s, seat, which):
    """``prize``, ``opp_last``, ``carry``, ``phase``, ``lead`` (the engine's encodings)."""
    C = p[_C]
    if which == 0:
        return _prize(p, s)
    if which == 1:
        last = s[_last_at(p, (seat + 1) % p[_P])]
        return 0 if last == 0 else 1 + min(2, (3 * (last - 1)) // C)
    if which == 2:
        return 1 if s[_CARRIED] > 0 else 0
    if which == 3:
        return 3 * s[_TURN] // C
    return _sign(_lead(p, s, seat)) + 1


# ---- play ---------------------------------------------------------------------------------------


@njit
def step(p, s, action):
    seat = s[_MOVER]
    s[_pending_at(p, seat)] = _card(p, s[_hand_at(p, seat)], _prize(p, s), action)
    if seat < p[_P] - 1:
        s[_MOVER] = seat + 1
        return
    _resolve_turn(p, s)


@njit
def _resolve_turn(p, s):
    """Every seat has chosen: award the stake, remove the bids, move to the next turn."""
    P, C = p[_P], p[_C]
    value = p[_HEAD + _prize(p, s)]
    stake = _stake(p, s)
    if p[_CANCEL]:
        positive = value > 0 if stake == 0 else stake > 0
    else:
        positive = value > 0
    winner, best = -1, 0
    for seat in range(P):
        bid = s[_pending_at(p, seat)]
        matched = False
        for other in range(P):
            if other != seat and s[_pending_at(p, other)] == bid:
                matched = True
        key = 0 if matched else (bid if positive else C + 1 - bid)
        if key > best:
            winner, best = seat, key
    if winner >= 0:
        s[_points_at(p, winner)] += stake
    for seat in range(P):
        bid = s[_pending_at(p, seat)]
        s[_hand_at(p, seat)] ^= 1 << (bid - 1)
        s[_last_at(p, seat)] = bid
    if p[_CANCEL]:
        if winner >= 0:
            s[_CARRY] = 0
            s[_CARRIED] = 0
        else:
            s[_CARRY] = stake
            s[_CARRIED] += 1
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
def _strategy(p, s, code):
    """The abstract action of builtin ``code`` (default parameters) on the current prize."""
    C = p[_C]
    value = p[_HEAD + _prize(p, s)]
    largest = p[_HEAD + C - 1]
    if code == 0:
        return RANDOM
    if code == 1:
        return HIGHEST
    if code == 2:
        return LOWEST
    if code == 3:  # bonus-craving: p_high 0.9, high_bonus 0.6
        high = value > 0 and value >= 0.6 * largest
        return HIGHEST if high and np.random.random() < 0.9 else RANDOM
    if code == 4:  # negative-adverse: p 1.0
        return HIGHEST if value < 0 else LOWEST
    if code == 5:  # get-rid-of-bad-cards: p_low 0.9, small 0.3
        minor = abs(value) <= 0.3 * p[_LARGEST]
        return LOWEST if minor and np.random.random() < 0.9 else RANDOM
    return BID_RANK


@njit
def builtin_action(p, s, seat, code):
    action = _strategy(p, s, code)
    if p[_ACTIONS] != 0:
        return action
    card = _card(p, s[_hand_at(p, seat)], _prize(p, s), action)
    return card + N_ABSTRACT - 1


def engine_script(config, deals: np.ndarray) -> dict:
    """The batched engine's arguments that play ``deals`` (prize positions, one game per row)."""
    from games.vautour.game import _tables

    values = _tables(config.cards, config.prizes).values
    return {"prize_order": values[np.asarray(deals, dtype=np.int64)]}


def test_configs() -> list:
    """Configurations the kernel tests play: every tie rule, action set and state space, 2-5
    players, the default and a custom deck."""
    from games.vautour.game import VautourConfig

    return [
        VautourConfig(cards=6),
        VautourConfig(cards=6, tie_rule="cancel", action_set="both", state="with-score"),
        VautourConfig(players=3, cards=7, action_set="abstract", state="buckets"),
        VautourConfig(players=5, cards=5, tie_rule="cancel", state="buckets"),
        VautourConfig(
            players=4,
            cards=6,
            prizes=(-3, 1, 2, 5, 8, -1),
            tie_rule="cancel",
            action_set="both",
            state="with-score",
            score_clip=4,
        ),
        VautourConfig(),
    ]


def random_config(seed: int):
    """A random valid configuration (2-5 players, 1-8 cards, a random deck, every rule, action
    set and state space), for the kernel tests' parameter search."""
    from games.vautour.game import ACTION_SETS, STATES, TIE_RULES, VautourConfig

    rng = np.random.default_rng(seed)
    cards = int(rng.integers(1, 9))
    values = [int(v) for v in rng.choice([v for v in range(-9, 13) if v], cards, replace=False)]
    state = str(rng.choice(STATES))
    clip = int(rng.integers(1, 6)) if state == "with-score" and rng.random() < 0.5 else None
    return VautourConfig(
        players=int(rng.integers(2, 6)),
        cards=cards,
        prizes=tuple(values),
        tie_rule=str(rng.choice(TIE_RULES)),
        action_set=str(rng.choice(ACTION_SETS)),
        state=state,
        score_clip=clip,
    )
