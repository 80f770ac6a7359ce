"""31 (Scat / Blitz) as a compiled single-game kernel: one game at a time over an int64 vector.

The rules, observations and builtins of 31 (:mod:`fsmarena.games.thirtyone.game` documents
them: 2-6 players, lives, knocking, 31 blitz, under the gun, the
``max_turns`` / ``max_rounds`` caps, the pile turned over when the stock runs out), written as
plain Python over numpy arrays and compiled with numba (:func:`fsmarena.jit.njit`;
``NUMBA_DISABLE_JIT=1`` runs it uncompiled).  Hands are three card numbers kept in the
game's canonical order, each with its greedy key (score and total, :func:`hand_key`) and
what scoring a swap needs kept beside it in the state; the rules a lookup table could hold (greedy's swaps, the expected stock draw) are
computed on the spot from a few small per-card and per-suit tables (:data:`VALUES`, ...)
instead of looked up, without allocating: every observation costs tens of nanoseconds.

Parameters ``p`` (:func:`make_params`): ``players, lives, three_of_a_kind (doubled, 0 = off),
under_the_gun (0/1), max_turns, max_rounds, K`` (``K``: the decks a deal holds, 1 unless a
test scripts more rounds).

Deal (:func:`draw_deal`, ``52 K + 4`` numbers): the card orders of the first ``K`` rounds, 52
cards each (round ``r`` at ``deal[52 r : 52 r + 52]``), then the seed of the game's own stream
(:func:`fsmarena.games.draws.seed_stream`).  A deck is used as the reference uses its ``deck_order``:
dealt three at a time to the live players from the round's first player, then the face-up card,
then the stock.  Round ``r >= K`` shuffles its deck when it is dealt, inside :func:`step`, from
the game's stream (:func:`fsmarena.games.draws.shuffle_stream`): most games end within a round or two,
so a deal costs one shuffle, not one per round a game might reach, and a game's decks are a
function of its deal alone (:func:`round_decks` lists them; the tests give them to the reference).

A turn is two decisions: the turn decision (``draw_deck``, ``draw_discard``,
``knock``) and, after a draw, the discard decision (``discard_greedy``, ``discard_0..2``,
``discard_drawn``); ``encoding(..., 0)`` (phase) says which.

State ``s`` (int64; bit sets of cards are 52-bit masks in an int64)::

    s[0]  phase (0 turn decision, 1 discard)   s[1]  1 once the game is over
    s[2]  live seats (bit mask)                s[3]  the round's first player
    s[4]  seat to move                         s[5]  knocker (-1 none)
    s[6]  turn count closing the knock         s[7]  turn count ending the round
    s[8]  turns of earlier rounds              s[9]  turns completed this round
    s[10] rounds completed                     s[11] stock pointer (next card)
    s[12] discard pile size                    s[13] cards in the discard pile (bits)
    s[14] cards face up since they left the stock (bits)
    s[15] the card drawn (discard decision, else -1)   s[16] 1 if it came from the pile
    s[17] how the last round ended (END_KINDS index, -1 before the first)
    s[18:24]  lives per seat (6 slots)         s[24:42]  hands, 3 cards per seat (canonical)
    s[42:48]  cards each seat threw this round (bits)
    s[48:100] this round's stock order          s[100:152] the discard pile, bottom first
    s[152:158] each seat's hand key (:func:`hand_key` of its hand, set with the hand)
    s[158:230] per seat, 12 numbers on the pairs of cards it keeps when it throws position
              ``q`` (set with the hand, :func:`_set_hand`): the pairs' per-suit value sums
              (one byte per suit), best suit sums, value totals and shared ranks (-1 none)
    s[230:234] the game's stream (the deck shuffles of rounds ``K`` on)
    s[234:]   the deck orders of rounds 1 to ``K - 1`` (none when ``K`` is 1)

Speed.  The observations, the builtins and :func:`step` cost tens of nanoseconds: the hand's
key and its pairs' numbers are kept in the state, everything else is read from small tables,
nothing is allocated.  The helpers are inlined (``inline="always"``) and written so that numba
adds no reference counting of ``p`` and ``s`` (two atomic operations per array and call, more
than the work itself): a helper reads the state before its first branch (or has none) and the
rare paths (a round's end, the pile turned over) are separate functions.

Round-level reward.  :func:`potential` reads a seat's lives potential
(:mod:`fsmarena.games.thirtyone.potential`, the one definition the MLP agent and the tabular learners
share) from a table passed in (:func:`potential_table`); the reward of a decision is its
change until the seat's next decision.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsmarena.games.bits import popcount
from fsmarena.games.draws import (
    SEED_WORDS,
    STREAM_WORDS,
    load_stream,
    scripted_deals,
    seed_stream,
    shuffle,
    shuffle_stream,
)
from fsmarena.jit import njit

N_ACTIONS = 8
DRAW_DECK, DRAW_DISCARD, KNOCK, DISCARD_GREEDY, DISCARD_0, DISCARD_1, DISCARD_2, DISCARD_DRAWN = range(8)
TURN, DISCARD = 0, 1
DEAL31, BLITZ, GUN, KNOCKED, CAP = range(5)
BLITZ2 = 62
N_SCORE, N_GAIN, N_TURN = 8, 4, 4
N_FEATURES = 63
N_ENCODINGS = 7
ENCODING_SIZES = (2, 2, N_SCORE, N_GAIN, N_TURN, 4, 2)
#: decks a deal holds unless a test asks for more (:func:`make_params`): the first round's
#: (measured over whole games on the driver, a second pre-drawn deck was no faster and costs
#: 416 bytes more of deal and of state per game)
DEAL_ROUNDS = 1
MAX_SEATS = 6
ALL_CARDS = (1 << 52) - 1
SUIT_VALUE_TOTAL = 95.0
#: builtin players by code (``builtin_action``), names of ``ThirtyOne.builtin_players``
BUILTINS = ("random", "greedy", "greedy-knock")
RANDOM, GREEDY, GREEDY_KNOCK = range(3)
#: observation parts beyond index, features, mask and encodings (:mod:`fsmarena.games.kernel`), the
#: game's: turn number across rounds, doubled hand score, hand (cards in canonical order),
#: face-up card and drawn card (-1 for none), where the drawn card came from, the round's turn,
#: rounds completed, every seat's lives, the mean doubled score after a stock draw, the segment
#: of segment rewards and the seat's lives potential
PARTS = (
    ("step", "int"),
    ("score2", "int"),
    ("hand", "int"),
    ("top", "int"),
    ("drawn", "int"),
    ("from_discard", "bool"),
    ("round_turn", "int"),
    ("round", "int"),
    ("lives", "int"),
    ("expected_draw2", "float"),
    ("segment", "int"),
    ("potential", "float"),
)
PART_HAND, PART_LIVES, PART_EXPECTED, PART_POTENTIAL = 2, 8, 9, 11
#: the builtins' parameters (:mod:`fsmarena.games.kernel`): greedy-knock knocks, when it may, with
#: a hand scoring ``threshold`` or more; 30 is the best whole-number threshold against greedy in
#: 1v1 (20,000 games per threshold: 20 -> 28% wins, 27 -> 49%, 29 -> 62%, 30 -> 68%; a hand of 31
#: ends the round by itself)
BUILTIN_ARGS = {"greedy-knock": (("threshold", 30.0, 0.0, 31.0),)}

# parameters
P_PLAYERS, P_LIVES, P_TOK2, P_GUN, P_MAX_TURNS, P_MAX_ROUNDS, P_DEAL_ROUNDS = range(7)
# state fields
(
    PHASE,
    DONE,
    ALIVE,
    FIRST,
    MOVER,
    KNOCKER,
    KNOCK_END,
    LIMIT,
    TURNS_BEFORE,
    TURN_NO,
    ROUNDS,
    PTR,
    PLEN,
    PILE_BITS,
    PUBLIC,
    DRAWN,
    FROM_DISCARD,
    END_KIND,
) = range(18)
LIVES = 18
HANDS = 24
THROWN = 42
STOCK = 48
PILE = 100
KEYS = 152
PAIRS = 158
#: per-seat numbers at ``PAIRS``: 3 per-suit sums, 3 best suit sums, 3 totals, 3 shared ranks
PAIR_SUMS, PAIR_BEST, PAIR_TOTAL, PAIR_RANK, PAIR_SIZE = 0, 3, 6, 9, 12
STREAM = PAIRS + PAIR_SIZE * MAX_SEATS
DECKS = STREAM + STREAM_WORDS

# ---- tables (plain numpy constants, compiled into the code) ----------------------------------


def _rank_value(rank: int) -> int:
    """Ace 11, faces 10, others their face value (rank 0 = two ... 12 = ace)."""
    return 11 if rank == 12 else 10 if rank >= 8 else rank + 2


#: value, suit and rank of every card number (suit ``card // 13``, rank ``card % 13``)
VALUES = np.array([_rank_value(card % 13) for card in range(52)], dtype=np.int64)
SUITS = np.array([card // 13 for card in range(52)], dtype=np.int64)
RANKS = np.array([card % 13 for card in range(52)], dtype=np.int64)
#: a card's value in its suit's byte (suit sums of a few cards are sums of these)
SUIT_BYTES = np.array([VALUES[card] << (8 * SUITS[card]) for card in range(52)], dtype=np.int64)
#: sum of the values of the ranks in a 13-bit rank set, read in two halves (ranks 0-6, 7-12)
LOW_RANKS = 7
LOW_VALUE_SUMS = np.array(
    [sum(_rank_value(r) for r in range(LOW_RANKS) if m >> r & 1) for m in range(1 << LOW_RANKS)], dtype=np.int64
)
HIGH_VALUE_SUMS = np.array(
    [
        sum(_rank_value(LOW_RANKS + r) for r in range(13 - LOW_RANKS) if m >> r & 1)
        for m in range(1 << (13 - LOW_RANKS))
    ],
    dtype=np.int64,
)
#: the lowest rank whose doubled value exceeds ``t`` (13: none), for ``t`` in 0..22
FIRST_RANK_ABOVE = np.array(
    [next((r for r in range(13) if 2 * _rank_value(r) > t), 13) for t in range(23)], dtype=np.int64
)
#: bucket of every doubled score 0..62 (:func:`_score_bucket`)
SCORE_BUCKETS = np.array([sum(score >= e for e in (34, 40, 46, 52, 56, 58, 60)) for score in range(63)], dtype=np.int64)
SUIT_BITS = (1 << 13) - 1


def make_params(config: Any, deal_rounds: int = DEAL_ROUNDS) -> np.ndarray:
    """The rules of a :class:`ThirtyOneConfig` packed into one int64 array; ``deal_rounds``:
    the decks a deal holds (at least 1; more lets a test script the decks of several rounds,
    at 416 bytes of state per deck)."""
    if isinstance(deal_rounds, bool) or not isinstance(deal_rounds, (int, np.integer)) or deal_rounds < 1:
        raise ValueError(f"deal_rounds must be a positive whole number, got {deal_rounds!r}")
    return np.array(
        [
            config.players,
            config.lives,
            config.three_of_a_kind2,
            int(config.under_the_gun),
            config.max_turns,
            config.max_rounds,
            deal_rounds,
        ],
        dtype=np.int64,
    )


@njit(inline="always")
def _deal_rounds(p: np.ndarray) -> int:
    """``K``: the decks a deal holds."""
    return p[P_DEAL_ROUNDS]


@njit
def state_size(p: np.ndarray) -> int:
    return DECKS + 52 * (_deal_rounds(p) - 1)


@njit
def deal_size(p: np.ndarray) -> int:
    return 52 * _deal_rounds(p) + SEED_WORDS


@njit
def n_seats(p: np.ndarray) -> int:
    return p[P_PLAYERS]


@njit
def n_actions(p: np.ndarray) -> int:
    return N_ACTIONS


@njit
def _n_turn_states(p: np.ndarray) -> int:
    return N_SCORE * N_GAIN * N_TURN * p[P_LIVES] * p[P_LIVES] * 2


@njit
def n_states(p: np.ndarray) -> int:
    return _n_turn_states(p) + 2 * 4 * N_SCORE * N_GAIN * 2


@njit
def n_features(p: np.ndarray) -> int:
    return N_FEATURES


@njit
def n_encodings(p: np.ndarray) -> int:
    return N_ENCODINGS


@njit
def encoding_size(p: np.ndarray, which: int) -> int:
    """Sizes of ``phase, knocked, score_bucket, gain_bucket, turn_bucket, greedy_discard,
    greedy_turn`` (the order of ``ThirtyOne.encodings``)."""
    sizes = (2, 2, N_SCORE, N_GAIN, N_TURN, 4, 2)
    return sizes[which]


@njit
def draw_deal(p: np.ndarray, deal: np.ndarray) -> None:
    """``K`` independent shuffled decks (:func:`fsmarena.games.draws.shuffle`), then the seed of the
    game's stream (:func:`fsmarena.games.draws.seed_stream`)."""
    for r in range(_deal_rounds(p)):
        for i in range(52):
            deal[52 * r + i] = i
        shuffle(deal[52 * r : 52 * r + 52], np.int64(52))  # not a literal: one compiled shuffle
    seed_stream(deal, 52 * _deal_rounds(p))


