"""Two-player zero-sum bidding games solved exactly: what Stupide Vautour and Goofspiel share
(beside :mod:`fsmarena.games.bidding`, the kernels' shared bidding rules).

Two-player Goofspiel *is* two-player Stupide Vautour with the prizes ``1..n`` (a matched bid
discards the prize in both), so one solver (:mod:`fsmarena.games.vautour.solver`), one best response
(:mod:`fsmarena.games.vautour.exploit`) and one equilibrium player
(:class:`fsmarena.games.vautour.players.VautourEquilibrium`) serve both.  A game joins them by
inheriting :class:`SolvableBidding`, naming that solver (``solver``, a registry string: this module
names no game) and saying, in four short hooks, what its rules are (:class:`BiddingRules`) and how
its own observations and actions map to the public state and to cards; the card an action bids is its kernel's ``bid_card(p, hand, prize, action)`` (0 for a
uniformly random card of the hand), the rule the game plays by, read by :meth:`SolvableBidding.card_law`;
``fsmarena solve`` and ``fsmarena exploit`` then find it through the capability
(:class:`fsmarena.games.capabilities.ZeroSumSolvable`), never by its name.

The public state (what the solver and the best response work on) is the tuple
``(own hand, other hand, prizes left, prize, pot, lead)`` for the seat that decides: hands
and prizes left are bitmasks (bit ``p`` of ``prizes left`` is the ``p``-th smallest prize),
``prize`` is the position of the prize on the table in the deck sorted by value, ``pot`` the
carried pot (Stupide Vautour's cancel rule; 0 otherwise) and ``lead`` own points minus the
other seat's.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game
from fsmarena.games.bidding import CARDS, spread_over_hand
from fsmarena.games.capabilities import ZeroSumSolvable
from fsmarena.games.driver import driver_for
from fsmarena.specialise import kernel_function, specialise

#: the largest deck ``fsmarena solve`` solves by default (6 cards: 10-20 s; 7 did not finish
#: reliably on the 2-core test machine, see docs/ground-truth.md)
MAX_SOLVE_CARDS = 6


@dataclass(frozen=True)
class BiddingRules:
    """A bidding game's rules as the exact solver reads them: ``players`` seats bid the cards
    ``1..cards`` for the ``prizes`` (one per turn, in random order); ``tie_rule`` ``seed``
    discards a prize on a tied highest bid, ``cancel`` carries it to the next turn."""

    players: int
    cards: int
    prizes: tuple[int, ...]
    tie_rule: str = "seed"


class SolvableBidding(ZeroSumSolvable):
    """A bidding game whose two-player version is Stupide Vautour with some deck and tie rule."""

    #: the command-line name (every game has one)
    name: ClassVar[str]
    solve_rewards = ("wdl", "points")
    example_params = {"cards": "4"}
    #: the largest deck solved exactly (the work grows about 8-fold per card)
    max_solve_cards: ClassVar[int] = MAX_SOLVE_CARDS

    @abstractmethod
    def solver_rules(self) -> BiddingRules:
        """These rules as the solver reads them (players, cards, deck, tie rule; Stupide
        Vautour's configuration has these fields too); the solver refuses any but two players."""

    @abstractmethod
    def public_observation(self, turn: int, prize: np.ndarray, state: dict[str, np.ndarray]) -> Any:
        """Seat 1's observation, built by the engine, at a batch of public states of the
        best response (:mod:`fsmarena.games.vautour.exploit`: keys ``own`` (seat 0's hand), ``other``,
        ``left``, ``pot``, ``carried``, ``lead`` (seat 0's), ``last_own``, ``last_other``)
        with ``prize`` (deck positions) on the table."""

    def card_law(self, probs: np.ndarray, hand: np.ndarray, prize: np.ndarray) -> np.ndarray:
        """``(rows, cards + 1)`` law of the card bid (column ``c`` = card ``c``) from the law
        ``probs`` of the actions, with ``hand`` in hand and ``prize`` (positions) on the table:
        each action's card is the kernel's own ``bid_card`` (the rule exists once), a random
        bid spread evenly over the hand."""
        driver = driver_for(cast(Game, self))  # a mixin of a Game
        out = np.zeros((len(hand), int(driver.p[CARDS]) + 1))
        laws = np.ascontiguousarray(probs, dtype=np.float64)
        hands, prizes = (np.ascontiguousarray(x, dtype=np.int64) for x in (hand, prize))
        specialise(card_law_rows, driver.kernel)(driver.p, laws, hands, prizes, out)
        return out

    @abstractmethod
    def public_key(self, obs: Any) -> tuple[np.ndarray, ...]:
        """The deciding seat's public state read from its observation: arrays ``own``,
        ``other``, ``left``, ``prize``, ``pot``, ``lead`` (the equilibrium player's lookup)."""

    @abstractmethod
    def card_actions(self, cards: np.ndarray) -> np.ndarray:
        """The action numbers that bid ``cards`` (1-based)."""

    def solvable(self) -> bool:
        rules = self.solver_rules()
        return rules.players == 2 and rules.cards <= self.max_solve_cards

    def check_solvable(self) -> BiddingRules:
        """The rules as Stupide Vautour's, or one clear error when they cannot be solved."""
        rules = self.solver_rules()
        if rules.players != 2:
            raise FsmarenaError(
                f"{self.name}: the exact solution is for two players (zero-sum); got players={rules.players}"
            )
        if rules.cards > self.max_solve_cards:
            raise FsmarenaError(
                f"{self.name}: {rules.cards} cards are too many to solve exactly (at most {self.max_solve_cards}; "
                "the work grows about 8-fold per card)"
            )
        return rules


k_bid_card = kernel_function("bid_card")


def card_law_rows(p, probs, hands, prizes, out):
    """Row by row, the law of the card bid from the law ``probs`` of the actions (a template
    compiled per kernel, :mod:`fsmarena.specialise`): the card ``bid_card`` names, or, for a
    random bid (card 0), every card of the hand alike."""
    for r in range(len(hands)):
        hand = hands[r]
        for a in range(probs.shape[1]):
            weight = probs[r, a]
            if weight > 0:
                card = k_bid_card(p, hand, prizes[r], a)
                if card > 0:
                    out[r, card] += weight
                else:
                    spread_over_hand(p, hand, weight, out[r], 0)
