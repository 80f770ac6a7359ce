"""The environment a deep family trains in: one seat of the game's Gymnasium environment
(:class:`fsmarena.games.env_gymnasium.GymGameEnv`), observed through its ``features`` only.

Stable-Baselines3's ``MlpPolicy`` takes a flat vector; the features are the game's own [0, 1]
vector, the one a :class:`fsmarena.deep.player.PolicyNetworkPlayer` reads as ``obs.features``,
so the exported network sees in fsmarena's matches exactly what it saw in training (float32,
as Stable-Baselines3 converts it).  The legal actions stay available as ``action_masks()``, the
method sb3-contrib's maskable algorithms ask the environment for.  Learners without masks (PPO,
DQN) are trained under the environment's ``illegal_action`` policy: ``first-legal`` (the game
goes on with the first legal action in place of the illegal one) or ``lose`` (the game ends, -1
for the learner); either way their player is masked when it plays.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from fsmarena.games.base import Game
from fsmarena.games.env_gymnasium import GymGameEnv


class FeaturesObservation(gymnasium.ObservationWrapper):
    """A :class:`GymGameEnv` whose observation is its ``features`` part as float32."""

    def __init__(self, env: GymGameEnv):
        super().__init__(env)
        size = len(env.game.feature_names)
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        return np.asarray(observation["features"], dtype=np.float32)

    def action_masks(self) -> np.ndarray:
        """The legal actions of the pending decision (booleans)."""
        inner = self.env.unwrapped
        assert isinstance(inner, GymGameEnv)
        return inner.action_masks()


def features_env(
    game: Game, opponents: Sequence[Any] | None = None, illegal_action: str = "lose", seat: int | str = "alternate"
) -> FeaturesObservation:
    """One seat of ``game`` (its seat alternating by episode unless ``seat`` says otherwise)
    against ``opponents``, a pool of players or names drawn from for every opponent seat of
    every episode (``None``: ``random``; none in a one-player game); an illegal action is
    handled as ``illegal_action`` says (``lose`` or ``first-legal``, :class:`GymGameEnv`)."""
    pool = None if game.n_seats == 1 else list(opponents or ["random"])
    return FeaturesObservation(GymGameEnv(game, opponents=pool, seat=seat, illegal_action=illegal_action))