@njit
def _stream_deck(s: np.ndarray, at: int) -> None:
    """A fresh deck order in ``s[at : at + 52]`` from the game's stream (kept in ``s``)."""
    for i in range(52):
        s[at + i] = i
    shuffle_stream(s, at, 52, s, STREAM)


@njit
def round_decks(p: np.ndarray, deal: np.ndarray, out: np.ndarray) -> None:
    """The deck orders of the first ``len(out)`` rounds (``out`` of shape ``(rounds, 52)``) the
    kernel deals from ``deal``: the deal's ``K``, then the game's stream's (what
    :func:`step` shuffles when it deals a round; for tests, which give them to the reference)."""
    s = np.zeros(state_size(p), dtype=np.int64)
    K = _deal_rounds(p)
    load_stream(s, STREAM, deal, 52 * K)
    for r in range(out.shape[0]):
        if r < K:
            out[r, :] = deal[52 * r : 52 * r + 52]
        else:
            _stream_deck(s, STOCK)
            out[r, :] = s[STOCK : STOCK + 52]


# ---- cards and hands ------------------------------------------------------------------------


@njit(inline="always")
def value(card: int) -> int:
    """Ace 11, faces 10, others their face value (rank ``card % 13``: 0 = two ... 12 = ace)."""
    return VALUES[card]


