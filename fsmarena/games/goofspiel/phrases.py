"""Goofspiel in words: its features spelled out (:class:`fsmarena.games.phrases.Phrases`);
situations keep the game's own labels (``prize 3, hand 1 2 5``) and a bid is its card."""

from __future__ import annotations

from fsmarena.games.phrases import Phrases


def situation(game, index: int) -> str:
    """The game's own label of the tabular state (prize, own cards left)."""
    return game.state_label(index)


PHRASES = Phrases(
    situation=situation,
    features={
        "prize": "prize card's value",
        "low": "own lowest card",
        "mean": "own mean card",
        "high": "own highest card",
        "opp_high": "highest card an opponent holds",
        "turn": "share of the turns played",
        "lead": "lead over the best opponent",
        "left": "share of the points still face down",
    },
)
