"""The Stable-Baselines3 model of each deep family, built from its resolved settings.

``ppo`` is Stable-Baselines3's PPO, which samples from every action: the environment replaces
an illegal one by the first legal action, or ends the game as a loss (the family's
``illegal_action``, :mod:`fsmarena.deep.environment`), and its player is masked at play.
``maskable-ppo`` is sb3-contrib's MaskablePPO, whose distribution gives illegal actions no
probability (it asks the environment's ``action_masks()``).  ``dqn`` is Stable-Baselines3's DQN,
learning the value of every action under the same ``illegal_action`` as PPO and played greedily
over the legal ones; its exploration rate decays over
the first ``exploration_fraction`` of the *training games* rather than of a number of steps
fixed in advance, since a study's budget is counted in games.  Every model runs on the CPU.
"""

from __future__ import annotations

from typing import Any, Mapping

from sb3_contrib import MaskablePPO
from stable_baselines3 import DQN, PPO
from stable_baselines3.common.base_class import BaseAlgorithm
from torch import nn

ACTIVATION_MODULES: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}
PPO_KEYS = ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef")
DQN_KEYS = (
    "learning_rate",
    "buffer_size",
    "learning_starts",
    "batch_size",
    "train_freq",
    "target_update_interval",
    "gamma",
    "exploration_fraction",
    "exploration_final_eps",
)


class GamesDQN(DQN):
    """DQN whose exploration rate follows the training games played out of ``budget_games``."""

    budget_games = 1

    def _on_step(self) -> None:
        super()._on_step()
        played = min(1.0, self._episode_num / self.budget_games)
        self.exploration_rate = self.exploration_schedule(1.0 - played)


def make_model(settings: Mapping[str, Any], env: Any, seed: int) -> BaseAlgorithm:
    """The untrained model of ``settings["algo"]`` on ``env``, seeded with ``seed`` (< 2**32)."""
    activation = ACTIVATION_MODULES[settings["activation"]]
    hidden = list(settings["net_arch"])
    common: dict[str, Any] = {"seed": seed, "device": "cpu", "verbose": 0}
    if settings["algo"] == "dqn":
        model = GamesDQN(
            "MlpPolicy",
            env,
            policy_kwargs={"net_arch": hidden, "activation_fn": activation},
            **{key: settings[key] for key in DQN_KEYS},
            **common,
        )
        model.budget_games = int(settings["episodes"])
        return model
    algorithm = MaskablePPO if settings["algo"] == "maskable-ppo" else PPO
    return algorithm(
        "MlpPolicy",
        env,
        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": activation},
        **{key: settings[key] for key in PPO_KEYS},
        **common,
    )