@njit(inline="always")
def bit(card: int) -> np.int64:
    return np.int64(1) << np.int64(card)


@njit(inline="always")
def _best_suit_sum(va: int, vb: int, vc: int, sa: int, sb: int, sc: int) -> int:
    """The best single-suit sum of three cards of values ``v`` and suits ``s``."""
    if sa == sb:
        return va + vb + vc if sb == sc else max(va + vb, vc)
    if sa == sc:
        return max(va + vc, vb)
    if sb == sc:
        return max(vb + vc, va)
    return max(va, vb, vc)


@njit(inline="always")
def score2(p: np.ndarray, a: int, b: int, c: int) -> int:
    """Twice the best single-suit sum of three cards (three of a kind per the rules)."""
    best = 2 * _best_suit_sum(VALUES[a], VALUES[b], VALUES[c], SUITS[a], SUITS[b], SUITS[c])
    if p[P_TOK2] and RANKS[a] == RANKS[b] and RANKS[b] == RANKS[c]:
        best = max(best, p[P_TOK2])
    return best


@njit(inline="always")
def hand_key(p: np.ndarray, a: int, b: int, c: int) -> int:
    """Greedy's preference among hands: score, then total card value (below 64)."""
    return score2(p, a, b, c) * 64 + VALUES[a] + VALUES[b] + VALUES[c]


@njit(inline="always")
def _order_key(a: int, b: int, c: int) -> int:
    """Canonical sort key of card ``a`` in the hand {a, b, c}: its suit group's sum, then its
    value, then its number (the key's last 6 bits)."""
    suit, worth = SUITS[a], VALUES[a]
    group = worth + (VALUES[b] if SUITS[b] == suit else 0) + (VALUES[c] if SUITS[c] == suit else 0)
    return (group * 16 + worth) * 64 + a


@njit(inline="always")
def _set_hand(p: np.ndarray, s: np.ndarray, seat: int, a: int, b: int, c: int) -> None:
    """Store a hand in canonical order (strongest suit group, then value, then card,
    descending) and its key."""
    ka, kb, kc = _order_key(a, b, c), _order_key(b, a, c), _order_key(c, a, b)
    high, low = max(ka, kb, kc), min(ka, kb, kc)  # the keys differ: they end with the card
    a, b, c = high & 63, (ka + kb + kc - high - low) & 63, low & 63
    at = HANDS + 3 * seat
    s[at], s[at + 1], s[at + 2] = a, b, c
    s[KEYS + seat] = hand_key(p, a, b, c)
    at = PAIRS + PAIR_SIZE * seat
    _set_pair(s, at, b, c)
    _set_pair(s, at + 1, c, a)
    _set_pair(s, at + 2, a, b)


@njit(inline="always")
def _set_pair(s: np.ndarray, at: int, u: int, v: int) -> None:
    """The numbers of a kept pair (``PAIR_*``) from ``s[at]`` on."""
    vu, vv = VALUES[u], VALUES[v]
    s[at + PAIR_SUMS] = SUIT_BYTES[u] + SUIT_BYTES[v]
    s[at + PAIR_BEST] = max(vu, vv) + min(vu, vv) * (SUITS[u] == SUITS[v])
    s[at + PAIR_TOTAL] = vu + vv
    s[at + PAIR_RANK] = (RANKS[u] + 1) * (RANKS[u] == RANKS[v]) - 1


@njit(inline="always")
def _pair_suit_sum(s: np.ndarray, seat: int, q: int, suit: int) -> int:
    """The value sum in ``suit`` of the pair the seat keeps when it throws position ``q``."""
    return (s[PAIRS + PAIR_SIZE * seat + PAIR_SUMS + q] >> (8 * suit)) & 0xFF


@njit(inline="always")
def _hand_key(s: np.ndarray, seat: int) -> int:
    """:func:`hand_key` of the seat's hand (kept in the state by :func:`_set_hand`)."""
    return s[KEYS + seat]


@njit(inline="always")
def _hand_score2(p: np.ndarray, s: np.ndarray, seat: int) -> int:
    return s[KEYS + seat] >> 6


@njit(inline="always")
def _hand_bits(s: np.ndarray, seat: int) -> int:
    at = HANDS + 3 * seat
    return bit(s[at]) | bit(s[at + 1]) | bit(s[at + 2])


@njit(inline="always")
def _swap(p: np.ndarray, s: np.ndarray, seat: int, x: int) -> tuple[int, int]:
    """Best (score, total) key over the three hands with card ``x`` in place of one position,
    and that position (later positions win ties)."""
    key0, key1, key2 = _swap_key(p, s, seat, 0, x), _swap_key(p, s, seat, 1, x), _swap_key(p, s, seat, 2, x)
    best_key, best_pos = key0, 0
    if key1 >= best_key:
        best_key, best_pos = key1, 1
    if key2 >= best_key:
        best_key, best_pos = key2, 2
    return best_key, best_pos


