"""A game's own words for what its players see: the phrases of strategy summaries, strategy
cards and transcripts (:mod:`fsmarena.evo.strategy_summary`, :mod:`fsmarena.evo.transcript`).

A game declares its phrases by naming them on its class (``Game.phrases = "module:attribute"``,
a :class:`Phrases` in the game's own folder, ``fsmarena/games/<name>/phrases.py``); the generic
layers reach them through :func:`phrases_of` and never name a game.  Every field is optional: a
game without phrases (or a field left empty) gets the generic words, the input's number and the
label the game already gives it (``Game.state_label``, ``Game.encoding_label``), so any game
still gets a summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from fsmarena.games.registry import resolve

if TYPE_CHECKING:
    from fsmarena.games.base import Game


@dataclass(frozen=True)
class Phrases:
    """What a game says in words.

    * ``situation(game, index)``: the tabular observation ``index`` ("leading; hand 1/4 1/4 3/4");
    * ``encoding(game, name, value)``: a value of an encoding, an FSM input ("opponent's last
      card 3/4");
    * ``features``: each feature's name spelled out (``Ttl`` -> "card showing"), for the legends
      of BDA tests;
    * ``actions``: an action's name -> what it does, in words ("play the largest card").
    """

    situation: Callable[["Game", int], str] | None = None
    encoding: Callable[["Game", str, int], str] | None = None
    features: Mapping[str, str] = field(default_factory=dict)
    actions: Mapping[str, str] = field(default_factory=dict)


#: the phrases of a game that declares none
GENERIC = Phrases()


def phrases_of(game: "Game") -> Phrases:
    """The phrases ``game`` declares (``Game.phrases``), or :data:`GENERIC`."""
    target = game.phrases
    if not target:
        return GENERIC
    found: Any = resolve(target, f"phrases of {game.name}")
    if not isinstance(found, Phrases):
        raise TypeError(f"{game.name}: Game.phrases must name a Phrases, not {type(found).__name__}")
    return found


def situation_words(game: "Game", index: int) -> str:
    """The tabular observation ``index`` in the game's words (generic: its number and label)."""
    phrases = phrases_of(game)
    if phrases.situation is not None:
        return phrases.situation(game, int(index))
    return f"input {int(index)} ({game.state_label(int(index))})"


def encoding_words(game: "Game", name: str, value: int) -> str:
    """Value ``value`` of encoding ``name`` in the game's words (generic: its label)."""
    phrases = phrases_of(game)
    if phrases.encoding is not None:
        return phrases.encoding(game, name, int(value))
    return game.encoding_label(name, int(value))


def feature_words(game: "Game", name: str) -> str:
    """Feature ``name`` spelled out (generic: the name itself)."""
    return phrases_of(game).features.get(name, name)
