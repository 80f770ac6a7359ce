"""31 in words: its actions and its features' families spelled out
(:class:`fsmarena.games.phrases.Phrases`); situations keep the game's own labels (``turn:
score <=16, discard +0, first turn, lives 1 vs 1``)."""

from __future__ import annotations

from fsmarena.games.phrases import Phrases

#: feature-name prefixes and what they mean; a suit letter (S H D C) or a position follows
_FAMILIES = {
    "hand0_": "first card of the hand, suit",
    "hand1_": "second card of the hand, suit",
    "hand2_": "third card of the hand, suit",
    "top_": "top of the discard pile, suit",
    "drawn_": "card just drawn, suit",
    "swap_score_": "score after swapping hand card",
    "greedy_": "greedy player's choice",
    "pile_seen_": "cards seen in the discard pile, suit",
    "unseen_value_": "value still unseen, suit",
    "left_known_": "left opponent's known cards, suit",
    "right_known_": "right opponent's known cards, suit",
    "left_thrown_": "left opponent's discards, suit",
    "right_thrown_": "right opponent's discards, suit",
}
_SINGLE = {
    "phase": "0 turn, 1 after drawing",
    "from_discard": "card taken from the discard pile",
    "score": "hand's score",
    "option_score": "best score after this move",
    "expected_draw": "expected score after drawing",
    "first_turn": "first turn of the round",
    "knocked": "someone has knocked",
    "turn": "share of the round's turns",
    "own_lives": "own lives",
    "min_opp_lives": "fewest lives of an opponent",
    "opponents_left": "opponents still in",
    "stock_left": "cards left in the stock",
}


def _feature_words(names: tuple[str, ...]) -> dict[str, str]:
    words = dict(_SINGLE)
    for name in names:
        for prefix, meaning in _FAMILIES.items():
            if name.startswith(prefix):
                words[name] = f"{meaning} {name.removeprefix(prefix)}"
    return words


def situation(game, index: int) -> str:
    """The game's own label of the tabular state."""
    return game.state_label(index)


PHRASES = Phrases(
    situation=situation,
    features=_feature_words(tuple(f"{p}{s}" for p in _FAMILIES for s in ("S", "H", "D", "C", "0", "1", "2", "3"))),
    actions={
        "draw_deck": "draw from the stock",
        "draw_discard": "take the discard",
        "knock": "knock",
        "discard_greedy": "discard as greedy would",
        "discard_drawn": "discard the card drawn",
    },
)
