"""31 (Scat / Blitz; seed 003): 2-6 players, three lives each, knocking, batched engine.

Rules (DESIGN.md "31", with every choice the seed leaves open made explicit):

* 52 cards, numbered 0..51: suit ``card // 13``, rank ``card % 13`` (2..10, jack, queen, king,
  ace).  Ace 11, faces 10, others their face value.  A hand's score is its best single-suit
  sum (31 max); with ``three_of_a_kind`` set (e.g. 30.5) three cards of one rank score at
  least that.  Scores are kept doubled inside the engine so 30.5 compares exactly.
* A round: the live players get three cards each (dealt three at a time in turn order from the
  round's first player), one card is turned face up to start the discard pile, the rest is the
  stock.  Play goes round the live players from the first player.  A turn is either
  **draw** (from the stock or the face-up discard) and then discard one card - one of the
  three in hand or the drawn card itself, except that a card just taken from the discard pile
  cannot go straight back - or **knock** instead of drawing.
* A **31** in hand ends the round at once and every other live player loses a life (the knocker
  too, one life).  A hand of 31 dealt to anyone ends the round before the first turn in the same
  way (several dealt 31s: all their holders are safe).
* After a knock every other live player gets exactly one more turn (no further knock), then
  hands are shown.  A knock on the very first turn of the round (**under the gun**) shows hands
  at once (``under_the_gun=False`` makes it an ordinary knock).
* Showdown: the lowest score loses a life; a knocker who is (among the) lowest loses two.
  **Ties** for lowest: every tied player loses (the knocker two) - unless *every* live player is
  tied, in which case nobody loses a life.  So somebody always survives a round.
* Lives never go below zero; a player with none is out and is skipped in dealing and in turn
  order.  The last player standing wins (reward +1, everybody else -1); ``Outcome.scores`` are
  the final lives.
* The first player rotates: seat 0 starts round 0, then the next live seat clockwise after the
  previous round's first player.
* **Stock exhausted** at a stock draw: the discard pile except its top card is turned over to
  become the new stock, oldest discard drawn first (deterministic, as at a real table).
* Safety caps: a round that reaches ``max_turns`` turns (a knock counts as a turn) ends in a
  showdown as if everybody had called (a knocker, if any, still risks two lives); a game that
  reaches ``max_rounds`` rounds ends with the lives as they stand (ties for most lives share
  first place).  Two greedy players stall when both wait for the same card, hence the first
  cap; the second needs a long run of all-tied showdowns and is practically unreachable.

Actions (one space of 8, masked by phase): the **turn decision** ``draw_deck``, ``draw_discard``,
``knock`` (illegal once someone has knocked) and, after a draw, the **discard decision**
``discard_greedy`` (the abstract action: throw the card the greedy player would throw),
``discard_0``, ``discard_1``, ``discard_2`` (a hand position) or ``discard_drawn`` (illegal
after ``draw_discard``).  Each phase is a separate ``decide`` call whose mask allows only that
phase's actions (``obs.phase`` says which).  ``discard_greedy`` duplicates one concrete
action on purpose: it means the same thing in every state, so tabular learners and automata
(whose untried entries fall back to the first legal action) start from a sensible discard
instead of having to learn the card arithmetic state by state; ``random`` picks among the
legal actions uniformly, so it throws greedy's card a little more often.  Hands are kept in
a canonical order: cards of the strongest suit first, then by value, then by card number,
all descending - so position 2 is usually the weakest card.

Observations: ``index`` is a tabular abstraction (turn decision: score bucket x what the
discard would add x turn bucket x own lives x the lowest opposing lives x knocked; discard
decision: drawn from where x greedy's choice x resulting score bucket x its gain x knocked),
``features`` a [0, 1] vector for automata and function approximation (hand, discard top,
drawn card, per-suit counts of cards seen in the discard pile, per-suit unseen value, cards
known in the neighbours' hands, lives, progress), plus small-integer encodings and raw parts
(``hand``, ``top``, ``drawn``, ``greedy_turn``, ``greedy_discard``...) for builtins; the
encodings (FSM inputs) are ``phase``, ``knocked``, ``score_bucket``, ``gain_bucket``,
``turn_bucket``, ``greedy_discard`` and ``greedy_turn`` (greedy's turn decision: 0 stock,
1 the face-up discard; 0 at the discard decision).  Parts are
computed lazily from the live game state, so a player must read them while it decides
(inside ``act``), never keep the observation for later.

Engine: every game is a row; a hand is the id of its 3-card combination (colex rank, 22,100
of them) and every rule about hands is a lookup table built once (``_Tables``); the stock is
a per-game shuffled card order with a pointer, the discard pile a per-game stack.  Games run
at different speeds: each pass lets every seat move in the games where it is to move
(``decide(seat, obs, rows)``), then finished rounds are scored and redealt together.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game, Observation, Outcome, rewards_from_ranking
from fsmarena.games.capabilities import SegmentRewards
from fsmarena.games.thirtyone.potential import LivesPotential

DRAW_DECK, DRAW_DISCARD, KNOCK, DISCARD_GREEDY, DISCARD_0, DISCARD_1, DISCARD_2, DISCARD_DRAWN = range(8)
ACTION_NAMES = (
    "draw_deck",
    "draw_discard",
    "knock",
    "discard_greedy",
    "discard_0",
    "discard_1",
    "discard_2",
    "discard_drawn",
)
N_ACTIONS = len(ACTION_NAMES)
TURN, DISCARD = 0, 1
RANK_VALUES = np.array([2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11], dtype=np.int64)
CARD_VALUE = np.tile(RANK_VALUES, 4)
CARD_SUIT = np.repeat(np.arange(4), 13)
N_COMBOS = 52 * 51 * 50 // 6
BIT = np.left_shift(np.uint64(1), np.arange(52, dtype=np.uint64))  # card -> 52-bit set
ALL_CARDS = np.uint64((1 << 52) - 1)
SUIT_BITS = np.array([BIT[13 * k : 13 * k + 13].sum(dtype=np.uint64) for k in range(4)], dtype=np.uint64)
SUIT_VALUE_TOTAL = 95.0  # 2 + ... + 10 + 3 * 10 + 11
#: VALUE_PLANES[b]: the set of cards whose value has bit b (sums of values by popcounts)
VALUE_PLANES = np.array([BIT[((CARD_VALUE >> b) & 1) == 1].sum(dtype=np.uint64) for b in range(4)], dtype=np.uint64)
BLITZ2 = 62  # 31, doubled

#: round-end kinds (``log`` records and tests)
END_KINDS = ("deal31", "blitz", "gun", "knock", "cap")
DEAL31, BLITZ, GUN, KNOCKED, CAP = range(5)

# ---- tabular abstraction ----------------------------------------------------------------------
#: doubled-score thresholds of the 8 score buckets: <=16, 17-19, 20-22, 23-25, 26-27, 28, 29, 30+
SCORE_EDGES2 = np.array([34, 40, 46, 52, 56, 58, 60])
#: gain (in points) buckets: <=0, 1-4, 5-9, 10+
GAIN_EDGES = np.array([1, 5, 10])
N_SCORE, N_GAIN, N_TURN = 8, 4, 4
SCORE_LABELS = ("<=16", "17-19", "20-22", "23-25", "26-27", "28", "29", "30+")
GAIN_LABELS = ("+0", "+1-4", "+5-9", "+10+")
TURN_LABELS = ("first turn", "lap 1", "laps 2-3", "later")
GREEDY_LABELS = ("pos0", "pos1", "pos2", "drawn")

SUIT_NAMES = "SHDC"

FEATURE_NAMES = (
    tuple(f"hand{p}_{s}" for p in range(3) for s in SUIT_NAMES)
    + tuple(f"top_{s}" for s in SUIT_NAMES)
    + tuple(f"drawn_{s}" for s in SUIT_NAMES)
    + ("phase", "from_discard", "score", "option_score", "expected_draw")
    + ("swap_score_0", "swap_score_1", "swap_score_2")
    + ("greedy_0", "greedy_1", "greedy_2", "greedy_3")
    + tuple(f"pile_seen_{s}" for s in SUIT_NAMES)
    + tuple(f"unseen_value_{s}" for s in SUIT_NAMES)
    + tuple(f"left_known_{s}" for s in SUIT_NAMES)
    + tuple(f"right_known_{s}" for s in SUIT_NAMES)
    + tuple(f"left_thrown_{s}" for s in SUIT_NAMES)
    + tuple(f"right_thrown_{s}" for s in SUIT_NAMES)
    + ("first_turn", "knocked", "turn", "own_lives", "min_opp_lives", "opponents_left", "stock_left")
)
#: what each feature means (all scaled to [0, 1]); suits S H D C
FEATURE_DOC = """\
hand{p}_{suit}: value / 11 of the hand's card at canonical position p, in its suit's slot
top_{suit}: the face-up discard (turn decision) or the card under the one just taken (discard)
drawn_{suit}: the card just drawn (discard decision; zeros at the turn decision)
phase: 0 turn decision, 1 discard decision; from_discard: the drawn card came from the pile
score: the hand's score / 31; expected_draw: mean score after a stock draw over unseen cards
option_score: score after taking the discard (turn) or after greedy's discard (discard)
swap_score_{p}: score when the candidate card (the face-up one at the turn decision, the drawn
  one at the discard decision) replaces hand position p
