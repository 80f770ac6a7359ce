"""PettingZoo and Gymnasium environments for every registered game (extra ``[envs]``).

Three environments, each stepping the game's compiled single-game kernel
(:class:`games.stepper.KernelStepper`: no thread, no batched engine), so every registered
game has them:

* :class:`AECGameEnv` (``aec_env("dtd")``): PettingZoo's agent-environment-cycle API, one
  agent ``player_<seat>`` per seat, as PettingZoo's classic games are;
* :class:`ParallelGameEnv` (``parallel_env("vautour")``): PettingZoo's parallel API, for
  games whose seats move simultaneously (:class:`games.capabilities.SimultaneousMoves`);
* :class:`GymGameEnv` (``gym_env("dtd", opponents=["random", "best.json"])``, or
  ``gymnasium.make("fsmarena/DivideTheDollar-v0")`` after ``import fsmarena``): one seat
  against opponents given as fsmarena player specs (builtin names, player JSON files, player
  objects); a list is a pool drawn from for every opponent seat of every episode.

Observations follow PettingZoo's classic convention: ``{"observation": ..., "action_mask":
int8 mask}``, where the observation is a dict of the game's ``features`` (``Box`` in [0, 1],
float64) and its small-integer encodings (``Discrete`` each).  The tabular state ``index`` is
in ``info["index"]``; ``index_in_observation=True`` adds it to the observation as a
``Discrete`` (up to half a million values, which ``FlattenObservation`` would one-hot encode).
The Gymnasium environment flattens the same parts into one dict (the parts and
``action_mask``); the mask is also in ``info["action_mask"]`` and ``action_masks()``.
Rewards are the game's: 0 until the end, then the game's reward (+1 sole winner, 0 shared
first place, -1 otherwise; the score in a one-player game); ``info["scores"]`` holds the final
scores.

Illegal actions (``illegal_action``): an action in the action space but outside the legal mask
ends the episode by default (``"lose"``, as PettingZoo's classic games do): the mover gets
:data:`ILLEGAL_REWARD`, every other seat 0, and ``info["illegal_move"]`` says what was illegal
(``info["illegal_action"]``: the action).  ``"raise"`` raises :class:`IllegalAction` instead,
and ``"first-legal"`` plays the first legal action and reports it the same way.  An action
outside the action space (not a whole number, ``True``, out of range) is an
:class:`IllegalAction` under every policy, and so is an opponent's illegal answer, naming the
opponent.

Seeds: ``reset(seed=s)`` plays the episode of generator ``numpy.random.default_rng(s)``: the
Gymnasium opponents draw from a generator seeded with its first draw (``integers(2**63)``),
then the kernel deals from it (:class:`games.stepper.KernelDeals`); a later ``reset()``
without a seed plays the next child of ``SeedSequence(s)``.  ``stepper`` (``auto`` or
``kernel``, the same stepper) is kept for old callers.  Rule parameters are keyword
``params`` (values or ``--param``-style strings).  Every environment pickles and
deep-copies, mid-episode included, and the copy continues the same episode (the stepper
pickles its game, :mod:`games.stepper`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
except ModuleNotFoundError as _missing:  # pragma: no cover - exercised without the extra
    raise ImportError(
        f"the fsmarena environments need PettingZoo and Gymnasium ({_missing.name} is not installed): "
        "pip install 'fsmarena[envs]'"
    ) from _missing

from games import game_class
from games.base import Game, Observation, parse_params
from games.capabilities import SimultaneousMoves
from games.gym_ids import env_id, register_envs  # noqa: F401 - env_id: part of this module's API
from games.kernel import kernel_of
from games.players import Player, resolve_player
from games.registry import GENERIC_PLAYER_KINDS, entries
from games.stepper import (
    Decision,
    Final,
    IllegalAction,
    KernelStepper,
    Turn,
    action_number,
    make_stepper,
)

ILLEGAL_POLICIES = ("lose", "raise", "first-legal")
#: the reward of the seat whose illegal action ended the episode (policy ``lose``; the other
#: seats get 0): a loss, and below every 421 score
ILLEGAL_REWARD = -1.0
SEAT_CHOICES = ("alternate", "random")


# ---- games and their parameters ------------------------------------------------------------


def build_game(game: str | Game, params: Mapping[str, Any] | None = None) -> Game:
    """The game named ``game`` with rule parameters ``params`` (values, or strings as
    ``--param`` takes them); a :class:`Game` is returned as it is."""
    if isinstance(game, Game):
        if params:
            raise FsmarenaError("give rule parameters with the game's name, not with a built game")
        return game
    cls = game_class(game)
    params = dict(params or {})
    fields = {f.name for f in dataclasses.fields(cls.Config)}
    unknown = sorted(set(params) - fields)
    if unknown:
        raise FsmarenaError(f"{game}: unknown parameter '{unknown[0]}' (known: {', '.join(sorted(fields))})")
    return cls(parse_params(cls.Config, {key: _param_text(value) for key, value in params.items()}))


def _param_text(value: Any) -> str:
    """A rule parameter as ``--param`` writes it (lists comma-separated), so that one parser
    checks every value the same way whatever form it was given in."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return ",".join(_param_text(v) for v in value)
    return str(value.item() if isinstance(value, np.generic) else value)


