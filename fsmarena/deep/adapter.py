"""Any Stable-Baselines3 model, or any function of a Gymnasium observation, as an fsmarena player.

:func:`sb3_player` exports a model trained on a game's features (:mod:`fsmarena.deep.environment`)
to a ``policy-network`` player (:mod:`fsmarena.deep.export`): exact, saved as JSON, and the form
a study can hold, since a study writes every player to a file and reads it back.  A model that
cannot be exported (it observes the environment's whole dictionary, or its network is not a
plain MLP) and any function ``observation -> action`` become a :class:`CallablePlayer`: it
shows each game, one decision at a time, the observation the Gymnasium environment would show
(:class:`fsmarena.games.env_gymnasium.GymGameEnv`: ``features``, the game's encodings and
``action_mask``) and checks every answer; it plays matches, tournaments and environments, but
has no player file.

In a study, a function ``make_player(game)`` returning :func:`sb3_player` of a model is a
competitor of method ``python`` (``params = { entry = "package.module:make_player" }``); see
``docs/examples/sb3_agent.py``.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np
from gymnasium import spaces

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game
from fsmarena.games.env_parts import Codec, judge
from fsmarena.games.players import Player

Decide = Callable[[dict[str, Any]], Any]


class CallablePlayer(Player):
    """A function of one Gymnasium observation as a player (module docstring).  An answer
    that is not a legal action is an ``IllegalAction`` naming the player."""

    kind = "callable"

    def __init__(self, decide: Decide, game: Game, label: str | None = None):
        super().__init__(label or "callable")
        self.decide, self.game = decide, game
        self.codec = Codec(game)

    def act(self, obs, memory, rows, rng):
        actions = np.empty(obs.n, dtype=np.int64)
        for row in range(obs.n):
            seen = self.codec.encode(obs.subset(np.array([row])))
            answer = self.decide({**seen.parts, "action_mask": seen.mask})
            move = judge(self.game, answer, seen.mask, "raise", f"{self.game.name} player '{self.label}'")
            assert move.number is not None  # "raise" leaves no illegal action
            actions[row] = move.number
        return actions

    def to_dict(self) -> dict[str, Any]:
        raise FsmarenaError(
            f"player '{self.label}' is a Python function and has no player file: "
            "export a Stable-Baselines3 model with fsmarena.deep.adapter.sb3_player"
        )


def callable_player(decide: Decide, game: Game, label: str | None = None) -> CallablePlayer:
    """``decide(observation) -> action`` on the Gymnasium environment's observations, as a player."""
    return CallablePlayer(decide, game, label)


def sb3_player(model: Any, game: Game, label: str | None = None) -> Player:
    """``model``'s greedy policy over the legal actions as a player: the exported
    ``policy-network`` player when its policy can be exported, else a :class:`CallablePlayer`
    asking ``model.predict`` (with the action mask for a maskable model)."""
    from fsmarena.deep.export import export_policy  # imports torch, which any SB3 model brought

    try:
        return export_policy(model, game, label)
    except FsmarenaError:
        return callable_player(predicting(model), game, label or type(model).__name__)


def predicting(model: Any) -> Decide:
    """A function of a Gymnasium observation that asks ``model.predict`` deterministically, giving
    it what its observation space holds (the features alone, or the dictionary's parts)."""
    space = model.observation_space
    maskable = "action_masks" in inspect.signature(model.predict).parameters

    def decide(observation: dict[str, Any]) -> int:
        if isinstance(space, spaces.Dict):
            shown: Any = {key: observation[key] for key in space.spaces}
        else:
            shown = np.asarray(observation["features"], dtype=np.float32)
        masks = {"action_masks": np.asarray(observation["action_mask"], bool)} if maskable else {}
        action, _ = model.predict(shown, deterministic=True, **masks)
        return int(np.asarray(action).reshape(-1)[0])

    return decide
