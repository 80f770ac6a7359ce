"""Stupide Vautour in words: its features and abstract bids (:class:`fsmarena.games.phrases.Phrases`);
situations and encodings keep the game's own labels (``prize -5, hand 1 2``)."""

from __future__ import annotations

from fsmarena.games.phrases import Phrases


def situation(game, index: int) -> str:
    """The game's own label of the tabular state (prize, own cards left)."""
    return game.state_label(index)


PHRASES = Phrases(
    situation=situation,
    features={
        "prize": "prize card's value",
        "rank": "rank of the prize among those left",
        "stake": "points at stake (carried over)",
        "low": "own lowest card",
        "mean": "own mean card",
        "high": "own highest card",
        "opp_high": "highest card an opponent holds",
        "turn": "share of the turns played",
        "lead": "lead over the best opponent",
    },
    actions={
        "lowest": "bid the lowest card",
        "median": "bid the median card",
        "highest": "bid the highest card",
        "bid_rank": "bid the card ranked as the prize",
        "rank_up": "bid one rank above the prize's",
        "rank_down": "bid one rank below the prize's",
        "random": "bid a random card",
    },
)
