"""Function approximation for 31: two neural networks trained from play, in the seed's spirit.

Seed 003 trains an *action* network (draw from the deck, take the discard, or call) and a
*swap* network (which of the four cards to throw), masks illegal actions, explores with
epsilon of about 4-5 %, discounts rewards by 0.98 per step back from the end of a round,
keeps checkpoints and plots its training metrics.  This module does the same with
scikit-learn's ``MLPRegressor`` (the ``[neural]`` extra), in the batched engine:

* **Networks.**  ``turn`` maps the game's feature vector (``ThirtyOne.feature_names``: hand,
  discard, drawn card, per-position swap scores, greedy's choice, cards seen in the pile,
  unseen value per suit, cards known in and thrown by the neighbours, lives, progress) to the
  values of ``draw_deck``, ``draw_discard``, ``knock``; ``swap`` maps it to the values of
  ``discard_0``, ``discard_1``, ``discard_2``, ``discard_drawn``.  Illegal actions are masked
  (value -inf) before the argmax; with probability epsilon a uniformly random legal action is
  taken instead (epsilon follows an :class:`rl.schedules.EpsilonSchedule`).
* **Rewards.**  The seed's hand-made round reward is replaced by one that cannot be gamed:
  the change of a *lives potential* over the round, ``V(lives after) - V(lives before)``,
  where ``V(own lives, opponents' lives)`` is the running mean of the final game reward
  (+1 win, -1 loss) over the training games that reached that lives state (the last round
  ends in the game's actual reward).  Summed over a game it telescopes to the game result,
  so maximising it is winning, but every round carries its own signal.  A decision ``k``
  learner decisions before the end of its round gets ``gamma**k`` times the round reward
  (the seed's discount, default 0.98).
* **Updates.**  Monte Carlo regression after every batch of games: the network's output for
  the action taken is moved towards the return (mean squared error, Adam); the outputs of
  the other actions keep their current values as targets (the seed's zero targets pulled
  every untaken action towards 0).  Rounds in which the learner made no decision (a dealt
  31, an opponent knocking under the gun before the learner's first turn) are folded into
  the next round the learner plays.
* **Files.**  The trained player is a JSON file (kind ``thirtyone-mlp``: layer sizes and
  weights as numbers, validated on load - never pickle).  Checkpoints are ``.npz`` files
  without pickle (:mod:`rl.checkpoint`) holding the weights, Adam's moment estimates, the
  lives potential, the random stream and the metrics, so a resumed run continues exactly.
  ``metrics.csv`` has one row per batch (losses of both networks, mean round reward, mean
  round length, rolling win rate of the training games, epsilon), ``curve.csv`` the
  evaluation matches against a fixed panel (greedy by default) with 95 % intervals, and
  ``metrics.png`` / ``.pdf`` plot both.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from fsmarena import limits, run_loop
from fsmarena.csvfile import write_csv
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, write_json
from fsmarena.parallel import restore_rng, seed_sequence
from games.arena import Seat, play_games
from games.match import play_match
from games.players import GroupedStack, Player, save_player, uniform_legal
from games.thirtyone.game import DISCARD_0, DRAW_DECK, TURN, ThirtyOne
from games.thirtyone.potential import LivesPotential
from rl import checkpoint as ckpt
from rl import registry
from rl.checkpoint import check_table
from rl.schedules import EpsilonSchedule
from rl.segments import segment_returns

KIND = "thirtyone-mlp"
TURN_ACTIONS = 3  # draw_deck, draw_discard, knock
SWAP_ACTIONS = 4  # discard_0, discard_1, discard_2, discard_drawn
BATCH_SIZE = 512  # Adam minibatch


_CONTROLLER: list = []


def single_thread():
    """Small matrix products run fastest on one BLAS thread (and do not fight the engine's
    worker processes for the cores).  The library scan happens once per process."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def _sklearn_mlp():
    try:
        from sklearn.neural_network import MLPRegressor
    except ImportError:  # pragma: no cover - depends on the installation
        raise FsmarenaError(
            "the 31 function-approximation agent needs scikit-learn: pip install 'fsmarena[neural]'"
        ) from None
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
            self.model.partial_fit(np.zeros((1, n_inputs)), np.zeros((1, n_outputs)))
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
            out = self.model.predict(x)
        return out.reshape(len(x), self.n_outputs)

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
                self.model.partial_fit(x, target)
        return loss

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
        tables (:func:`rl.checkpoint.check_table`); second moments cannot be negative."""
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


class Decisions:
    """The learner's decisions in one batch of games, for the Monte Carlo update."""

    def __init__(self, n: int):
        self.n = n
        self.parts: dict[str, list[np.ndarray]] = {k: [] for k in ("game", "phase", "x", "action", "round", "lives")}

    def add(
        self, rows: np.ndarray, phase: int, x: np.ndarray, action: np.ndarray, rnd: np.ndarray, lives: np.ndarray
    ) -> None:
        for key, value in (
            ("game", rows),
            ("phase", np.full(len(rows), phase)),
            ("x", x),
            ("action", action),
            ("round", rnd),
            ("lives", lives),
        ):
            self.parts[key].append(value)

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.concatenate(v) for k, v in self.parts.items()} if self.parts["game"] else {}