# ---- observations ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Seen:
    """One seat's latest observation: ``parts`` as the observation space holds them, the int8
    legal-action ``mask`` and the tabular state ``index``."""

    parts: dict[str, Any]
    mask: np.ndarray
    index: int


def legal_mask(obs: Observation, n_actions: int) -> np.ndarray:
    """The int8 legal-action mask of a one-row observation (all ones when it has none)."""
    mask = obs.mask
    return np.ones(n_actions, np.int8) if mask is None else np.asarray(mask, np.int8).reshape(-1).copy()


class Codec:
    """The game's observation parts as Gymnasium spaces and values: ``features`` (if the
    game has any; every game's features lie in [0, 1]), every encoding not named like the
    standard parts, and ``index`` if ``with_index``."""

    def __init__(self, game: Game, with_index: bool = False):
        self.game = game
        self.with_index = with_index
        parts: dict[str, spaces.Space] = {"index": spaces.Discrete(game.n_states)} if with_index else {}
        if game.feature_names:
            parts["features"] = spaces.Box(0.0, 1.0, (len(game.feature_names),), np.float64)
        self.encodings = [name for name in game.encodings if name not in ("index", "features", "action_mask")]
        for name in self.encodings:
            parts[name] = spaces.Discrete(int(game.encodings[name]))
        self.parts = parts
        self.mask_space = spaces.Box(0, 1, (game.n_actions,), np.int8)

    def encode(self, obs: Observation) -> Seen:
        """What a seat sees in a one-row observation."""
        index = int(np.asarray(obs.index).reshape(-1)[0])
        values: dict[str, Any] = {"index": np.int64(index)} if self.with_index else {}
        if "features" in self.parts:
            values["features"] = np.asarray(obs.features, dtype=np.float64).reshape(-1).copy()
        for name in self.encodings:
            values[name] = np.int64(np.asarray(getattr(obs, name)).reshape(-1)[0])
        return Seen(values, legal_mask(obs, self.game.n_actions), index)

    def blank(self) -> Seen:
        """What a seat that has not been asked anything yet sees (all zero, nothing legal)."""
        values: dict[str, Any] = {"index": np.int64(0)} if self.with_index else {}
        if "features" in self.parts:
            values["features"] = np.zeros(self.parts["features"].shape, np.float64)
        values.update({name: np.int64(0) for name in self.encodings})
        return Seen(values, np.zeros(self.game.n_actions, np.int8), 0)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value.copy() if isinstance(value, np.ndarray) else value


# ---- illegal actions ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Move:
    """An action after the illegal-action policy: ``number`` is what the game plays (``None``:
    the mover forfeits, policy ``lose``), ``given`` the action given, ``illegal`` the message
    naming it when it was illegal."""

    number: int | None
    given: int
    illegal: str | None = None

    def info(self) -> dict[str, Any]:
        """The ``info`` entries reporting an illegal action (none for a legal one)."""
        return {} if self.illegal is None else {"illegal_action": self.given, "illegal_move": self.illegal}