greedy_{k}: greedy's choice as a one-hot: turn decision k = 0 stock, 1 discard; discard
  decision k = the position it throws (3 = the drawn card)
pile_seen_{suit}: cards of the suit in the discard pile / 13
unseen_value_{suit}: value of the suit's cards this player cannot locate / 95
left_known_{suit}, right_known_{suit}: value / 31 of cards seen going into the next / previous
  live player's hand (taken from the pile) and still there
left_thrown_{suit}, right_thrown_{suit}: value / 95 of the cards that player threw this round
first_turn, knocked, turn (round turns / max_turns), own_lives and min_opp_lives (/ lives),
  opponents_left (/ players - 1), stock_left (/ 52)
"""


@dataclass(frozen=True)
class ThirtyOneConfig:
    """Rules of 31.  ``three_of_a_kind``: None (off) or the score of three cards of one rank
    (a multiple of 0.5 below 31, e.g. 30.5).  ``max_turns``: turns per round before a forced
    showdown; ``max_rounds``: rounds per game before the game stops (see the module docs)."""

    players: int = 2
    lives: int = 3
    three_of_a_kind: float | None = None
    under_the_gun: bool = True
    max_turns: int = 100
    max_rounds: int = 200

    def __post_init__(self) -> None:
        def whole(name: str, low: int, high: int) -> None:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
                raise FsmarenaError(f"thirtyone: {name} must be a whole number from {low} to {high}, got {value!r}")

        whole("players", 2, 6)
        whole("lives", 1, 5)
        whole("max_turns", 1, 10_000)
        whole("max_rounds", 1, 100_000)
        if not isinstance(self.under_the_gun, bool):
            raise FsmarenaError("thirtyone: under_the_gun must be true or false")
        tok = self.three_of_a_kind
        if tok is not None:
            if (
                isinstance(tok, bool)
                or not isinstance(tok, (int, float))
                or not 0 < tok < 31
                or float(2 * tok) != round(2 * tok)
            ):
                raise FsmarenaError(
                    f"thirtyone: three_of_a_kind must be none or a multiple of 0.5 between 0 and 31 "
                    f"(e.g. 30.5), got {tok!r}"
                )

    @property
    def three_of_a_kind2(self) -> int:
        """Doubled three-of-a-kind score (0 when the rule is off)."""
        return 0 if self.three_of_a_kind is None else int(round(2 * self.three_of_a_kind))


# ---- hand tables ------------------------------------------------------------------------------

CHOOSE2 = np.array([c * (c - 1) // 2 for c in range(52)], dtype=np.int64)
CHOOSE3 = np.array([c * (c - 1) * (c - 2) // 6 for c in range(52)], dtype=np.int64)


def combo_id(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Colex rank of the 3-card set {a, b, c} (any order): C(lo,1) + C(mid,2) + C(hi,3)."""
    lo = np.minimum(np.minimum(a, b), c)
    hi = np.maximum(np.maximum(a, b), c)
    mid = a + b + c - lo - hi
    return lo + mid * (mid - 1) // 2 + hi * (hi - 1) * (hi - 2) // 6


