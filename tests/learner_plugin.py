"""A learner from outside the library: Q-learning written once more, as its compiled update alone.

``tests/test_learner_plugin.py`` adds it to the learner registry with one line and trains it on
every game: it must give the library's ``q-learning`` tables bit for bit, since it is the same
algorithm written apart (its own max, its own step, the contract of
:mod:`fsmarena.rl.algorithms.contract` and nothing else).
"""

from __future__ import annotations

from fsmarena.jit import njit
from fsmarena.rl.algorithms.contract import DECIDE, GAME_OVER, GREEDY


@njit
def _toward(q, n, x, a, target, alpha):
    n[x, a] += 1
    q[x, a] += (alpha if alpha >= 0 else 1.0 / n[x, a]) * (target - q[x, a])


@njit(inline="always")
def plugin_q_learning(
    event, q, n, extra, seen, x, mask, action, pending, pending_action, closed, target,
    gamma, alpha, epsilon, states, actions, explored, returns, length,
):  # fmt: skip
    """Q-learning, written in the test folder.  Pseudocode::

    before each decision in s' (legal A'), if (s, a) is pending:
        Q(s, a) += step * (gamma * max_{b in A'} Q(s', b) - Q(s, a))   (closed segment: its change)
    at the end of the game: Q(s, a) += step * (r - Q(s, a)) for the pending (s, a)
    """
    if pending < 0 or (event != DECIDE and event != GAME_OVER):
        return GREEDY
    if event == GAME_OVER or closed:
        _toward(q, n, pending, pending_action, target, alpha)
        return GREEDY
    best = -1
    for b in range(q.shape[1]):
        if mask[b] and (best < 0 or q[x, b] > q[x, best]):
            best = b
    _toward(q, n, pending, pending_action, gamma * q[x, best], alpha)
    return GREEDY
