"""Games: rules, batched engines, players, matches and tournaments.

``get_game("dtd", {"hand_size": "4"})`` builds a game from its command-line name and
``--param`` strings.  Games are registered in :data:`GAMES` as ``"module:Class"`` and imported
on first use.
"""

from __future__ import annotations

import importlib.util
from typing import Mapping

from fsmarena.registry import resolve
from games.base import Game, parse_params

#: command-line name -> "module:Class"
GAMES: dict[str, str] = {
    "dtd": "games.dtd:DivideTheDollar",
    "421": "games.dice421:Dice421",
    "thirtyone": "games.thirtyone:ThirtyOne",
    "vautour": "games.vautour:StupideVautour",
}


def game_class(name: str) -> type[Game]:
    return resolve(GAMES, name, "game")


def available_games() -> list[str]:
    """Registered games whose module is present in this installation."""
    found = []
    for name, target in GAMES.items():
        if importlib.util.find_spec(target.split(":")[0]) is not None:
            found.append(name)
    return found


def get_game(name: str, params: Mapping[str, str] | None = None) -> Game:
    """The game ``name`` with its configuration built from ``key=value`` strings."""
    cls = game_class(name)
    config = parse_params(cls.Config, params or {})
    return cls(config)


__all__ = ["Game", "GAMES", "get_game", "game_class", "available_games"]