class _Tables:
    """Every hand rule as a lookup table over combination ids (built once per rule set)."""

    def __init__(self, tok2: int):
        triples = np.array(list(itertools.combinations(range(52), 3)), dtype=np.int64)
        ids = combo_id(triples[:, 0], triples[:, 1], triples[:, 2])
        cards = np.empty((N_COMBOS, 3), dtype=np.int64)
        cards[ids] = triples
        suits, values = CARD_SUIT[cards], CARD_VALUE[cards]
        suit_sums = np.zeros((N_COMBOS, 4), dtype=np.int64)
        for p in range(3):
            suit_sums[np.arange(N_COMBOS), suits[:, p]] += values[:, p]
        score2 = 2 * suit_sums.max(axis=1)
        if tok2:
            ranks = cards % 13
            trips = (ranks[:, 0] == ranks[:, 1]) & (ranks[:, 1] == ranks[:, 2])
            score2 = np.where(trips, np.maximum(score2, tok2), score2)
        #: doubled score and total card value of every hand
        self.score2 = score2.astype(np.int64)
        self.total = values.sum(axis=1)
        # canonical order: strongest suit group, then value, then card number, descending
        group = np.take_along_axis(suit_sums, suits, axis=1)
        sort_key = (group * 16 + values) * 64 + cards
        order = np.argsort(-sort_key, axis=1, kind="stable")
        #: the hand's cards in canonical order
        self.cards = np.take_along_axis(cards, order, axis=1)
        self.key = self.score2 * 64 + self.total  # greedy's preference: score, then total value
        #: flat views, entry ``hand * 3 + p``: the card at canonical position p, and the two
        #: other cards in ascending order (a discard becomes a sorted insertion)
        self.cards_flat = self.cards.reshape(-1)
        others = [np.sort(np.delete(self.cards, p, axis=1), axis=1) for p in range(3)]
        self.kept_low = np.stack([o[:, 0] for o in others], axis=1).reshape(-1)
        self.kept_high = np.stack([o[:, 1] for o in others], axis=1).reshape(-1)

        # forced swaps: put card x in place of canonical position p, for every hand and x
        x = np.arange(52)
        held = (self.cards[:, :, None] == x).any(axis=1)  # x already in the hand: no swap
        best_key = np.full((N_COMBOS, 52), -1, dtype=np.int64)
        best_pos = np.zeros((N_COMBOS, 52), dtype=np.int64)
        for p in range(3):  # later positions win ties
            others = [self.cards[:, q][:, None] for q in range(3) if q != p]
            new = np.where(held, 0, combo_id(others[0], others[1], x[None, :]))
            key = np.where(held, -1, self.key[new])
            better = key >= best_key
            best_key = np.where(better, key, best_key)
            best_pos = np.where(better, p, best_pos)
        #: best (score, total) key over the three forced swaps with card x, times 4, plus the
        #: position it replaces; flat: entry ``hand * 52 + x``
        self.swap = (best_key * 4 + best_pos).astype(np.int16).reshape(-1)  # compact: stays in cache
        #: doubled score after drawing x and keeping the best three of the four cards, stored
        #: as bit planes over x: bit x of ``best_planes[hand, b]`` is bit b of that score, so
        #: a sum over a set of cards is a few popcounts (the greedy player's expectation)
        best2 = np.where(held, 0, np.maximum(best_key >> 6, self.score2[:, None]))
        self.best_planes = np.zeros((N_COMBOS, 6), dtype=np.uint64)
        for b in range(6):
            self.best_planes[:, b] = ((best2 >> b) & 1).astype(np.uint64) @ BIT
        #: the hand as a 52-bit set
        self.bits = BIT[self.cards].sum(axis=1, dtype=np.uint64)
        self.score_bucket = np.searchsorted(SCORE_EDGES2, np.arange(BLITZ2 + 1), side="right")
        gains = np.arange(-BLITZ2, BLITZ2 + 1)  # doubled gains; buckets by whole points
        self.gain_bucket = np.searchsorted(GAIN_EDGES, gains // 2, side="right")


@functools.lru_cache(maxsize=8)
def _tables(tok2: int) -> _Tables:
    return _Tables(tok2)


def _seat_tables(S: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """By live-seat bitmask: the next live seat after each seat, each seat's position in the
    dealing order from each first seat (-1 if out), and the number of live seats."""
    masks = 1 << S
    nxt = np.zeros((masks, S), dtype=np.int64)
    rank = np.full((masks, S, S), -1, dtype=np.int64)
    count = np.zeros(masks, dtype=np.int64)
    for m in range(masks):
        alive = [(m >> s) & 1 for s in range(S)]
        count[m] = sum(alive)
        for s in range(S):
            nxt[m, s] = next(((s + k) % S for k in range(1, S + 1) if alive[(s + k) % S]), s)
            position = 0
            for k in range(S):
                seat = (s + k) % S
                if alive[seat]:
                    rank[m, s, seat] = position
                    position += 1
    return nxt, rank, count


class _State:
    """The arrays of a batch of games: one row per game, per-seat hands seat-major.

    Card sets are 52-bit masks (``uint64``); the stock and the discard pile are card stacks
    read through flat views (``np.take`` on a flat array is several times faster than 2-D
    fancy indexing, and this is the hot path).
    """

    def __init__(self, n: int, S: int, lives: int):
        self.n, self.S = n, S
        self.lives = np.full((n, S), lives, dtype=np.int64)
        self.alive = np.full(n, (1 << S) - 1, dtype=np.int64)  # bitmask of live seats
        self.hand = np.zeros((S, n), dtype=np.int64)  # combination id of each hand
        self.stock = np.zeros((n, 52), dtype=np.int8)  # this round's card order
        self.ptr = np.zeros(n, dtype=np.int64)  # next stock position
        self.pile = np.zeros((n, 52), dtype=np.int8)  # discard pile, bottom first
        self.plen = np.zeros(n, dtype=np.int64)
        self.stock_flat = self.stock.reshape(-1)
        self.pile_flat = self.pile.reshape(-1)
        self.pile_bits = np.zeros(n, dtype=np.uint64)  # cards in the discard pile
        self.public = np.zeros(n, dtype=np.uint64)  # face up since they left the stock
        self.thrown = np.zeros((S, n), dtype=np.uint64)  # cards each seat threw this round
        self.first = np.zeros(n, dtype=np.int64)
        self.mover = np.zeros(n, dtype=np.int64)
        self.knocker = np.full(n, -1, dtype=np.int64)
        self.knock_end = np.zeros(n, dtype=np.int64)  # turn count closing a knock
        self.limit = np.zeros(n, dtype=np.int64)  # turn count ending the round
        self.turns_before = np.zeros(n, dtype=np.int64)  # turns of earlier rounds
        self.turn = np.zeros(n, dtype=np.int64)  # turns completed this round
        self.rounds = np.zeros(n, dtype=np.int64)  # rounds completed
        self.in_round = np.zeros(n, dtype=bool)
        self.end_kind = np.full(n, -1, dtype=np.int64)
        self.done = np.zeros(n, dtype=bool)
        self.drawn = np.full(n, -1, dtype=np.int64)  # card in the air (only with ``watch``)


PLANE_WEIGHTS = (1 << np.arange(6)).astype(np.float32)
VALUE_WEIGHTS = 1 << np.arange(4)


def _value_sums(bits: np.ndarray) -> np.ndarray:
    """Per-suit sums of card values of 52-bit card sets: ``(m,) -> (m, 4)``."""
    planes = bits[:, None, None] & SUIT_BITS[None, :, None] & VALUE_PLANES[None, None, :]
    return (np.bitwise_count(planes).astype(np.int64) * VALUE_WEIGHTS).sum(axis=2)


class ThirtyOne(Game, SegmentRewards):
    """31 (Scat / Blitz); see the module docstring for rules, actions and observations.

    Segment rewards: the segments are the rounds, the potential is the lives potential of
    :mod:`fsmarena.games.thirtyone.potential` (observation parts ``segment`` and ``potential``).
    """

    segment_name = "round"
    #: every decide call is one phase (turn or discard), as the players read it
    decide_by = "phase"

    name = "thirtyone"
    title = "31 / Scat / Blitz (2-6 players, lives, knocking)"
    Config = ThirtyOneConfig
    action_names = ACTION_NAMES
    feature_names = FEATURE_NAMES
    #: training defaults measured on this game (``fsmarena.rl.train``), 1v1 against greedy, win rate against
    #: greedy over 4,000 games (docs/thirtyone-rewards.md).  Rewards: segment rewards, each round
    #: credited with its change of the lives potential (``reward = "segment"``, rl.segments), with the
    #: textbook sequential learners (K = 1) like every game.  Measured on the batched learners (batches
    #: of 10,000 games) at the study's quick budget (500,000 games, 3-4 seeds), they lift Monte Carlo
    #: from 40-53% to 63-68%, SARSA from 10-12% to 69-72% and Q-learning from 7-26% to 73-76%.  Monte Carlo
    #: explores with epsilon 0.1 decaying linearly to 0 (measured with the final reward: the thesis
    #: setting, greedy after two random opening decisions, reached 37% at 1,000,000 games; 0.05:
    #: 52-55%, 0.2 without the opening decisions: 33%); TD uses sample averages (alpha 1/n).
    train_defaults = {
        "mc": {
            "epsilon": 0.1,
            "epsilon_final": 0.0,
            "epsilon_schedule": "linear",
            "reward": "segment",
        },
        "td": {"alpha": "1/n", "reward": "segment"},
    }

    def __init__(self, config: ThirtyOneConfig | None = None):
        super().__init__(config)
        self.tables = _tables(self.config.three_of_a_kind2)
        S, L = self.config.players, self.config.lives
        self._next, self._rank, self._count = _seat_tables(S)
        self._next_flat = self._next.reshape(-1)
        self._rank_flat = self._rank.reshape(-1)
        self.n_turn_states = N_SCORE * N_GAIN * N_TURN * L * L * 2
        self.n_discard_states = 2 * 4 * N_SCORE * N_GAIN * 2
        #: the lives potential of the segment rewards (shared with the MLP agent and the kernel)
        self.potential = LivesPotential(S, L)

    @property
    def n_seats(self) -> int:
        return self.config.players

    @property
    def n_states(self) -> int:
        return self.n_turn_states + self.n_discard_states

    @property
    def encodings(self):
        return {
            "phase": 2,
            "knocked": 2,
            "score_bucket": N_SCORE,
            "gain_bucket": N_GAIN,
            "turn_bucket": N_TURN,
            "greedy_discard": 4,
            "greedy_turn": 2,
        }

    def encoding_label(self, name: str, value: int) -> str:
        """Readable value of an encoding, for figures of table-FSM inputs."""
        value = int(value)
        words = {
            "phase": ("turn", "discard"),
            "knocked": ("open", "knocked"),
            "score_bucket": tuple(f"score {x}" for x in SCORE_LABELS),
            "gain_bucket": tuple(f"gain {x}" for x in GAIN_LABELS),
            "turn_bucket": TURN_LABELS,
            "greedy_turn": ("greedy: stock", "greedy: pile"),
            "greedy_discard": tuple(f"greedy throws {g}" for g in GREEDY_LABELS),
        }.get(name)
        return words[value] if words is not None and 0 <= value < len(words) else f"{name}={value}"

    def state_label(self, index: int) -> str:
        index = int(index)
        L = self.config.lives
        if index < self.n_turn_states:
            rest, knocked = divmod(index, 2)
            rest, lv = divmod(rest, L * L)
            rest, tb = divmod(rest, N_TURN)
            sb, gain = divmod(rest, N_GAIN)
            own, opp = divmod(lv, L)
            return (
                f"turn: score {SCORE_LABELS[sb]}, discard {GAIN_LABELS[gain]}, {TURN_LABELS[tb]}, "
                f"lives {own + 1} vs {opp + 1}" + (", knocked" if knocked else "")
            )
        rest, knocked = divmod(index - self.n_turn_states, 2)
        rest, gain = divmod(rest, N_GAIN)
        rest, sb = divmod(rest, N_SCORE)
        source, greedy = divmod(rest, 4)
        return (
            f"discard: drew from {'discard' if source else 'deck'}, greedy {GREEDY_LABELS[greedy]} "
            f"-> {SCORE_LABELS[sb]} ({GAIN_LABELS[gain]})" + (", knocked" if knocked else "")
        )

    def builtin_players(self):
        from fsmarena.games.thirtyone.players import builtin_players

        return builtin_players()

    def bench_cases(self):
        from fsmarena.games.thirtyone.players import bench_cases

        return bench_cases(self)

    # ---- engine -----------------------------------------------------------------------
    def play_engine(
        self,
        n: int,
        rng: np.random.Generator,
        decide,
        deck_order: np.ndarray | None = None,
        watch: Callable | None = None,
        log: list | None = None,
    ) -> Outcome:
        """Play ``n`` games.  For tests: ``deck_order`` (``(n, R, 52)`` or ``(n, 52)``) fixes
        the card order of each game's first R rounds (dealt three at a time to the live
        players from the round's first player, then the face-up card, then the stock; later
        rounds are shuffled with ``rng``); ``watch(state, seat, phase, rows)`` is called
        before every decision; ``log`` receives ``(game, round, kind, knocker, lives)`` at
        every round end."""
        cfg, S = self.config, self.config.players
        if deck_order is not None:
            deck_order = np.asarray(deck_order, dtype=np.int64)
            if deck_order.ndim == 2:
                deck_order = deck_order[:, None, :]
            if deck_order.ndim != 3 or deck_order.shape[0] != n or deck_order.shape[2] != 52:
                raise FsmarenaError(f"thirtyone: deck_order must have shape ({n}, rounds, 52)")
            if not np.array_equal(np.sort(deck_order, axis=2), np.broadcast_to(np.arange(52), deck_order.shape)):
                raise FsmarenaError("thirtyone: every deck order must hold each of the 52 cards once")
        st = _State(n, S, cfg.lives)
        self._deal(st, np.arange(n), rng, deck_order)
        live = np.arange(n)
        while len(live):
            for seat in range(S):
                rows = live[st.in_round[live] & (st.mover[live] == seat)]
                if len(rows):
                    self._turn(st, seat, rows, decide, watch)
            ended = live[~st.in_round[live]]
            if len(ended):
                self._end_rounds(st, ended, log)
                over = st.done[ended]
                if not over.all():
                    self._deal(st, ended[~over], rng, deck_order)
                if over.any():
                    live = live[~st.done[live]]
        return Outcome(scores=st.lives.astype(float), rewards=rewards_from_ranking(st.lives))

    def _deal(self, st: _State, rows: np.ndarray, rng: np.random.Generator, deck_order) -> None:
        """Start a round in the games ``rows``: shuffle, deal, turn up a card, check dealt 31s."""
        m = len(rows)
        if deck_order is not None and deck_order.shape[1] > 0:
            scripted = st.rounds[rows] < deck_order.shape[1]
        else:
            scripted = np.zeros(m, dtype=bool)
        stock = np.empty((m, 52), dtype=np.int64)
        if scripted.any():
            stock[scripted] = deck_order[rows[scripted], st.rounds[rows[scripted]]]
        if not scripted.all():
            free = int((~scripted).sum())
            stock[~scripted] = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (free, 1)), axis=1)
        st.stock[rows] = stock
        S = self.config.players
        alive, first = st.alive.take(rows), st.first.take(rows)
        flat = stock.reshape(-1)
        start = np.arange(0, 52 * m, 52)
        blitz = np.zeros(m, dtype=bool)
        for seat in range(S):
            position = self._rank_flat.take((alive * S + first) * S + seat)
            at = start + 3 * np.maximum(position, 0)
            hand = combo_id(flat.take(at), flat.take(at + 1), flat.take(at + 2))
            st.hand[seat, rows] = hand
            blitz |= (position >= 0) & (self.tables.score2.take(hand) == BLITZ2)
        dealt = 3 * self._count.take(alive)
        top = flat.take(start + dealt)
        st.pile[rows, 0] = top
        st.plen[rows] = 1
        st.ptr[rows] = dealt + 1
        st.pile_bits[rows] = BIT[top]
        st.public[rows] = BIT[top]
        st.thrown[:, rows] = 0
        st.mover[rows] = first
        st.knocker[rows] = -1
        st.limit[rows] = self.config.max_turns
        st.knock_end[rows] = self.config.max_turns + 1
        st.turn[rows] = 0
        st.in_round[rows] = ~blitz
        st.end_kind[rows] = np.where(blitz, DEAL31, -1)

    def _turn(self, st: _State, seat: int, rows: np.ndarray, decide, watch) -> None:
        """One turn of ``seat`` in the games ``rows``: the turn decision, then the discard."""
        if watch is not None:
            watch(st, seat, TURN, rows)
        hand = st.hand[seat].take(rows)
        action = np.asarray(decide(seat, self._observe(st, seat, rows, hand, TURN), rows))
        knock = action == KNOCK
        if knock.any():
            ended = np.zeros(len(rows), dtype=bool)
            k = np.flatnonzero(knock)
            knockers = rows[k]
            st.knocker[knockers] = seat
            turn = st.turn[knockers]
            # the knock is turn t; the other live players then play turns t+1 .. t+live-1
            st.knock_end[knockers] = turn + self._count[st.alive[knockers]]
            st.limit[knockers] = np.minimum(st.limit[knockers], st.knock_end[knockers])
            if self.config.under_the_gun:
                gun = turn == 0
                self._end(st, knockers[gun], GUN)
                ended[k[gun]] = True
            d = np.flatnonzero(~knock)
            if len(d):
                ended[d] = self._draw_and_discard(st, seat, rows[d], hand[d], action[d] == DRAW_DISCARD, decide, watch)
        else:
            ended = self._draw_and_discard(st, seat, rows, hand, action == DRAW_DISCARD, decide, watch)
        turn = st.turn.take(rows) + 1
        st.turn[rows] = turn
        going = rows
        if ended.any():
            going, turn = rows[~ended], turn[~ended]
        over = turn >= st.limit.take(going)
        if over.any():
            stopped = going[over]
            complete = st.knock_end[stopped] <= self.config.max_turns  # else the cap came first
            self._end(st, stopped[complete], KNOCKED)
            self._end(st, stopped[~complete], CAP)
        st.mover[going] = self._next_flat.take(st.alive.take(going) * self.config.players + seat)

    def _draw_and_discard(
        self, st: _State, seat: int, rows: np.ndarray, hand: np.ndarray, from_discard: np.ndarray, decide, watch
    ) -> np.ndarray:
        """Draw (stock or discard), ask for the discard, apply it; True where the round ended."""
        t = self.tables
        base = rows * 52
        ptr = st.ptr.take(rows)
        if not from_discard.all():
            empty = (ptr >= 52) & ~from_discard
            if empty.any():
                self._turn_pile_over(st, rows[empty])
                ptr = st.ptr.take(rows)
        plen = st.plen.take(rows)
        drawn = np.where(
            from_discard, st.pile_flat.take(base + plen - 1), st.stock_flat.take(base + np.minimum(ptr, 51))
        ).astype(np.int64)
        st.ptr[rows] = ptr + ~from_discard
        plen = plen - from_discard
        pile_bits = st.pile_bits.take(rows)
        pile_bits = np.where(from_discard, pile_bits & ~BIT.take(drawn), pile_bits)
        if watch is not None:
            st.plen[rows] = plen
            st.pile_bits[rows] = pile_bits
            st.drawn[rows] = drawn
            watch(st, seat, DISCARD, rows)
        # greedy's discard (the abstract action discard_greedy): the best (score, total) over
        # the three swaps, unless keeping the hand is at least as good (stock draws only)
        best = t.swap.take(hand * 52 + drawn).astype(np.int64)
        greedy = np.where(from_discard | ((best >> 2) > t.key.take(hand)), best & 3, 3)
        obs = self._observe(st, seat, rows, hand, DISCARD, drawn, from_discard, plen, best, greedy)
        choice = np.asarray(decide(seat, obs, rows))
        choice = np.where(choice == DISCARD_GREEDY, DISCARD_0 + greedy, choice)
        keep = choice == DISCARD_DRAWN
        # the two cards kept from the hand (ascending) when position p is thrown, then insert
        at = hand * 3 + (np.minimum(choice, DISCARD_2) - DISCARD_0)
        low, high = t.kept_low.take(at), t.kept_high.take(at)
        lo = np.minimum(low, drawn)
        hi = np.maximum(high, drawn)
        mid = low + high + drawn - lo - hi
        new_hand = np.where(keep, hand, lo + CHOOSE2.take(mid) + CHOOSE3.take(hi))
        thrown = np.where(keep, drawn, t.cards_flat.take(at))
        st.hand[seat][rows] = new_hand
        st.pile_flat[base + plen] = thrown
        st.plen[rows] = plen + 1
        thrown_bit = BIT.take(thrown)
        st.pile_bits[rows] = pile_bits | thrown_bit
        st.public[rows] |= thrown_bit
        st.thrown[seat][rows] |= thrown_bit
        if watch is not None:
            st.drawn[rows] = -1
        blitz = t.score2.take(new_hand) == BLITZ2
        if blitz.any():
            self._end(st, rows[blitz], BLITZ)
        return blitz

    @staticmethod
    def _turn_pile_over(st: _State, rows: np.ndarray) -> None:
        """The stock is empty: all of the discard pile but its top becomes the stock, oldest first."""
        k = st.plen[rows] - 1  # at least 52 - 6 * 3 - 1 - 1 = 32 cards: no empty segments
        row_of = np.repeat(rows, k)
        j = np.arange(k.sum()) - np.repeat(np.cumsum(k) - k, k)
        cards = st.pile[row_of, j]
        st.stock[row_of, 52 - np.repeat(k, k) + j] = cards
        st.ptr[rows] = 52 - k
        st.pile[rows, 0] = st.pile[rows, k]
        st.plen[rows] = 1
        moved = np.add.reduceat(BIT.take(cards.astype(np.int64)), np.cumsum(k) - k)  # distinct bits
        st.pile_bits[rows] &= ~moved
        st.public[rows] &= ~moved

    @staticmethod
    def _end(st: _State, rows: np.ndarray, kind: int) -> None:
        st.in_round[rows] = False
        st.end_kind[rows] = kind

    def _end_rounds(self, st: _State, rows: np.ndarray, log: list | None) -> None:
        """Score finished rounds: lives lost, eliminations, end of game, next first player."""
        S = self.config.players
        seats = np.arange(S)
        alive_bits = st.alive.take(rows)
        alive = (alive_bits[:, None] >> seats) & 1 == 1
        scores = self.tables.score2.take(st.hand.take(rows, axis=1).T)
        kind = st.end_kind.take(rows)
        blitz = (kind == DEAL31) | (kind == BLITZ)
        low = np.where(alive, scores, 1 << 20).min(axis=1, keepdims=True)
        lowest = alive & (scores == low)
        all_tied = lowest.sum(axis=1) == alive.sum(axis=1)
        knocker = st.knocker.take(rows)[:, None] == seats
        showdown_loss = np.where(lowest & ~all_tied[:, None], np.where(knocker, 2, 1), 0)
        blitz_loss = (alive & (scores != BLITZ2)).astype(np.int64)
        loss = np.where(blitz[:, None], blitz_loss, showdown_loss)
        lives = np.maximum(st.lives.take(rows, axis=0) - loss, 0)
        st.lives[rows] = lives
        alive_bits = ((lives > 0) << seats).sum(axis=1)
        st.alive[rows] = alive_bits
        played = st.rounds.take(rows) + 1
        st.rounds[rows] = played
        st.turns_before[rows] += st.turn.take(rows)
        st.done[rows] = (self._count.take(alive_bits) <= 1) | (played >= self.config.max_rounds)
        st.first[rows] = self._next_flat.take(alive_bits * S + st.first.take(rows))
        if log is not None:
            for i, row in enumerate(rows):
                log.append(
                    (
                        int(row),
                        int(st.rounds[row]) - 1,
                        END_KINDS[kind[i]],
                        int(st.knocker[row]),
                        tuple(int(v) for v in lives[i]),
                    )
                )

    # ---- observations -----------------------------------------------------------------
    def _observe(
        self,
        st: _State,
        seat: int,
        rows: np.ndarray,
        hand: np.ndarray,
        phase: int,
        drawn: np.ndarray | None = None,
        from_discard: np.ndarray | None = None,
        pile_len: np.ndarray | None = None,
        best: np.ndarray | None = None,
        greedy: np.ndarray | None = None,
    ) -> Observation:
        """What ``seat`` sees in the games ``rows``; every part is computed on first use
        (the hot path only pays for what the players read)."""
        t, cfg = self.tables, self.config
        S, L = cfg.players, cfg.lives
        m = len(rows)
        memo: dict[str, np.ndarray] = {}
        score2 = t.score2.take(hand)
        if phase == TURN:
            drawn = np.full(m, -1, dtype=np.int64)
            from_discard = np.zeros(m, dtype=bool)
        elif drawn is None or from_discard is None:
            raise ValueError("a discard observation needs the drawn cards and where they came from")

        def cached(function: Callable[[], np.ndarray]) -> Callable[[], np.ndarray]:
            name = function.__name__

            def get() -> np.ndarray:
                if name not in memo:
                    memo[name] = function()
                return memo[name]

            return get

        @cached
        def knocked() -> np.ndarray:
            return st.knocker.take(rows) >= 0

        @cached
        def top() -> np.ndarray:
            """The face-up discard (-1 when a draw from the discard emptied the pile)."""
            plen = st.plen.take(rows) if pile_len is None else pile_len
            card = st.pile_flat.take(rows * 52 + np.maximum(plen - 1, 0)).astype(np.int64)
            return np.where(plen > 0, card, -1)

        def unseen(local: np.ndarray | None = None) -> np.ndarray:
            """Cards this seat cannot locate (not in its hand, the discard pile or a hand where
            they were seen going), as 52-bit sets, for all rows or the positions ``local``."""
            if local is None and "unseen" in memo:
                return memo["unseen"]
            r = rows if local is None else rows[local]
            h = hand if local is None else hand[local]
            pile_bits = st.pile_bits.take(r)
            if phase == DISCARD:  # a card just taken from the pile is in the air, not in the pile
                pile_bits = pile_bits & ~BIT.take(drawn if local is None else drawn[local])
            u = ~(pile_bits | t.bits.take(h)) & ALL_CARDS
            public, alive = st.public.take(r), st.alive.take(r)
            for other in range(S):
                if other != seat:
                    known = t.bits.take(st.hand[other].take(r)) & public
                    u &= ~np.where((alive >> other) & 1 == 1, known, np.uint64(0))
            if local is None:
                memo["unseen"] = u
            return u

        def expected_sum(local: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
            """Sum over unseen cards of the doubled score after drawing them, and their number
            (popcounts of the score's bit planes; float32 sums are exact below 2**24)."""
            u = unseen(local)
            h = hand if local is None else hand[local]
            counts = np.bitwise_count(t.best_planes.take(h, axis=0) & u[:, None]).astype(np.float32)
            return (counts @ PLANE_WEIGHTS).astype(np.int64), np.bitwise_count(u).astype(np.int64)

        @cached
        def expected_draw2() -> np.ndarray:
            total, count = expected_sum()
            return total / np.maximum(count, 1)

        @cached
        def turn_bucket() -> np.ndarray:
            """0 = the round's very first turn, 1 = first two laps, 2 = laps 3-4, 3 = later."""
            turn = st.turn.take(rows)
            lap = self._count.take(st.alive.take(rows))
            return np.where(turn == 0, 0, np.where(turn < 2 * lap, 1, np.where(turn < 4 * lap, 2, 3)))

        @cached
        def opp_lives() -> np.ndarray:
            """The fewest lives among the other live players."""
            others = np.delete(st.lives.take(rows, axis=0), seat, axis=1)
            return np.minimum(np.where(others > 0, others, L + 1).min(axis=1), L)

        if phase == TURN:

            def mask() -> np.ndarray:
                out = np.zeros((m, N_ACTIONS), dtype=bool)
                out[:, DRAW_DECK] = out[:, DRAW_DISCARD] = True
                out[:, KNOCK] = ~knocked()
                return out

            @cached
            def option2() -> np.ndarray:
                """Doubled score after taking the face-up discard (it must replace a card)."""
                return (t.swap.take(hand * 52 + top()) >> 8).astype(np.int64)

            @cached
            def greedy_turn() -> np.ndarray:
                take = np.flatnonzero(option2() > score2)
                out = np.full(m, DRAW_DECK, dtype=np.int64)
                if len(take):
                    total, count = expected_sum(take)
                    out[take[option2()[take] * count > total]] = DRAW_DISCARD
                return out

            def greedy_discard() -> np.ndarray:
                return np.zeros(m, dtype=np.int64)

            @cached
            def gain_bucket() -> np.ndarray:
                return t.gain_bucket.take(np.maximum(option2() - score2, -BLITZ2) + BLITZ2)

            def index() -> np.ndarray:
                sb = t.score_bucket.take(score2)
                lives = (st.lives[rows, seat] - 1) * L + opp_lives() - 1
                return (((sb * N_GAIN + gain_bucket()) * N_TURN + turn_bucket()) * (L * L) + lives) * 2 + knocked()
        else:
            if best is None or greedy is None:
                raise ValueError("a discard observation needs greedy's discard and the score it leaves")
            after2 = np.where(greedy < 3, best >> 8, score2)

            def mask() -> np.ndarray:
                out = np.zeros((m, N_ACTIONS), dtype=bool)
                out[:, DISCARD_GREEDY : DISCARD_2 + 1] = True
                out[:, DISCARD_DRAWN] = ~from_discard
                return out

            def option2() -> np.ndarray:
                """Doubled score after greedy's discard."""
                return after2

            def greedy_turn() -> np.ndarray:
                return np.full(m, DRAW_DECK, dtype=np.int64)

            def greedy_discard() -> np.ndarray:
                return greedy

            @cached
            def gain_bucket() -> np.ndarray:
                return t.gain_bucket.take(after2 - score2 + BLITZ2)

            def index() -> np.ndarray:
                code = ((from_discard * 4 + greedy) * N_SCORE + t.score_bucket.take(after2)) * N_GAIN
                return self.n_turn_states + (code + gain_bucket()) * 2 + knocked()

        def features() -> np.ndarray:
            choice = greedy_turn() if phase == TURN else greedy
            return self._features(
                st,
                seat,
                rows,
                hand,
                phase,
                drawn,
                from_discard,
                score2,
                knocked(),
                top(),
                option2(),
                expected_draw2(),
                unseen(),
                opp_lives(),
                choice,
            )

        return Observation(
            m,
            N_ACTIONS,
            index=index,
            features=features,
            mask=mask,
            step=lambda: st.turns_before.take(rows) + st.turn.take(rows),
            phase=phase,
            knocked=lambda: knocked().astype(np.int64),
            score_bucket=lambda: t.score_bucket.take(score2),
            gain_bucket=gain_bucket,
            turn_bucket=turn_bucket,
            greedy_discard=greedy_discard,
            greedy_turn=greedy_turn,
            score2=score2,
            hand=lambda: t.cards.take(hand, axis=0),
            top=top,
            drawn=drawn,
            from_discard=from_discard,
            round_turn=lambda: st.turn.take(rows),
            round=lambda: st.rounds.take(rows),
            lives=lambda: st.lives.take(rows, axis=0),
            expected_draw2=expected_draw2,
            segment=lambda: st.rounds.take(rows),
            potential=lambda: self.potential.value(st.lives.take(rows, axis=0), seat),
        )

    def _features(
        self,
        st,
        seat,
        rows,
        hand,
        phase,
        drawn,
        from_discard,
        score2,
        knocked,
        top,
        option2,
        expected2,
        unseen,
        opp_lives,
        greedy,
    ) -> np.ndarray:
        """The ``features`` vector (:data:`FEATURE_NAMES`, meanings in :data:`FEATURE_DOC`)."""
        t, cfg = self.tables, self.config
        m = len(rows)
        ar = np.arange(m)
        cols: dict[str, np.ndarray] = {}

        def suit_slots(card: np.ndarray, prefix: str) -> None:
            ok = card >= 0
            out = np.zeros((m, 4))
            out[ar[ok], CARD_SUIT[card[ok]]] = CARD_VALUE[card[ok]] / 11.0
            for k, suit in enumerate(SUIT_NAMES):
                cols[f"{prefix}_{suit}"] = out[:, k]

        def suit_sums(bits: np.ndarray, prefix: str, scale: float) -> None:
            sums = _value_sums(bits) / scale
            for k, suit in enumerate(SUIT_NAMES):
                cols[f"{prefix}_{suit}"] = sums[:, k]

        cards = t.cards.take(hand, axis=0)
        for p in range(3):
            suit_slots(cards[:, p], f"hand{p}")
        suit_slots(top, "top")
        suit_slots(drawn, "drawn")
        cols["phase"] = np.full(m, float(phase))
        cols["from_discard"] = from_discard.astype(float)
        cols["score"] = score2 / BLITZ2
        cols["option_score"] = option2 / BLITZ2
        cols["expected_draw"] = expected2 / BLITZ2
        candidate = top if phase == TURN else drawn
        for p in range(3):
            at = hand * 3 + p
            low, high = t.kept_low.take(at), t.kept_high.take(at)
            lo, hi = np.minimum(low, candidate), np.maximum(high, candidate)
            new = lo + CHOOSE2.take(low + high + candidate - lo - hi) + CHOOSE3.take(hi)
            cols[f"swap_score_{p}"] = (
                np.where(candidate >= 0, t.score2.take(np.where(candidate >= 0, new, 0)), score2) / BLITZ2
            )
        for k in range(4):
            cols[f"greedy_{k}"] = (greedy == k).astype(float)
        pile_bits = st.pile_bits.take(rows)
        if phase == DISCARD:
            pile_bits = pile_bits & ~BIT.take(drawn)
        seen = np.bitwise_count(pile_bits[:, None] & SUIT_BITS).astype(np.int64) / 13.0
        for k, suit in enumerate(SUIT_NAMES):
            cols[f"pile_seen_{suit}"] = seen[:, k]
        suit_sums(unseen, "unseen_value", SUIT_VALUE_TOTAL)
        alive = st.alive.take(rows)
        public = st.public.take(rows)
        for side, neighbour in (
            ("left", self._next_flat.take(alive * cfg.players + seat)),
            ("right", self._previous(alive, seat)),
        ):
            other = neighbour != seat
            theirs = t.bits.take(st.hand.reshape(-1).take(neighbour * st.n + rows)) & public
            suit_sums(np.where(other, theirs, np.uint64(0)), f"{side}_known", 31.0)
            thrown = st.thrown.reshape(-1).take(neighbour * st.n + rows)
            suit_sums(np.where(other, thrown, np.uint64(0)), f"{side}_thrown", SUIT_VALUE_TOTAL)
        turn = st.turn.take(rows)
        cols["first_turn"] = (turn == 0).astype(float)
        cols["knocked"] = knocked.astype(float)
        cols["turn"] = np.minimum(turn / cfg.max_turns, 1.0)
        cols["own_lives"] = st.lives[rows, seat] / cfg.lives
        cols["min_opp_lives"] = opp_lives / cfg.lives
        cols["opponents_left"] = (self._count.take(alive) - 1) / (cfg.players - 1)
        cols["stock_left"] = (52 - st.ptr.take(rows)) / 52.0
        return np.column_stack([cols[name] for name in FEATURE_NAMES])

    def _previous(self, alive: np.ndarray, seat: int) -> np.ndarray:
        """The live seat before ``seat`` (counter-clockwise) in each game."""
        S = self.config.players
        out = np.full(len(alive), seat, dtype=np.int64)
        for k in range(S - 1, 0, -1):  # nearest last
            candidate = (seat - k) % S
            out = np.where((alive >> candidate) & 1 == 1, candidate, out)
        return out
