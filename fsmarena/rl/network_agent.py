"""The network player: action values from a game's ``features``, one network per decision kind.

Any game whose observations carry ``features`` (``Game.feature_names``) can be played by a
:class:`NetworkAgent`.  A *head* is one kind of decision with its own network: the actions
``first .. first + n_actions - 1``, decided when the observation's ``phase`` equals the head's
``phase`` (or at every decision when the head names no phase).  By default a game has one head
over all its actions; a game whose decisions differ in kind (31: draw or knock, then which card
to throw) declares its heads and its recommended training settings as a :class:`NetworkSpec`
named in its registry entry (``GameEntry.network``).  The split is the game's only part in the
learner.

Illegal actions are masked (value -inf) before the argmax; with probability ``epsilon`` a
uniformly random legal action is taken instead.  While a trainer is attached
(:mod:`fsmarena.rl.network_training`), every decision is recorded for its Monte Carlo update.  The
player file is JSON (kind ``network``: the feature names, then per head its layer sizes and
weights as numbers, validated on load - never pickle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from fsmarena.fileio import Fields
from fsmarena.games.base import Game, Observation, Outcome
from fsmarena.games.players import Player, uniform_legal
from fsmarena.games.registry import entry, resolve
from fsmarena.rl.network import QNetwork

KIND = "network"


@dataclass(frozen=True)
class Head:
    """One kind of decision and its network: actions ``first .. first + n_actions - 1``,
    taken when ``observation.phase == phase`` (``None``: at every decision)."""

    name: str
    first: int
    n_actions: int
    phase: int | None = None


@dataclass(frozen=True)
class NetworkSpec:
    """What a game declares for the network learner: its heads and the training settings it
    recommends (fields of :class:`fsmarena.rl.network_training.NetworkSettings`, e.g. its opponents)."""

    heads: tuple[Head, ...]
    defaults: Mapping[str, Any] = field(default_factory=dict)


def network_spec(game: Game) -> NetworkSpec:
    """The game's declared :class:`NetworkSpec`, or one head over all its actions."""
    target = entry(game.name).network
    if target:
        spec = resolve(target, f"network of {game.name}")
        if not isinstance(spec, NetworkSpec):
            raise TypeError(f"{target} is not a NetworkSpec")
        return spec
    return NetworkSpec((Head("q", 0, game.n_actions),))


class Learning(Protocol):
    """What an agent in training reports to (:class:`fsmarena.rl.network_training.Trainer`)."""

    segments: bool

    def learn(self, memory: "Decisions", outcome: Outcome, seat: int) -> None: ...


class Decisions:
    """The learner's decisions in one engine call's ``n`` games, for the Monte Carlo update:
    per decision its game, head, features, action (within the head), segment and potential
    (zeros unless the learner is rewarded by segments, :mod:`fsmarena.rl.segments`)."""

    KEYS = ("game", "head", "x", "action", "segment", "potential")

    def __init__(self, n: int, segments: bool):
        self.n, self.segments = n, segments
        self.parts: dict[str, list[np.ndarray]] = {k: [] for k in self.KEYS}

    def add(self, obs: Observation, rows: np.ndarray | None, head: int, x: np.ndarray, action: np.ndarray) -> None:
        count = len(action)
        games = np.arange(self.n) if rows is None else np.asarray(rows)
        segment = np.broadcast_to(obs.segment, count) if self.segments else np.zeros(count, dtype=np.int64)
        potential = np.broadcast_to(obs.potential, count) if self.segments else np.zeros(count)
        for key, value in zip(self.KEYS, (games, np.full(count, head), x, action, segment, potential)):
            self.parts[key].append(np.asarray(value))

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.concatenate(v) for k, v in self.parts.items()} if self.parts["game"] else {}


class NetworkAgent(Player):
    """The network player of one game (module docstring).  ``epsilon`` > 0 explores; a
    ``trainer`` attached by :class:`fsmarena.rl.network_training.Trainer` records decisions and learns
    in :meth:`finish`."""

    kind = KIND

    def __init__(self, features: Sequence[str], heads: Sequence[Head], nets: Mapping[str, QNetwork], label=None):
        super().__init__(label or "network")
        self.features, self.heads = tuple(features), tuple(heads)
        self.nets = dict(nets)
        self.epsilon = 0.0
        self.trainer: Learning | None = None

    def _head(self, obs: Observation) -> int:
        if len(self.heads) == 1:
            return 0
        phase = int(np.asarray(obs.phase).flat[0])
        for number, head in enumerate(self.heads):
            if head.phase is None or head.phase == phase:
                return number
        raise ValueError(f"no head decides in phase {phase}")

    def begin(self, game, n, members, rng):
        return Decisions(n, self.trainer.segments) if self.trainer is not None else None

    def act(self, obs, memory, rows, rng):
        number = self._head(obs)
        head = self.heads[number]
        x = obs.features
        mask = obs.mask
        if mask is None:
            legal = np.ones((obs.n, head.n_actions), dtype=bool)
        else:
            legal = mask[:, head.first : head.first + head.n_actions]
        values = self.nets[head.name].predict(x)
        choice = np.argmax(np.where(legal, values, -np.inf), axis=1)
        if self.epsilon > 0:
            explore = rng.random(obs.n) < self.epsilon
            if explore.any():
                choice[explore] = uniform_legal(legal[explore], rng)
        if memory is not None:
            memory.add(obs, rows, number, x.astype(np.float32), choice)
        return choice + head.first

    def finish(self, memory, outcome, seat):
        if memory is not None and self.trainer is not None:
            self.trainer.learn(memory, outcome, seat)

    def to_dict(self):
        return {"features": list(self.features), **{head.name: self.nets[head.name].to_json() for head in self.heads}}

    @classmethod
    def from_fields(cls, fields, game):
        if not game.feature_names:
            raise fields.fail(f"{game.name} has no features: a network player cannot play it")
        names = fields.get("features", list)
        if list(names) != list(game.feature_names):
            raise fields.fail("the networks were trained on a different feature list than this version's")
        heads = network_spec(game).heads
        nets = {
            head.name: QNetwork.from_json(
                Fields(fields.get(head.name, dict), f"{fields.source} {head.name} network"),
                len(game.feature_names),
                head.n_actions,
            )
            for head in heads
        }
        return cls(game.feature_names, heads, nets, label=fields.get("label", str, None))
