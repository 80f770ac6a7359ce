"""Stupide Vautour / Hol's der Geier (seed 004): simultaneous bidding for 2-5 players.

Rules.  Every player holds the bid cards ``1..cards`` (default 15).  The prize deck (default
-5..-1 and +1..+10) is shuffled; each turn one prize is turned face up and every player bids one
of its remaining cards at the same time.  A positive prize goes to the highest bid, a negative
one to the lowest.  After ``cards`` turns every card has been bid exactly once; a player's score
is the sum of the prizes it won, and the highest total wins (+1 sole winner, 0 shared first
place, -1 otherwise, from the exact integer totals).

Ties (``tie_rule``).  In both rules a bid that another player matched is *out*: the prize goes
to the highest (positive prize) or lowest (negative prize) bid that nobody else played.  So
bids 10, 10, 7 on a +5 give it to the 7 ("the tie passes down to the next highest bid"), and
10, 10, 7, 7, 3 give it to the 3.  The rules differ only when no bid is unmatched:

* ``"seed"`` (default; the seed notebook): the prize is discarded, nobody gets it.
* ``"cancel"`` (the published rules): the prize carries over and is added to the next one; the
  next turn is played for the whole pot, whose *sum* decides whether the highest or the lowest
  unmatched bid takes it (a pot that sums to zero follows the sign of the newest prize).  The
  pot keeps growing while every bid stays matched; a pot still open after the last turn is
  discarded.

The deck is a parameter (distinct non-zero integers, as many as there are cards).  Left unset
it is the default deck for the number of cards: ``cards // 3`` maluses ``-k..-1`` and the rest
bonuses ``1..cards - k``, which is the published -5..-1, +1..+10 for 15 cards and
-2, -1, +1..+4 for the seed's reduced 6-card game.

Observations.  ``index`` is the seed's *no-memory state*: the current prize and the set of the
player's own remaining cards, ``prize_position * (2**cards - 1) + (hand_bits - 1)`` with
``prize_position`` the prize's place in the deck sorted by value and ``hand_bits`` the bitmask
of remaining cards (bit ``c - 1`` for card ``c``).  Empty hands never decide, so the range is
dense and its size is the seed's count: ``cards * (2**cards - 1)`` = 491,505 for 15 cards, 378
for 6.  ``features`` (all in [0, 1], for binary decision automata): prize value, prize rank,
value at stake (with any carried pot), own lowest / mean / highest card, the highest card any
opponent still holds, turn fraction, own score lead.  Encodings (FSM inputs): ``prize`` (prize
position), ``opp_last`` (the next seat's last bid: 0 none yet, 1 low, 2 middle, 3 high third),
``carry`` (1 when a carried pot is at stake), ``phase`` (0 early, 1 middle, 2 late third of the
turns) and ``lead`` (0 behind the best opponent, 1 level, 2 ahead).  Further parts for strategies: ``hand``
(bitmask), ``opp_hand`` (the next seat's hand: bids are revealed, so it is public),
``prizes_left`` (bitmask of the deck positions still face down), ``prize_value``, ``stake``,
``rank``.

State spaces (``state``).  ``index`` is one of three tabular observations, all dense
``0 .. n_states - 1``:

* ``"no-memory"`` (default, the seed's): the prize and the set of own remaining cards, above.
* ``"with-score"``: the no-memory state and the player's *lead* (own points minus the best
  opponent's), clipped to ``-score_clip .. +score_clip`` (``score_clip`` unset: the deck's whole
  span, i.e. exact), and under the cancel rule whether a pot is carried:
  ``(no_memory * (2 * clip + 1) + lead + clip) * carry_values + carry``.  Why: with only the
  final win/loss as reward, a bootstrapping learner (SARSA, Q-learning) on the no-memory state
  cannot tell a won game from a lost one before the end (the score is not in its state), so its
  values never separate; Monte Carlo does not bootstrap and learns anyway.  The 6-card game has
  378 x 27 = 10,206 such states.
* ``"buckets"``: a fixed-size abstraction that scales to the full game:
  ``prize position`` (``cards`` values) x ``phase`` (3: first, middle, last third of the turns)
  x ``high`` (3: own highest remaining card below / equal to / above the highest card any
  opponent holds) x ``lead`` (5: behind by more than
  the largest prize size, behind, level, ahead, ahead by more than the largest prize size)
  x ``carry`` (2 under the cancel rule, else 1), mixed radix in that order (prize most
  significant): 675 states for 15 cards with the seed rule (45 per prize).  Parts were chosen
  by measurement: a version that also compared the lowest cards (2,025 states) learned more
  slowly with no better result against the builtins.  The opponents'
  remaining cards are public (every bid is revealed), so the abstraction uses only what a
  player at the table knows.  It forgets the exact hand, so it is meant for the abstract
  actions (``lowest``, ``bid_rank`` ... are relative to the hand).

Actions.  One numbering serves every action set, so a saved player means the same thing in
every game with the same number of cards:

* actions ``0..6`` are *abstract* bids, turned into a card by the game: ``lowest``,
  ``median`` (the lower median of the remaining cards), ``highest``, ``bid_rank`` (the card
  nearest to the prize's rank, see below), ``rank_up`` / ``rank_down`` (nearest to rank +1 /
  -1; ties go up / down) and ``random`` (a uniformly random remaining card, drawn by the
  game).  ``lowest`` is action 0 on purpose: a table that falls back to its first legal
  action (a state a learner never visited) then bids the lowest card in every action set;
* actions ``7 .. 6 + cards`` are *concrete* bids: action ``6 + c`` bids card ``c``
  (:meth:`StupideVautour.bid_action`).

The prize's *rank* orders the deck by importance, ``(|value|, value)``: for the default deck
-1, +1, -2, +2, ..., -5, +5, +6, ..., +10 get ranks 1..15, so the most valuable bonuses and the
worst maluses are matched with high cards (with positive prizes only, as in Goofspiel, the
rank is the value).  ``nearest`` breaks distance ties towards the lower card for ``bid_rank``.

``action_set`` chooses the action space offered to a player:

* ``"bids"`` (default, tabular learners): ``n_actions = 7 + cards``, the mask allows exactly the
  concrete bids of the cards in hand (the abstract block is masked out);
* ``"abstract"`` (automata): ``n_actions = 7``, no mask (every abstract action is always legal);
* ``"both"``: ``n_actions = 7 + cards``, abstract actions and the concrete bids in hand are legal.

Why this design.  A learner trained on ``bids`` plays unchanged in ``both`` (same states, same
action numbers) and so does an automaton evolved on ``abstract`` (its actions are a prefix),
so tabular policies, automata and builtins meet in one ``both`` game; loading a ``bids`` policy
into an ``abstract`` game fails loudly (its actions are out of range) instead of being silently
re-read.  The seed's strategies are written in terms of the abstract actions (``max`` = highest
card, ``random`` = a uniformly random remaining card, ...); in the ``bids`` action set they
turn their abstract choice into the concrete card with the kernel's rule (``bid_card`` in
:mod:`fsmarena.games.vautour.kernel`, which the exact solution's law of the card reads too), so
they play identically in every action set.  An illegal concrete bid (a card already played) is refused
with one clear error, so every card is bid exactly once.

Hands.  A hand is an int bitmask, and the kernel (:mod:`fsmarena.games.vautour.kernel`), the game
as played, computes every rule of a hand from its bits.  ``_Tables`` keeps the deck's numbers the
kernel's rules are packed from, and each hand's cards in order for the plain reference.  A game
pickles as its configuration only: a worker process rebuilds the tables once and caches them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game, Observation
from fsmarena.games.bidding import public_states
from fsmarena.games.bidding_zero_sum import BiddingRules, SolvableBidding
from fsmarena.games.capabilities import SimultaneousMoves
from fsmarena.games.driver import driver_for

LOWEST, MEDIAN, HIGHEST, BID_RANK, RANK_UP, RANK_DOWN, RANDOM = range(7)
ABSTRACT_NAMES = ("lowest", "median", "highest", "bid_rank", "rank_up", "rank_down", "random")
N_ABSTRACT = len(ABSTRACT_NAMES)
FEATURE_NAMES = ("prize", "rank", "stake", "low", "mean", "high", "opp_high", "turn", "lead")
TIE_RULES = ("seed", "cancel")
ACTION_SETS = ("bids", "abstract", "both")
STATES = ("no-memory", "with-score", "buckets")
#: ``with-score`` tables beyond this many states are refused (use a smaller score_clip or buckets)
MAX_STATES = 4_000_000
#: sizes of the ``buckets`` state's parts after the prize (phase, high, lead)
PHASES, REACH, LEAD_BUCKETS = 3, 3, 5
MAX_CARDS = 16
#: number of buckets of the ``opp_last`` encoding besides "no bid yet"
OPP_BUCKETS = 3


def default_prizes(cards: int) -> tuple[int, ...]:
    """The default deck for ``cards`` cards: ``cards // 3`` maluses -k..-1, then bonuses 1..cards-k."""
    k = cards // 3
    return tuple(range(-k, 0)) + tuple(range(1, cards - k + 1))


