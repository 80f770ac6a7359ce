"""Divide-the-dollar in words: its 40 situations, the opponent's last card, the thesis
automaton's features and the three abstract actions (:class:`fsmarena.games.phrases.Phrases`)."""

from __future__ import annotations

from fsmarena.games.phrases import Phrases


def situation(game, index: int) -> str:
    """``leading; hand 1/4-1/2-3/4`` or ``on 1/2; hand ...``: the card showing (none when
    leading) and the smallest, median and largest card of the hand."""
    shown, cards = game.state_label(index).split(": ", 1)
    where = "leading" if shown == "lead" else f"following a {shown.removeprefix('on ')}"
    return f"{where}; hand {cards.replace(' ', '-')}"


def encoding(game, name: str, value: int) -> str:
    """The opponent's last card (``opp_last``), as a player would say it."""
    if name == "opp_last":
        label = game.encoding_label(name, value)
        return "opponent has not played" if value == 0 else f"opponent last played {label.removeprefix('opp: ')}"
    return game.encoding_label(name, value)


PHRASES = Phrases(
    situation=situation,
    encoding=encoding,
    features={
        "Ttl": "value of the card showing (0 when leading)",
        "Sml": "smallest card in hand",
        "Med": "median card in hand",
        "Lrg": "largest card in hand",
        "Coop": "share of earlier rounds that scored",
        "Idx": "0 leading, 1 following",
    },
    actions={
        "small_spoil": "lead the smallest; follow to spoil",
        "median": "play the median card",
        "large_max": "lead the largest; follow with the largest that scores",
    },
)
