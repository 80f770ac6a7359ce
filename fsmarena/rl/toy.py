"""Toy one-player games with exactly known answers, for checking learners and planners.

A toy problem is a small Markov decision process whose only reward is a payoff on reaching a
terminal outcome (the reward shape of every fsmarena game).  :class:`ToyGame` plays it
through the ordinary game contract (batched driver, ``decide`` callback, ``obs.index`` and
``obs.mask``), so learners are tested on exactly the path they use on real games, and
``model()`` returns the same problem as a :class:`fsmarena.games.mdp.TabularMDP` for value iteration,
policy iteration and exact policy values.

Problems (``--param``-style config ``problem``):

* ``bandit``: one state, three actions: a coin flip (+1 / -1, worth 0), a biased coin (+1 with
  probability 0.7, worth 0.4) and a sure 0.2.
* ``chain``: positions 0..3, start anywhere; ``left`` moves one step left (off the left end:
  payoff 0.5); ``right`` moves one step right with probability 0.7 (off the right end: payoff
  1) and falls out for nothing with probability 0.3; ``stop`` ends the game with the payoff
  0.1, 0.6, 0.2, 0.3 of the position.  Every policy terminates.  Undiscounted, by hand:
  V(3) = 0.7 (right), V(2) = V(1) = 0.6 (left, stop), V(0) = 0.5 (left); every optimal
  action beats the next best by at least 0.08.
* ``masked-chain``: the chain where ``stop`` is illegal at positions 0 and 3 (exercises masks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game, Observation, Outcome
from fsmarena.games.mdp import TabularMDP

MAX_STEPS = 10_000


@dataclass(frozen=True)
class ToyConfig:
    problem: str = "chain"
    gamma: float = 1.0

    def __post_init__(self) -> None:
        if self.problem not in PROBLEMS:
            raise FsmarenaError(f"unknown toy problem '{self.problem}' (known: {', '.join(PROBLEMS)})")
        if not 0.0 <= self.gamma <= 1.0:
            raise FsmarenaError("toy: gamma must be in [0, 1]")


@dataclass(frozen=True)
class ToyProblem:
    """``moves[s, a, s']`` over the ``S`` live states followed by the ``Z`` terminal outcomes,
    ``payoff[z]``, ``legal[s, a]``, ``start[s]``, ``action_names``."""

    moves: np.ndarray
    payoff: np.ndarray
    legal: np.ndarray
    start: np.ndarray
    action_names: tuple[str, ...]


def _bandit() -> ToyProblem:
    # outcomes: +1, -1, +0.2
    moves = np.array([[[0, 0.5, 0.5, 0.0], [0, 0.7, 0.3, 0.0], [0, 0.0, 0.0, 1.0]]])
    return ToyProblem(moves, np.array([1.0, -1.0, 0.2]), np.ones((1, 3), bool), np.ones(1), ("coin", "biased", "sure"))


def _chain(masked: bool) -> ToyProblem:
    positions = 4
    stop_payoff = [0.1, 0.6, 0.2, 0.3]
    # outcomes: off the left end, off the right end, fallen, then stopped at each position
    left_end, right_end, fallen, stop0 = positions, positions + 1, positions + 2, positions + 3
    moves = np.zeros((positions, 3, stop0 + positions))
    for p in range(positions):
        moves[p, 0, p - 1 if p > 0 else left_end] = 1.0
        moves[p, 1, p + 1 if p < positions - 1 else right_end] = 0.7
        moves[p, 1, fallen] = 0.3
        moves[p, 2, stop0 + p] = 1.0
    payoff = np.array([0.5, 1.0, 0.0] + stop_payoff)
    legal = np.ones((positions, 3), bool)
    if masked:
        legal[[0, positions - 1], 2] = False
    return ToyProblem(moves, payoff, legal, np.full(positions, 1 / positions), ("left", "right", "stop"))


PROBLEMS = {"bandit": _bandit, "chain": lambda: _chain(False), "masked-chain": lambda: _chain(True)}


class ToyGame(Game):
    """A toy problem played through the game contract; ``model()`` gives it exactly."""

    name = "toy"
    title = "toy decision problem with a known answer (tests)"
    Config = ToyConfig
    n_seats = 1

    def __init__(self, config: ToyConfig | None = None):
        super().__init__(config)
        self.problem = PROBLEMS[self.config.problem]()
        self._cumulative = np.cumsum(self.problem.moves, axis=2)
        self._masked = not self.problem.legal.all()

    @property
    def action_names(self):
        return self.problem.action_names

    @property
    def n_states(self) -> int:
        return self.problem.moves.shape[0]

    def play(self, n: int, rng: np.random.Generator, decide, deals: np.ndarray | None = None, trace=None) -> Outcome:
        """The toy's own batched play (it has no kernel; its chance is drawn here, never
        scripted, and it is not traced)."""
        if deals is not None or trace is not None:
            raise FsmarenaError("toy: the toy problems take no scripted deals and no trace")
        S = self.n_states
        legal = self.problem.legal
        state = rng.choice(S, size=n, p=self.problem.start)
        score = np.zeros(n)
        alive = np.arange(n)
        for step in range(MAX_STEPS):
            if len(alive) == 0:
                break
            here = state[alive]
            obs = Observation(
                len(alive), self.n_actions, index=here, mask=legal[here] if self._masked else None, step=step
            )
            actions = np.asarray(decide(0, obs, None if len(alive) == n else alive))
            if self._masked and not legal[here, actions].all():
                raise FsmarenaError("toy: illegal action")
            cumulative = self._cumulative[here, actions]
            u = rng.random(len(alive))
            nxt = np.minimum((u[:, None] >= cumulative).sum(axis=1), cumulative.shape[1] - 1)
            ended = nxt >= S
            score[alive[ended]] = self.problem.payoff[nxt[ended] - S]
            state[alive[~ended]] = nxt[~ended]
            alive = alive[~ended]
        else:
            raise FsmarenaError("toy: a game did not end")
        return Outcome(scores=score[:, None], rewards=score[:, None].copy())

    def model(self) -> TabularMDP:
        """States 0..S-1 as observed, then one terminal state per outcome."""
        p = self.problem
        S, A, total = p.moves.shape
        transitions = np.zeros((total, A, total))
        transitions[:S] = p.moves
        rewards = np.zeros((total, A))
        rewards[:S] = p.moves[:, :, S:] @ p.payoff
        terminal = np.r_[np.zeros(S, bool), np.ones(total - S, bool)]
        legal = np.zeros((total, A), bool)
        legal[:S] = p.legal
        start = np.r_[p.start, np.zeros(total - S)]
        return TabularMDP(transitions, rewards, terminal, legal, start, self.config.gamma).validate()
