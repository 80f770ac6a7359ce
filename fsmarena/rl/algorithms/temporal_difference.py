"""One-step TD control: SARSA, Q-learning and expected SARSA, updated after every decision."""

from __future__ import annotations

from fsmarena.jit import njit
from fsmarena.rl.algorithms.contract import CHOSEN, DECIDE, GAME_OVER, GREEDY, greedy_action, masked_max, step_update


@njit
def expected_value(q, mask, x, epsilon):
    """``sum_a pi(a | x) Q(x, a)`` under the epsilon-greedy policy over the legal actions ``mask``."""
    count = 0
    for a in range(q.shape[1]):
        count += mask[a]
    greedy = greedy_action(q, mask, x)
    total = 0.0
    for a in range(q.shape[1]):
        if mask[a]:
            prob = epsilon * 1.0 / max(count, 1)
            if a == greedy:
                prob += 1.0 - epsilon
            total += prob * q[x, a]
    return total


@njit(inline="always")
def sarsa(
    event, q, n, extra, seen, x, mask, action, pending, pending_action, closed, target,
    gamma, alpha, epsilon, states, actions, explored, returns, length,
):  # fmt: skip
    """One-step SARSA.  Pseudocode (``step``: alpha, or 1 / N(s, a))::

    at each decision of the learner in state s', once it has chosen a':
        if (s, a) pending:
            target <- gamma * Q(s', a')   (its segment closed: the potential's change)
            N(s, a) += 1;  Q(s, a) += step * (target - Q(s, a))
        (s, a) <- (s', a')
    at the end of the game:  update the pending (s, a) toward the final reward
    """
    if event == CHOSEN and pending >= 0:
        step_update(q, n, pending, pending_action, target if closed else gamma * q[x, action], alpha)
    elif event == GAME_OVER and pending >= 0:
        step_update(q, n, pending, pending_action, target, alpha)
    return GREEDY


@njit(inline="always")
def q_learning(
    event, q, n, extra, seen, x, mask, action, pending, pending_action, closed, target,
    gamma, alpha, epsilon, states, actions, explored, returns, length,
):  # fmt: skip
    """One-step Q-learning.  Pseudocode::

    at each decision of the learner in state s' with legal actions A', before choosing:
        if (s, a) pending:
            target <- gamma * max_{b in A'} Q(s', b)   (its segment closed: the potential's change)
            N(s, a) += 1;  Q(s, a) += step * (target - Q(s, a))
    at the end of the game:  update the pending (s, a) toward the final reward
    """
    if event == DECIDE and pending >= 0:
        step_update(q, n, pending, pending_action, target if closed else gamma * masked_max(q, mask, x), alpha)
    elif event == GAME_OVER and pending >= 0:
        step_update(q, n, pending, pending_action, target, alpha)
    return GREEDY


@njit(inline="always")
def expected_sarsa(
    event, q, n, extra, seen, x, mask, action, pending, pending_action, closed, target,
    gamma, alpha, epsilon, states, actions, explored, returns, length,
):  # fmt: skip
    """One-step expected SARSA.  Pseudocode (``pi_eps``: the epsilon-greedy policy of Q)::

    at each decision of the learner in state s' with legal actions A', before choosing:
        if (s, a) pending:
            target <- gamma * sum_{b in A'} pi_eps(b | s') Q(s', b)   (segment closed: its change)
            N(s, a) += 1;  Q(s, a) += step * (target - Q(s, a))
    at the end of the game:  update the pending (s, a) toward the final reward
    """
    if event == DECIDE and pending >= 0:
        step_update(
            q, n, pending, pending_action, target if closed else gamma * expected_value(q, mask, x, epsilon), alpha
        )
    elif event == GAME_OVER and pending >= 0:
        step_update(q, n, pending, pending_action, target, alpha)
    return GREEDY