def judge(game: Game, action: Any, mask: np.ndarray, policy: str, who: str) -> Move:
    """``action`` of ``who`` under the illegal-action ``policy`` (module docstring): an
    IllegalAction if it is no action at all, or illegal under ``raise``."""
    number = action_number(action, game.n_actions, who)
    if mask[number]:
        return Move(number, number)
    legal = np.flatnonzero(mask)
    names = ", ".join(f"{a} ({game.action_names[a]})" for a in legal)
    message = f"{who}: action {number} is illegal ({game.action_names[number]}); legal actions: {names}"
    if policy == "raise":
        raise IllegalAction(message)
    return Move(int(legal[0]) if policy == "first-legal" else None, number, message)


def _check_policy(policy: str) -> str:
    if policy not in ILLEGAL_POLICIES:
        raise FsmarenaError(f"illegal_action must be one of {', '.join(ILLEGAL_POLICIES)}, got {policy!r}")
    return policy


def _not_started(name: str) -> FsmarenaError:
    return FsmarenaError(f"{name}: no episode in progress (not started, or over): call reset() first")


class Episodes:
    """Engine generators for successive episodes: ``default_rng(seed)`` after a seeded reset,
    then the children of ``SeedSequence(seed)``."""

    def __init__(self) -> None:
        self.sequence: np.random.SeedSequence | None = None

    def next(self, seed: int | None) -> np.random.Generator:
        if seed is not None:
            self.sequence = np.random.SeedSequence(seed)
            return np.random.default_rng(self.sequence)
        if self.sequence is None:
            self.sequence = np.random.SeedSequence()
        return np.random.default_rng(self.sequence.spawn(1)[0])

    def child(self) -> np.random.Generator:
        """An independent generator for the environment's own choices."""
        if self.sequence is None:
            self.sequence = np.random.SeedSequence()
        return np.random.default_rng(self.sequence.spawn(1)[0])


def _agent(seat: int) -> str:
    return f"player_{seat}"


def _describe(game: Game, agent: str, seen: Seen) -> str:
    legal = ", ".join(game.action_names[a] for a in np.flatnonzero(seen.mask))
    return f"{agent} to move: {game.state_label(seen.index)}; legal: {legal}"


# ---- PettingZoo ----------------------------------------------------------------------------


class _Stepped:
    """What every environment shares: the stepper that plays its episodes."""

    _stepper: KernelStepper

    @property
    def stepper(self) -> KernelStepper:
        """The stepper playing the episodes (:class:`games.stepper.KernelStepper`)."""
        return self._stepper


class _SeatAgents(_Stepped):
    """What both PettingZoo environments share: one agent per seat, with the classic games'
    observation (the game's parts and an action mask) and action spaces, a stepper and the
    episode seeds."""

    game: Game
    stepper_kind: str
    index_in_observation: bool

    def _seat_agents(self) -> None:
        self.codec = Codec(self.game, self.index_in_observation)
        self.possible_agents = [_agent(s) for s in range(self.game.n_seats)]
        inner = spaces.Dict(self.codec.parts)
        self._observation_spaces = {
            a: spaces.Dict({"observation": inner, "action_mask": self.codec.mask_space}) for a in self.possible_agents
        }
        self._action_spaces = {a: spaces.Discrete(self.game.n_actions) for a in self.possible_agents}
        self._stepper = make_stepper(self.game, self.stepper_kind)
        self._episodes = Episodes()
        self._seen: dict[str, Seen] = {}
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    def observe(self, agent: str) -> dict[str, Any]:
        """The last observation ``agent`` received (the current one for the agent to move)."""
        if agent not in self._seen:
            raise _not_started(self.game.name) if not self._seen else FsmarenaError(f"unknown agent {agent!r}")
        seen = self._seen[agent]
        return {"observation": _copy(seen.parts), "action_mask": seen.mask.copy()}


