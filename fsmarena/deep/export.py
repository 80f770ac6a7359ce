"""A Stable-Baselines3 policy's network as a ``policy-network`` player, weights copied out of torch.

What is exported is the part that decides: the actor of an actor-critic policy (PPO, maskable
PPO, A2C: the policy branch of its MLP extractor, then its action layer, whose outputs are the
logits) or the Q-network of DQN (its outputs are action values).  Both are chains of linear
layers with one activation between them (``Tanh`` or ``ReLU``), after a flatten of a 1-D
``Box`` observation: the game's features (:mod:`fsmarena.deep.environment`).  Anything else (an
image or dictionary observation, a recurrent or custom network) is refused in one line rather
than exported approximately.  Observation normalisation outside the model (``VecNormalize``) is
not part of the policy and cannot be exported either.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.torch_layers import FlattenExtractor
from torch import nn

from fsmarena.deep.player import Layer, PolicyNetworkPlayer
from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game

#: torch activation modules and their names in a player file
ACTIVATION_NAMES: dict[type, str] = {nn.Tanh: "tanh", nn.ReLU: "relu"}


def export_policy(model: Any, game: Game, label: str | None = None) -> PolicyNetworkPlayer:
    """The player that plays as ``model``'s policy does greedily, over the legal actions."""
    policy = model.policy
    modules, output, extractor = _decider(policy)
    _check_spaces(policy, extractor, game)
    layers, activation = _layers(modules)
    return PolicyNetworkPlayer(game.feature_names, layers, activation, output, label=label)


def _decider(policy: Any) -> tuple[list[nn.Module], str, Any]:
    """The modules that decide, in order, what their outputs are, and their features extractor."""
    q_net = getattr(policy, "q_net", None)
    if q_net is not None and isinstance(getattr(q_net, "q_net", None), nn.Sequential):
        return list(q_net.q_net), "q-values", q_net.features_extractor
    extractor = getattr(policy, "mlp_extractor", None)
    if extractor is not None and isinstance(getattr(policy, "action_net", None), nn.Linear):
        return [*extractor.policy_net, policy.action_net], "logits", policy.pi_features_extractor
    raise _refused(f"a {type(policy).__name__} is neither an actor-critic MLP policy nor a DQN policy")


def _check_spaces(policy: Any, extractor: Any, game: Game) -> None:
    """The policy reads the game's features as a flat vector and answers one of its actions."""
    observed = policy.observation_space
    size = len(game.feature_names)
    if not isinstance(observed, spaces.Box) or observed.shape != (size,):
        raise _refused(f"it observes {observed}, not {game.name}'s {size} features (fsmarena.deep.environment)")
    if not isinstance(extractor, FlattenExtractor):
        raise _refused(f"its features extractor is a {type(extractor).__name__}, not a flatten")
    if not isinstance(policy.action_space, spaces.Discrete) or int(policy.action_space.n) != game.n_actions:
        raise _refused(f"its actions are {policy.action_space}, not {game.name}'s {game.n_actions}")


def _layers(modules: list[nn.Module]) -> tuple[list[Layer], str]:
    """Linear layers with one activation between each two, as :class:`Layer` records."""
    layers: list[Layer] = []
    activations: set[str] = set()
    for number, module in enumerate(modules):
        expected_linear = number % 2 == 0
        if expected_linear and isinstance(module, nn.Linear):
            weights = module.weight.detach().cpu().numpy().astype(np.float64).T
            biases = module.bias.detach().cpu().numpy().astype(np.float64) if module.bias is not None else None
            layers.append(Layer(weights, np.zeros(weights.shape[1]) if biases is None else biases))
        elif not expected_linear and type(module) in ACTIVATION_NAMES:
            activations.add(ACTIVATION_NAMES[type(module)])
        else:
            raise _refused(f"layer {number} is a {type(module).__name__} (linear layers and Tanh or ReLU only)")
    if len(modules) % 2 == 0 or len(activations) > 1:
        raise _refused("its network must end with a linear layer and use one activation")
    return layers, activations.pop() if activations else "tanh"


def _refused(reason: str) -> FsmarenaError:
    return FsmarenaError(f"cannot export this Stable-Baselines3 policy as a player: {reason}")
