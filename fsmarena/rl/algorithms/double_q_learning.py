"""Double Q-learning (van Hasselt 2010): two estimates, each updated toward the other's value."""

from __future__ import annotations

import numpy as np

from fsmarena.games.draws import uniform_float
from fsmarena.jit import njit
from fsmarena.rl.algorithms.contract import DECIDE, GAME_OVER, GREEDY, greedy_action

#: the learner's own tables (``extra``): the two estimates and their update counts
A, B, COUNT_A, COUNT_B = range(4)


@njit
def _update_one(q, n, extra, x, a, target, alpha, first):
    """Update estimate A (``first``) or B of ``(x, a)`` toward ``target``; ``Q`` is their mean."""
    table, count = (A, COUNT_A) if first else (B, COUNT_B)
    extra[count, x, a] += 1.0
    step = alpha if alpha >= 0 else 1.0 / extra[count, x, a]
    extra[table, x, a] += step * (target - extra[table, x, a])
    n[x, a] += 1
    q[x, a] = 0.5 * (extra[A, x, a] + extra[B, x, a])


@njit
def _transition(q, n, extra, x, a, target, alpha, mask, next_state, bootstrap, gamma):
    """One update of the pending ``(x, a)``: a coin (one draw of the stream) picks the estimate;
    it bootstraps from the other's value of its own greedy action in ``next_state``."""
    first = uniform_float() < 0.5
    if bootstrap:
        table, other = (A, B) if first else (B, A)
        best = greedy_action(extra[table], mask, next_state)
        target = gamma * extra[other, next_state, best]
    _update_one(q, n, extra, x, a, target, alpha, first)


@njit(inline="always")
def double_q_learning(
    event, q, n, extra, seen, x, mask, action, pending, pending_action, closed, target,
    gamma, alpha, epsilon, states, actions, explored, returns, length,
):  # fmt: skip
    """Double Q-learning.  ``extra`` holds the estimates Q_A, Q_B and their update counts; the
    loop acts epsilon-greedily in ``Q = (Q_A + Q_B) / 2`` (the greedy policy saved is Q's).
    Pseudocode (``step``: alpha, or 1 / N_A(s, a) / 1 / N_B(s, a) for the table updated)::

        at each decision of the learner in state s' with legal actions A', before choosing:
            if (s, a) pending:
                with probability 1/2 (one random draw):
                    b* <- argmax_{b in A'} Q_A(s', b);  target <- gamma * Q_B(s', b*)
                    Q_A(s, a) += step * (target - Q_A(s, a))
                otherwise the same with A and B exchanged
                (its segment closed: target <- the potential's change, nothing bootstrapped)
                N(s, a) += 1;  Q(s, a) <- (Q_A(s, a) + Q_B(s, a)) / 2
        at the end of the game: the pending (s, a) toward the final reward, the same way
        (one random draw picks its table)
    """
    if event == DECIDE and pending >= 0:
        _transition(q, n, extra, pending, pending_action, target, alpha, mask, x, not closed, gamma)
    elif event == GAME_OVER and pending >= 0:  # np.bool_: a literal False would compile _transition again
        _transition(q, n, extra, pending, pending_action, target, alpha, mask, x, np.bool_(False), gamma)
    return GREEDY
