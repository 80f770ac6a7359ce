"""Helpers for Stupide Vautour tests: scripted bids, scripted prize orders, table players."""

from __future__ import annotations

import numpy as np

from games.players import Player
from games.vautour.game import N_ABSTRACT, StupideVautour, VautourConfig


def vautour(**params) -> StupideVautour:
    return StupideVautour(VautourConfig(**params))


class ScriptedBids(Player):
    """Bids the cards of a script: ``cards[game, turn]`` (or one list for every game)."""

    kind = "scripted"

    def __init__(self, cards):
        super().__init__("scripted")
        self.cards = np.asarray(cards, dtype=np.int64)

    def act(self, obs, memory, rows, rng):
        script = self.cards if self.cards.ndim == 2 else np.broadcast_to(self.cards, (obs.n, len(self.cards)))
        return script[:, obs.step] + (N_ABSTRACT - 1)


def play_scripted(game, players, prize_order, rng_seed=0):
    """Play one game per row of ``prize_order`` (prize values); return (outcome, trace)."""
    prize_order = np.atleast_2d(np.asarray(prize_order, dtype=np.int64))
    n = len(prize_order)
    rng = np.random.default_rng(rng_seed)
    memories = [p.begin(game, n, None, rng) for p in players]

    def decide(seat, obs, rows):
        return players[seat].act(obs, memories[seat], rows, rng)

    trace: list = []
    outcome = game.play_engine(n, rng, decide, prize_order=prize_order, trace=trace)
    return outcome, trace


def raw_table_decide(tables):
    """A decide callback playing ``tables[seat][obs.index]`` as is (no mask fallback), so the
    engine's own handling of every action, illegal concrete bids included, is exercised."""

    def decide(seat, obs, rows):
        return np.asarray(tables[seat])[obs.index]

    return decide


def random_orders(game, n, rng):
    """``n`` random prize orders (values), one per row."""
    deck = np.asarray(game.config.prizes)
    return np.stack([rng.permutation(deck) for _ in range(n)])
