"""The action-value network of the network learner: features in, one value per action out.

A :class:`QNetwork` is a scikit-learn ``MLPRegressor`` (the ``[neural]`` extra) trained by
Adam, one output per action of its head (:mod:`fsmarena.rl.network_agent`).  Its weights and Adam's
moments read and write as plain arrays, so player files are JSON numbers and checkpoints
``.npz`` files without pickle (:mod:`fsmarena.rl.checkpoint`), and a resumed run continues exactly.
The size checks here bound every network, in settings and in player files alike.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.extras import install_hint
from fsmarena.fileio import Fields
from fsmarena.rl.checkpoint import check_table

BATCH_SIZE = 512  # Adam minibatch


_CONTROLLER: list[Any] = []


def single_thread() -> Any:
    """Small matrix products run fastest on one BLAS thread (and do not fight the engine's
    worker processes for the cores).  The library scan happens once per process."""
    if not _CONTROLLER:
        # imported here: threadpoolctl comes with scikit-learn, an optional dependency
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def _sklearn_mlp() -> Any:
    """scikit-learn's regressor, imported on first use: ``[neural]`` is an optional extra."""
    try:
        from sklearn.neural_network import MLPRegressor
    except ImportError:  # pragma: no cover - depends on the installation
        raise FsmarenaError(f"the network learner needs scikit-learn: {install_hint('neural')}") from None
    return MLPRegressor


class QNetwork:
    """Action values from features: a scikit-learn ``MLPRegressor`` with one output per action.

    Built with ``shuffle=False`` (the trainer shuffles with its own random stream) and
    initialised by one ``partial_fit`` on a zero sample, so its weights can be replaced by
    saved ones through the public ``coefs_`` / ``intercepts_`` attributes.
    """

    def __init__(self, n_inputs: int, n_outputs: int, hidden: Sequence[int], learning_rate: float, seed: int):
        MLPRegressor = _sklearn_mlp()
        self.n_inputs, self.n_outputs, self.hidden = n_inputs, n_outputs, tuple(int(h) for h in hidden)
        self.learning_rate = float(learning_rate)
        self.model = MLPRegressor(
            hidden_layer_sizes=self.hidden,
            activation="relu",
            solver="adam",
            learning_rate_init=self.learning_rate,
            batch_size=BATCH_SIZE,
            shuffle=False,
            random_state=seed,
            alpha=1e-5,
        )
        with warnings.catch_warnings():  # one sample is smaller than batch_size: expected here
            warnings.simplefilter("ignore", UserWarning)
            self.model.partial_fit(np.zeros((1, n_inputs)), self._targets(np.zeros((1, n_outputs))))
        for layer in self.model.coefs_:  # small random start, zero biases: untrained values near 0
            layer *= 0.5
        for bias in self.model.intercepts_:
            bias[:] = 0.0
        self._init_optimizer_state()

    def _init_optimizer_state(self) -> None:
        """Reset Adam's moments (the initialising zero sample must not count as training).

        Adam's state lives in scikit-learn's ``_optimizer`` (``t``, ``ms``, ``vs``, the same
        since scikit-learn 0.18); it is saved in checkpoints so a resumed run continues exactly.
        """
        opt = self.model._optimizer
        opt.t = 0
        opt.ms = [np.zeros_like(p) for p in self._params()]
        opt.vs = [np.zeros_like(p) for p in self._params()]

    def _params(self) -> list[np.ndarray]:
        """The parameter order of scikit-learn's optimizers: weights, then biases."""
        return list(self.model.coefs_) + list(self.model.intercepts_)

    def predict(self, x: np.ndarray) -> np.ndarray:
        if len(x) == 0:
            return np.zeros((0, self.n_outputs))
        with single_thread():
            out = self._forward(np.asarray(x, dtype=np.float64))
        return out.reshape(len(x), self.n_outputs)

    def _forward(self, x: np.ndarray) -> np.ndarray:
        """scikit-learn's forward pass (ReLU hidden layers, identity output), the same operations
        in the same order, without its input validation: a player predicts at every decision
        of a batch, and the checks cost more than the arithmetic on small batches."""
        activation = x
        last = len(self.model.coefs_) - 1
        for i, (weights, bias) in enumerate(zip(self.model.coefs_, self.model.intercepts_)):
            activation = activation @ weights
            activation += bias
            if i != last:
                np.maximum(activation, 0, out=activation)
        return activation

    def fit(self, x: np.ndarray, actions: np.ndarray, returns: np.ndarray, epochs: int) -> float:
        """Move the taken actions' outputs towards ``returns``; the mean squared error before."""
        if len(x) == 0:
            return float("nan")
        target = self.predict(x)
        rows = np.arange(len(x))
        loss = float(np.mean((target[rows, actions] - returns) ** 2))
        target[rows, actions] = returns
        self.model.batch_size = min(BATCH_SIZE, len(x))
        with single_thread():
            for _ in range(epochs):
                self.model.partial_fit(x, self._targets(target))
        return loss

    def _targets(self, target: np.ndarray) -> np.ndarray:
        """``target`` as scikit-learn takes it: one output as a flat vector (a column is flattened
        with a DataConversionWarning and then reshaped back, the same numbers either way)."""
        return target[:, 0] if self.n_outputs == 1 else target

    # ---- weights as plain arrays (player files and checkpoints) --------------------------
    def arrays(self) -> dict[str, np.ndarray]:
        out = {}
        for i, (w, b) in enumerate(zip(self.model.coefs_, self.model.intercepts_)):
            out[f"w{i}"], out[f"b{i}"] = w, b
        return out

    def optimizer_arrays(self) -> dict[str, np.ndarray]:
        opt = self.model._optimizer
        out = {"t": np.array([opt.t])}
        for i, (m, v) in enumerate(zip(opt.ms, opt.vs)):
            out[f"m{i}"], out[f"v{i}"] = m, v
        return out

    def set_arrays(self, arrays: dict[str, np.ndarray], source: str) -> None:
        layers = len(self.model.coefs_)
        for i in range(layers):
            for prefix, target in (("w", self.model.coefs_), ("b", self.model.intercepts_)):
                value = check_table(arrays.get(f"{prefix}{i}"), target[i], source, f"{prefix}{i}")
                if not np.all(np.isfinite(value)):
                    raise FsmarenaError(f"{source}: layer {i} weights are not finite")
                target[i][...] = value

    def set_optimizer_arrays(self, arrays: dict[str, np.ndarray], source: str) -> None:
        """Adam's step count and moments from a checkpoint, each checked like the learners'
        tables (:func:`fsmarena.rl.checkpoint.check_table`); second moments cannot be negative."""
        opt = self.model._optimizer
        step = check_table(arrays.get("t"), np.zeros(1, dtype=np.int64), source, "opt_t")
        moments = []
        for i in range(len(self._params())):
            m = check_table(arrays.get(f"m{i}"), opt.ms[i], source, f"opt_m{i}")
            v = check_table(arrays.get(f"v{i}"), opt.vs[i], source, f"opt_v{i}")
            if v.size and v.min() < 0:
                raise FsmarenaError(f"{source}: table 'opt_v{i}' (Adam's second moments) holds negative entries")
            moments.append((m, v))
        opt.t = int(step[0])
        for i, (m, v) in enumerate(moments):
            opt.ms[i][...], opt.vs[i][...] = m, v

    def to_json(self) -> dict[str, Any]:
        return {
            "hidden": list(self.hidden),
            "learning_rate": self.learning_rate,
            "weights": [w.tolist() for w in self.model.coefs_],
            "biases": [b.tolist() for b in self.model.intercepts_],
        }

    @classmethod
    def from_json(cls, fields: Fields, n_inputs: int, n_outputs: int) -> "QNetwork":
        hidden = fields.get("hidden", list)
        try:
            check_layer_sizes(hidden, prefix="field 'hidden': ")
        except FsmarenaError as exc:
            raise fields.fail(str(exc)) from None
        rate = fields.number_in("learning_rate", 1e-7, 1.0)
        net = cls(n_inputs, n_outputs, hidden, rate, seed=0)
        sizes = [n_inputs, *hidden, n_outputs]
        weights = fields.get("weights", list)
        biases = fields.get("biases", list)
        if len(weights) != len(sizes) - 1 or len(biases) != len(sizes) - 1:
            raise fields.fail(f"a network with hidden layers {hidden} needs {len(sizes) - 1} weight matrices")
        arrays = {}
        for i in range(len(sizes) - 1):
            layer = Fields({"w": weights[i], "b": biases[i]}, f"{fields.source} layer {i}")
            arrays[f"w{i}"] = layer.float_array("w", (sizes[i], sizes[i + 1]))
            arrays[f"b{i}"] = layer.float_array("b", (sizes[i + 1],))
        net.set_arrays(arrays, fields.source)
        return net


