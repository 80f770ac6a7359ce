"""Helpers for divide-the-dollar tests: scripted decks and card names."""

from __future__ import annotations

import numpy as np

from games.dtd.game import DivideTheDollar, DTDConfig

QUARTER, HALF, THREE_QUARTERS = 0, 1, 2


def small_game(counts=(2, 2, 2), hand_size=2) -> DivideTheDollar:
    """Default card values with a tiny deck, small enough to work out by hand."""
    return DivideTheDollar(DTDConfig(counts=counts, hand_size=hand_size))


def play_scripted(game, players, deck_order):
    """Play one game per row of ``deck_order`` with fixed players; return (outcome, trace)."""
    from games.players import Player

    deck_order = np.atleast_2d(np.asarray(deck_order))
    n = len(deck_order)
    rng = np.random.default_rng(0)
    memories = [p.begin(game, n, None, rng) for p in players]

    def decide(seat, obs, rows):
        return players[seat].act(obs, memories[seat], rows, rng)

    trace: list = []
    outcome = game.play_engine(n, rng, decide, deck_order=deck_order, trace=trace)
    assert all(isinstance(p, Player) for p in players)
    return outcome, trace