class MLPAgent(Player):
    """The two-network 31 player.  ``epsilon`` > 0 explores; a ``trainer`` attached by
    :class:`Trainer` records decisions and learns in :meth:`finish`."""

    kind = KIND

    def __init__(self, turn: QNetwork, swap: QNetwork, label: str | None = None):
        super().__init__(label or "mlp")
        self.nets = {"turn": turn, "swap": swap}
        self.epsilon = 0.0
        self.trainer: "Trainer | None" = None

    def begin(self, game, n, members, rng):
        if self.trainer is not None:
            return Decisions(n)
        return None

    def act(self, obs, memory, rows, rng):
        x = obs.features
        if obs.phase == TURN:
            values, legal, first = (
                self.nets["turn"].predict(x),
                obs.mask[:, DRAW_DECK : DRAW_DECK + TURN_ACTIONS],
                DRAW_DECK,
            )
        else:
            values, legal, first = (
                self.nets["swap"].predict(x),
                obs.mask[:, DISCARD_0 : DISCARD_0 + SWAP_ACTIONS],
                DISCARD_0,
            )
        choice = np.argmax(np.where(legal, values, -np.inf), axis=1)
        if self.epsilon > 0:
            explore = rng.random(obs.n) < self.epsilon
            if explore.any():
                choice[explore] = uniform_legal(legal[explore], rng)
        if memory is not None:
            game_rows = np.arange(memory.n) if rows is None else np.asarray(rows)
            memory.add(game_rows, obs.phase, x.astype(np.float32), choice, obs.round, obs.lives)
        return choice + first

    def finish(self, memory, outcome, seat):
        if memory is not None and self.trainer is not None:
            self.trainer.learn(memory, outcome, seat)

    def to_dict(self):
        return {"features": ThirtyOne.feature_names, **{name: net.to_json() for name, net in self.nets.items()}}

    @classmethod
    def from_fields(cls, fields, game):
        if game.name != "thirtyone":
            raise fields.fail("a thirtyone-mlp player plays 31 only")
        names = fields.get("features", list)
        if list(names) != list(game.feature_names):
            raise fields.fail("the networks were trained on a different feature list than this version's")
        n_inputs = len(game.feature_names)
        nets = {}
        for name, outputs in (("turn", TURN_ACTIONS), ("swap", SWAP_ACTIONS)):
            nets[name] = QNetwork.from_json(
                Fields(fields.get(name, dict), f"{fields.source} {name} network"), n_inputs, outputs
            )
        return cls(nets["turn"], nets["swap"], label=fields.get("label", str, None))


# ---- training ------------------------------------------------------------------------------


def network_parameters(hidden: Sequence[int], n_inputs: int, n_outputs: int) -> int:
    """Weights and biases of a network with these layer sizes."""
    sizes = [n_inputs, *hidden, n_outputs]
    return sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))


def check_hidden(hidden: Sequence[int], prefix: str = "hidden: ") -> None:
    """FsmarenaError unless ``hidden`` passes :func:`check_layer_sizes` and its larger network
    (the swap network) has at most MAX_MLP_PARAMETERS weights and biases: beyond these the
    networks would not fit in memory, or their policy file could not be read back
    (:meth:`QNetwork.from_json`, MAX_JSON_BYTES).  Checked before anything is built."""
    check_layer_sizes(hidden, prefix)
    parameters = network_parameters(hidden, len(ThirtyOne.feature_names), max(TURN_ACTIONS, SWAP_ACTIONS))
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


