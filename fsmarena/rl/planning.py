"""Value iteration and policy iteration on a known model (:class:`fsmarena.games.mdp.TabularMDP`).

Both return the same canonical answer: the optimal values and the greedy policy that picks,
among the actions within a relative :data:`TIE_TOLERANCE` of the best, the lowest-numbered
one, so the two planners agree action for action whenever the optimum is unique up to ties.

* Value iteration sweeps ``V <- max_a r + gamma P V`` synchronously (every state from the
  previous sweep's values: deterministic) until the largest change is at most ``tolerance``.
* Policy iteration evaluates each policy *exactly* (:func:`fsmarena.games.mdp.policy_value`, a linear
  solve; the seed sampled a single move instead) and improves it greedily, changing an
  action only when another is better by more than the tie tolerance, and stops when no
  action changes (exact policy stability).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.mdp import TabularMDP, expected_return, policy_value
from fsmarena.rl.registry import LearnerEntry

TIE_TOLERANCE = 1e-9


@dataclass
class PlanResult:
    """``values[s]`` (0 at terminal states), ``q[s, a]`` (NaN where illegal or terminal),
    ``policy[s]`` (0 at terminal states), ``iterations`` and one history row per iteration
    (``iteration``, ``value`` = exact expected return of that iteration's greedy policy,
    ``delta`` for value iteration, ``changes`` for policy iteration)."""

    values: np.ndarray
    q: np.ndarray
    policy: np.ndarray
    iterations: int
    history: list[dict] = field(default_factory=list)

    @property
    def value(self) -> float:
        """Expected return from the start distribution (filled in by the planners)."""
        return self.history[-1]["value"] if self.history else float("nan")


def action_values(mdp: TabularMDP, values: np.ndarray) -> np.ndarray:
    """``Q[s, a] = r(s, a) + gamma * sum_s' P(s' | s, a) V(s')``, NaN where illegal or terminal."""
    q = mdp.rewards + mdp.gamma * (mdp.transitions @ values)
    usable = mdp.legal & ~mdp.terminal[:, None]
    return np.where(usable, q, np.nan)


def _best(q: np.ndarray) -> np.ndarray:
    """Max over the usable actions of each state (0 for terminal states)."""
    filled = np.where(np.isnan(q), -np.inf, q)
    best = filled.max(axis=1)
    return np.where(np.isfinite(best), best, 0.0)


def _tolerance(values: np.ndarray) -> float:
    return TIE_TOLERANCE * max(1.0, float(np.abs(values).max(initial=0.0)))


def greedy_policy(mdp: TabularMDP, values: np.ndarray) -> np.ndarray:
    """The canonical greedy policy: lowest-numbered action within the tie tolerance of the best."""
    q = action_values(mdp, values)
    best = _best(q)
    near = ~np.isnan(q) & (q >= best[:, None] - _tolerance(values))
    policy = np.argmax(near, axis=1)  # first True; terminal rows (all False) give 0
    return policy


def value_iteration(mdp: TabularMDP, tolerance: float = 1e-12, max_iterations: int = 100_000) -> PlanResult:
    """Synchronous value iteration until ``max |V_new - V| <= tolerance``."""
    mdp.validate()
    values = np.zeros(mdp.n_states)
    history = []
    for iteration in range(1, max_iterations + 1):
        new = np.where(mdp.terminal, 0.0, _best(action_values(mdp, values)))
        delta = float(np.abs(new - values).max(initial=0.0))
        values = new
        history.append({"iteration": iteration, "delta": delta, "value": _safe_return(mdp, greedy_policy(mdp, values))})
        if delta <= tolerance:
            break
    else:
        raise FsmarenaError(f"value iteration did not converge to {tolerance} in {max_iterations} sweeps")
    policy = greedy_policy(mdp, values)
    return PlanResult(values, action_values(mdp, values), policy, iteration, history)


def policy_iteration(mdp: TabularMDP, policy: np.ndarray | None = None, max_iterations: int = 10_000) -> PlanResult:
    """Exact policy iteration from ``policy`` (default: the first legal action everywhere)."""
    mdp.validate()
    if policy is None:
        policy = np.argmax(mdp.legal, axis=1)
    policy = np.array(policy, dtype=np.int64)
    if policy.shape != (mdp.n_states,):
        raise FsmarenaError(f"policy iteration: the initial policy must have {mdp.n_states} entries")
    live = ~mdp.terminal
    history = []
    for iteration in range(1, max_iterations + 1):
        values = policy_value(mdp, policy)
        history.append({"iteration": iteration, "value": float(mdp.start @ values)})
        q = action_values(mdp, values)
        best = _best(q)
        current = q[np.arange(mdp.n_states), policy]
        # switch only when strictly better beyond the tie tolerance: guarantees termination
        improve = live & (best > current + _tolerance(values))
        history[-1]["changes"] = int(improve.sum())
        if not improve.any():
            break
        near = ~np.isnan(q) & (q >= best[:, None] - _tolerance(values))
        policy = np.where(improve, np.argmax(near, axis=1), policy)
    else:
        raise FsmarenaError(f"policy iteration did not stabilise in {max_iterations} iterations")
    canonical = greedy_policy(mdp, values)
    try:
        if np.allclose(policy_value(mdp, canonical), values, rtol=0, atol=_tolerance(values) * 10):
            policy = canonical
    except FsmarenaError:
        pass  # the canonical tie-break loops forever in some undiscounted problem: keep ours
    return PlanResult(values, q, policy, iteration, history)


def _safe_return(mdp: TabularMDP, policy: np.ndarray) -> float:
    """Exact expected return of ``policy``, NaN when it never terminates (undiscounted)."""
    try:
        return expected_return(mdp, policy)
    except FsmarenaError:
        return float("nan")


# ---- the registered planners (rl.registry) ----------------------------------------------------


class ValueIteration:
    """``value-iteration``: synchronous value iteration on the game's known model.

    Pseudocode::

        V(s) <- 0 for every state
        repeat
            for every state s, from the previous sweep's V (deterministic):
                V'(s) <- max over legal a of  r(s, a) + gamma * sum_s' P(s' | s, a) V(s')
            delta <- max_s |V'(s) - V(s)|;  V <- V'
            record the exact value of greedy(V)
        until delta <= tolerance
        pi(s) <- the lowest action within the tie tolerance of the best
    """

    @staticmethod
    def validate(config: Any, entry: LearnerEntry) -> None:
        """The stopping tolerance must be a small positive number."""
        tolerance = config.tolerance
        if isinstance(tolerance, bool) or not (isinstance(tolerance, (int, float)) and 0 < tolerance < 1):
            raise FsmarenaError(f"tolerance must be a small positive number, got {tolerance!r}")

    @staticmethod
    def plan(mdp: TabularMDP, config: Any) -> PlanResult:
        return value_iteration(mdp, config.tolerance)


class PolicyIteration:
    """``policy-iteration``: exact policy iteration on the game's known model.

    Pseudocode::

        pi(s) <- the first legal action
        repeat
            V <- the exact value of pi (one linear solve)
            Q(s, a) <- r(s, a) + gamma * sum_s' P(s' | s, a) V(s')
            change pi(s) to the lowest best action only where it beats Q(s, pi(s))
                by more than the tie tolerance
        until no action changes
    """

    @staticmethod
    def validate(config: Any, entry: LearnerEntry) -> None:
        """Nothing of its own to check: ``gamma`` is shared."""

    @staticmethod
    def plan(mdp: TabularMDP, config: Any) -> PlanResult:
        return policy_iteration(mdp)
