"""The seed's ad hoc Stupide Vautour strategies, plus bid-the-prize-rank.

The seed (004) describes its strategies in words only; here each is a frozen dataclass whose
probabilities and thresholds are documented parameters.  Every strategy looks at the prize
alone (never at the history) and picks an *abstract* bid (:data:`games.vautour.ABSTRACT_NAMES`):
"a high card" is the highest remaining card, "a low card" the lowest, "randomly" a uniformly
random remaining card.  Thresholds are relative to the deck so that they mean the same thing
in the reduced games (a bonus is *high* when it is at least ``high_bonus`` times the largest
prize; a prize is *small* when its size is at most ``small`` times the largest prize size).

* ``random``: a uniformly random remaining card.
* ``max`` / ``min``: the highest / lowest remaining card, whatever the prize.
* ``bonus-craving`` (``p_high`` = 0.9, ``high_bonus`` = 0.6): on a high bonus (+6..+10 in the
  default deck) the highest card with probability ``p_high``; otherwise random.
* ``negative-adverse`` (``p`` = 1.0): the highest card on a malus, the lowest on a bonus; with
  probability ``1 - p`` a random card instead.
* ``get-rid-of-bad-cards`` (``p_low`` = 0.9, ``small`` = 0.3): on a small prize (-3..+3 in the
  default deck) the lowest card with probability ``p_low``; otherwise random.
* ``prize-rank``: the card nearest to the prize's importance rank (``bid_rank``); with a
  positive deck (Goofspiel) this bids the prize's value, the best response to a uniformly
  random opponent there.

In the ``abstract`` and ``both`` action sets a strategy returns its abstract action (the engine
draws the random card); in the ``bids`` action set it turns the choice into the concrete bid
itself with the game's own table (``game.tables.resolve``), so it plays the same in every
action set.  Saved as JSON with kind ``vautour-builtin``: ``{"strategy": ..., "params": {...}}``.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields
from games.players import Player
from games.vautour.game import BID_RANK, HIGHEST, LOWEST, N_ABSTRACT, RANDOM


@dataclass(frozen=True)
class DeckInfo:
    """What the strategies know of the deck: its largest prize and largest prize size."""

    largest: int
    largest_size: int


@dataclass(frozen=True)
class Strategy:
    """A prize-only bidding rule: abstract action per game from the prize values."""

    name: ClassVar[str] = ""

    def choose(self, value: np.ndarray, deck: DeckInfo, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def validate(self) -> None:
        """Raise FsmarenaError when a parameter is out of range (all are in [0, 1])."""
        for field in dataclasses.fields(self):
            number = getattr(self, field.name)
            if isinstance(number, bool) or not isinstance(number, (int, float)) or not 0.0 <= number <= 1.0:
                raise FsmarenaError(f"{self.name}: parameter '{field.name}' must be a number in [0, 1], got {number!r}")


def _with_probability(p: float, n: int, rng: np.random.Generator) -> np.ndarray:
    if p >= 1.0:
        return np.ones(n, dtype=bool)
    return rng.random(n) < p


@dataclass(frozen=True)
class ConstantBid(Strategy):
    """The same abstract bid whatever the prize."""

    action: ClassVar[int]

    def choose(self, value, deck, rng):
        return np.full(len(value), self.action, dtype=np.int64)


@dataclass(frozen=True)
class RandomBid(ConstantBid):
    name = "random"
    action = RANDOM


@dataclass(frozen=True)
class MaxCard(ConstantBid):
    name = "max"
    action = HIGHEST


@dataclass(frozen=True)
class MinCard(ConstantBid):
    name = "min"
    action = LOWEST


@dataclass(frozen=True)
class PrizeRank(ConstantBid):
    name = "prize-rank"
    action = BID_RANK


@dataclass(frozen=True)
class BonusCraving(Strategy):
    """Highest card with probability ``p_high`` on a bonus >= ``high_bonus`` x the largest prize."""

    name = "bonus-craving"
    p_high: float = 0.9
    high_bonus: float = 0.6

    def choose(self, value, deck, rng):
        high = (value > 0) & (value >= self.high_bonus * deck.largest)
        actions = np.full(len(value), RANDOM, dtype=np.int64)
        actions[high & _with_probability(self.p_high, len(value), rng)] = HIGHEST
        return actions


@dataclass(frozen=True)
class NegativeAdverse(Strategy):
    """Highest card on a malus, lowest on a bonus (each with probability ``p``, else random)."""

    name = "negative-adverse"
    p: float = 1.0

    def choose(self, value, deck, rng):
        actions = np.where(value < 0, HIGHEST, LOWEST).astype(np.int64)
        actions[~_with_probability(self.p, len(value), rng)] = RANDOM
        return actions


@dataclass(frozen=True)
class GetRidOfBadCards(Strategy):
    """Lowest card with probability ``p_low`` on a prize of size <= ``small`` x the largest size."""

    name = "get-rid-of-bad-cards"
    p_low: float = 0.9
    small: float = 0.3

    def choose(self, value, deck, rng):
        minor = np.abs(value) <= self.small * deck.largest_size
        actions = np.full(len(value), RANDOM, dtype=np.int64)
        actions[minor & _with_probability(self.p_low, len(value), rng)] = LOWEST
        return actions


#: builtin name -> strategy class, in the order ``fsmarena games`` lists them
STRATEGIES: dict[str, type[Strategy]] = {
    cls.name: cls for cls in (RandomBid, MaxCard, MinCard, BonusCraving, NegativeAdverse, GetRidOfBadCards, PrizeRank)
}


class VautourBuiltin(Player):
    """One of the seed's strategies (see the module docstring) as a player."""

    kind = "vautour-builtin"

    def __init__(self, strategy: Strategy, label: str | None = None):
        strategy.validate()
        super().__init__(label or strategy.name)
        self.strategy = strategy

    def begin(self, game, n, members, rng):
        if getattr(game, "name", None) != "vautour":
            raise FsmarenaError(f"the {self.strategy.name} strategy plays Stupide Vautour only")
        values = game.tables.values
        deck = DeckInfo(largest=int(values.max()), largest_size=int(np.abs(values).max()))
        return game.tables, deck, game.config.action_set == "bids"

    def act(self, obs, memory, rows, rng):
        tables, deck, concrete = memory
        actions = self.strategy.choose(np.asarray(obs.prize_value), deck, rng)
        if concrete:
            cards = tables.resolve(actions, obs.hand, obs.prize, rng)
            actions = cards + (N_ABSTRACT - 1)
        return actions

    def to_dict(self) -> dict[str, Any]:
        return {"strategy": self.strategy.name, "params": dataclasses.asdict(self.strategy)}

    @classmethod
    def from_fields(cls, fields: Fields, game) -> "VautourBuiltin":
        name = fields.get("strategy", str)
        if name not in STRATEGIES:
            raise fields.fail(f"unknown strategy '{name}' (known: {', '.join(STRATEGIES)})")
        strategy_cls = STRATEGIES[name]
        params = Fields(fields.get("params", dict, {}), f"{fields.source}: params")
        known = {f.name for f in dataclasses.fields(strategy_cls)}
        unknown = sorted(set(params.data) - known)
        if unknown:
            raise params.fail(
                f"unknown parameter '{unknown[0]}' for {name} (known: {', '.join(sorted(known)) or 'none'})"
            )
        values = {key: params.number_in(key, 0.0, 1.0) for key in params.data}
        return cls(strategy_cls(**values), label=fields.get("label", str, None))


def builtin_factories() -> dict[str, Callable[[], Player]]:
    """``fsmarena`` builtin names -> factories (every strategy with its default parameters)."""
    return {name: functools.partial(VautourBuiltin, cls()) for name, cls in STRATEGIES.items()}