@dataclass
class AgentSettings:
    """Training settings (defaults: the seed's epsilon and discount, small networks)."""

    games: int = 200_000
    batch: int = 2_000
    hidden: tuple[int, ...] = (64, 64)
    learning_rate: float = 1e-3
    epochs: int = 1
    gamma: float = 0.98
    epsilon: float = 0.05
    epsilon_final: float = 0.04
    epsilon_schedule: str = "linear"
    opponents: tuple[str, ...] = ("greedy",)
    eval_every: int = 20_000
    eval_games: int = 10_000
    eval_panel: tuple[str, ...] = ("greedy",)
    rolling: int = 10_000
    seed: int = 0

    def check(self) -> None:
        for name in ("games", "batch", "epochs", "eval_every", "eval_games", "rolling"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise FsmarenaError(f"{name} must be a positive whole number, got {value!r}")
        limits.check(self.batch, limits.MAX_BATCH_GAMES, "batch", "MAX_BATCH_GAMES")
        limits.check(self.epochs * self.batch, limits.MAX_EPOCH_GAMES, "epochs x batch", "MAX_EPOCH_GAMES")
        check_hidden(self.hidden)
        if not (0 < self.learning_rate < 1) or not (0 < self.gamma <= 1):
            raise FsmarenaError("learning_rate must be in (0, 1) and gamma in (0, 1]")
        if not self.opponents:
            raise FsmarenaError("training needs at least one opponent")
        EpsilonSchedule(self.epsilon, self.epsilon_final, self.epsilon_schedule)


METRIC_FIELDS = (
    "games",
    "epsilon",
    "turn_loss",
    "swap_loss",
    "mean_round_reward",
    "round_length",
    "rolling_win_rate",
    "seconds",
)
CURVE_FIELDS = ("games", "opponent", "eval_games", "win", "win_ci_low", "win_ci_high")


def round_returns(
    game: np.ndarray,
    rnd: np.ndarray,
    lives: np.ndarray,
    final_lives: np.ndarray,
    seat: int,
    potential: LivesPotential,
    gamma: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns of the learner's decisions, given in (game, round, time) order.

    ``lives[i]`` are the lives when decision i was taken (those of its round's start);
    ``final_lives[g]`` the lives at the end of game g.  A round's reward is ``V(lives at the
    learner's next observed round, or at the end) - V(lives at its start)``; decision i gets
    ``gamma ** k`` times it, k = the learner's decisions after i in that round: the segment
    rewards of :func:`rl.segments.segment_returns`, rounds as segments.  Returns
    ``(returns per decision, reward per observed round, decisions per observed round)``.
    """
    return segment_returns(game, rnd, potential.value(lives, seat), potential.value(final_lives[game], seat), gamma)


class Trainer:
    """Trains an :class:`MLPAgent` against fixed opponents; see the module docstring."""

    def __init__(self, game: ThirtyOne, settings: AgentSettings, opponents: Sequence[Player]):
        settings.check()
        if not isinstance(game, ThirtyOne):
            raise FsmarenaError("the function-approximation agent plays 31 (thirtyone) only")
        self.game, self.settings = game, settings
        self.opponents = list(opponents)
        n_inputs = len(game.feature_names)
        seeds = seed_sequence(settings.seed).spawn(3)
        net_seeds = [int(s.generate_state(1)[0] % (2**31)) for s in seeds[:2]]
        self.agent = MLPAgent(
            QNetwork(n_inputs, TURN_ACTIONS, settings.hidden, settings.learning_rate, net_seeds[0]),
            QNetwork(n_inputs, SWAP_ACTIONS, settings.hidden, settings.learning_rate, net_seeds[1]),
        )
        self.agent.trainer = self
        self.rng = np.random.default_rng(seeds[2])
        self.schedule = EpsilonSchedule(settings.epsilon, settings.epsilon_final, settings.epsilon_schedule)
        self.potential = LivesPotential.of(game)
        self.done = 0
        self.metrics: list[dict[str, Any]] = []
        self.curve: list[dict[str, Any]] = []
        self.recent: list[np.ndarray] = []
        self._batch_stats: dict[str, list] = {}

    # ---- one batch -----------------------------------------------------------------------
    def learn(self, memory: Decisions, outcome, seat: int) -> None:
        """Monte Carlo update from one engine call's games (the learner in ``seat``)."""
        data = memory.arrays()
        self.recent.append(outcome.rewards[:, seat])
        if not data:
            return
        s = self.settings
        order = np.lexsort((np.arange(len(data["game"])), data["round"], data["game"]))
        for key in data:
            data[key] = data[key][order]
        returns, reward, sizes = round_returns(
            data["game"], data["round"], data["lives"], outcome.scores.astype(np.int64), seat, self.potential, s.gamma
        )
        stats = self._batch_stats
        stats.setdefault("reward", []).append(reward)
        stats.setdefault("length", []).append(sizes)
        for phase, name in ((TURN, "turn"), (1, "swap")):
            pick = np.flatnonzero(data["phase"] == phase)
            pick = pick[self.rng.permutation(len(pick))]
            loss = self.agent.nets[name].fit(
                data["x"][pick].astype(float), data["action"][pick], returns[pick], s.epochs
            )
            stats.setdefault(name, []).append((loss, len(pick)))

    def run_batch(self, size: int) -> None:
        """``size`` training games, the learner's seat rotating over the table."""
        s = self.settings
        self.agent.epsilon = self.schedule.value(self.done, s.games)
        self._batch_stats = {}
        start = time.perf_counter()
        seats = self.game.n_seats
        per_seat = [size // seats + (1 if k < size % seats else 0) for k in range(seats)]
        for seat, games in enumerate(per_seat):
            if games == 0:
                continue
            table: list[Any] = []
            for other in range(seats):
                if other == seat:
                    table.append(self.agent)
                elif len(self.opponents) == 1:
                    table.append(self.opponents[0])
                else:  # a mixture: each game draws its opponent in this seat
                    members = self.rng.integers(0, len(self.opponents), size=games)
                    table.append(Seat(GroupedStack(self.opponents), members))
            play_games(self.game, table, games, self.rng)
        self.done += size
        self._record(time.perf_counter() - start)

    def _record(self, seconds: float) -> None:
        stats, s = self._batch_stats, self.settings
        recent = np.concatenate(self.recent)[-s.rolling :] if self.recent else np.zeros(0)
        self.recent = [recent]

        def weighted(name: str) -> float:
            pairs = [(loss, n) for loss, n in stats.get(name, []) if n]
            total = sum(n for _, n in pairs)
            return sum(loss * n for loss, n in pairs) / total if total else float("nan")

        rewards = np.concatenate(stats["reward"]) if stats.get("reward") else np.zeros(0)
        lengths = np.concatenate(stats["length"]) if stats.get("length") else np.zeros(0)
        self.metrics.append(
            {
                "games": self.done,
                "epsilon": self.agent.epsilon,
                "turn_loss": weighted("turn"),
                "swap_loss": weighted("swap"),
                "mean_round_reward": float(rewards.mean()) if len(rewards) else float("nan"),
                "round_length": float(lengths.mean()) if len(lengths) else float("nan"),
                "rolling_win_rate": float((recent > 0).mean()) if len(recent) else float("nan"),
                "seconds": seconds,
            }
        )

    def evaluate(self, panel: Sequence[Player], jobs: int = 1) -> None:
        """Greedy-policy matches (epsilon 0, no learning) against each panel player."""
        s = self.settings
        trainer, epsilon = self.agent.trainer, self.agent.epsilon
        self.agent.trainer, self.agent.epsilon = None, 0.0
        try:
            for k, opponent in enumerate(panel):
                stats = play_match(self.game, self.agent, opponent, s.eval_games, seed=s.seed * 1000 + k, jobs=jobs)
                d = stats.to_dict()
                self.curve.append(
                    {
                        "games": self.done,
                        "opponent": opponent.label,
                        "eval_games": d["games"],
                        "win": d["win"],
                        "win_ci_low": d["win_ci95"][0],
                        "win_ci_high": d["win_ci95"][1],
                    }
                )
        finally:
            self.agent.trainer, self.agent.epsilon = trainer, epsilon

    # ---- checkpoints ---------------------------------------------------------------------
    def network_tables(self) -> dict[str, np.ndarray]:
        """Both networks' weights and optimiser state, as a checkpoint stores them."""
        tables: dict[str, np.ndarray] = {}
        for name, net in self.agent.nets.items():
            tables.update({f"{name}_{k}": v for k, v in net.arrays().items()})
            tables.update({f"{name}_opt_{k}": v for k, v in net.optimizer_arrays().items()})
        return tables

    def save(self, path: str | Path) -> None:
        tables = self.network_tables()
        if self.recent:
            tables["recent"] = np.concatenate(self.recent)
        meta = {
            "kind": "thirtyone-mlp-training",
            "settings": _jsonable(asdict(self.settings)),
            "game": dict(_jsonable(asdict(self.game.config))),
            "done": self.done,
            "rng": ckpt.rng_state(self.rng),
            "metrics": self.metrics,
            "curve": self.curve,
        }
        ckpt.save_checkpoint(path, meta, tables)

    def restore(self, path: str | Path) -> None:
        expected: dict[str, np.ndarray | None] = {**self.network_tables(), "recent": None}
        meta, tables = ckpt.load_checkpoint(
            path, lists=("curve", "metrics"), max_done=self.settings.games, expected=expected
        )
        source = f"checkpoint {path}"
        if meta.get("kind") != "thirtyone-mlp-training":
            raise FsmarenaError(f"{source} is not a 31 agent training checkpoint")
        settings = _jsonable(asdict(self.settings))
        if meta.get("settings") != settings:
            changed = run_loop.differences(meta.get("settings"), settings)
            raise FsmarenaError(f"{source} was written with other training settings: {changed}")
        if meta.get("game") != _jsonable(asdict(self.game.config)):
            raise FsmarenaError(f"{source} was written for other 31 rules")
        done = int(meta["done"])
        metrics = ckpt.check_rows(meta["metrics"], _metric_columns(done), source, "metrics")
        curve = ckpt.check_rows(meta["curve"], _curve_columns(done), source, "curve")
        recent = tables.get("recent")
        if recent is not None:
            check_table(recent, np.zeros(len(recent)), source, "recent")
            if recent.ndim != 1 or len(recent) > self.settings.rolling:
                raise FsmarenaError(f"{source}: table 'recent' must hold at most {self.settings.rolling} rewards")
        for name, net in self.agent.nets.items():
            net.set_arrays(
                {
                    k[len(name) + 1 :]: v
                    for k, v in tables.items()
                    if k.startswith(f"{name}_w") or k.startswith(f"{name}_b")
                },
                f"{source} ({name} network)",
            )
            net.set_optimizer_arrays(
                {k[len(name) + 5 :]: v for k, v in tables.items() if k.startswith(f"{name}_opt_")},
                f"{source} ({name} network)",
            )
        self.recent = [np.asarray(recent, dtype=float)] if recent is not None else []
        self.done = done
        self.rng = restore_rng(meta["rng"], source)
        self.metrics, self.curve = list(metrics), list(curve)


def _metric_columns(done: int) -> dict[str, ckpt.Column]:
    """What each column of a checkpointed metrics row may hold (:meth:`Trainer._record`;
    a NaN, e.g. the loss of a batch without decisions, is saved as null)."""
    nonnegative = ckpt.Column(float, 0.0, empty=True)
    return {
        "games": ckpt.Column(int, 0, done),
        "epsilon": ckpt.Column(float, 0.0, 1.0),
        "turn_loss": nonnegative,
        "swap_loss": nonnegative,
        "mean_round_reward": ckpt.Column(float, empty=True),
        "round_length": nonnegative,
        "rolling_win_rate": ckpt.Column(float, 0.0, 1.0, empty=True),
        "seconds": ckpt.Column(float, 0.0),
    }


def _curve_columns(done: int) -> dict[str, ckpt.Column]:
    """What each column of a checkpointed evaluation row may hold (:meth:`Trainer.evaluate`)."""
    fraction = ckpt.Column(float, 0.0, 1.0)
    return {
        "games": ckpt.Column(int, 0, done),
        "opponent": ckpt.Column(str),
        "eval_games": ckpt.Column(int, 1, limits.MAX_GAMES, limit="MAX_GAMES"),
        "win": fraction,
        "win_ci_low": fraction,
        "win_ci_high": fraction,
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def plot_metrics(metrics: list[dict[str, Any]], curve: list[dict[str, Any]], stem: str | Path) -> None:
    """Losses, round rewards and lengths, rolling and evaluation win rates against games."""
    from figures.style import PAGE_WIDTH, color, plt, save, style

    with style():
        fig, axes = plt.subplots(2, 2, figsize=(PAGE_WIDTH, 4.2), sharex=True)
        games = [m["games"] for m in metrics]
        ax = axes[0, 0]
        for k, name in enumerate(("turn_loss", "swap_loss")):
            ax.plot(games, [m[name] for m in metrics], color=color(k), label=name.replace("_", " "))
        ax.set_ylabel("MSE before update")
        ax.set_yscale("log")
        ax.legend(frameon=False)
        axes[0, 1].plot(games, [m["mean_round_reward"] for m in metrics], color=color(2))
        axes[0, 1].set_ylabel("mean round reward")
        axes[1, 0].plot(games, [m["round_length"] for m in metrics], color=color(3))
        axes[1, 0].set_ylabel("learner decisions per round")
        ax = axes[1, 1]
        ax.plot(games, [m["rolling_win_rate"] for m in metrics], color=color(4), label="training (rolling)")
        for k, opponent in enumerate(sorted({c["opponent"] for c in curve})):
            rows = [c for c in curve if c["opponent"] == opponent]
            x = [c["games"] for c in rows]
            ax.plot(x, [c["win"] for c in rows], "o-", color=color(k), ms=3, label=f"vs {opponent}")
            ax.fill_between(
                x, [c["win_ci_low"] for c in rows], [c["win_ci_high"] for c in rows], color=color(k), alpha=0.2, lw=0
            )
        ax.set_ylabel("win rate")
        ax.legend(frameon=False)
        for ax in axes[1]:
            ax.set_xlabel("training games")
        save(fig, stem)


def train_agent(
    game: ThirtyOne,
    settings: AgentSettings,
    out: str | Path | None,
    opponents: Sequence[Player] | None = None,
    panel: Sequence[Player] | None = None,
    resume: bool = False,
    jobs: int = 1,
) -> Trainer:
    """Train, evaluate and save: ``out/policy.json``, ``metrics.csv``, ``curve.csv``,
    ``metrics.png`` / ``.pdf``, ``checkpoint.npz`` (after every evaluation) and ``run.json``.
    With ``out=None`` nothing is written (a study keeps the trained agent and its curve)."""
    from games.players import resolve_player

    opponents = list(opponents) if opponents is not None else [resolve_player(o, game) for o in settings.opponents]
    panel = list(panel) if panel is not None else [resolve_player(p, game) for p in settings.eval_panel]
    trainer = Trainer(game, settings, opponents)
    if out is not None:
        out = Path(out)
        checkpoint = out / ckpt.FILENAME
        if resume:
            trainer.restore(checkpoint)
        elif checkpoint.exists():
            raise FsmarenaError(f"{out} already holds a training checkpoint: resume it or choose another folder")
    if trainer.done >= settings.games and out is not None:  # a finished run resumed: just rewrite the outputs
        _write_outputs(trainer, out)
    task = _AgentRun(trainer, panel, jobs, out)
    run_loop.run(
        task,
        settings.games,
        "31 agent",
        "game",
        next_size=lambda done: run_loop.step_size(done, settings.games, settings.batch, settings.eval_every),
        is_point=lambda done: done % settings.eval_every == 0 or done == settings.games,
        checkpoints=run_loop.Checkpoints(at_points=True),
        first_point=trainer.done == 0 and not trainer.curve,
    )
    trainer.agent.epsilon = 0.0
    return trainer


class _AgentRun:
    """A training run as the one run loop drives it (:class:`fsmarena.run_loop.Task`): a step is
    a batch of games, a curve point an evaluation against the panel, a save every output file
    and the checkpoint (nothing without a folder)."""

    def __init__(self, trainer: Trainer, panel: Sequence[Player], jobs: int, out: Path | None):
        self.trainer, self.panel, self.jobs, self.out = trainer, panel, jobs, out

    @property
    def done(self) -> int:
        return self.trainer.done

    def step(self, size: int) -> None:
        self.trainer.run_batch(size)

    def curve_point(self) -> None:
        self.trainer.evaluate(self.panel, self.jobs)

    def save(self) -> None:
        if self.out is not None:
            _write_outputs(self.trainer, self.out)


def _write_outputs(trainer: Trainer, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    trainer.agent.epsilon = 0.0
    save_player(trainer.agent, trainer.game, out / "policy.json")
    write_csv(out / "metrics.csv", METRIC_FIELDS, trainer.metrics)
    write_csv(out / "curve.csv", CURVE_FIELDS, trainer.curve)
    write_json(
        out / "run.json",
        {"settings": _jsonable(asdict(trainer.settings)), "games": trainer.done, "curve": trainer.curve},
    )
    plot_metrics(trainer.metrics, trainer.curve, out / "metrics")
    trainer.save(out / ckpt.FILENAME)


# ---- command line -----------------------------------------------------------------------------

#: ``fsmarena train thirtyone --algo mlp`` options: the settings the registry gives the neural
#: agent (:mod:`rl.registry`, ``mlp``), each setting the :class:`AgentSettings` field of its
#: name, but for these two
RENAMED_OPTIONS = {"episodes": "games", "opponent": "opponents"}
COMMAND_OPTIONS = {
    name: RENAMED_OPTIONS.get(name, name)
    for name in registry.learner("mlp", "approximator").settings
    if name != "resume"
}


def command_settings(options: dict[str, Any], seed: int) -> AgentSettings:
    """The settings of a command-line run from the options the user gave (None = not given):
    ``--episodes`` is required, ``--eval-every`` defaults to a tenth of it (as for the tabular
    learners), everything else to :class:`AgentSettings`.  An option the agent does not use is
    refused rather than ignored."""
    given = {k: v for k, v in options.items() if v is not None}
    unused = sorted(set(given) - set(COMMAND_OPTIONS))
    if unused:
        raise FsmarenaError(f"--{unused[0].replace('_', '-')} does not apply to the mlp agent")
    games = given.get("episodes")
    if isinstance(games, bool) or not isinstance(games, int) or games <= 0:
        raise FsmarenaError(f"--episodes must be a positive whole number, got {games!r}")
    values: dict[str, Any] = {"seed": int(seed), "eval_every": max(1, games // 10)}
    for option, value in given.items():
        if option == "opponent":
            value = (value,)
        elif isinstance(value, list):
            value = tuple(value)
        values[COMMAND_OPTIONS[option]] = value
    settings = AgentSettings(**values)
    settings.check()
    return settings


def train_command(game: ThirtyOne, options: dict[str, Any], seed: int, out: str | Path, resume: bool):
    """``fsmarena train thirtyone --algo mlp`` (the game's ``approximators`` entry): check every
    setting, player and the checkpoint situation (FsmarenaError, before any output), then
    return ``run(jobs) -> summary`` that trains with :func:`train_agent`."""
    from games.players import resolve_player

    if not isinstance(game, ThirtyOne):
        raise FsmarenaError("the mlp agent plays 31 (thirtyone) only")
    settings = command_settings(options, seed)
    opponents = [resolve_player(name, game) for name in settings.opponents]
    panel = [resolve_player(name, game) for name in settings.eval_panel]
    checkpoint = Path(out) / ckpt.FILENAME
    if resume:
        Trainer(game, settings, opponents).restore(checkpoint)  # missing, damaged or other settings
    elif checkpoint.exists():
        raise FsmarenaError(
            f"{out} already holds a training checkpoint: pass --resume to continue it, or choose another output folder"
        )

    def run(jobs: int = 1) -> dict[str, Any]:
        trainer = train_agent(game, settings, out, opponents, panel, resume=resume, jobs=jobs)
        final = [row for row in trainer.curve if row["games"] == trainer.done]
        return {
            "algo": "mlp",
            "games": trainer.done,
            "seconds": sum(m["seconds"] for m in trainer.metrics),
            "final": final,
            "config": _jsonable(asdict(settings)),
        }

    return run
