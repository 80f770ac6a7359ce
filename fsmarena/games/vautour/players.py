"""The exact equilibrium of two-player Stupide Vautour (and Goofspiel) as a player.

The seed's ad hoc strategies (``max``, ``bonus-craving``, ``prize-rank``...) are the game's kernel
code (:mod:`fsmarena.games.vautour.kernel`, played by :class:`fsmarena.games.builtin_player.BuiltinPlayer`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields
from fsmarena.games.bidding_zero_sum import BiddingRules, SolvableBidding
from fsmarena.games.builtin_player import KnownDistribution
from fsmarena.games.players import Player
from fsmarena.games.vautour.game import VautourConfig
from fsmarena.games.vautour.solver import Node, VautourSolver


class VautourEquilibrium(Player, KnownDistribution):
    """An exact equilibrium of two-player Stupide Vautour (:mod:`fsmarena.games.vautour.solver`): at
    every public state a mixed strategy over the cards in hand, drawn with the player's
    random stream.  It plays every game whose rules are the ones solved
    (:class:`fsmarena.games.bidding_zero_sum.SolvableBidding`: Stupide Vautour with concrete bids,
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
        rules = BiddingRules(2, config.cards, tuple(config.prizes or ()), config.tie_rule)  # validated above
        solver = VautourSolver(rules, reward=fields.get("reward", str))
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