def network_parameters(hidden: Sequence[int], n_inputs: int, n_outputs: int) -> int:
    """Weights and biases of a network with these layer sizes."""
    sizes = [n_inputs, *hidden, n_outputs]
    return sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))


def check_network_size(hidden: Sequence[int], n_inputs: int, n_outputs: int, prefix: str = "hidden: ") -> None:
    """FsmarenaError unless ``hidden`` passes :func:`check_layer_sizes` and a network of these
    layers from ``n_inputs`` features to ``n_outputs`` values has at most MAX_MLP_PARAMETERS
    weights and biases: beyond these it would not fit in memory, or its player file could not be
    read back (:meth:`QNetwork.from_json`, MAX_JSON_BYTES).  Checked before anything is built."""
    check_layer_sizes(hidden, prefix)
    parameters = network_parameters(hidden, n_inputs, n_outputs)
    if parameters > limits.MAX_MLP_PARAMETERS:
        raise FsmarenaError(
            f"{prefix}a network of {parameters:,} weights and biases; "
            f"the limit is {limits.MAX_MLP_PARAMETERS:,} (MAX_MLP_PARAMETERS)"
        )


def check_layer_sizes(hidden: Sequence[int], prefix: str = "hidden: ") -> None:
    """FsmarenaError unless ``hidden`` is 1 to MAX_HIDDEN_LAYERS layers of 1 to MAX_HIDDEN_UNITS
    units (the shape every network must have, in settings and in player files alike)."""
    if not hidden or any(isinstance(h, bool) or not isinstance(h, int) or h <= 0 for h in hidden):
        raise FsmarenaError(f"{prefix}layer sizes must be positive whole numbers, got {list(hidden)!r}")
    if len(hidden) > limits.MAX_HIDDEN_LAYERS:
        raise FsmarenaError(
            f"{prefix}{len(hidden):,} layers; the limit is {limits.MAX_HIDDEN_LAYERS} (MAX_HIDDEN_LAYERS)"
        )
    widest = max(hidden)
    if widest > limits.MAX_HIDDEN_UNITS:
        raise FsmarenaError(
            f"{prefix}a layer of {limits.shown(widest)} units; the limit is {limits.MAX_HIDDEN_UNITS:,} (MAX_HIDDEN_UNITS)"
        )
