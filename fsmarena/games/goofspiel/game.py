"""Goofspiel (the classic rules, as OpenSpiel plays them): simultaneous bids for prize cards.

Rules.  Each of ``players`` (2-4) holds the bid cards ``1..cards`` (default 13).  The prize
deck is ``1..cards``; ``points_order`` says in which order it is turned up: ``random`` (a
fresh shuffle per game), ``descending`` (``cards`` first) or ``ascending``.  Each turn one
prize is turned face up and every player bids one of its remaining cards at the same time.
The single highest bid wins the prize; when two or more players share the highest bid the
prize is discarded (no carry-over, and a lower bid never inherits it).  After ``cards`` turns
a player's score is the sum of the prizes it won; the reward ranks the exact totals like every
game of the toolkit (:func:`fsmarena.games.base.rewards_from_ranking`: +1 sole winner, 0 shared first
place, -1 otherwise).

Why it is not Stupide Vautour with a positive deck.  With two players the rules coincide
(a matched bid leaves no unmatched one), and the tests check it game by game.  With three or
more they differ: Stupide Vautour gives the prize to the highest *unmatched* bid (10, 10, 7:
the 7 wins) while Goofspiel discards it whenever the highest bid is shared.

Observations.  ``index`` is the exact own information when the prize order is fixed and the
natural no-memory state otherwise: the prize on the table and the set of own remaining cards,
``(prize - 1) * (2**cards - 1) + (hand_bits - 1)`` (bit ``c - 1`` for card ``c``; the empty
hand never decides, so the range is dense): 106,483 states for 13 cards, 21 for 3.  Why this
one: it is what a bid depends on in a one-shot view of the turn, it is exact for tiny decks
and a tabular learner fits it at the study's 6 cards; a whole-history state (opponent's hand,
prizes left, score) would be ``cards``-fold larger per part.

``state = "with-score"`` adds the player's lead over the best opponent, clipped to
``-score_clip .. +score_clip`` (unset: the deck's total, i.e. exact):
``no_memory * (2 * clip + 1) + lead + clip``.  Why: with only the final win/loss as reward,
a bootstrapping learner (SARSA, Q-learning) on the no-memory state cannot tell a won game
from a lost one before the end: against ``match`` the TD learners do not learn on the no-memory
state and win every game on ``with-score`` (the measurements: the rules page, ``rules.md``).
``state = "public"`` also reads the next seat's remaining cards (public: every bid is
revealed): ``(no_memory * (2**cards - 1) + next_hand_bits - 1) * (2 * clip + 1) + lead + clip``,
18,900 states for 4 cards.  Why: against ``random`` the best bid depends on the cards the
opponent can still bid, and Q-learning wins more on ``public`` than on ``with-score`` or the
no-memory state (the measurements: ``rules.md``, ``fsmarena bench goofspiel --case learning``).
The default ``state = "auto"`` is the richest of ``public``, ``with-score`` and ``no-memory``
whose table fits: ``public`` up to 6 cards, ``with-score`` for 7-11, ``no-memory`` from 12 (the
13-card game keeps its 106,483 states); the configuration stores the state chosen.
Tables beyond 4,000,000 states are refused.
``features`` (all in [0, 1], for binary decision automata): prize, own lowest / mean / highest
card, highest card any opponent still holds, turn fraction, own lead over the best opponent
(scaled by the deck's total), share of the deck's points still face down.  Encodings (FSM
inputs, small alphabets): ``prize`` (``cards`` values), ``opp_last`` (the next seat's last bid:
0 none yet, then low / middle / high third), ``phase`` (early / middle / late third of the
turns) and ``lead`` (0 behind the best opponent, 1 level, 2 ahead).  Further parts for
strategies: ``prize_value``, ``hand`` (bitmask), ``opp_hand`` (the next seat's: bids are
revealed, so it is public), ``prizes_left`` (bitmask of prize values still face down).

Actions.  Action ``c - 1`` bids card ``c``; the legal mask allows the cards in hand, and a bid
of a card no longer held is refused (one clear error), so every card is bid exactly once.

Simultaneous moves (:class:`fsmarena.games.capabilities.SimultaneousMoves`): each turn every seat is
asked, in seat order, with an observation built before any bid of the turn is revealed.

Exact solution (:class:`fsmarena.games.bidding_zero_sum.SolvableBidding`): two-player Goofspiel with
prizes in random order is Stupide Vautour with the prizes ``1..cards``, so its solver, best
response and equilibrium player serve it, up to 5 cards (see :attr:`Goofspiel.max_solve_cards`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game, Observation
from fsmarena.games.bidding import public_states
from fsmarena.games.bidding_zero_sum import BiddingRules, SolvableBidding
from fsmarena.games.capabilities import SimultaneousMoves
from fsmarena.games.driver import driver_for

POINTS_ORDERS = ("random", "descending", "ascending")
STATES = ("no-memory", "with-score", "public")
#: the default ``state``: the richest of :data:`STATES` whose table fits :data:`MAX_STATES`
AUTO = "auto"
#: the states that read the lead (and take ``score_clip``)
SCORED_STATES = ("with-score", "public")
#: ``with-score`` tables beyond this many states are refused (set a smaller score_clip)
MAX_STATES = 4_000_000
FEATURE_NAMES = ("prize", "low", "mean", "high", "opp_high", "turn", "lead", "left")
MAX_CARDS = 16
MAX_PLAYERS = 4
#: buckets of the ``opp_last`` encoding besides "no bid yet"
OPP_BUCKETS = 3
PHASES = 3


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


@dataclass(frozen=True)
class GoofspielConfig:
    """Goofspiel rules: ``players`` (2-4), bid cards and prizes ``1..cards`` (1-16) and the
    order the prizes are turned up (``random``, ``descending`` or ``ascending``)."""

    players: int = 2
    cards: int = 13
    points_order: str = "random"
    state: str = AUTO
    score_clip: int | None = None

    def __post_init__(self) -> None:
        if not _is_int(self.players) or not 2 <= self.players <= MAX_PLAYERS:
            raise FsmarenaError(f"goofspiel: players must be 2 to {MAX_PLAYERS}, got {self.players!r}")
        if not _is_int(self.cards) or not 1 <= self.cards <= MAX_CARDS:
            raise FsmarenaError(f"goofspiel: cards must be 1 to {MAX_CARDS}, got {self.cards!r}")
        if self.points_order not in POINTS_ORDERS:
            raise FsmarenaError(
                f"goofspiel: unknown points_order '{self.points_order}' (known: {', '.join(POINTS_ORDERS)})"
            )
        if self.state not in STATES + (AUTO,):
            raise FsmarenaError(f"goofspiel: unknown state '{self.state}' (known: {', '.join(STATES + (AUTO,))})")
        if self.state == AUTO:
            object.__setattr__(self, "state", richest_state(self.cards, self.score_clip))
        if self.score_clip is not None:
            if not _is_int(self.score_clip) or self.score_clip < 1:
                raise FsmarenaError(f"goofspiel: score_clip must be a positive whole number, got {self.score_clip!r}")
            if self.state not in SCORED_STATES:
                raise FsmarenaError("goofspiel: score_clip only applies to state=with-score or public")
        size = state_count(self.cards, self.state, self.lead_clip)
        if size > MAX_STATES:
            raise FsmarenaError(
                f"goofspiel: state={self.state} gives {size:,} states with {self.cards} cards (at most "
                f"{MAX_STATES:,}): set a smaller score_clip or fewer cards"
            )

    @property
    def lead_clip(self) -> int:
        """The ``with-score`` and ``public`` states' clip of the lead: ``score_clip``, else the deck's total."""
        return int(self.score_clip) if self.score_clip is not None else self.cards * (self.cards + 1) // 2


def state_count(cards: int, state: str, lead_clip: int) -> int:
    """How many tabular states ``state`` has with ``cards`` cards (module docstring)."""
    hands = (1 << cards) - 1
    count = cards * hands
    if state == "public":
        count *= hands
    if state in SCORED_STATES:
        count *= 2 * lead_clip + 1
    return count


def richest_state(cards: int, score_clip: int | None) -> str:
    """The ``auto`` state: the first of ``public``, ``with-score``, ``no-memory`` whose table
    has at most :data:`MAX_STATES` states (``no-memory`` fits every deck)."""
    clip = score_clip if score_clip is not None else cards * (cards + 1) // 2
    for state in ("public", "with-score"):
        if state_count(cards, state, clip) <= MAX_STATES:
            return state
    return "no-memory"


class Goofspiel(Game, SimultaneousMoves, SolvableBidding):
    """Goofspiel; see the module docstring for rules, observations and actions."""

    name = "goofspiel"
    title = "Goofspiel (2-4 players, simultaneous bids for prizes 1..n, ties discard the prize)"
    Config = GoofspielConfig
    phrases = "fsmarena.games.goofspiel.phrases:PHRASES"
    feature_names = FEATURE_NAMES
    #: FSMs read the prize by default: the tabular state has 106,483 states with 13 cards
    fsm_inputs = "prize"

    #: training defaults (``fsmarena.rl.train``): TD's generic step 0.001 is too small for a study
    #: budget, and 0.1 beat 0.05 and 0.2 (the measurements: ``rules.md``, ``fsmarena bench goofspiel``)
    train_defaults = {"td": {"alpha": 0.1}}

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.__class__, (self.config,))

    @property
    def n_seats(self) -> int:
        return int(self.config.players)

    @property
    def full_hand(self) -> int:
        """The bitmask of a full hand (every card of the deck)."""
        return (1 << self.config.cards) - 1

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(f"bid_{c}" for c in range(1, self.config.cards + 1))

    @property
    def n_states(self) -> int:
        cfg = self.config
        return state_count(cfg.cards, cfg.state, cfg.lead_clip)

    @property
    def _lead_values(self) -> int:
        """How many lead values the state tells apart (1 for the no-memory state)."""
        return 2 * self.config.lead_clip + 1 if self.config.state in SCORED_STATES else 1

    @property
    def _opponent_hands(self) -> int:
        """How many hands of the next seat the state tells apart (``public`` only)."""
        return self.full_hand if self.config.state == "public" else 1

    @property
    def encodings(self) -> dict[str, int]:
        return {"prize": self.config.cards, "opp_last": OPP_BUCKETS + 1, "phase": PHASES, "lead": 3}

    def encoding_label(self, name: str, value: int) -> str:
        """Readable value of an encoding (FSM input labels in figures)."""
        if name == "prize":
            return f"prize {value + 1}"
        names = {
            "opp_last": ("opp none", "opp low", "opp mid", "opp high"),
            "phase": ("early", "middle", "late"),
            "lead": ("behind", "level", "ahead"),
        }
        return names[name][value]

    def state_label(self, index: int) -> str:
        index = int(index)
        if not 0 <= index < self.n_states:
            raise FsmarenaError(f"goofspiel: no state {index} (states are 0..{self.n_states - 1})")
        base, lead = divmod(index, self._lead_values)
        base, opponent = divmod(base, self._opponent_hands)
        prize, bits = divmod(base, self.full_hand)
        label = f"prize {prize + 1}, hand {self._cards_text(bits + 1)}"
        if self.config.state == "public":
            label += f", opponent's hand {self._cards_text(opponent + 1)}"
        if self.config.state in SCORED_STATES:
            clip = self.config.lead_clip
            lead -= clip
            label += f", lead {'≤' if lead == -clip else '≥' if lead == clip else ''}{lead:+d}"
        return label

    def _cards_text(self, hand: int) -> str:
        return " ".join(str(c) for c in range(1, self.config.cards + 1) if hand >> (c - 1) & 1)

    # ---- exact solution (two players, small decks: games.bidding_zero_sum) -----------------
    #: two-player Goofspiel is solved as two-player Stupide Vautour (:meth:`solver_rules`)
    solver = "fsmarena.games.vautour.exploit"
    #: one card fewer than Stupide Vautour: a study of a solvable game measures the exact
    #: exploitability of every learning-curve point, and the goofspiel study plays 6 cards,
    #: where that would cost minutes per point (``rules.md``)
    max_solve_cards = 5

    def solver_rules(self) -> BiddingRules:
        """Two-player Goofspiel is Stupide Vautour with the prizes 1..n (a matched bid
        discards the prize in both); the prize order is not part of it, so it must be random."""
        cfg = self.config
        if cfg.points_order != "random":
            raise FsmarenaError(
                f"goofspiel: the exact solution is for prizes in random order; got points_order={cfg.points_order}"
            )
        return BiddingRules(players=cfg.players, cards=cfg.cards, prizes=tuple(range(1, cfg.cards + 1)))

    def solvable(self) -> bool:
        return self.config.points_order == "random" and super().solvable()

    def public_observation(self, turn: int, prize: np.ndarray, state: dict[str, np.ndarray]) -> Observation:
        driver = driver_for(self)
        states = public_states(driver.p, turn, prize, state, offset=1)
        return driver.observation(states, np.arange(len(prize)), 1)

    def public_key(self, obs: Observation) -> tuple[np.ndarray, ...]:
        total = self.config.cards * (self.config.cards + 1) // 2
        lead = np.rint((np.asarray(obs.features)[:, 6] - 0.5) * 2 * total).astype(np.int64)
        return obs.hand, obs.opp_hand, obs.prizes_left, obs.prize, np.zeros(obs.n, dtype=np.int64), lead

    def card_actions(self, cards: np.ndarray) -> np.ndarray:
        return np.asarray(cards) - 1
