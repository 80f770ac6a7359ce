"""Helpers for Stupide Vautour tests: scripted bids, scripted prize orders, table players."""

from __future__ import annotations

import numpy as np

from fsmarena.games.players import Player
from fsmarena.games.vautour.game import N_ABSTRACT, StupideVautour, VautourConfig
from fsmarena.games.vautour.reference import nearest
from tests.bidding_helpers import play_traced


def vautour(**params) -> StupideVautour:
    return StupideVautour(VautourConfig(**params))


class ScriptedBids(Player):
    """Bids the cards of a script: ``cards[game, turn]`` (or one list for every game)."""

    kind = "scripted"

    def __init__(self, cards):
        super().__init__("scripted")
        self.cards = np.asarray(cards, dtype=np.int64)

    def act(self, obs, memory, rows, rng):
        steps = np.broadcast_to(np.asarray(obs.step), (obs.n,))
        if self.cards.ndim == 2:
            script = self.cards if rows is None else self.cards[rows]
        else:
            script = np.broadcast_to(self.cards, (obs.n, len(self.cards)))
        return script[np.arange(obs.n), steps] + (N_ABSTRACT - 1)


def prize_positions(game, prize_order) -> np.ndarray:
    """The kernel's deals of prize orders given as prize values: positions in the sorted deck."""
    return np.searchsorted(np.sort(game.config.prizes), np.asarray(prize_order, dtype=np.int64))


def play_scripted(game, players, prize_order=None, rng_seed=0, n=None):
    """Play one game per row of ``prize_order`` (prize values; None: ``n`` random deals) on the
    driver; return (outcome, turns) with the turns read from its trace hook
    (:func:`bidding_helpers.play_traced`)."""
    deals = None if prize_order is None else prize_positions(game, np.atleast_2d(prize_order))
    n = len(deals) if deals is not None else n
    rng = np.random.default_rng(rng_seed)
    memories = [p.begin(game, n, None, rng) for p in players]

    def decide(seat, obs, rows):
        return players[seat].act(obs, memories[seat], rows, rng)

    return play_traced(game, n, decide, deals=deals, seed=rng_seed)


def raw_table_decide(game, tables):
    """A decide callback playing ``tables[seat][obs.index]``, a concrete bid of a card no
    longer held replaced by the nearest remaining card (ties down), as the reference's table
    chooser does (the driver refuses illegal bids)."""

    def decide(seat, obs, rows):
        actions = np.asarray(tables[seat])[obs.index].copy()
        hands = np.broadcast_to(np.asarray(obs.hand), (obs.n,))
        for j in np.flatnonzero(actions > N_ABSTRACT - 1):
            card = actions[j] - (N_ABSTRACT - 1)
            held = [c for c in range(1, game.config.cards + 1) if hands[j] >> (c - 1) & 1]
            actions[j] = nearest(held, int(card)) + (N_ABSTRACT - 1)
        return actions

    return decide


def random_orders(game, n, rng):
    """``n`` random prize orders (values), one per row."""
    deck = np.asarray(game.config.prizes)
    return np.stack([rng.permutation(deck) for _ in range(n)])
