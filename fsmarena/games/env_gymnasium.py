"""The Gymnasium environment of every registered game (:mod:`fsmarena.games.environments`): one seat
against fsmarena players, a pool of them drawn from for every opponent seat of every episode.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game
from fsmarena.games.env_parts import (
    ILLEGAL_REWARD,
    SEAT_CHOICES,
    Codec,
    Episodes,
    Stepped,
    agent_name,
    build_game,
    check_flag,
    check_opponent,
    check_policy,
    copy_value,
    describe_agent,
    judge,
    legal_mask,
    not_started,
)
from fsmarena.games.gym_ids import env_id, register_envs  # noqa: F401 - env_id: part of this module's API
from fsmarena.games.players import Player
from fsmarena.games.stepper import (
    Decision,
    Final,
    IllegalAction,
    Turn,
    make_stepper,
)

# ---- Gymnasium -----------------------------------------------------------------------------


class GymGameEnv(Stepped, gymnasium.Env):
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
        self.illegal_action = check_policy(illegal_action)
        if render_mode not in (None, "ansi"):
            raise FsmarenaError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        specs = self._specs(opponents)
        self.pool = [check_opponent(spec, self.game, number) for number, spec in enumerate(specs)]
        self.seat_rule = self._seat_rule(seat)
        self.codec = Codec(self.game, check_flag("index_in_observation", index_in_observation))
        self.observation_space = spaces.Dict({**self.codec.parts, "action_mask": self.codec.mask_space})
        self.action_space = spaces.Discrete(self.game.n_actions)
        self._stepper = make_stepper(self.game, stepper)
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
        for other in range(seats):
            if other != self.seat:
                pick = int(self.np_random.integers(len(self.pool))) if len(self.pool) > 1 else 0
                self.seated[other] = self.pool[pick]
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
        return {**copy_value(self._seen.parts), "action_mask": self._seen.mask.copy()}

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
            raise not_started(self.game.name)
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
        return describe_agent(self.game, agent_name(self.seat), self._seen)

    def close(self) -> None:
        self._stepper.close()


def gym_env(game: str | Game = "dtd", **kwargs: Any) -> GymGameEnv:
    """A Gymnasium environment: one seat of ``game`` against ``opponents``."""
    return GymGameEnv(game, **kwargs)
