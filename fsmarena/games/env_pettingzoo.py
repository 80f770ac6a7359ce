"""The PettingZoo environments of every registered game (:mod:`fsmarena.games.environments`): the
agent-environment-cycle one, one agent per seat, and the parallel one for games whose seats
move simultaneously.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game, Observation
from fsmarena.games.capabilities import SimultaneousMoves
from fsmarena.games.env_parts import (
    ILLEGAL_REWARD,
    Codec,
    Episodes,
    Seen,
    Stepped,
    agent_name,
    build_game,
    check_flag,
    check_policy,
    copy_value,
    describe_agent,
    judge,
    not_started,
)
from fsmarena.games.gym_ids import env_id, register_envs  # noqa: F401 - env_id: part of this module's API
from fsmarena.games.stepper import (
    Decision,
    Final,
    IllegalAction,
    Turn,
    make_stepper,
)


class _SeatAgents(Stepped):
    """What both PettingZoo environments share: one agent per seat, with the classic games'
    observation (the game's parts and an action mask) and action spaces, a stepper and the
    episode seeds."""

    game: Game
    stepper_kind: str
    index_in_observation: bool

    def _seat_agents(self) -> None:
        self.codec = Codec(self.game, self.index_in_observation)
        self.possible_agents = [agent_name(s) for s in range(self.game.n_seats)]
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
            raise not_started(self.game.name) if not self._seen else FsmarenaError(f"unknown agent {agent!r}")
        seen = self._seen[agent]
        return {"observation": copy_value(seen.parts), "action_mask": seen.mask.copy()}


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
        self.illegal_action = check_policy(illegal_action)
        self.stepper_kind = stepper
        self.index_in_observation = check_flag("index_in_observation", index_in_observation)
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
            self.agent_selection = agent_name(turn.seat)
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
            raise not_started(self.game.name)
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
        return describe_agent(self.game, self.agent_selection, self._seen[self.agent_selection])

    def close(self) -> None:
        self._stepper.close()


class ParallelGameEnv(_SeatAgents, ParallelEnv):
    """PettingZoo parallel environment of a simultaneous-move game: every seat answers each
    turn at once.  Every seat's observation of a turn comes from the stepper's probe (on a
    copy of the kernel's state: :meth:`fsmarena.games.stepper.KernelStepper.probe`).
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
        self.index_in_observation = check_flag("index_in_observation", index_in_observation)
        if not isinstance(self.game, SimultaneousMoves):
            raise FsmarenaError(
                f"{self.game.name} is turn-based: use its AEC environment (aec_env) instead of the parallel API"
            )
        self.illegal_action = check_policy(illegal_action)
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
            raise not_started(self.game.name)
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
