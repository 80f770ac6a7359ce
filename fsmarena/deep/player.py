"""The ``policy-network`` player: a feed-forward network from a game's features to one number per
action, played greedily over the legal actions.

It is what a deep-RL policy becomes once it leaves torch (:mod:`fsmarena.deep.export`): the
actor of a PPO policy (its outputs are logits) or the Q-network of DQN (action values), with
the activation its hidden layers used (``tanh`` is PPO's default, ``relu`` DQN's).  At every
decision it reads ``obs.features``, the vector the Gymnasium environment's ``features`` part
holds, rounded to 32-bit floats as Stable-Baselines3 sees them, runs the layers in float64 numpy
for a whole batch of games at once, and plays the legal action with the largest output (the
first one on a tie, as ``argmax`` does in numpy and torch).

The file is JSON (kind ``policy-network``): the feature names, the activation, what the outputs
mean, and per layer its weights (``inputs x outputs``) and biases as numbers.  Loading checks
every shape, the sizes against :mod:`fsmarena.limits` and that every number is finite; nothing
is unpickled and torch is not needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields
from fsmarena.games.base import Game
from fsmarena.games.players import Player
from fsmarena.rl.network import check_network_size

KIND = "policy-network"
#: the hidden layers' activation functions a player file may name
ACTIVATIONS = ("tanh", "relu")
#: what the last layer's numbers are: PPO's action logits or DQN's action values
OUTPUTS = ("logits", "q-values")


@dataclass(frozen=True)
class Layer:
    """One affine layer: ``x @ weights + biases`` (``weights`` is ``inputs x outputs``)."""

    weights: np.ndarray
    biases: np.ndarray


class PolicyNetworkPlayer(Player):
    """Greedy play of a network over the legal actions (module docstring)."""

    kind = KIND

    def __init__(
        self,
        features: Sequence[str],
        layers: Sequence[Layer],
        activation: str,
        output: str = "logits",
        label: str | None = None,
    ):
        super().__init__(label or KIND)
        self.features = tuple(features)
        self.layers = tuple(Layer(np.asarray(x.weights, np.float64), np.asarray(x.biases, np.float64)) for x in layers)
        self.activation = activation
        self.output = output

    def outputs(self, features: np.ndarray) -> np.ndarray:
        """The network's numbers for each row of ``features`` (rounded to float32 first)."""
        values = np.asarray(features, dtype=np.float32).astype(np.float64)
        last = len(self.layers) - 1
        for number, layer in enumerate(self.layers):
            values = values @ layer.weights + layer.biases
            if number != last:
                values = np.tanh(values) if self.activation == "tanh" else np.maximum(values, 0.0)
        return values

    def act(self, obs, memory, rows, rng):
        values = self.outputs(obs.features)
        mask = obs.mask
        if mask is not None:
            values = np.where(mask, values, -np.inf)
        return np.argmax(values, axis=1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "activation": self.activation,
            "output": self.output,
            "layers": [{"weights": x.weights.tolist(), "biases": x.biases.tolist()} for x in self.layers],
        }

    @classmethod
    def from_fields(cls, fields: Fields, game: Game) -> "PolicyNetworkPlayer":
        if not game.feature_names:
            raise fields.fail(f"{game.name} has no features: a policy-network player cannot play it")
        if list(fields.get("features", list)) != list(game.feature_names):
            raise fields.fail(f"the network reads other features than {game.name}'s ({', '.join(game.feature_names)})")
        activation = _one_of(fields, "activation", ACTIVATIONS)
        output = _one_of(fields, "output", OUTPUTS)
        layers = _read_layers(fields, len(game.feature_names), game.n_actions)
        return cls(game.feature_names, layers, activation, output, label=fields.get("label", str, None))


def _one_of(fields: Fields, key: str, choices: tuple[str, ...]) -> str:
    value = fields.get(key, str)
    if value not in choices:
        raise fields.fail(f"field '{key}' must be one of {', '.join(choices)}, got {value[:40]!r}")
    return value


def _read_layers(fields: Fields, n_inputs: int, n_outputs: int) -> list[Layer]:
    """The layers of a player file: from ``n_inputs`` features to ``n_outputs`` actions, every
    hidden size within the limits, every number finite."""
    raw = fields.get("layers", list)
    if not raw or not all(isinstance(item, dict) for item in raw):
        raise fields.fail("field 'layers' must be a non-empty list of objects with 'weights' and 'biases'")
    records = [Fields(item, f"{fields.source} layer {number}") for number, item in enumerate(raw)]
    hidden = [_width(record) for record in records[:-1]]
    try:
        if hidden:
            check_network_size(hidden, n_inputs, n_outputs, prefix="hidden layers: ")
    except FsmarenaError as exc:
        raise fields.fail(str(exc)) from None
    sizes = [n_inputs, *hidden, n_outputs]
    return [
        Layer(record.float_array("weights", (sizes[k], sizes[k + 1])), record.float_array("biases", (sizes[k + 1],)))
        for k, record in enumerate(records)
    ]


def _width(record: Fields) -> int:
    """The outputs of a hidden layer, read from its biases (their shape is checked after)."""
    biases = record.get("biases", list)
    return len(biases) if biases else 0