@dataclass(frozen=True)
class VautourConfig:
    """Stupide Vautour rules: ``players`` (2-5), bid cards ``1..cards``, the prize deck
    (``None`` = :func:`default_prizes`), the tie rule (``seed`` or ``cancel``) and the action
    set offered to players (``bids``, ``abstract`` or ``both``); see the module docstring."""

    players: int = 2
    cards: int = 15
    prizes: tuple[int, ...] | None = None
    tie_rule: str = "seed"
    action_set: str = "bids"
    state: str = "no-memory"
    score_clip: int | None = None

    def __post_init__(self) -> None:
        if not _is_int(self.players) or not 2 <= self.players <= 5:
            raise FsmarenaError(f"vautour: players must be 2 to 5, got {self.players!r}")
        if not _is_int(self.cards) or not 1 <= self.cards <= MAX_CARDS:
            raise FsmarenaError(f"vautour: cards must be 1 to {MAX_CARDS}, got {self.cards!r}")
        if self.prizes is None:
            object.__setattr__(self, "prizes", default_prizes(self.cards))
        prizes = self.prizes
        if not isinstance(prizes, (tuple, list)) or not all(_is_int(p) for p in prizes):
            raise FsmarenaError("vautour: prizes must be a list of whole numbers")
        prizes = tuple(int(p) for p in prizes)
        object.__setattr__(self, "prizes", prizes)
        if len(prizes) != self.cards:
            raise FsmarenaError(
                f"vautour: the prize deck has {len(prizes)} cards but players bid "
                f"{self.cards} cards: they must be equal"
            )
        if 0 in prizes or len(set(prizes)) != len(prizes):
            raise FsmarenaError("vautour: prizes must be distinct and non-zero")
        if any(abs(p) > 10**9 for p in prizes):
            raise FsmarenaError("vautour: prizes must be at most 10**9 in size")
        if self.tie_rule not in TIE_RULES:
            raise FsmarenaError(f"vautour: unknown tie_rule '{self.tie_rule}' (known: {', '.join(TIE_RULES)})")
        if self.action_set not in ACTION_SETS:
            raise FsmarenaError(f"vautour: unknown action_set '{self.action_set}' (known: {', '.join(ACTION_SETS)})")
        if self.state not in STATES:
            raise FsmarenaError(f"vautour: unknown state '{self.state}' (known: {', '.join(STATES)})")
        if self.score_clip is not None:
            if not _is_int(self.score_clip) or self.score_clip < 1:
                raise FsmarenaError(f"vautour: score_clip must be a positive whole number, got {self.score_clip!r}")
            if self.state != "with-score":
                raise FsmarenaError("vautour: score_clip only applies to state=with-score")
            object.__setattr__(self, "score_clip", int(self.score_clip))
        if self.state == "with-score":
            size = (
                self.cards
                * ((1 << self.cards) - 1)
                * (2 * self.lead_clip + 1)
                * (2 if self.tie_rule == "cancel" else 1)
            )
            if size > MAX_STATES:
                raise FsmarenaError(
                    f"vautour: state=with-score gives {size:,} states with {self.cards} cards (at most "
                    f"{MAX_STATES:,}): set a smaller score_clip, fewer cards, or use state=buckets"
                )

    @property
    def lead_clip(self) -> int:
        """The ``with-score`` state's clip of the lead: ``score_clip``, else the deck's span."""
        if self.score_clip is not None:
            return self.score_clip
        if self.prizes is None:  # __post_init__ fills in the default deck before anything reads it
            raise ValueError("vautour: the prize deck is not set yet")
        return sum(abs(p) for p in self.prizes)


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


