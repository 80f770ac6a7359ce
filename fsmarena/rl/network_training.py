"""Training the network player (:mod:`fsmarena.rl.network_agent`) from play, on any game with features.

:class:`NetworkLearner` is the algorithm as the learner registry names it (``--algo mlp``);
:class:`Trainer` holds a run's state (the networks, Adam's moments, the random stream, the
metrics and the learning curve) and :func:`train_network` drives it through the one run loop
(:mod:`fsmarena.run_loop`): batches of training games, an evaluation against the panel at every
curve point, the output files and a checkpoint there.

* **Rewards.**  A decision ``k`` learner decisions before the end of its episode gets
  ``gamma**k`` times the episode's reward.  The episode is the game, rewarded by its final
  reward (``reward = "game"``), or, in games with segments (31's rounds), the segment,
  rewarded by the change of the game's potential across it (``reward = "segment"``, the
  default there: :mod:`fsmarena.rl.segments`, which telescopes to the final reward over a game).
* **Updates.**  Monte Carlo regression after every engine call: each head's output for the
  action taken moves towards the return (mean squared error, Adam, ``epochs`` passes, the
  decisions in an order drawn from the run's stream); the outputs of the other actions keep
  their current values as targets.
* **Files.**  ``policy.json`` (the player, JSON numbers, never pickle), ``curve.csv`` (the
  columns of the tabular learners' curves, :mod:`fsmarena.rl.results`), ``metrics.csv`` (one row per
  batch: each head's loss, mean segment reward and length, rolling training reward and win
  rate, epsilon), ``run.json`` and ``checkpoint.npz`` (weights, Adam's moments, the random
  stream, metrics and curve, without pickle): a resumed run continues to the same weights as an
  uninterrupted one.  With a ``draw`` function (``fsmarena train`` passes
  :func:`fsmarena.figures.network.plot_metrics`) every save also draws ``metrics.png`` / ``.pdf``:
  the learners write data, the figures layer draws it.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from fsmarena import limits, run_loop
from fsmarena.csvfile import write_csv
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import dumps, loads, write_json, write_text
from fsmarena.games.arena import Seat, play_games
from fsmarena.games.base import Game, Outcome, config_to_dict
from fsmarena.games.capabilities import SegmentRewards
from fsmarena.games.players import GroupedStack, Player, resolve_player, save_player
from fsmarena.options import check_finals
from fsmarena.parallel import restore_rng, seed_sequence
from fsmarena.rl import checkpoint as ckpt
from fsmarena.rl import registry
from fsmarena.rl.checkpoint import check_table
from fsmarena.rl.evaluation import evaluate, streams
from fsmarena.rl.network import QNetwork, check_layer_sizes, check_network_size
from fsmarena.rl.network_agent import Decisions, Head, NetworkAgent, network_spec
from fsmarena.rl.results import curve_csv
from fsmarena.rl.resume import curve_columns
from fsmarena.rl.schedules import EpsilonSchedule, check_probability
from fsmarena.rl.segments import REWARDS, segment_returns

CHECKPOINT_KIND = "network-training"


@dataclass(frozen=True)
class NetworkSettings:
    """Training settings: defaults are small networks and the seed's epsilon and discount;
    a game's :class:`fsmarena.rl.network_agent.NetworkSpec` may recommend its own (31: greedy
    opponents).  ``reward`` None is ``segment`` in games with segments, ``game`` otherwise."""

    games: int = 200_000
    batch: int = 2_000
    hidden: tuple[int, ...] = (64, 64)
    learning_rate: float = 1e-3
    epochs: int = 1
    gamma: float = 0.98
    epsilon: float = 0.05
    epsilon_final: float = 0.04
    epsilon_schedule: str = "linear"
    opponents: tuple[str, ...] = ("random",)
    eval_every: int = 20_000
    eval_games: int = 10_000
    eval_panel: tuple[str, ...] = ("random",)
    rolling: int = 10_000
    seed: int = 0
    reward: str | None = None

    @classmethod
    def of(cls, game: Game, **given: Any) -> "NetworkSettings":
        """The game's recommended settings overridden by ``given``, resolved and checked."""
        values = {**network_spec(game).defaults, **given}
        unknown = sorted(set(values) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise FsmarenaError(f"unknown network setting '{unknown[0]}'")
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        settings = cls(**values)
        if settings.reward is None:
            settings = dataclasses.replace(settings, reward="segment" if isinstance(game, SegmentRewards) else "game")
        settings.check(game)
        check_finals(given, {"epsilon": settings.epsilon_schedule}, "the network learner")
        return settings

    def check(self, game: Game) -> None:
        """FsmarenaError (one line) for any setting that cannot train on ``game``."""
        for name in ("games", "batch", "epochs", "eval_every", "eval_games", "rolling"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise FsmarenaError(f"{name} must be a positive whole number, got {value!r}")
        limits.check(self.batch, limits.MAX_BATCH_GAMES, "batch", "MAX_BATCH_GAMES")
        limits.check(self.epochs * self.batch, limits.MAX_EPOCH_GAMES, "epochs x batch", "MAX_EPOCH_GAMES")
        if not game.feature_names:
            raise FsmarenaError(f"{game.name} has no features: the network learner needs them")
        widest = max(head.n_actions for head in network_spec(game).heads)
        check_network_size(self.hidden, len(game.feature_names), widest)
        if not (0 < self.learning_rate < 1) or not (0 < self.gamma <= 1):
            raise FsmarenaError("learning_rate must be in (0, 1) and gamma in (0, 1]")
        if game.n_seats > 1 and not self.opponents:
            raise FsmarenaError("training needs at least one opponent")
        EpsilonSchedule(check_probability("epsilon", self.epsilon), self.epsilon_final, self.epsilon_schedule)
        if self.reward not in REWARDS:
            raise FsmarenaError(f"unknown reward '{self.reward}' (known: {', '.join(REWARDS)})")
        if self.reward == "segment" and not isinstance(game, SegmentRewards):
            raise FsmarenaError(f"{game.name} has no segments: use --reward game")

    def to_json(self) -> dict[str, Any]:
        """The settings as they read back from JSON (tuples -> lists)."""
        return loads(dumps(asdict(self)))


def metric_fields(heads: Sequence[Head]) -> tuple[str, ...]:
    """The columns of ``metrics.csv``: one loss per head."""
    losses = tuple(f"{head.name}_loss" for head in heads)
    return (
        "games",
        "epsilon",
        *losses,
        "mean_segment_reward",
        "segment_length",
        "rolling_mean_reward",
        "rolling_win_rate",
        "seconds",
    )


class Trainer:
    """A network learner's run on one game against fixed opponents (module docstring)."""

    def __init__(self, game: Game, settings: NetworkSettings, opponents: Sequence[Player]):
        settings.check(game)
        self.game, self.settings = game, settings
        self.opponents = list(opponents) if game.n_seats > 1 else []
        self.segments = settings.reward == "segment"
        heads = network_spec(game).heads
        seeds = seed_sequence(settings.seed).spawn(len(heads) + 1)
        nets = {
            head.name: QNetwork(
                len(game.feature_names),
                head.n_actions,
                settings.hidden,
                settings.learning_rate,
                int(seed.generate_state(1)[0] % (2**31)),
            )
            for head, seed in zip(heads, seeds)
        }
        self.agent = NetworkAgent(game.feature_names, heads, nets)
        self.agent.trainer = self
        self.rng = np.random.default_rng(seeds[-1])
        self.eval_seed = streams(settings.seed)[1]
        self.schedule = EpsilonSchedule(settings.epsilon, settings.epsilon_final, settings.epsilon_schedule)
        self.done = 0
        self.metrics: list[dict[str, Any]] = []
        self.curve: list[dict[str, Any]] = []
        self.recent: list[np.ndarray] = []
        self._batch_stats: dict[str, list] = {}

    # ---- one batch -----------------------------------------------------------------------
    def learn(self, memory: Decisions, outcome: Outcome, seat: int) -> None:
        """Monte Carlo update from one engine call's games (the learner in ``seat``)."""
        data = memory.arrays()
        final = outcome.rewards[:, seat]
        self.recent.append(final)
        if not data:
            return
        order = np.lexsort((np.arange(len(data["game"])), data["segment"], data["game"]))
        data = {key: value[order] for key, value in data.items()}
        games = data["game"]
        returns, reward, sizes = segment_returns(
            games, data["segment"], data["potential"], final[games], self.settings.gamma
        )
        stats = self._batch_stats
        stats.setdefault("reward", []).append(reward)
        stats.setdefault("length", []).append(sizes)
        for number, head in enumerate(self.agent.heads):
            pick = np.flatnonzero(data["head"] == number)
            pick = pick[self.rng.permutation(len(pick))]
            x = data["x"][pick].astype(float)
            loss = self.agent.nets[head.name].fit(x, data["action"][pick], returns[pick], self.settings.epochs)
            stats.setdefault(head.name, []).append((loss, len(pick)))

    def run_batch(self, size: int) -> None:
        """``size`` training games, the learner's seat rotating over the table."""
        s = self.settings
        self.agent.epsilon = self.schedule.value(self.done, s.games)
        self._batch_stats = {}
        start = time.perf_counter()
        seats = self.game.n_seats
        per_seat = [size // seats + (1 if k < size % seats else 0) for k in range(seats)]
        for seat, games in enumerate(per_seat):
            if games:
                play_games(self.game, self._table(seat, games), games, self.rng)
        self.done += size
        self._record(time.perf_counter() - start)

    def _table(self, seat: int, games: int) -> list[Player | Seat]:
        """The learner in ``seat``, an opponent in every other (a mixture: drawn per game)."""
        table: list[Player | Seat] = []
        for other in range(self.game.n_seats):
            if other == seat:
                table.append(self.agent)
            elif len(self.opponents) == 1:
                table.append(self.opponents[0])
            else:
                members = self.rng.integers(0, len(self.opponents), size=games)
                table.append(Seat(GroupedStack(self.opponents), members))
        return table

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
                **{f"{head.name}_loss": weighted(head.name) for head in self.agent.heads},
                "mean_segment_reward": float(rewards.mean()) if len(rewards) else float("nan"),
                "segment_length": float(lengths.mean()) if len(lengths) else float("nan"),
                "rolling_mean_reward": float(recent.mean()) if len(recent) else float("nan"),
                "rolling_win_rate": float((recent > 0).mean()) if len(recent) else float("nan"),
                "seconds": seconds,
            }
        )

    def evaluate(self, panel: Sequence[Player], jobs: int = 1) -> None:
        """Greedy-policy matches (epsilon 0, no learning) against each panel player, with the
        same deals at every point (common random numbers)."""
        trainer, epsilon = self.agent.trainer, self.agent.epsilon
        self.agent.trainer, self.agent.epsilon = None, 0.0
        try:
            rows = evaluate(self.game, self.agent, panel, self.settings.eval_games, self.eval_seed, jobs)
        finally:
            self.agent.trainer, self.agent.epsilon = trainer, epsilon
        eps = self.schedule.value(self.done, self.settings.games)
        self.curve.extend({"games": self.done, "iteration": "", **row, "epsilon": eps} for row in rows)

    # ---- checkpoints ---------------------------------------------------------------------
    def network_tables(self) -> dict[str, np.ndarray]:
        """Every head's weights and optimiser state, as a checkpoint stores them."""
        tables: dict[str, np.ndarray] = {}
        for name, net in self.agent.nets.items():
            tables.update({f"{name}_{k}": v for k, v in net.arrays().items()})
            tables.update({f"{name}_opt_{k}": v for k, v in net.optimizer_arrays().items()})
        return tables

    def _game_record(self) -> dict[str, Any]:
        return {"name": self.game.name, "parameters": loads(dumps(config_to_dict(self.game.config)))}

    def save(self, path: str | Path) -> None:
        tables = self.network_tables()
        if self.recent:
            tables["recent"] = np.concatenate(self.recent)
        meta = {
            "kind": CHECKPOINT_KIND,
            "settings": self.settings.to_json(),
            "game": self._game_record(),
            "done": self.done,
            "rng": ckpt.rng_state(self.rng),
            "metrics": self.metrics,
            "curve": self.curve,
        }
        ckpt.save_checkpoint(path, meta, tables)

    def restore(self, path: str | Path, panel: Sequence[Player]) -> None:
        """Take over the checkpoint at ``path``, checked in full first (FsmarenaError)."""
        expected: dict[str, np.ndarray | None] = {**self.network_tables(), "recent": None}
        meta, tables = ckpt.load_checkpoint(
            path, lists=("curve", "metrics"), max_done=self.settings.games, expected=expected
        )
        source = f"checkpoint {path}"
        if meta.get("kind") != CHECKPOINT_KIND:
            raise FsmarenaError(f"{source} is not a network learner's checkpoint")
        settings = self.settings.to_json()
        if meta.get("settings") != settings:
            changed = run_loop.differences(meta.get("settings"), settings)
            raise FsmarenaError(f"{source} was written with other training settings: {changed}")
        if meta.get("game") != self._game_record():
            raise FsmarenaError(f"{source} was written for another game or other rules")
        done = int(meta["done"])
        metrics = ckpt.check_rows(meta["metrics"], _metric_columns(self.agent.heads, done), source, "metrics")
        curve = ckpt.check_rows(meta["curve"], curve_columns(panel, done), source, "curve")
        recent = tables.get("recent")
        if recent is not None:
            check_table(recent, np.zeros(len(recent)), source, "recent")
            if recent.ndim != 1 or len(recent) > self.settings.rolling:
                raise FsmarenaError(f"{source}: table 'recent' must hold at most {self.settings.rolling} rewards")
        for name, net in self.agent.nets.items():
            where = f"{source} ({name} network)"
            net.set_arrays({k[len(name) + 1 :]: v for k, v in tables.items() if _is_weight(k, name)}, where)
            prefix = f"{name}_opt_"
            net.set_optimizer_arrays({k[len(prefix) :]: v for k, v in tables.items() if k.startswith(prefix)}, where)
        self.recent = [np.asarray(recent, dtype=float)] if recent is not None else []
        self.done = done
        self.rng = restore_rng(meta["rng"], source)
        self.metrics, self.curve = list(metrics), list(curve)


def _is_weight(key: str, head: str) -> bool:
    return key.startswith(f"{head}_w") or key.startswith(f"{head}_b")


def _metric_columns(heads: Sequence[Head], done: int) -> dict[str, ckpt.Column]:
    """What each column of a checkpointed metrics row may hold (:meth:`Trainer._record`;
    a NaN, e.g. the loss of a batch without decisions, is saved as null)."""
    nonnegative = ckpt.Column(float, 0.0, empty=True)
    rate = ckpt.Column(float, 0.0, 1.0, empty=True)
    return {
        "games": ckpt.Column(int, 0, done),
        "epsilon": ckpt.Column(float, 0.0, 1.0),
        **{f"{head.name}_loss": nonnegative for head in heads},
        "mean_segment_reward": ckpt.Column(float, empty=True),
        "segment_length": nonnegative,
        "rolling_mean_reward": ckpt.Column(float, empty=True),
        "rolling_win_rate": rate,
        "seconds": ckpt.Column(float, 0.0),
    }


# ---- the run ---------------------------------------------------------------------------------

#: what draws a run's figure at every save: ``draw(metrics, curve, head names, stem)``, the stem
#: without suffix (:func:`fsmarena.figures.network.plot_metrics`, which ``fsmarena train`` passes)
DrawMetrics = Callable[[list[dict[str, Any]], list[dict[str, Any]], Sequence[str], Path], None]


def train_network(
    game: Game,
    settings: NetworkSettings,
    out: str | Path | None,
    opponents: Sequence[Player] | None = None,
    panel: Sequence[Player] | None = None,
    resume: bool = False,
    jobs: int = 1,
    draw: DrawMetrics | None = None,
) -> Trainer:
    """Train, evaluate and save (module docstring); with ``out=None`` nothing is written (a
    study keeps the trained agent and its curve), with ``draw`` every save draws the run's figure."""
    if opponents is None:
        opponents = [resolve_player(o, game) for o in settings.opponents] if game.n_seats > 1 else []
    if panel is None:
        panel = [resolve_player(p, game) for p in settings.eval_panel] if game.n_seats > 1 else []
    trainer = Trainer(game, settings, opponents)
    if out is not None:
        out = Path(out)
        checkpoint = out / ckpt.FILENAME
        if resume:
            trainer.restore(checkpoint, panel)
        elif checkpoint.exists():
            raise FsmarenaError(f"{out} already holds a training checkpoint: resume it or choose another folder")
    if trainer.done >= settings.games and out is not None:  # a finished run resumed: just rewrite the outputs
        _write_outputs(trainer, out, draw)
    run_loop.run(
        _NetworkRun(trainer, panel, jobs, out, draw),
        settings.games,
        f"train network {game.name}",
        "game",
        next_size=lambda done: run_loop.step_size(done, settings.games, settings.batch, settings.eval_every),
        is_point=lambda done: done % settings.eval_every == 0 or done == settings.games,
        checkpoints=run_loop.Checkpoints(at_points=True),
        first_point=trainer.done == 0 and not trainer.curve,
    )
    trainer.agent.epsilon = 0.0
    return trainer


class _NetworkRun:
    """A training run as the one run loop drives it (:class:`fsmarena.run_loop.Task`): a step is
    a batch of games, a curve point an evaluation against the panel, a save every output file
    and the checkpoint (nothing without a folder)."""

    def __init__(
        self, trainer: Trainer, panel: Sequence[Player], jobs: int, out: Path | None, draw: DrawMetrics | None
    ):
        self.trainer, self.panel, self.jobs, self.out, self.draw = trainer, panel, jobs, out, draw

    @property
    def done(self) -> int:
        return self.trainer.done

    def step(self, size: int) -> None:
        self.trainer.run_batch(size)

    def curve_point(self) -> None:
        self.trainer.evaluate(self.panel, self.jobs)

    def save(self) -> None:
        if self.out is not None:
            _write_outputs(self.trainer, self.out, self.draw)


def _write_outputs(trainer: Trainer, out: Path, draw: DrawMetrics | None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    trainer.agent.epsilon = 0.0
    save_player(trainer.agent, trainer.game, out / "policy.json")
    write_csv(out / "metrics.csv", metric_fields(trainer.agent.heads), trainer.metrics)
    write_text(out / "curve.csv", curve_csv(trainer.curve))
    write_json(
        out / "run.json", {"settings": trainer.settings.to_json(), "games": trainer.done, "curve": trainer.curve}
    )
    if draw is not None:
        draw(trainer.metrics, trainer.curve, [head.name for head in trainer.agent.heads], out / "metrics")
    trainer.save(out / ckpt.FILENAME)


# ---- the learner as the registry names it ------------------------------------------------------

#: the command-line options of ``--algo mlp`` (the registry's settings of the learner), each the
#: :class:`NetworkSettings` field of its name but for these two
RENAMED_OPTIONS = {"episodes": "games", "opponent": "opponents"}


class NetworkLearner:
    """Monte Carlo control with action-value networks (``--algo mlp``), on any game with features.

    Pseudocode (``settings.batch`` games per step, the learner's seat rotating)::

        for each head h (a kind of decision, :class:`fsmarena.rl.network_agent.Head`):
            Q_h <- a small MLP from features to the values of h's actions
        repeat until `games` training games are played:
            epsilon <- the schedule's value at the games done
            play the batch: at each decision of the learner, with head h,
                a <- argmax over legal actions of Q_h(x), or with probability epsilon a
                     uniformly random legal action; record (x, h, a, segment, potential)
            for each recorded decision, k decisions before the end of its episode (the
            game, or its segment with reward = "segment"):
                G <- gamma**k * (episode reward)
            for each head h: Adam steps (epochs passes) on (Q_h(x)[a] - G)**2, every other
                output of Q_h keeping its current value as target
            at every curve point: greedy matches against the panel (epsilon 0)
    """

    @staticmethod
    def validate(game: Game, options: dict[str, Any], seed: int) -> NetworkSettings:
        """The settings of a command-line run from the options the user gave: ``--episodes``
        is required, ``--eval-every`` defaults to a tenth of it (as for the tabular learners),
        everything else to the game's recommendation or :class:`NetworkSettings`.  An option
        the learner does not use is refused rather than ignored (FsmarenaError, one line)."""
        takes = registry.learner("mlp", "network").settings
        unused = sorted(set(options) - set(takes))
        if unused:
            raise FsmarenaError(f"--{unused[0].replace('_', '-')} does not apply to the network learner (mlp)")
        games = options.get("episodes")
        if isinstance(games, bool) or not isinstance(games, int) or games <= 0:
            raise FsmarenaError(f"--episodes must be a positive whole number, got {games!r}")
        if game.n_seats == 1 and "opponent" in options:
            raise FsmarenaError(f"{game.name} is a one-player game: opponents do not apply")
        if "hidden" in options:
            check_layer_sizes(options["hidden"])
        values: dict[str, Any] = {"seed": int(seed), "eval_every": max(1, games // 10)}
        for option, value in options.items():
            values[RENAMED_OPTIONS.get(option, option)] = (value,) if option == "opponent" else value
        return NetworkSettings.of(game, **values)

    @classmethod
    def start(
        cls,
        game: Game,
        options: dict[str, Any],
        seed: int,
        out: str | Path,
        resume: bool,
        draw: DrawMetrics | None = None,
    ) -> Callable[[int], dict[str, Any]]:
        """``fsmarena train GAME --algo mlp``: check every setting, player and the checkpoint
        situation (FsmarenaError, before any output), then return ``run(jobs) -> summary``
        (``draw``: the run's figure at every save, :func:`train_network`)."""
        settings = cls.validate(game, options, seed)
        opponents = [resolve_player(name, game) for name in settings.opponents] if game.n_seats > 1 else []
        panel = [resolve_player(name, game) for name in settings.eval_panel] if game.n_seats > 1 else []
        checkpoint = Path(out) / ckpt.FILENAME
        if resume:
            Trainer(game, settings, opponents).restore(checkpoint, panel)  # missing, damaged or other settings
        elif checkpoint.exists():
            raise FsmarenaError(
                f"{out} already holds a training checkpoint: pass --resume to continue it, "
                "or choose another output folder"
            )

        def run(jobs: int = 1) -> dict[str, Any]:
            trainer = train_network(game, settings, out, opponents, panel, resume=resume, jobs=jobs, draw=draw)
            return {
                "algo": "mlp",
                "games": trainer.done,
                "seconds": sum(m["seconds"] for m in trainer.metrics),
                "final": [row for row in trainer.curve if row["games"] == trainer.done],
                "config": settings.to_json(),
            }

        return run
