"""Stupide Vautour, one game at a time, compiled (the contract of :mod:`fsmarena.games.kernel`).

This kernel is the game's rules (both tie rules, any deck, 2-5 players, the three action sets and
the three state spaces; :mod:`fsmarena.games.vautour.game` holds the configuration and labels and
documents the rules); tests compare it game by game, on the same prize orders, with the
plain-Python reference loop (:mod:`fsmarena.games.vautour.reference`).  The serialised simultaneous bids, the state layout, the hands (bitmasks;
every rule of a hand computed from its bits) and the
win/draw/loss rewards are Goofspiel's too and live in :mod:`fsmarena.games.bidding`.

Parameters ``p`` (int64): ``[players, cards, cancel (0/1), action set (0 bids, 1 abstract,
2 both), state (0 no-memory, 1 with-score, 2 buckets), lead clip, negative sum, positive
sum, span, largest size]``, then the C prize values in ascending order, then their ranks.

State: :mod:`fsmarena.games.bidding`'s layout, whose two game slots hold the carry (the pot a tie
left) and how many prizes it carries; the deal is the prize order as positions into the
sorted deck.

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
from fsmarena.games.bits import popcount
from fsmarena.games.draws import shuffle, uniform_float
from fsmarena.jit import njit

__all__ = ["deal_size", "n_seats", "reset", "rewards", "scores", "state_size", "to_move"]

BUILTINS = ("random", "max", "min", "bonus-craving", "negative-adverse", "get-rid-of-bad-cards", "prize-rank")
#: ``random`` is the seed's strategy, a uniformly random card in every action set (code 0), not the
#: generic uniform abstract action (:mod:`fsmarena.games.builtin_player`)
OWN_RANDOM = True
#: the builtins' parameters (:mod:`fsmarena.games.kernel`): name -> ((parameter, default, low, high), ...)
BUILTIN_ARGS = {
    "bonus-craving": (("p_high", 0.9, 0.0, 1.0), ("high_bonus", 0.6, 0.0, 1.0)),
    "negative-adverse": (("p", 1.0, 0.0, 1.0),),
    "get-rid-of-bad-cards": (("p_low", 0.9, 0.0, 1.0), ("small", 0.3, 0.0, 1.0)),
}
#: abstract actions whose card the game draws at random: the kernel-vs-reference tests do not
#: script them (the two draw from different generators); their legality is tested instead
CHANCE_ACTIONS = (6,)
#: observation parts beyond index, features, mask and encodings (:mod:`fsmarena.games.kernel`); hands
#: and prizes left are bitmasks (prizes left: bit = position in the sorted deck)
PARTS = SHARED_PARTS + (("prize_value", "int"), ("stake", "int"), ("rank", "int"))

LOWEST, MEDIAN, HIGHEST, BID_RANK, RANK_UP, RANK_DOWN, RANDOM = range(7)
N_ABSTRACT = 7
_P, _C = PLAYERS, CARDS
_CANCEL, _ACTIONS, _STATE, _CLIP, _NEG, _POS, _SPAN, _LARGEST = range(2, 10)
_HEAD = 10
_TURN, _CARRY, _CARRIED = 0, 2, 3


def make_params(config) -> np.ndarray:
    """The rules of a :class:`fsmarena.games.vautour.game.VautourConfig` as one int64 array."""
    from fsmarena.games.vautour.game import ACTION_SETS, STATES, _tables

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
def n_actions(p):
    return N_ABSTRACT if p[_ACTIONS] == 1 else N_ABSTRACT + p[_C]


@njit(inline="always")
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
    """A uniformly random prize order (:func:`fsmarena.games.draws.shuffle`)."""
    C = p[_C]
    for i in range(C):
        deal[i] = i
    shuffle(deal, C)


# ---- hands ------------------------------------------------------------------------------------


@njit
def bid_card(p, hand, prize, action):
    """The card action ``action`` bids with ``hand`` in hand and the prize at deck position
    ``prize`` on the table; 0 for ``random`` (a uniformly random card of the hand).  The exact
    solution's law of the card reads it too (:class:`fsmarena.games.bidding_zero_sum.SolvableBidding`).

    Called from the builtins (``builtin_action``, ``builtin_law``) and the exact solution, and
    compiled into ``step`` only (:data:`_bid_card_in_step`): inlined at every site, its seven
    rules added half again to the compile time of the kernel's loops."""
    if action > RANDOM:
        card = action - (N_ABSTRACT - 1)
        if hand >> (card - 1) & 1:
            return card
        return nearest(p, hand, card, False)
    if action == LOWEST:
        return select(p, hand, 0)
    if action == MEDIAN:
        return select(p, hand, max(popcount(hand) - 1, 0) // 2)
    if action == HIGHEST:
        return highest(p, hand)
    C = p[_C]
    rank = p[_HEAD + C + prize]
    if action == BID_RANK:
        return nearest(p, hand, rank, False)
    if action == RANK_UP:
        return nearest(p, hand, min(rank + 1, C), True)
    if action == RANK_DOWN:
        return nearest(p, hand, max(rank - 1, 1), False)
    return 0


#: :func:`bid_card`'s rules compiled into ``step``, where every bid of every game passes: the
#: call cost about a tenth of a game of builtins (two a turn), and compiling them in there
#: only adds 2.5 CPU-seconds to a cold compile of the kernel's loops (5.5 at every site)
_bid_card_in_step = njit(inline="always")(getattr(bid_card, "py_func", bid_card))


@njit(inline="always")
def _card(p, hand, prize, action):
    """The card action ``action`` bids (``random``: a uniformly random card of the hand), for
    the builtins."""
    card = bid_card(p, hand, prize, action)
    return uniform(p, hand) if card == 0 else card


@njit(inline="always")
def _played_card(p, hand, prize, action):
    """:func:`_card` as ``step`` plays it, with the rules compiled in."""
    card = _bid_card_in_step(p, hand, prize, action)
    return uniform(p, hand) if card == 0 else card


# ---- observations -------------------------------------------------------------------------------


@njit(inline="always")
def _prize(p, s):
    return prize_slot(p, s)


@njit(inline="always")
def _sign(x):
    return 1 if x > 0 else (-1 if x < 0 else 0)


@njit(inline="always")
def observe_index(p, s, seat):
    C = p[_C]
    prize = _prize(p, s)
    hand = s[hand_at(p, seat)]
    state = p[_STATE]
    if state == 0:
        return prize * ((1 << C) - 1) + (hand - 1)
    ahead = lead(p, s, seat)
    if state == 1:
        clip = p[_CLIP]
        index = (prize * ((1 << C) - 1) + (hand - 1)) * (2 * clip + 1) + min(max(ahead, -clip), clip) + clip
    else:
        far = p[_LARGEST]
        bucket = 0 if ahead < -far else (1 if ahead < 0 else (2 if ahead == 0 else (3 if ahead <= far else 4)))
        high = _sign(highest(p, hand) - opponents_highest(p, s, seat)) + 1
        phase = 3 * s[_TURN] // C
        index = ((prize * 3 + phase) * 3 + high) * 5 + bucket
    if p[_CANCEL]:
        index = index * 2 + (1 if s[_CARRIED] > 0 else 0)
    return index


@njit(inline="always")
def _stake(p, s):
    value = p[_HEAD + _prize(p, s)]
    return s[_CARRY] + value if p[_CANCEL] else value


@njit
def features(p, s, seat, out):
    C = p[_C]
    prize = _prize(p, s)
    hand = s[hand_at(p, seat)]
    vmin, vmax = p[_HEAD], p[_HEAD + C - 1]
    out[0] = (p[_HEAD + prize] - vmin) / (vmax - vmin) if vmax > vmin else 0.5
    out[1] = (p[_HEAD + C + prize] - 1) / (C - 1) if C > 1 else 0.0
    out[2] = (_stake(p, s) - p[_NEG]) / (p[_POS] - p[_NEG])
    count = popcount(hand)
    total = 0
    for c in range(1, C + 1):
        if hand >> (c - 1) & 1:
            total += c
    out[3] = select(p, hand, 0) / C
    out[4] = total / max(count, 1) / C
    out[5] = highest(p, hand) / C
    out[6] = opponents_highest(p, s, seat) / C
    out[7] = s[_TURN] / (C - 1) if C > 1 else 0.0
    out[8] = 0.5 + 0.5 * min(max(lead(p, s, seat) / p[_SPAN], -1.0), 1.0)


@njit(inline="always")
def legal(p, s, seat, mask):
    if p[_ACTIONS] == 1:
        mask[:] = True
        return
    hand = s[hand_at(p, seat)]
    for a in range(N_ABSTRACT):
        mask[a] = p[_ACTIONS] == 2
    for c in range(1, p[_C] + 1):
        mask[N_ABSTRACT + c - 1] = (hand >> (c - 1) & 1) == 1


@njit(inline="always")
def is_legal(p, s, seat, action, mask):
    """:func:`legal`'s rule for one action: every action of the abstract set; with bids, the
    abstract actions only with ``both``, a card only in the hand."""
    if p[_ACTIONS] == 1:
        return True
    if action < N_ABSTRACT:
        return p[_ACTIONS] == 2
    return (s[hand_at(p, seat)] >> (action - N_ABSTRACT) & 1) == 1


@njit
def always_masked(p):
    """A mask with the card bids (they follow the hand); none with the abstract actions only."""
    return p[_ACTIONS] != 1


@njit
def encoding(p, s, seat, which):
    """``prize``, ``opp_last``, ``carry``, ``phase``, ``lead`` (the game's encodings)."""
    C = p[_C]
    if which == 0:
        return _prize(p, s)
    if which == 1:
        last = s[last_at(p, (seat + 1) % p[_P])]
        return 0 if last == 0 else 1 + min(2, (3 * (last - 1)) // C)
    if which == 2:
        return 1 if s[_CARRIED] > 0 else 0
    if which == 3:
        return 3 * s[_TURN] // C
    return _sign(lead(p, s, seat)) + 1


@njit
def part_size(p, which):
    return 0


@njit
def observe_part(p, data, s, seat, which, out):
    """``step``, ``hand``, ``opp_hand``, ``prizes_left`` (:func:`fsmarena.games.bidding.shared_part`),
    then ``prize_value``, ``stake`` (with the carried pot) and the prize's ``rank``."""
    if which < N_SHARED:
        out[0] = shared_part(p, s, seat, which, np.int64(0))  # not a literal: one compiled version
    elif which == N_SHARED:
        out[0] = p[_HEAD + _prize(p, s)]
    elif which == N_SHARED + 1:
        out[0] = _stake(p, s)
    else:
        out[0] = p[_HEAD + p[_C] + _prize(p, s)]


def part_data(config) -> np.ndarray:
    """No part reads a table."""
    return np.zeros((1, 1))


# ---- play ---------------------------------------------------------------------------------------


@njit(inline="always")
def step(p, s, action):
    seat = s[MOVER]
    if choose(p, s, seat, _played_card(p, s[hand_at(p, seat)], _prize(p, s), action)):
        _resolve_turn(p, s)


@njit(inline="always")
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
        bid = s[pending_at(p, seat)]
        matched = False
        for other in range(P):
            if other != seat and s[pending_at(p, other)] == bid:
                matched = True
        key = 0 if matched else (bid if positive else C + 1 - bid)
        if key > best:
            winner, best = seat, key
    if winner >= 0:
        s[points_at(p, winner)] += stake
    if p[_CANCEL]:
        if winner >= 0:
            s[_CARRY] = 0
            s[_CARRIED] = 0
        else:
            s[_CARRY] = stake
            s[_CARRIED] += 1
    end_turn(p, s)


@njit(inline="always")
def _strategy(p, s, code, args):
    """Builtin ``code``'s choice on the current prize, as every strategy of the seed makes it:
    abstract action ``action`` with probability ``chance``, else a uniformly random card
    (``args``: the builtin's parameters, :data:`BUILTIN_ARGS`)."""
    value = p[_HEAD + _prize(p, s)]
    if code == 1:  # max
        return HIGHEST, 1.0
    if code == 2:  # min
        return LOWEST, 1.0
    if code == 3:  # bonus-craving: the highest card on a bonus of at least high_bonus x the largest prize
        high = value > 0 and value >= args[1] * p[_HEAD + p[_C] - 1]
        return HIGHEST, args[0] if high else 0.0
    if code == 4:  # negative-adverse: the highest card on a malus, the lowest on a bonus
        return (HIGHEST if value < 0 else LOWEST), args[0]
    if code == 5:  # get-rid-of-bad-cards: the lowest card on a prize of size at most small x the largest size
        minor = abs(value) <= args[1] * p[_LARGEST]
        return LOWEST, args[0] if minor else 0.0
    if code == 6:  # prize-rank
        return BID_RANK, 1.0
    return RANDOM, 1.0  # random


@njit(inline="always")
def builtin_action(p, s, seat, code, args):
    """The choice of :func:`_strategy`, drawn (one ``np.random`` draw when it is a chance, none
    when it is certain), as an abstract action or, with the ``bids`` action set, its card."""
    action, chance = _strategy(p, s, code, args)
    if chance < 1.0 and (chance <= 0.0 or uniform_float() >= chance):
        action = RANDOM
    if p[_ACTIONS] != 0:
        return action
    card = _card(p, s[hand_at(p, seat)], _prize(p, s), action)
    return card + N_ABSTRACT - 1


@njit
def builtin_law(p, s, seat, code, args, out):
    """The exact law of :func:`builtin_action` over the actions (``out``, float64), for exact
    best responses: the random card spread evenly over the hand with the ``bids`` action set."""
    out[:] = 0.0
    action, chance = _strategy(p, s, code, args)
    at_random = 1.0 if action == RANDOM else 1.0 - chance
    hand = s[hand_at(p, seat)]
    if p[_ACTIONS] != 0:
        out[RANDOM] += at_random
        if action != RANDOM:
            out[action] += chance
        return
    if action != RANDOM:
        out[_card(p, hand, _prize(p, s), action) + N_ABSTRACT - 1] += chance
    spread_over_hand(p, hand, at_random, out, N_ABSTRACT - 1)


def reference_deal(config, deals: np.ndarray) -> dict:
    """``deals`` (one kernel deal per row: positions in the prize deck) in the reference's
    terms: the prize values in the order they are turned up, one game per row."""
    from fsmarena.games.vautour.game import _tables

    values = _tables(config.cards, config.prizes).values
    return {"prize_order": values[np.asarray(deals, dtype=np.int64)]}


def test_configs() -> list:
    """Configurations the kernel tests play: every tie rule, action set and state space, 2-5
    players, the default and a custom deck."""
    from fsmarena.games.vautour.game import VautourConfig

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
    from fsmarena.games.vautour.game import ACTION_SETS, STATES, TIE_RULES, VautourConfig

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