class _Tables:
    """The deck's numbers the kernel's rules are packed from, and each hand's cards in order
    (``popcount``, ``select``) over the ``2**cards`` hand bitmasks, for the plain reference's
    random tables (the rules, the card each bid makes included, are the kernel's)."""

    def __init__(self, cards: int, prizes: tuple[int, ...]):
        C = cards
        H = 1 << C
        self.C, self.H = C, H
        #: prize values in ascending order: prize position p <-> values[p]
        self.values = np.array(sorted(prizes), dtype=np.int64)
        importance = sorted(range(C), key=lambda p: (abs(int(self.values[p])), int(self.values[p])))
        #: rank[p] in 1..C: the prize's place in the deck ordered by (|value|, value)
        self.rank = np.empty(C, dtype=np.int64)
        self.rank[importance] = np.arange(1, C + 1)

        hands = np.arange(H, dtype=np.int64)
        faces = np.arange(1, C + 1)
        bits = ((hands[:, None] >> (faces - 1)) & 1).astype(bool)  # (H, C)
        self.popcount = bits.sum(axis=1).astype(np.int64)
        # select[h, j] = j-th smallest card of h (0 beyond the hand); card tables are int8
        self.select = np.zeros((H, C), dtype=np.int8)
        rows, cols = np.nonzero(bits)
        position = np.cumsum(bits, axis=1) - 1
        self.select[rows, position[rows, cols]] = cols + 1
        # the deck's sums (the stake feature's range and the lead's scale, packed into the kernel's rules)
        self.negative_sum = int(self.values[self.values < 0].sum())
        self.positive_sum = int(self.values[self.values > 0].sum())
        self.span = int(np.abs(self.values).sum())
        self.largest_size = int(np.abs(self.values).max())

    @property
    def full(self) -> int:
        return self.H - 1