@njit(inline="always")
def _swap_key(p: np.ndarray, s: np.ndarray, seat: int, q: int, x: int) -> int:
    """:func:`hand_key` of the hand with card ``x`` in place of canonical position ``q``, from
    the kept pair's numbers: the best suit is the pair's best or ``x``'s suit with ``x``."""
    at = PAIRS + PAIR_SIZE * seat + q
    worth = VALUES[x]
    score = 2 * max(s[at + PAIR_BEST], _pair_suit_sum(s, seat, q, SUITS[x]) + worth)
    score = max(score, p[P_TOK2] * (s[at + PAIR_RANK] == RANKS[x]))  # three of a kind
    return score * 64 + s[at + PAIR_TOTAL] + worth


@njit(inline="always")
def _replaced_score2(p: np.ndarray, s: np.ndarray, seat: int, q: int, x: int) -> int:
    """Doubled score of the hand with card ``x`` in place of canonical position ``q``."""
    return _swap_key(p, s, seat, q, x) >> 6


@njit(inline="always")
def _suit_ranks(bits: int, suit: int) -> int:
    """The ranks of the cards of ``suit`` in the card set ``bits``, as a 13-bit set."""
    return (bits >> (13 * suit)) & SUIT_BITS


@njit(inline="always")
def _rank_value_sum(ranks: int) -> int:
    """Sum of the card values of the ranks in a 13-bit rank set."""
    return LOW_VALUE_SUMS[ranks & ((1 << LOW_RANKS) - 1)] + HIGH_VALUE_SUMS[ranks >> LOW_RANKS]


# ---- seats ---------------------------------------------------------------------------------


@njit(inline="always")
def _count(alive: int) -> int:
    return popcount(alive)


@njit(inline="always")
def _next(p: np.ndarray, alive: int, seat: int) -> int:
    """The next live seat clockwise after ``seat`` (``seat`` itself when none)."""
    S = p[P_PLAYERS]
    for k in range(1, S + 1):
        other = seat + k - (S if seat + k >= S else 0)  # (seat + k) % S
        if (alive >> other) & 1:
            return other
    return seat


@njit(inline="always")
def _previous(p: np.ndarray, alive: int, seat: int) -> int:
    """The live seat before ``seat`` (counter-clockwise; ``seat`` itself when none)."""
    S = p[P_PLAYERS]
    for k in range(1, S):
        other = seat - k + (S if seat < k else 0)  # (seat - k) % S
        if (alive >> other) & 1:
            return other
    return seat


# ---- rounds --------------------------------------------------------------------------------


@njit
def reset(p: np.ndarray, s: np.ndarray, deal: np.ndarray) -> None:
    """Start a game: full lives, seat 0 first, the first round dealt from ``deal``; the state
    keeps the game's stream and the deal's later decks."""
    s[:STREAM] = 0
    K = _deal_rounds(p)
    for i in range(52):  # a loop copies faster than a slice assignment here
        s[STOCK + i] = deal[i]
    for i in range(52 * (K - 1)):
        s[DECKS + i] = deal[52 + i]
    load_stream(s, STREAM, deal, 52 * K)
    S = p[P_PLAYERS]
    for seat in range(S):
        s[LIVES + seat] = p[P_LIVES]
    s[ALIVE] = (1 << S) - 1
    s[END_KIND] = -1
    _deal_round(p, s)


@njit
def _deal_round(p: np.ndarray, s: np.ndarray) -> None:
    """Deal rounds until one has a turn to play (a dealt 31 ends its round at once) or the
    game is over."""
    while not s[DONE]:
        if _deal(p, s):
            return
        _end_round(p, s)


@njit
def _deal(p: np.ndarray, s: np.ndarray) -> bool:
    """Deal the next round (False when somebody was dealt 31: the round is over).  The first
    round's deck is in the stock already (:func:`reset`)."""
    S = p[P_PLAYERS]
    r = s[ROUNDS]
    if r > 0:
        _round_deck(p, s, r)
    alive, first = s[ALIVE], s[FIRST]
    blitz = False
    position = 0
    for k in range(S):
        seat = first + k - (S if first + k >= S else 0)  # (first + k) % S
        s[THROWN + seat] = 0
        if (alive >> seat) & 1:
            at = STOCK + 3 * position
            _set_hand(p, s, seat, s[at], s[at + 1], s[at + 2])
            blitz |= _hand_score2(p, s, seat) == BLITZ2
            position += 1
    top = s[STOCK + 3 * position]
    s[PILE] = top
    s[PLEN] = 1
    s[PTR] = 3 * position + 1
    s[PILE_BITS] = bit(top)
    s[PUBLIC] = bit(top)
    s[MOVER] = first
    s[KNOCKER] = -1
    s[LIMIT] = p[P_MAX_TURNS]
    s[KNOCK_END] = p[P_MAX_TURNS] + 1
    s[TURN_NO] = 0
    s[PHASE] = TURN
    s[DRAWN] = -1
    s[FROM_DISCARD] = 0
    if blitz:
        s[END_KIND] = DEAL31
        return False
    return True


@njit
def _round_deck(p: np.ndarray, s: np.ndarray, r: int) -> None:
    """Round ``r``'s deck (``r >= 1``) into the stock: the deal's, or shuffled from the game's
    stream."""
    if r < _deal_rounds(p):
        at = DECKS + 52 * (r - 1)
        for i in range(52):
            s[STOCK + i] = s[at + i]
    else:
        _stream_deck(s, STOCK)


@njit
def _end_round(p: np.ndarray, s: np.ndarray) -> None:
    """Score the finished round (kind in ``s[END_KIND]``): lives lost, eliminations, the end
    of the game, the next first player."""
    S = p[P_PLAYERS]
    alive = s[ALIVE]
    kind = s[END_KIND]
    low = 1 << 20
    n_alive, n_lowest = 0, 0
    for seat in range(S):
        if (alive >> seat) & 1:
            n_alive += 1
            low = min(low, _hand_score2(p, s, seat))
    for seat in range(S):
        if (alive >> seat) & 1 and _hand_score2(p, s, seat) == low:
            n_lowest += 1
    new_alive = 0
    for seat in range(S):
        lost = 0
        if (alive >> seat) & 1:
            own = _hand_score2(p, s, seat)
            if kind == DEAL31 or kind == BLITZ:
                lost = 1 if own != BLITZ2 else 0
            elif own == low and n_lowest != n_alive:
                lost = 2 if s[KNOCKER] == seat else 1
        s[LIVES + seat] = max(s[LIVES + seat] - lost, 0)
        if s[LIVES + seat] > 0:
            new_alive |= 1 << seat
    s[ALIVE] = new_alive
    s[ROUNDS] += 1
    s[TURNS_BEFORE] += s[TURN_NO]
    s[DONE] = 1 if (_count(new_alive) <= 1 or s[ROUNDS] >= p[P_MAX_ROUNDS]) else 0
    s[FIRST] = _next(p, new_alive, s[FIRST])


