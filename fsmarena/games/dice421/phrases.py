"""421 in words: the dice and throws of its situations, its features and its eight actions
(:class:`fsmarena.games.phrases.Phrases`)."""

from __future__ import annotations

from fsmarena.games.phrases import Phrases


def situation(game, index: int) -> str:
    """``dice 6-4-1, 2 throws left``: the game's own label, the dice joined."""
    dice, throws = game.state_label(index).split(", ", 1)
    return f"dice {'-'.join(dice)}, {throws}"


def encoding(game, name: str, value: int) -> str:
    """Throws left in words (``2 throws left``, ``no throw left``); other encodings keep their label."""
    if name == "throws_left":
        return {0: "no throw left", 1: "1 throw left"}.get(value, f"{value} throws left")
    return game.encoding_label(name, value)


PHRASES = Phrases(
    situation=situation,
    encoding=encoding,
    features={
        "high": "highest die",
        "middle": "middle die",
        "low": "lowest die",
        "throws_left": "throws left",
        "score": "score of the dice kept now",
    },
    actions={
        "keep_all": "stop",
        "reroll_low": "reroll the lowest die",
        "reroll_middle": "reroll the middle die",
        "reroll_middle_low": "reroll the two lowest",
        "reroll_high": "reroll the highest die",
        "reroll_high_low": "reroll the highest and lowest",
        "reroll_high_middle": "reroll the two highest",
        "reroll_all": "reroll every die",
    },
)