@functools.lru_cache(maxsize=8)
def _tables(cards: int, prizes: tuple[int, ...]) -> _Tables:
    """Tables depend on the cards and the deck only (shared by every player count and rule)."""
    return _Tables(cards, prizes)


class StupideVautour(Game, SimultaneousMoves, SolvableBidding):
    """Stupide Vautour / Hol's der Geier; see the module docstring for rules, actions, tables."""

    name = "vautour"
    title = "Stupide Vautour / Hol's der Geier (2-5 players, simultaneous bids, seed 004)"
    Config = VautourConfig
    phrases = "fsmarena.games.vautour.phrases:PHRASES"

    def __init__(self, config: VautourConfig | None = None):
        super().__init__(config)
        self.tables = _tables(self.config.cards, self.config.prizes)

    def __reduce__(self):
        # ship the rules, not the tables (tens of MB): workers rebuild them once, cached
        return (self.__class__, (self.config,))

    # ---- interface -------------------------------------------------------------------
    @property
    def n_seats(self) -> int:
        return self.config.players

    @property
    def action_names(self) -> tuple[str, ...]:
        if self.config.action_set == "abstract":
            return ABSTRACT_NAMES
        return ABSTRACT_NAMES + tuple(f"bid_{c}" for c in range(1, self.config.cards + 1))

    @property
    def n_actions(self) -> int:
        return N_ABSTRACT if self.config.action_set == "abstract" else N_ABSTRACT + self.config.cards

    @property
    def n_states(self) -> int:
        return self._no_memory_states * self._state_radix

    @property
    def _no_memory_states(self) -> int:
        """States before the extra parts: the no-memory state, or the buckets state's prize."""
        return self.config.cards * (self.tables.H - 1) if self.config.state != "buckets" else self.config.cards

    @property
    def _carry_values(self) -> int:
        return 2 if self.config.tie_rule == "cancel" else 1

    @property
    def _state_radix(self) -> int:
        """How many states each no-memory state (or prize, for buckets) is split into."""
        cfg = self.config
        if cfg.state == "with-score":
            return (2 * cfg.lead_clip + 1) * self._carry_values
        if cfg.state == "buckets":
            return PHASES * REACH * LEAD_BUCKETS * self._carry_values
        return 1

    feature_names = FEATURE_NAMES
    #: FSMs read the prize by default: the tabular state has 491,505 states with 15 cards
    fsm_inputs = "prize"

    #: training defaults measured on this game (``fsmarena.rl.train``): 200,000 games against a mixture
    #: of random, max, min and prize-rank on the 15-card ``buckets`` state with abstract actions.
    #: Monte Carlo's thesis setting (greedy after two random opening bids) explores too little
    #: in a 15-turn game (it lost to prize-rank: 45% wins); epsilon 0.2 decaying linearly to 0
    #: won 96%.  TD's generic step 0.001 is too small for this budget; 0.05 and 0.1 did alike.
    train_defaults = {"mc": {"epsilon": 0.2, "epsilon_schedule": "linear", "epsilon_final": 0.0}, "td": {"alpha": 0.05}}

    @property
    def encodings(self):
        return {"prize": self.config.cards, "opp_last": OPP_BUCKETS + 1, "carry": 2, "phase": 3, "lead": 3}

    def encoding_label(self, part: str, value: int) -> str:
        """Readable value of an encoding (FSM input labels in figures)."""
        if part == "prize":
            return f"prize {int(self.tables.values[value]):+d}"
        names = {
            "opp_last": ("opp none", "opp low", "opp mid", "opp high"),
            "carry": ("no pot", "pot carried"),
            "phase": ("early", "middle", "late"),
            "lead": ("behind", "level", "ahead"),
        }
        return names[part][value]

    def bid_action(self, card: int) -> int:
        """The action number of the concrete bid of ``card`` (not in the abstract action set)."""
        if self.config.action_set == "abstract":
            raise FsmarenaError("vautour: the abstract action set has no concrete bids")
        if not 1 <= card <= self.config.cards:
            raise FsmarenaError(f"vautour: no card {card} (cards are 1..{self.config.cards})")
        return N_ABSTRACT + card - 1

    def state_label(self, index: int) -> str:
        cfg = self.config
        index = int(index)
        if not 0 <= index < self.n_states:
            raise FsmarenaError(f"vautour: no state {index} (states are 0..{self.n_states - 1})")
        base, rest = divmod(index, self._state_radix)
        rest, carry = divmod(rest, self._carry_values)
        pot = ", pot carried" if carry else ""
        if cfg.state == "buckets":
            rest, lead = divmod(rest, LEAD_BUCKETS)
            phase, high = divmod(rest, REACH)
            reach = ("below", "level", "above")
            return (
                f"prize {int(self.tables.values[base]):+d}: {('early', 'middle', 'late')[phase]}, "
                f"high card {reach[high]}, "
                f"{('far behind', 'behind', 'level', 'ahead', 'far ahead')[lead]}{pot}"
            )
        position, bits = divmod(base, self.tables.H - 1)
        bits += 1
        cards = [c for c in range(1, cfg.cards + 1) if bits >> (c - 1) & 1]
        label = f"prize {int(self.tables.values[position]):+d}, hand {' '.join(map(str, cards))}"
        if cfg.state == "with-score":
            lead = rest - cfg.lead_clip
            label += f", lead {'≤' if lead == -cfg.lead_clip else '≥' if lead == cfg.lead_clip else ''}{lead:+d}"
        return label + pot

    # ---- exact solution (two players, small decks: games.bidding_zero_sum) -----------------
    #: the best response, equilibrium and exploitability of two-player Stupide Vautour
    solver = "fsmarena.games.vautour.exploit"

    def solver_rules(self) -> BiddingRules:
        cfg = self.config
        return BiddingRules(cfg.players, cfg.cards, tuple(cfg.prizes or ()), cfg.tie_rule)

    def public_observation(self, turn: int, prize: np.ndarray, state: dict[str, np.ndarray]) -> Observation:
        driver = driver_for(self)
        states = public_states(driver.p, turn, prize, state, offset=0, slots=(state["pot"], state["carried"]))
        return driver.observation(states, np.arange(len(prize)), 1)

    def public_key(self, obs: Observation) -> tuple[np.ndarray, ...]:
        n = obs.n
        value = np.broadcast_to(obs.prize_value, (n,))
        stake = np.broadcast_to(obs.stake, (n,))
        pot = stake - value if self.config.tie_rule == "cancel" else np.zeros(n, dtype=np.int64)
        lead = np.rint((np.asarray(obs.features)[:, 8] - 0.5) * 2 * self.tables.span).astype(np.int64)
        return obs.hand, obs.opp_hand, obs.prizes_left, obs.prize, pot, lead

    def card_actions(self, cards: np.ndarray) -> np.ndarray:
        if self.config.action_set == "abstract":
            raise FsmarenaError("vautour: the abstract action set has no concrete bids: use action_set bids or both")
        return np.asarray(cards) + (N_ABSTRACT - 1)