# ---- play ----------------------------------------------------------------------------------


@njit
def to_move(p: np.ndarray, s: np.ndarray) -> int:
    return -1 if s[DONE] else s[MOVER]


@njit
def _turn_pile_over(s: np.ndarray) -> None:
    """The stock is empty: all of the pile but its top becomes the stock, oldest first."""
    k = s[PLEN] - 1
    moved = 0
    for j in range(k):
        card = s[PILE + j]
        s[STOCK + 52 - k + j] = card
        moved |= bit(card)
    s[PTR] = 52 - k
    s[PILE] = s[PILE + k]
    s[PLEN] = 1
    s[PILE_BITS] &= ~moved
    s[PUBLIC] &= ~moved


@njit(inline="always")
def _discard_choice(p: np.ndarray, s: np.ndarray, seat: int) -> tuple[int, int]:
    """Greedy's discard decision: the position it throws (3 = the drawn card: the best swap
    unless keeping the hand is at least as good, stock draws only) and the doubled score of
    the hand it keeps."""
    best_key, best_pos = _swap(p, s, seat, s[DRAWN])
    key, from_discard = _hand_key(s, seat), s[FROM_DISCARD]
    if from_discard or best_key > key:
        return best_pos, best_key >> 6
    return 3, key >> 6


@njit(inline="always")
def _greedy_discard(p: np.ndarray, s: np.ndarray, seat: int) -> int:
    """The position greedy throws (3 = the drawn card)."""
    return _discard_choice(p, s, seat)[0]


@njit
def step(p: np.ndarray, s: np.ndarray, action: int) -> None:
    """The seat to move plays ``action`` (a turn decision or, after a draw, a discard)."""
    if s[PHASE] == TURN:
        _turn_step(p, s, action)
    else:
        _discard_step(p, s, action)


@njit(inline="always")
def _turn_step(p: np.ndarray, s: np.ndarray, action: int) -> None:
    """A turn decision: knock, or draw from the stock or the pile."""
    seat = s[MOVER]
    if action == KNOCK:
        s[KNOCKER] = seat
        s[KNOCK_END] = s[TURN_NO] + _count(s[ALIVE])
        s[LIMIT] = min(s[LIMIT], s[KNOCK_END])
        ended = False
        if p[P_GUN] and s[TURN_NO] == 0:
            s[END_KIND] = GUN
            ended = True
        _finish_turn(p, s, seat, ended)
        return
    from_discard = action == DRAW_DISCARD
    if not from_discard and s[PTR] >= 52:
        _turn_pile_over(s)
    if from_discard:
        drawn = s[PILE + s[PLEN] - 1]
        s[PLEN] -= 1
        s[PILE_BITS] &= ~bit(drawn)
    else:
        drawn = s[STOCK + s[PTR]]
        s[PTR] += 1
    s[DRAWN] = drawn
    s[FROM_DISCARD] = 1 if from_discard else 0
    s[PHASE] = DISCARD


@njit(inline="always")
def _discard_step(p: np.ndarray, s: np.ndarray, action: int) -> None:
    """A discard decision: a hand card or the drawn card goes on the pile; the turn ends."""
    seat = s[MOVER]
    if action == DISCARD_GREEDY:
        action = DISCARD_0 + _greedy_discard(p, s, seat)
    drawn = s[DRAWN]
    at = HANDS + 3 * seat
    if action == DISCARD_DRAWN:
        thrown = drawn
    else:
        q = min(action, DISCARD_2) - DISCARD_0
        thrown = s[at + q]
        _set_hand(p, s, seat, s[at + (q + 1) % 3], s[at + (q + 2) % 3], drawn)
    s[PILE + s[PLEN]] = thrown
    s[PLEN] += 1
    s[PILE_BITS] |= bit(thrown)
    s[PUBLIC] |= bit(thrown)
    s[THROWN + seat] |= bit(thrown)
    s[DRAWN] = -1
    s[FROM_DISCARD] = 0
    s[PHASE] = TURN
    ended = _hand_score2(p, s, seat) == BLITZ2
    if ended:
        s[END_KIND] = BLITZ
    _finish_turn(p, s, seat, ended)


@njit
def _finish_turn(p: np.ndarray, s: np.ndarray, seat: int, ended: bool) -> None:
    """Count the turn, close the round at its limit, pass the turn; a finished round is
    scored and the next one dealt."""
    s[TURN_NO] += 1
    if not ended and s[TURN_NO] >= s[LIMIT]:
        s[END_KIND] = KNOCKED if s[KNOCK_END] <= p[P_MAX_TURNS] else CAP
        ended = True
    if ended:
        _end_round(p, s)
        _deal_round(p, s)
    else:
        s[MOVER] = _next(p, s[ALIVE], seat)


# ---- observations --------------------------------------------------------------------------


@njit(inline="always")
def _score_bucket(score: int) -> int:
    """Buckets of doubled scores: <=16, 17-19, 20-22, 23-25, 26-27, 28, 29, 30+."""
    return SCORE_BUCKETS[score]


@njit(inline="always")
def _gain_bucket(gain2: int) -> int:
    """Buckets of gains in whole points (doubled ``gain2`` floored): <=0, 1-4, 5-9, 10+."""
    return int(gain2 >= 2) + int(gain2 >= 10) + int(gain2 >= 20)  # int: numpy's bools add as 'or'


@njit(inline="always")
def _top(s: np.ndarray) -> int:
    """The face-up discard (-1 when taking it emptied the pile), without a branch (module doc)."""
    size = s[PLEN]
    return (s[PILE + max(size, 1) - 1] + 1) * min(size, 1) - 1


@njit(inline="always")
def _unseen(p: np.ndarray, s: np.ndarray, seat: int) -> int:
    """Cards ``seat`` cannot locate: not in its hand, the pile or a hand seen receiving them."""
    pile_bits = s[PILE_BITS]
    if s[PHASE] == DISCARD:
        pile_bits &= ~bit(s[DRAWN])
    u = ~(pile_bits | _hand_bits(s, seat)) & ALL_CARDS
    public = s[PUBLIC]
    alive = s[ALIVE] & ~(1 << seat)
    for other in range(p[P_PLAYERS]):
        u &= ~(_hand_bits(s, other) & public & -((alive >> other) & 1))  # live others only
    return u


