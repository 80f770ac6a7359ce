"""The study method ``deep``: a Stable-Baselines3 family as a study competitor.

``method = "deep"`` with ``params = { algo = "maskable-ppo", episodes = 20000 }`` (and any
parameter of :mod:`fsmarena.deep.settings`) trains the algorithm on the game for exactly
``episodes`` training games (:mod:`fsmarena.deep.training`) and enters its exported
``policy-network`` player.  The check and the games count run without torch, so a study file is
read, its budgets compared and its results published on an installation without the ``[deep]``
extra; a run asks for the extra in one line before any task starts (:func:`train_deep_require`),
and torch is imported only when a task trains.
"""

from __future__ import annotations

from typing import Any, Mapping

from fsmarena.deep.extra import require_deep
from fsmarena.deep.settings import deep_settings
from fsmarena.games.base import Game
from fsmarena.methods.base import MethodContext, Trained


def train_deep(ctx: MethodContext) -> Trained:
    """Train the competitor's deep family and return its player, curve and games."""
    train_deep_require()
    settings = train_deep_check(ctx)
    from fsmarena.deep.training import train_family  # imports torch: only when a task trains

    return train_family(ctx, settings)


def train_deep_check(ctx: MethodContext) -> dict[str, Any]:
    """Every setting the training will use (FsmarenaError, one line, if any is wrong)."""
    return deep_settings(ctx)


def train_deep_require() -> None:
    """What training needs installed: the ``[deep]`` extra (FsmarenaError, one line, with the
    install command)."""
    require_deep()


def train_deep_games(settings: Mapping[str, Any], game: Game) -> int:
    """Every training game: ``episodes`` (the learning curve's games are evaluations)."""
    return int(settings["episodes"])