class AECGameEnv(_SeatAgents, AECEnv):
    """PettingZoo AEC environment of one fsmarena game (module docstring)."""

    metadata = {"name": "fsmarena_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        game: str | Game = "dtd",
        params: Mapping[str, Any] | None = None,
        illegal_action: str = "lose",
        render_mode: str | None = None,
        stepper: str = "auto",
        index_in_observation: bool = False,
    ):
        super().__init__()
        self.game = build_game(game, params)
        self.illegal_action = _check_policy(illegal_action)
        self.stepper_kind = stepper
        self.index_in_observation = bool(index_in_observation)
        if render_mode not in (None, "ansi"):
            raise FsmarenaError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.metadata = {
            **self.metadata,
            "name": f"fsmarena_{self.game.name}_v0",
            "is_parallelizable": isinstance(self.game, SimultaneousMoves),
        }
        self._seat_agents()

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        rng = self._episodes.next(seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._seen = {a: self.codec.blank() for a in self.agents}
        self._apply(self._stepper.start(rng))

    def _apply(self, turn: Turn) -> None:
        if isinstance(turn, Decision):
            self.agent_selection = _agent(turn.seat)
            self._seen[self.agent_selection] = seen = self.codec.encode(turn.observation)
            self.infos[self.agent_selection]["index"] = seen.index
            return
        self._end({a: float(turn.rewards[s]) for s, a in enumerate(self.possible_agents)}, turn.scores.tolist())

    def _end(self, rewards: dict[str, float], scores: list[float] | None) -> None:
        """Every agent is done with ``rewards`` (and the final ``scores``, if the game ended)."""
        for agent in self.possible_agents:
            self.rewards[agent] = rewards[agent]
            self.terminations[agent] = True
            if scores is not None:
                self.infos[agent]["scores"] = scores
        self.agent_selection = self.agents[0]

    def step(self, action: Any) -> None:
        if not self.agents:
            raise _not_started(self.game.name)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = judge(self.game, action, self._seen[agent].mask, self.illegal_action, agent)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        for item in self.infos.values():
            item.pop("illegal_action", None)
            item.pop("illegal_move", None)
        self.infos[agent].update(move.info())
        if move.number is None:
            self._stepper.close()
            self._end({a: ILLEGAL_REWARD if a == agent else 0.0 for a in self.possible_agents}, None)
        else:
            self._apply(self._stepper.answer(move.number))
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or not self.agents:
            return None
        if all(self.terminations.values()):
            return "game over: " + (
                "scores " + ", ".join(f"{a} {self.infos[a]['scores'][i]:g}" for i, a in enumerate(self.possible_agents))
                if "scores" in self.infos[self.possible_agents[0]]
                else "an illegal action ended it"
            )
        return _describe(self.game, self.agent_selection, self._seen[self.agent_selection])

    def close(self) -> None:
        self._stepper.close()


class ParallelGameEnv(_SeatAgents, ParallelEnv):
    """PettingZoo parallel environment of a simultaneous-move game: every seat answers each
    turn at once.  Every seat's observation of a turn comes from the stepper's probe (on a
    copy of the kernel's state: :meth:`games.stepper.KernelStepper.probe`).
    Under the policy ``lose`` every agent whose action is illegal gets :data:`ILLEGAL_REWARD`."""

    metadata = {"name": "fsmarena_parallel_v0", "render_modes": []}

    def __init__(
        self,
        game: str | Game = "vautour",
        params: Mapping[str, Any] | None = None,
        illegal_action: str = "lose",
        stepper: str = "auto",
        index_in_observation: bool = False,
    ):
        self.game = build_game(game, params)
        self.stepper_kind = stepper
        self.index_in_observation = bool(index_in_observation)
        if not isinstance(self.game, SimultaneousMoves):
            raise FsmarenaError(
                f"{self.game.name} is turn-based: use its AEC environment (aec_env) instead of the parallel API"
            )
        self.illegal_action = _check_policy(illegal_action)
        self.metadata = {**self.metadata, "name": f"fsmarena_{self.game.name}_parallel_v0"}
        self._seat_agents()

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.agents = list(self.possible_agents)
        self._stepper.start(self._episodes.next(seed))
        return self._observations(), {a: {"index": self._seen[a].index} for a in self.agents}

    def _observations(self) -> dict[str, dict]:
        turn = self._stepper.turn
        if not isinstance(turn, Decision) or turn.seat != 0:
            raise RuntimeError(f"{self.game.name}: a turn must start with seat 0 (kernel contract)")
        seen = self._stepper.probe(self.game.n_seats, _first_legal, self.codec.encode)
        self._seen = dict(zip(self.possible_agents, seen))
        return {a: self.observe(a) for a in self.agents}

    def step(self, actions: Mapping[str, Any]):
        if not self.agents:
            raise _not_started(self.game.name)
        unknown = [repr(a) for a in actions if a not in self.agents]
        if unknown:
            raise IllegalAction(f"unknown agent {', '.join(unknown)} (agents: {', '.join(self.agents)})")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise IllegalAction(f"every agent moves each turn: no action for {', '.join(missing)}")
        moves = {a: judge(self.game, actions[a], self._seen[a].mask, self.illegal_action, a) for a in self.agents}
        infos: dict[str, dict] = {a: move.info() for a, move in moves.items()}
        if any(move.number is None for move in moves.values()):
            self._stepper.close()
            rewards = {a: ILLEGAL_REWARD if move.number is None else 0.0 for a, move in moves.items()}
            return self._end(rewards, infos)
        turn = self._stepper.turn
        for seat, agent in enumerate(self.possible_agents):
            if not isinstance(turn, Decision) or turn.seat != seat:
                raise RuntimeError(f"{self.game.name}: seats must be asked in order each turn (kernel contract)")
            number = moves[agent].number
            assert number is not None  # no forfeit in this turn
            turn = self._stepper.answer(number)
        if isinstance(turn, Final):
            for agent in self.possible_agents:
                infos[agent]["scores"] = turn.scores.tolist()
            return self._end({a: float(turn.rewards[s]) for s, a in enumerate(self.possible_agents)}, infos)
        observations = self._observations()
        for agent in self.agents:
            infos[agent]["index"] = self._seen[agent].index
        done = {a: False for a in self.agents}
        return observations, {a: 0.0 for a in self.agents}, done, dict(done), infos

    def _end(self, rewards: dict[str, float], infos: dict[str, dict]):
        """The last step's answer: every agent is done with ``rewards``."""
        observations = {a: self.observe(a) for a in self.agents}
        done = {a: True for a in self.agents}
        self.agents = []
        return observations, rewards, done, {a: False for a in done}, infos

    def close(self) -> None:
        self._stepper.close()


def _first_legal(obs: Observation) -> int:
    mask = obs.mask
    return 0 if mask is None else int(np.argmax(np.asarray(mask).reshape(-1)))


def aec_env(game: str | Game = "dtd", **kwargs: Any) -> AECGameEnv:
    """A PettingZoo AEC environment of ``game`` (keywords: ``params``, ``illegal_action``,
    ``render_mode``, ``stepper``, ``index_in_observation``)."""
    return AECGameEnv(game, **kwargs)


def parallel_env(game: str | Game = "vautour", **kwargs: Any) -> ParallelGameEnv:
    """A PettingZoo parallel environment of a simultaneous-move ``game``."""
    return ParallelGameEnv(game, **kwargs)


# ---- Gymnasium -----------------------------------------------------------------------------


class GymGameEnv(_Stepped, gymnasium.Env):
    """One seat of a game against fsmarena players (module docstring).

    ``opponents``: a player spec (builtin name or player JSON path), a :class:`Player`, or a
    list of them (a pool: every opponent seat of every episode draws one uniformly with the
    environment's seeded generator); ``None`` (the default) is ``"random"`` in every opponent
    seat, and no opponent in a one-player game.  ``seat``: a seat number, ``"alternate"``
    (episode k after a seeded reset sits in seat k mod seats) or ``"random"``.  Episodes in
    which the learner never gets to move (possible in 31, when dealt 31s end every round) are
    skipped.  An opponent's answer is checked like the learner's action: anything but a legal
    action is an :class:`IllegalAction` naming the opponent, whatever ``illegal_action`` says.

    The opponents act on the kernel's observations, which hold every part the engine shows
    (index, mask, features, encodings and the game's own parts), so any player plays there;
    a game's builtin named by its name, when the kernel has it, plays compiled inside the
    stepper (a builtin that draws at random, such as ``random`` in Stupide Vautour, then
    draws from the compiled stream).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str | Game = "dtd",
        opponents: Any = None,
        seat: int | str = "alternate",
        params: Mapping[str, Any] | None = None,
        illegal_action: str = "lose",
        render_mode: str | None = None,
        stepper: str = "auto",
        index_in_observation: bool = False,
    ):
        self.game = build_game(game, params)
        self.illegal_action = _check_policy(illegal_action)
        if render_mode not in (None, "ansi"):
            raise FsmarenaError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        specs = self._specs(opponents)
        self.pool = [spec if isinstance(spec, Player) else resolve_player(str(spec), self.game) for spec in specs]
        self.seat_rule = self._seat_rule(seat)
        self.codec = Codec(self.game, bool(index_in_observation))
        self.observation_space = spaces.Dict({**self.codec.parts, "action_mask": self.codec.mask_space})
        self.action_space = spaces.Discrete(self.game.n_actions)
        #: pool position -> kernel builtin code, for the opponents the kernel plays itself
        self.compiled_opponents: dict[int, int]
        self._stepper, self.compiled_opponents = self._pick_stepper(stepper, specs)
        self._episodes = Episodes()
        self._episode = 0
        self.seat = 0
        self.seated: dict[int, Player] = {}
        self._seen = self.codec.blank()

    def _specs(self, opponents: Any) -> Sequence[Any]:
        """The opponent pool as a list of specs, checked against the number of seats."""
        if opponents is None:
            return ["random"] if self.game.n_seats > 1 else []
        specs = list(opponents) if isinstance(opponents, (list, tuple)) else [opponents]
        if self.game.n_seats == 1 and specs:
            raise FsmarenaError(f"{self.game.name} is a one-player game: give no opponents")
        if self.game.n_seats > 1 and not specs:
            raise FsmarenaError(f"{self.game.name} is a {self.game.n_seats}-player game: give at least one opponent")
        return specs

    def _pick_stepper(self, kind: str, specs: Sequence[Any]) -> tuple[KernelStepper, dict[int, int]]:
        """The stepper and the kernel builtin code of each pool entry the kernel plays itself
        (a game-specific builtin named by its name)."""
        stepper = make_stepper(self.game, kind)
        builtins = kernel_of(self.game).BUILTINS
        codes = {
            i: builtins.index(spec)
            for i, (spec, player) in enumerate(zip(specs, self.pool))
            if isinstance(spec, str) and player.kind not in GENERIC_PLAYER_KINDS and spec in builtins
        }
        return stepper, codes

    def _seat_rule(self, seat: int | str) -> int | str:
        if isinstance(seat, str):
            if seat not in SEAT_CHOICES:
                raise FsmarenaError(f"seat must be a seat number or one of {', '.join(SEAT_CHOICES)}, got {seat!r}")
            return seat
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.game.n_seats:
            raise FsmarenaError(f"seat must be 0..{self.game.n_seats - 1} for {self.game.name}, got {seat!r}")
        return int(seat)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._episode = 0
        for _ in range(1000):
            rng = self._episodes.next(seed)
            if seed is not None:
                self._np_random = self._episodes.child()
            seed = None
            turn = self._begin(rng)
            if isinstance(turn, Decision):
                return self._observation(), self._info()
        raise FsmarenaError(f"{self.game.name}: the learner's seat got no decision in 1000 games")

    def _begin(self, rng: np.random.Generator) -> Turn:
        """Seat everyone for a new episode and play until the learner's first decision."""
        seats = self.game.n_seats
        rule = self.seat_rule
        if rule == "alternate":
            self.seat = self._episode % seats
        elif rule == "random":
            self.seat = int(self.np_random.integers(seats))
        else:
            self.seat = int(rule)
        self._episode += 1
        self.seated = {}
        compiled: dict[int, int] = {}
        for other in range(seats):
            if other != self.seat:
                pick = int(self.np_random.integers(len(self.pool))) if len(self.pool) > 1 else 0
                self.seated[other] = self.pool[pick]
                if pick in self.compiled_opponents:
                    compiled[other] = self.compiled_opponents[pick]
        self._stepper.opponents = compiled
        self._rng = np.random.default_rng(int(rng.integers(2**63)))  # the opponents' own
        self._memories = {s: p.begin(self.game, 1, None, self._rng) for s, p in self.seated.items()}
        self._seen = self.codec.blank()
        return self._advance(self._stepper.start(rng))

    def _advance(self, turn: Turn) -> Turn:
        """Let the opponents move until the learner is to move or the game is over."""
        while isinstance(turn, Decision) and turn.seat != self.seat:
            turn = self._stepper.answer(self._opponent_action(turn))
        if isinstance(turn, Decision):
            self._seen = self.codec.encode(turn.observation)
        return turn

    def _opponent_action(self, turn: Decision) -> int:
        """The action of the opponent to move, checked (IllegalAction naming it otherwise)."""
        player = self.seated[turn.seat]
        who = f"{self.game.name} opponent '{player.label}' in seat {turn.seat}"
        answer = np.asarray(player.act(turn.observation, self._memories[turn.seat], None, self._rng))
        if answer.size != 1:
            raise IllegalAction(f"{who}: a player must answer one action for one game, got {answer!r}")
        move = judge(self.game, answer.reshape(-1)[0], legal_mask(turn.observation, self.game.n_actions), "raise", who)
        assert move.number is not None
        return move.number

    def _observation(self) -> dict[str, Any]:
        return {**_copy(self._seen.parts), "action_mask": self._seen.mask.copy()}

    def _info(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "index": self._seen.index,
            "action_mask": self._seen.mask.astype(bool),
            "opponents": {s: p.label for s, p in self.seated.items()},
        }

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as booleans (the convention of masked learners)."""
        return self._seen.mask.astype(bool)

    def step(self, action: Any):
        turn = self._stepper.turn
        if not isinstance(turn, Decision) or turn.seat != self.seat:
            raise _not_started(self.game.name)
        move = judge(self.game, action, self._seen.mask, self.illegal_action, f"{self.game.name} seat {self.seat}")
        if move.number is None:
            self._stepper.close()
            return self._observation(), ILLEGAL_REWARD, True, False, {**self._info(), **move.info()}
        turn = self._advance(self._stepper.answer(move.number))
        info = {**self._info(), **move.info()}
        if isinstance(turn, Final):
            info["scores"] = turn.scores.tolist()
            return self._observation(), float(turn.rewards[self.seat]), True, False, info
        return self._observation(), 0.0, False, False, info

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        turn = self._stepper.turn
        if isinstance(turn, Final):
            return f"game over: scores {turn.scores.tolist()}"
        if turn is None:
            return "no episode in progress"
        return _describe(self.game, _agent(self.seat), self._seen)

    def close(self) -> None:
        self._stepper.close()


def gym_env(game: str | Game = "dtd", **kwargs: Any) -> GymGameEnv:
    """A Gymnasium environment: one seat of ``game`` against ``opponents``."""
    return GymGameEnv(game, **kwargs)


# ---- speed ---------------------------------------------------------------------------------


def steps_per_second(game: str, api: str = "aec", episodes: int = 100, seed: int = 0) -> float:
    """Decisions per CPU second of this process through the ``api`` (``aec`` or ``gym``
    against ``random``) environment of ``game``, random legal actions, ``episodes`` episodes
    after one warm-up episode: a measurement for the docs (``python -m games.environments``),
    not a test.  CPU time, not the wall clock: on a shared machine the wall clock also counts
    the time spent waiting for a core."""
    import time

    env: Any = aec_env(game) if api == "aec" else gym_env(game)
    pick = np.random.default_rng(seed)
    steps, started = 0, 0.0
    for episode in range(episodes + 1):
        if episode == 1:
            steps, started = 0, time.process_time()
        steps += _random_episode(env, api, pick, seed + episode)
    env.close()
    return steps / (time.process_time() - started)


def _random_episode(env: Any, api: str, pick: np.random.Generator, seed: int) -> int:
    """One episode of random legal actions; returns the number of actions taken."""
    steps = 0
    if api == "aec":
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, done, truncated, _ = env.last()
            env.step(None if done or truncated else int(pick.choice(np.flatnonzero(obs["action_mask"]))))
            steps += not done
        return steps
    obs, _ = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, done, _, _ = env.step(int(pick.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps


register_envs()

if __name__ == "__main__":  # pragma: no cover - prints the speed table of docs/environments.md
    print(f"{'game':10} {'api':4} {'kernel':>9}  (decisions per CPU second)")
    for item in entries():
        for api in ("aec", "gym"):
            print(f"{item.name:10} {api:4} {steps_per_second(item.name, api):9.0f}")