@njit(inline="always")
def _expected_sum(p: np.ndarray, s: np.ndarray, seat: int) -> tuple[int, int]:
    """Sum over the unseen cards of the doubled score after drawing each (best three of four),
    and their number.

    The best three of four is the hand (score ``own``) or a swap keeping two of its cards;
    the best swap with a card ``x`` of suit ``t`` and value ``v`` scores ``2 * (kept + v)``,
    ``kept`` the two best values of the hand in suit ``t`` (the swaps' other suits hold at
    most two of the hand's cards, never more than ``own``), or three of a kind when ``x``
    completes the hand's pair.  Ranks ordered by value, the cards that beat ``own`` are the
    ranks from a threshold up: each suit sums in a few table reads, card by card only for the
    pair's rank.
    """
    u, own, tok2, pair, sums0, sums1, sums2 = _draw_inputs(p, s, seat)
    return _expected_from(u, own, tok2, pair, sums0, sums1, sums2)


@njit(inline="always")
def _draw_inputs(p: np.ndarray, s: np.ndarray, seat: int) -> tuple[int, int, int, int, int, int, int]:
    """What :func:`_expected_sum` reads of the state: the unseen cards, the hand's doubled
    score, the three-of-a-kind score, the hand's paired rank (-1 none or no three of a kind)
    and the per-suit sums of the three kept pairs."""
    u = _unseen(p, s, seat)
    own = _hand_score2(p, s, seat)
    tok2 = p[P_TOK2]
    at = PAIRS + PAIR_SIZE * seat
    pair = max(s[at + PAIR_RANK], s[at + PAIR_RANK + 1], s[at + PAIR_RANK + 2]) * int(tok2 != 0) - int(tok2 == 0)
    return u, own, tok2, pair, s[at + PAIR_SUMS], s[at + PAIR_SUMS + 1], s[at + PAIR_SUMS + 2]


@njit(inline="always")
def _expected_from(u: int, own: int, tok2: int, pair: int, sums0: int, sums1: int, sums2: int) -> tuple[int, int]:
    """:func:`_expected_sum` from :func:`_draw_inputs` (no state read: numba then keeps no
    reference counting around it)."""
    total, count = 0, 0
    for suit in range(4):
        ranks = _suit_ranks(u, suit)
        if ranks == 0:
            continue
        shift = 8 * suit
        kept = max((sums0 >> shift) & 0xFF, (sums1 >> shift) & 0xFF, (sums2 >> shift) & 0xFF)
        threshold = own - 2 * kept
        first = 0 if threshold < 0 else 13 if threshold > 22 else FIRST_RANK_ABOVE[threshold]
        better = (ranks >> first) << first
        n_better, n_rest = popcount(better), popcount(ranks ^ better)
        total += own * n_rest + 2 * kept * n_better + 2 * _rank_value_sum(better)
        count += n_better + n_rest
        if pair >= 0 and (ranks >> pair) & 1:
            score = max(own, 2 * (kept + VALUES[pair]))
            total += max(tok2 - score, 0)
    return total, count


@njit(inline="always")
def _turn_option2(p: np.ndarray, s: np.ndarray, seat: int) -> int:
    """Turn decision: doubled score after taking the face-up discard."""
    return _swap(p, s, seat, _top(s))[0] >> 6


@njit(inline="always")
def _option2(p: np.ndarray, s: np.ndarray, seat: int) -> int:
    """Turn decision: doubled score after taking the face-up discard; discard decision:
    doubled score after greedy's discard."""
    if s[PHASE] == TURN:
        return _turn_option2(p, s, seat)
    return _discard_choice(p, s, seat)[1]


@njit(inline="always")
def _greedy_takes_discard(p: np.ndarray, s: np.ndarray, seat: int, option: int) -> bool:
    """Whether greedy takes the face-up card worth ``option``: when it beats both the hand
    and the mean of a stock draw (the state read before the branch: module doc)."""
    u, own, tok2, pair, sums0, sums1, sums2 = _draw_inputs(p, s, seat)
    if option <= own:
        return False
    total, count = _expected_from(u, own, tok2, pair, sums0, sums1, sums2)
    return option * count > total


@njit(inline="always")
def _greedy_turn(p: np.ndarray, s: np.ndarray, seat: int) -> int:
    """Greedy's turn decision: the face-up card when it beats both the hand and the mean of a
    stock draw."""
    phase, option = s[PHASE], _turn_option2(p, s, seat)
    if phase != TURN:
        return DRAW_DECK
    return DRAW_DISCARD if _greedy_takes_discard(p, s, seat, option) else DRAW_DECK


@njit(inline="always")
def _turn_bucket(p: np.ndarray, s: np.ndarray) -> int:
    turn = s[TURN_NO]
    lap = _count(s[ALIVE])
    if turn == 0:
        return 0
    if turn < 2 * lap:
        return 1
    if turn < 4 * lap:
        return 2
    return 3


@njit(inline="always")
def _opp_lives(p: np.ndarray, s: np.ndarray, seat: int) -> int:
    """The fewest lives among the other live players."""
    L = p[P_LIVES]
    low = L + 1
    for other in range(p[P_PLAYERS]):
        if other != seat and s[LIVES + other] > 0:
            low = min(low, s[LIVES + other])
    return min(low, L)


@njit(inline="always")
def _gain(p: np.ndarray, s: np.ndarray, seat: int, option: int, own: int) -> int:
    """The gain bucket of a decision whose option scores ``option`` (doubled) and hand ``own``."""
    if s[PHASE] == TURN:
        return _gain_bucket(max(option - own, -BLITZ2))
    return _gain_bucket(option - own)


@njit
def encoding(p: np.ndarray, s: np.ndarray, seat: int, which: int) -> int:
    """``phase, knocked, score_bucket, gain_bucket, turn_bucket, greedy_discard, greedy_turn``."""
    if which == 0:
        return s[PHASE]
    if which == 1:
        return 1 if s[KNOCKER] >= 0 else 0
    own = _hand_score2(p, s, seat)
    if which == 2:
        return _score_bucket(own)
    if which == 3:
        return _gain(p, s, seat, _option2(p, s, seat), own)
    if which == 4:
        return _turn_bucket(p, s)
    if which == 5:
        return _greedy_discard(p, s, seat) if s[PHASE] == DISCARD else 0
    return _greedy_turn(p, s, seat)


