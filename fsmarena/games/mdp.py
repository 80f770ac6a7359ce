"""A finite Markov decision process given by its model, and exact evaluation of policies.

Games whose transition probabilities are known (421) expose ``game.model() -> TabularMDP``
with states numbered exactly like the game's ``index`` observation, so a policy computed here
is a :class:`fsmarena.games.players.TablePolicy` that plays in the engine unchanged.

The model is the game's (its rules as data, in the games layer); the planners that solve it
(value iteration, policy iteration) are learners, in :mod:`fsmarena.rl.planning`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsmarena.errors import FsmarenaError


@dataclass(frozen=True)
class TabularMDP:
    """``transitions[s, a, s']`` probabilities, ``rewards[s, a]`` expected immediate reward,
    ``terminal[s]`` (no actions, value 0), ``legal[s, a]``, ``start[s]`` the start
    distribution, ``gamma`` the discount (1.0 for episodic games that always terminate)."""

    transitions: np.ndarray
    rewards: np.ndarray
    terminal: np.ndarray
    legal: np.ndarray
    start: np.ndarray
    gamma: float = 1.0

    @property
    def n_states(self) -> int:
        return self.transitions.shape[0]

    @property
    def n_actions(self) -> int:
        return self.transitions.shape[1]

    def validate(self, atol: float = 1e-9) -> "TabularMDP":
        S, A = self.n_states, self.n_actions
        if self.transitions.shape != (S, A, S) or self.rewards.shape != (S, A):
            raise FsmarenaError("MDP: transitions must be (S, A, S) and rewards (S, A)")
        if self.terminal.shape != (S,) or self.legal.shape != (S, A) or self.start.shape != (S,):
            raise FsmarenaError("MDP: terminal, legal and start must match the number of states")
        if not 0.0 <= self.gamma <= 1.0:
            raise FsmarenaError("MDP: gamma must be in [0, 1]")
        live = ~self.terminal
        if np.any(self.legal[live].sum(axis=1) == 0):
            raise FsmarenaError("MDP: a non-terminal state has no legal action")
        sums = self.transitions.sum(axis=2)
        if not np.allclose(sums[self.legal & live[:, None]], 1.0, atol=atol):
            raise FsmarenaError("MDP: transition probabilities of legal actions must sum to 1")
        if not np.isclose(self.start.sum(), 1.0, atol=atol):
            raise FsmarenaError("MDP: the start distribution must sum to 1")
        return self


def policy_value(mdp: TabularMDP, policy: np.ndarray) -> np.ndarray:
    """Exact state values of a deterministic policy (one action per state) by a linear solve.

    ``V = r_pi + gamma * P_pi V`` with terminal states fixed at 0.  Requires the policy to
    terminate with probability 1 when ``gamma == 1`` (otherwise the system is singular and a
    FsmarenaError says so).
    """
    policy = np.asarray(policy, dtype=np.int64)
    S = mdp.n_states
    live = ~mdp.terminal
    states = np.arange(S)
    if np.any(~mdp.legal[states[live], policy[live]]):
        raise FsmarenaError("the policy takes an illegal action")
    P = mdp.transitions[states, policy] * live[:, None]
    r = np.where(live, mdp.rewards[states, policy], 0.0)
    system = np.eye(S) - mdp.gamma * P
    try:
        return np.linalg.solve(system, r)
    except np.linalg.LinAlgError:
        raise FsmarenaError("the policy never terminates from some state (undiscounted value undefined)") from None


def expected_return(mdp: TabularMDP, policy: np.ndarray) -> float:
    """The exact expected return of ``policy`` from the start distribution."""
    return float(mdp.start @ policy_value(mdp, policy))
