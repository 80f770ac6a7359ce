"""Goofspiel's fixed strategies, each a function of the prize and the own hand.

* ``random`` (the generic player): a uniformly random remaining card.
* ``match``: bid the prize's value (the card nearest to it, ties down, if already played;
  with every prize 1..n met once it never is).  The classic baseline; against a uniformly random
  opponent it maximises the expected points (Ross's theorem, 1971).
* ``upbid``: the smallest remaining card above the prize, else the lowest card: one better
  than ``match`` wherever it can be, giving away only the prizes it cannot top.  It beats
  ``match`` (it wins every prize but the top one), which makes the panel non-transitive.
* ``max``: the highest remaining card whatever the prize (a prize-blind reference).

Saved as JSON with kind ``goofspiel-builtin``: ``{"strategy": NAME}``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields
from fsmarena.games.goofspiel.game import Tables
from fsmarena.games.players import Player, RandomPlayer
from fsmarena.games.vautour.players import KnownDistribution


def match_card(t: Tables, prize: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """The card ``match`` bids: the prize's value, or the nearest held card."""
    return t.nearest[hand, prize]


def upbid_card(t: Tables, prize: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """The card ``upbid`` bids: the smallest held card above the prize, else the lowest."""
    above = hand >> prize  # bit j: card prize + 1 + j held
    smallest_above = np.where(above > 0, prize + t.lowest[np.minimum(above, t.full)], 0)
    return np.where(above > 0, smallest_above, t.lowest[hand])


def max_card(t: Tables, prize: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """The card ``max`` bids: the highest held card."""
    return t.highest[hand] + 0 * prize


STRATEGIES: dict[str, Callable[[Tables, np.ndarray, np.ndarray], np.ndarray]] = {
    "match": match_card,
    "upbid": upbid_card,
    "max": max_card,
}


class GoofspielBuiltin(Player, KnownDistribution):
    """One of the fixed strategies of the module docstring as a player (deterministic and
    without memory, so its law is its one card: exact best responses merge equal states)."""

    kind = "goofspiel-builtin"

    def __init__(self, strategy: str, label: str | None = None):
        if strategy not in STRATEGIES:
            raise FsmarenaError(f"goofspiel: unknown strategy '{strategy}' (known: {', '.join(STRATEGIES)})")
        super().__init__(label or strategy)
        self.strategy = strategy

    def begin(self, game: Any, n: int, members: np.ndarray | None, rng: np.random.Generator) -> Any:
        if getattr(game, "name", None) != "goofspiel":
            raise FsmarenaError(f"the {self.strategy} strategy plays Goofspiel only")
        return game.tables

    def act(self, obs: Any, memory: Any, rows: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
        prize = np.broadcast_to(np.asarray(obs.prize_value, dtype=np.int64), (obs.n,))
        hand = np.broadcast_to(np.asarray(obs.hand, dtype=np.int64), (obs.n,))
        return STRATEGIES[self.strategy](memory, prize, hand) - 1

    def action_probabilities(self, game: Any, obs: Any) -> np.ndarray:
        actions = self.act(obs, self.begin(game, obs.n, None, np.random.default_rng(0)), None, np.random.default_rng(0))
        probs = np.zeros((obs.n, game.n_actions))
        probs[np.arange(obs.n), actions] = 1.0
        return probs

    def to_dict(self) -> dict[str, Any]:
        return {"strategy": self.strategy}

    @classmethod
    def from_fields(cls, fields: Fields, game: Any) -> "GoofspielBuiltin":
        name = fields.get("strategy", str)
        if name not in STRATEGIES:
            raise fields.fail(f"unknown strategy '{name}' (known: {', '.join(STRATEGIES)})")
        return cls(name, label=fields.get("label", str, None))


def builtin_factories() -> dict[str, Callable[[], Player]]:
    """``fsmarena`` builtin names -> factories."""
    factories: dict[str, Callable[[], Player]] = {"random": RandomPlayer}
    factories.update({name: functools.partial(GoofspielBuiltin, name) for name in STRATEGIES})
    return factories
