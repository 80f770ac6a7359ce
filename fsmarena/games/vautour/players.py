"""The seed's ad hoc Stupide Vautour strategies, plus bid-the-prize-rank.

The seed (004) describes its strategies in words only; here each is a frozen dataclass whose
probabilities and thresholds are documented parameters.  Every strategy looks at the prize
alone (never at the history) and picks an *abstract* bid (:data:`fsmarena.games.vautour.ABSTRACT_NAMES`):
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
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields
from fsmarena.games.players import Player
from fsmarena.games.vautour.game import BID_RANK, HIGHEST, LOWEST, N_ABSTRACT, RANDOM, VautourConfig
from fsmarena.games.vautour.solver import Node, VautourSolver
from fsmarena.games.vautour.zero_sum import SolvableBidding


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

    def probabilities(self, value: np.ndarray, deck: DeckInfo) -> np.ndarray:
        """The exact law of :meth:`choose`: ``(n, N_ABSTRACT)`` probabilities per game (for
        exact best responses, :mod:`fsmarena.games.vautour.exploit`)."""
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

    def probabilities(self, value, deck):
        return _mix(len(value), (self.action, np.ones(len(value))))


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

    def probabilities(self, value, deck):
        high = (value > 0) & (value >= self.high_bonus * deck.largest)
        p = np.where(high, self.p_high, 0.0)
        return _mix(len(value), (HIGHEST, p), (RANDOM, 1.0 - p))


@dataclass(frozen=True)
class NegativeAdverse(Strategy):
    """Highest card on a malus, lowest on a bonus (each with probability ``p``, else random)."""

    name = "negative-adverse"
    p: float = 1.0

    def choose(self, value, deck, rng):
        actions = np.where(value < 0, HIGHEST, LOWEST).astype(np.int64)
        actions[~_with_probability(self.p, len(value), rng)] = RANDOM
        return actions

    def probabilities(self, value, deck):
        malus = np.where(value < 0, self.p, 0.0)
        bonus = np.where(value < 0, 0.0, self.p)
        return _mix(len(value), (HIGHEST, malus), (LOWEST, bonus), (RANDOM, np.full(len(value), 1.0 - self.p)))


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

    def probabilities(self, value, deck):
        minor = np.abs(value) <= self.small * deck.largest_size
        p = np.where(minor, self.p_low, 0.0)
        return _mix(len(value), (LOWEST, p), (RANDOM, 1.0 - p))


def _mix(n: int, *parts: tuple[int, np.ndarray]) -> np.ndarray:
    """``(n, N_ABSTRACT)`` probabilities from (abstract action, probability per game) parts."""
    out = np.zeros((n, N_ABSTRACT))
    for action, p in parts:
        out[:, action] += p
    return out


#: builtin name -> strategy class, in the order ``fsmarena games`` lists them
STRATEGIES: dict[str, type[Strategy]] = {
    cls.name: cls for cls in (RandomBid, MaxCard, MinCard, BonusCraving, NegativeAdverse, GetRidOfBadCards, PrizeRank)
}


class KnownDistribution(ABC):
    """A declared capability of a player: the exact probability of each action, given the
    observation alone (no memory); :mod:`fsmarena.games.vautour.exploit` uses it for best responses."""

    @abstractmethod
    def action_probabilities(self, game: Any, obs: Any) -> np.ndarray:
        """``(obs.n, game.n_actions)`` probabilities of the actions this player would choose."""


class VautourBuiltin(Player, KnownDistribution):
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

    def action_probabilities(self, game, obs):
        values = game.tables.values
        deck = DeckInfo(largest=int(values.max()), largest_size=int(np.abs(values).max()))
        probs = np.zeros((obs.n, game.n_actions))
        probs[:, :N_ABSTRACT] = self.strategy.probabilities(np.broadcast_to(obs.prize_value, (obs.n,)), deck)
        return probs

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


class VautourEquilibrium(Player, KnownDistribution):
    """An exact equilibrium of two-player Stupide Vautour (:mod:`fsmarena.games.vautour.solver`): at
    every public state a mixed strategy over the cards in hand, drawn with the player's
    random stream.  It plays every game whose rules are the ones solved
    (:class:`fsmarena.games.vautour.zero_sum.SolvableBidding`: Stupide Vautour with concrete bids,
    ``bids`` or ``both``, and two-player Goofspiel for the deck ``1..n`` and the seed rule),
    reading the public state from the game's observation (``public_key``).

    Saved as JSON with kind ``vautour-equilibrium``: the rules it was solved for (``cards``,
    ``prizes``, ``tie_rule``, ``reward``) and the solved decisions, ``keys`` (canonical states,
    one row of six integers each) with ``rows`` and ``columns`` (both seats' probabilities per
    card of their hands in increasing order, padded with zeros to ``cards``).
    """

    kind = "vautour-equilibrium"

    def __init__(self, solver: Any, label: str | None = None):
        super().__init__(label or f"equilibrium-{solver.reward}")
        self.solver = solver
        self._cache: dict[tuple[int, ...], np.ndarray] = {}

    def begin(self, game, n, members, rng):
        self.check_game(game)
        return game

    def check_game(self, game: Any) -> None:
        """Refuse a game other than the one solved (rules, two players, concrete bids)."""
        if not isinstance(game, SolvableBidding):
            raise FsmarenaError("the equilibrium player plays Stupide Vautour and Goofspiel only")
        cfg, mine = game.solver_rules(), self.solver.config
        same = (cfg.players, cfg.cards, tuple(cfg.prizes), cfg.tie_rule) == (2, mine.cards, mine.prizes, mine.tie_rule)
        if not same:
            raise FsmarenaError(
                f"this equilibrium was solved for 2 players, {mine.cards} cards, prizes {list(mine.prizes)}, "
                f"tie_rule {mine.tie_rule}; the game has {cfg.players} players, {cfg.cards} cards, prizes "
                f"{list(cfg.prizes)}, tie_rule {cfg.tie_rule}"
            )
        game.card_actions(np.arange(1, mine.cards + 1))  # refuses a game without concrete bids

    def act(self, obs, memory, rows, rng):
        probs = self.card_probabilities(memory, obs)
        cumulative = np.cumsum(probs, axis=1)
        draw = rng.random(obs.n)[:, None] * cumulative[:, -1:]
        cards = 1 + np.minimum((cumulative <= draw).sum(axis=1), probs.shape[1] - 1)
        return memory.card_actions(cards)

    def card_probabilities(self, game: Any, obs: Any) -> np.ndarray:
        """``(obs.n, cards)`` probabilities of bidding card 1..cards in each game."""
        solver = self.solver
        cfg = solver.config
        n = obs.n
        hand, other, left, prize, pot, lead = (np.broadcast_to(part, (n,)) for part in game.public_key(obs))
        out = np.zeros((n, cfg.cards))
        for row in range(n):
            key = (int(hand[row]), int(other[row]), int(left[row]), int(prize[row]), int(pot[row]), int(lead[row]))
            found = self._cache.get(key)
            if found is None:
                found = np.zeros(cfg.cards)
                for card, p in solver.strategy(*key).items():
                    found[card - 1] = p
                found /= found.sum()
                self._cache[key] = found
            out[row] = found
        return out

    def action_probabilities(self, game, obs):
        probs = np.zeros((obs.n, game.n_actions))
        cards = np.arange(1, self.solver.config.cards + 1)
        probs[:, game.card_actions(cards)] = self.card_probabilities(game, obs)
        return probs

    def to_dict(self) -> dict[str, Any]:
        solver, cards = self.solver, self.solver.config.cards
        keys, rows, columns = [], [], []
        for key, node in solver.nodes.items():
            keys.append(list(key))
            rows.append(_padded(node.row, cards))
            columns.append(_padded(node.column, cards))
        cfg = solver.config
        return {
            "reward": solver.reward,
            "cards": cards,
            "prizes": list(cfg.prizes),
            "tie_rule": cfg.tie_rule,
            "keys": keys,
            "rows": rows,
            "columns": columns,
        }

    @classmethod
    def from_fields(cls, fields: Fields, game) -> "VautourEquilibrium":
        cards = fields.int_in("cards", 1, 64)
        prizes = fields.get("prizes", list)
        config = VautourConfig(players=2, cards=cards, prizes=tuple(prizes), tie_rule=fields.get("tie_rule", str))
        solver = VautourSolver(config, reward=fields.get("reward", str))
        keys = fields.get("keys", list)
        table = fields.int_array("keys", (len(keys), 6), -(2**40), 2**40) if keys else np.zeros((0, 6), np.int64)
        rows = fields.float_array("rows", (len(table), cards), 0.0, 1.0)
        columns = fields.float_array("columns", (len(table), cards), 0.0, 1.0)
        span, hands = sum(solver.sizes), 1 << cards
        limits = ((0, hands), (0, hands), (0, hands), (0, cards), (-span, span + 1), (-span, span + 1))
        for column, (low, high) in enumerate(limits):
            if len(table) and not (low <= table[:, column].min() and table[:, column].max() < high):
                raise fields.fail(f"field 'keys': column {column} must be in [{low}, {high - 1}]")
        for key, row, col in zip(table, rows, columns):
            for probs, hand in ((row, key[0]), (col, key[1])):
                size = bin(int(hand)).count("1")
                if abs(probs[:size].sum() - 1.0) > 1e-6 or probs[size:].any():
                    raise fields.fail("every strategy must be probabilities over the cards of its hand")
            a, b, left, prize, pot, lead = (int(k) for k in key)
            solver.nodes[(a, b, left, prize, pot, lead)] = Node(0.0, row[: bin(int(key[0])).count("1")], col)
        player = cls(solver, label=fields.get("label", str, None))
        player.check_game(game)
        return player


def _padded(probs: np.ndarray, size: int) -> list[float]:
    out = [0.0] * size
    out[: len(probs)] = [float(p) for p in probs]
    return out