@njit
def observe_index(p: np.ndarray, s: np.ndarray, seat: int) -> int:
    """The game's tabular abstraction (see ``ThirtyOne.state_label``)."""
    L = p[P_LIVES]
    knocked = 1 if s[KNOCKER] >= 0 else 0
    own = _hand_score2(p, s, seat)
    if s[PHASE] == TURN:
        gain = _gain_bucket(max(_turn_option2(p, s, seat) - own, -BLITZ2))
        lives = (s[LIVES + seat] - 1) * L + _opp_lives(p, s, seat) - 1
        sb = _score_bucket(own)
        return (((sb * N_GAIN + gain) * N_TURN + _turn_bucket(p, s)) * (L * L) + lives) * 2 + knocked
    greedy, option = _discard_choice(p, s, seat)
    gain = _gain_bucket(option - own)
    code = ((s[FROM_DISCARD] * 4 + greedy) * N_SCORE + _score_bucket(option)) * N_GAIN
    return _n_turn_states(p) + (code + gain) * 2 + knocked


@njit
def legal(p: np.ndarray, s: np.ndarray, seat: int, mask: np.ndarray) -> None:
    """Turn decision: draw either way, knock unless someone has; discard decision: greedy's
    card, a hand position, or the drawn card unless it came from the pile."""
    mask[:] = False
    if s[PHASE] == TURN:
        mask[DRAW_DECK] = mask[DRAW_DISCARD] = True
        mask[KNOCK] = s[KNOCKER] < 0
    else:
        for a in range(DISCARD_GREEDY, DISCARD_2 + 1):
            mask[a] = True
        mask[DISCARD_DRAWN] = not s[FROM_DISCARD]


@njit(inline="always")
def is_legal(p: np.ndarray, s: np.ndarray, seat: int, action: int, mask: np.ndarray) -> bool:
    """:func:`legal`'s rule for one action, without the mask."""
    if s[PHASE] == TURN:
        return action == DRAW_DECK or action == DRAW_DISCARD or (action == KNOCK and s[KNOCKER] < 0)
    if DISCARD_GREEDY <= action <= DISCARD_2:
        return True
    return action == DISCARD_DRAWN and not s[FROM_DISCARD]


@njit
def always_masked(p: np.ndarray) -> bool:
    """The legal actions change with the phase: always a mask."""
    return True


@njit(inline="always")
def _suit_slot(out: np.ndarray, at: int, card: int) -> None:
    """value / 11 of ``card`` in its suit's slot of ``out[at : at + 4]`` (zeros for no card)."""
    for k in range(4):
        out[at + k] = 0.0
    if card >= 0:
        out[at + SUITS[card]] = VALUES[card] / 11.0


@njit(inline="always")
def _suit_sums(out: np.ndarray, at: int, bits: int, scale: float) -> None:
    """Per-suit sums of the values of the cards in ``bits``, over ``scale``."""
    for k in range(4):
        out[at + k] = _rank_value_sum(_suit_ranks(bits, k)) / scale


@njit
def features(p: np.ndarray, s: np.ndarray, seat: int, out: np.ndarray) -> None:
    """The feature vector (``FEATURE_NAMES`` / ``FEATURE_DOC`` of the game)."""
    phase = s[PHASE]
    hand = HANDS + 3 * seat
    for q in range(3):
        _suit_slot(out, 4 * q, s[hand + q])
    top = _top(s)
    drawn = s[DRAWN] if phase == DISCARD else -1
    _suit_slot(out, 12, top)
    _suit_slot(out, 16, drawn)
    own = _hand_score2(p, s, seat)
    if phase == TURN:
        option = _turn_option2(p, s, seat)
        greedy = -1
    else:
        greedy, option = _discard_choice(p, s, seat)
    total, count = _expected_sum(p, s, seat)
    out[20] = float(phase)
    out[21] = float(s[FROM_DISCARD]) if phase == DISCARD else 0.0
    out[22] = own / BLITZ2
    out[23] = option / BLITZ2
    out[24] = (total / max(count, 1)) / BLITZ2
    candidate = top if phase == TURN else drawn
    for q in range(3):
        out[25 + q] = (_replaced_score2(p, s, seat, q, candidate) if candidate >= 0 else own) / BLITZ2
    if phase == TURN:  # greedy's turn decision (it takes the face-up card as _greedy_takes_discard)
        choice = DRAW_DISCARD if option > own and option * count > total else DRAW_DECK
    else:
        choice = greedy
    for k in range(4):
        out[28 + k] = 1.0 if choice == k else 0.0
    pile_bits = s[PILE_BITS]
    if phase == DISCARD:
        pile_bits &= ~bit(drawn)
    for k in range(4):
        out[32 + k] = popcount(_suit_ranks(pile_bits, k)) / 13.0
    _suit_sums(out, 36, _unseen(p, s, seat), SUIT_VALUE_TOTAL)
    alive = s[ALIVE]
    at = 40
    for neighbour in (_next(p, alive, seat), _previous(p, alive, seat)):
        other = neighbour != seat
        known = _hand_bits(s, neighbour) & s[PUBLIC] if other else 0
        _suit_sums(out, at, known, 31.0)
        _suit_sums(out, at + 8, s[THROWN + neighbour] if other else 0, SUIT_VALUE_TOTAL)
        at += 4
    turn = s[TURN_NO]
    out[56] = 1.0 if turn == 0 else 0.0
    out[57] = 1.0 if s[KNOCKER] >= 0 else 0.0
    out[58] = min(turn / p[P_MAX_TURNS], 1.0)
    out[59] = s[LIVES + seat] / p[P_LIVES]
    out[60] = _opp_lives(p, s, seat) / p[P_LIVES]
    out[61] = (_count(alive) - 1) / (p[P_PLAYERS] - 1)
    out[62] = (52 - s[PTR]) / 52.0


@njit
def part_size(p: np.ndarray, which: int) -> int:
    if which == PART_HAND:
        return 3
    return p[P_PLAYERS] if which == PART_LIVES else 0


@njit
def observe_part(p: np.ndarray, data: np.ndarray, s: np.ndarray, seat: int, which: int, out: np.ndarray) -> None:
    """Part ``which`` of :data:`PARTS`; ``data`` is :func:`part_data` (the potential table)."""
    discarding = s[PHASE] == DISCARD
    if which == PART_HAND:
        for q in range(3):
            out[q] = s[HANDS + 3 * seat + q]
    elif which == PART_LIVES:
        for other in range(p[P_PLAYERS]):
            out[other] = s[LIVES + other]
    elif which == PART_EXPECTED:
        total, count = _expected_sum(p, s, seat)
        out[0] = total / max(count, 1)
    elif which == PART_POTENTIAL:
        out[0] = potential(p, s, seat, data)
    else:
        out[0] = _scalar_part(p, s, seat, which, discarding)


