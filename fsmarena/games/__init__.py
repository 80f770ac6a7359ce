"""Games: the contract, the registry, shared players, matches and tournaments.

Each game is a plug-in folder ``fsmarena/games/<name>/`` declaring a :class:`fsmarena.games.registry.GameEntry`;
``get_game("dtd", {"hand_size": "4"})`` builds a game from its command-line name and
``--param`` strings, importing its engine on first use.
"""

from __future__ import annotations

import importlib.util
from typing import Mapping

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game, parse_params
from fsmarena.games.registry import entry, game_names, resolve


def game_class(name: str) -> type[Game]:
    """The Game subclass registered as ``name`` (FsmarenaError if unknown)."""
    return resolve(entry(name).game, f"game '{name}'")


def available_games() -> list[str]:
    """Every registered game, in registration order."""
    return game_names()


def get_game(name: str, params: Mapping[str, str] | None = None) -> Game:
    """The game ``name`` with its configuration built from ``key=value`` strings."""
    cls = game_class(name)
    config = parse_params(cls.Config, params or {})
    return cls(config)


def _register_gymnasium_ids() -> None:
    """Register every game's Gymnasium id if Gymnasium is installed (:mod:`fsmarena.games.gym_ids`)."""
    if importlib.util.find_spec("gymnasium") is not None:
        from fsmarena.games.gym_ids import register_envs  # optional: gym_ids imports Gymnasium

        try:
            register_envs()
        except FsmarenaError:  # a bad FSMARENA_GAMES: the command that reads the registry says so in one line
            pass


_register_gymnasium_ids()

__all__ = ["Game", "get_game", "game_class", "available_games"]
