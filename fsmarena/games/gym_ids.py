"""The Gymnasium ids of the registered games, registered as soon as ``games`` is imported.

``import fsmarena`` (or anything in ``games``) calls :func:`register_envs` when Gymnasium is
installed, so ``gymnasium.make("fsmarena/DivideTheDollar-v0")`` needs no import of the
environments module, and ``gymnasium.register_envs(fsmarena)`` works as it does for other
environment packages.  Registering names only the entry point
(``fsmarena.games.environments:GymGameEnv``): PettingZoo, the engines and the kernels are imported by
the first ``make``.  (Gymnasium 1.x no longer loads environment plugins from entry points, so
an import is what registers.)
"""

from __future__ import annotations

import gymnasium

from fsmarena.errors import FsmarenaError
from fsmarena.games.registry import entries

#: where every id's environment class lives
ENTRY_POINT = "fsmarena.games.environments:GymGameEnv"


def env_id(game: str) -> str:
    """The Gymnasium id of a registered game: ``fsmarena/<GameClass>-v0``."""
    for item in entries():
        if item.name == game:
            return f"fsmarena/{item.game.split(':')[1]}-v0"
    raise FsmarenaError(f"unknown game '{game}' (known: {', '.join(e.name for e in entries())})")


def register_envs() -> list[str]:
    """Register every game's Gymnasium environment (idempotent); returns the ids."""
    ids = []
    for item in entries():
        name = env_id(item.name)
        if name not in gymnasium.registry:
            gymnasium.register(id=name, entry_point=ENTRY_POINT, kwargs={"game": item.name})
        ids.append(name)
    return ids