@njit
def _scalar_part(p: np.ndarray, s: np.ndarray, seat: int, which: int, discarding: bool) -> int:
    """The whole-number parts of :data:`PARTS` with one value."""
    if which == 0:
        return s[TURNS_BEFORE] + s[TURN_NO]
    if which == 1:
        return _hand_score2(p, s, seat)
    if which == 3:
        return _top(s)
    if which == 4:
        return s[DRAWN] if discarding else -1
    if which == 5:
        return s[FROM_DISCARD] if discarding else 0
    if which == 6:
        return s[TURN_NO]
    return s[ROUNDS]  # round (7) and segment (10): rounds completed


def part_data(config: Any) -> np.ndarray:
    """The lives potential of every lives vector for every seat (:func:`potential_table`)."""
    return potential_table(config)


# ---- results -------------------------------------------------------------------------------


@njit
def scores(p: np.ndarray, s: np.ndarray, out: np.ndarray) -> None:
    """The lives of every seat."""
    for seat in range(p[P_PLAYERS]):
        out[seat] = s[LIVES + seat]


@njit
def rewards(p: np.ndarray, s: np.ndarray, out: np.ndarray) -> None:
    """+1 for the sole seat with the most lives, 0 for a shared first place, -1 otherwise."""
    S = p[P_PLAYERS]
    best, n_best = -1, 0
    for seat in range(S):
        if s[LIVES + seat] > best:
            best, n_best = s[LIVES + seat], 1
        elif s[LIVES + seat] == best:
            n_best += 1
    for seat in range(S):
        if s[LIVES + seat] == best:
            out[seat] = 1.0 if n_best == 1 else 0.0
        else:
            out[seat] = -1.0


@njit
def builtin_action(p: np.ndarray, s: np.ndarray, seat: int, code: int, args: np.ndarray) -> int:
    """``random`` (uniform among the legal actions), ``greedy`` (:func:`_greedy_takes_discard`;
    it discards with ``DISCARD_GREEDY`` and never knocks) and ``greedy-knock`` (greedy that
    knocks, when it may, with a hand scoring ``args[0]`` or more, :data:`BUILTIN_ARGS`)."""
    phase, knocker, from_discard = s[PHASE], s[KNOCKER], s[FROM_DISCARD]
    own, option = _hand_score2(p, s, seat), _turn_option2(p, s, seat)
    if code == RANDOM:  # the legal actions are consecutive numbers: pick one of them
        if phase == TURN:
            return DRAW_DECK + np.random.randint(0, 3 if knocker < 0 else 2)
        return DISCARD_GREEDY + np.random.randint(0, 4 if from_discard else 5)
    if phase == DISCARD:
        return DISCARD_GREEDY
    if code == GREEDY_KNOCK and knocker < 0 and own >= 2.0 * args[0]:
        return KNOCK
    return DRAW_DISCARD if _greedy_takes_discard(p, s, seat, option) else DRAW_DECK


# ---- round-level reward ---------------------------------------------------------------------


@njit
def lives_code(p: np.ndarray, s: np.ndarray) -> int:
    """The lives of every seat as one number in base ``lives + 1``, seat 0 the lowest digit:
    the row of :func:`potential_table`."""
    code = 0
    for seat in range(p[P_PLAYERS] - 1, -1, -1):
        code = code * (p[P_LIVES] + 1) + s[LIVES + seat]
    return code


@njit
def segment(p: np.ndarray, s: np.ndarray, seat: int) -> int:
    """The segment of segment rewards (:mod:`fsmarena.rl.segments`): the number of rounds completed, the
    observation part ``segment``."""
    return s[ROUNDS]


@njit
def potential(p: np.ndarray, s: np.ndarray, seat: int, table: np.ndarray) -> float:
    """``seat``'s lives potential now, ``table[lives_code(p, s), seat]`` with ``table =
    potential_table(config)`` (:mod:`fsmarena.games.thirtyone.potential`).

    Segment rewards (:mod:`fsmarena.rl.segments`, what the batched learners do with the observation's
    ``segment`` and ``potential`` parts): when :func:`segment` differs between two decisions
    of a seat, the earlier decision's round is over and its reward is the change of this
    potential between them (nothing bootstrapped across); after the seat's last decision it is
    the final reward minus the potential there.  Lives change only at a round's end, so the
    potential is constant within a round.
    """
    return table[lives_code(p, s), seat]


def potential_table(config: Any) -> np.ndarray:
    """``V`` of every lives vector (rows: :func:`lives_code`) for every seat (columns)."""
    from fsmarena.games.thirtyone.potential import potential_table as table

    return table(config.players, config.lives)


# ---- for tests -----------------------------------------------------------------------------


#: rounds of deck orders :func:`reference_deal` lists at most (a game of more rounds needs
#: long runs of all-tied showdowns)
SCRIPTED_ROUNDS = 256


def scripted(config: Any, deals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The packed rules and kernel deals that play scripted deals (``ThirtyOne.play(deals=...)``,
    :mod:`fsmarena.games.kernel`): each row the deck orders of the first rounds (at least one; 52 cards
    each, the order they are dealt from), optionally followed by the seed of the game's stream,
    which shuffles the decks of later rounds (:func:`fsmarena.games.draws.scripted_deals`).  A deck that
    is not an order of the 52 cards is a ValueError."""
    rounds, deals = scripted_deals(deals, 52, least=1)
    decks = deals[:, : 52 * rounds].reshape(-1, 52)
    if not (np.sort(decks, axis=1) == np.arange(52)).all():
        raise ValueError("every scripted deck must be an order of the 52 cards 0..51")
    return make_params(config, rounds), deals


def reference_deal(config: Any, deals: np.ndarray) -> dict:
    """``deals`` (one kernel deal per row, made with ``make_params(config, K)``) in the
    reference's terms: ``deck_order``, the deck orders the kernel deals from them, every
    round's up to ``max_rounds`` (:data:`SCRIPTED_ROUNDS` at most; :func:`round_decks`), of
    shape ``(rows, rounds, 52)``; any script :func:`scripted` plays."""
    p, deals = scripted(config, np.ascontiguousarray(deals, dtype=np.int64))
    orders = np.zeros((len(deals), min(config.max_rounds, SCRIPTED_ROUNDS), 52), dtype=np.int64)
    for row, deal in enumerate(deals):
        round_decks(p, deal, orders[row])
    return {"deck_order": orders}


def test_configs() -> list:
    """Rule sets the kernel-vs-reference tests cover."""
    from fsmarena.games.thirtyone.game import ThirtyOneConfig

    return [
        ThirtyOneConfig(),
        ThirtyOneConfig(players=4, lives=2, three_of_a_kind=30.5, under_the_gun=False, max_turns=30),
        ThirtyOneConfig(players=6, lives=1, max_rounds=4, max_turns=9),
    ]
