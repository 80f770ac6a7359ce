"""Monte Carlo control as the thesis runs it: every visit (``mc``, ``mc-constant-alpha``) or first
visit (``mc-first-visit``), credited with the actions taken, after every game."""

from __future__ import annotations

import numpy as np

from fsmarena.jit import njit
from fsmarena.rl.algorithms.contract import GAME_OVER, GREEDY, KEEPS_TRAJECTORY


@njit
def credit_episode(q, n, sums, states, actions, returns, length, alpha, first_visit):
    """Credit the game's decisions in order with their returns: the running mean
    ``Q = S / N`` (``alpha`` -1) or a constant step; ``first_visit``: only the first
    occurrence of each (state, action) in the game."""
    for t in range(length):
        x, a = states[t], actions[t]
        if first_visit:
            earlier = False
            for u in range(t):
                if states[u] == x and actions[u] == a:
                    earlier = True
                    break
            if earlier:
                continue
        ret = returns[t]
        n[x, a] += 1
        if alpha >= 0:
            q[x, a] += alpha * (ret - q[x, a])
        else:
            sums[x, a] += ret
            q[x, a] = sums[x, a] / n[x, a]


@njit(inline="always")
def every_visit_monte_carlo(
    event, q, n, extra, seen, x, mask, action, pending, pending_action, closed, target,
    gamma, alpha, epsilon, states, actions, explored, returns, length,
):  # fmt: skip
    """Monte Carlo control, every visit (the thesis's MC-ES with its exploring starts).
    ``extra[0]`` holds the sums of returns ``S``.  Pseudocode::

        after each game, for each decision t = (s, a) of the learner, in order:
            G_t <- gamma ** (decisions after t) * G      (G: the final reward; segment
                                                          rewards: its segment's potential change)
            N(s, a) <- N(s, a) + 1
            running mean (alpha 1/n):  S(s, a) <- S(s, a) + G_t;  Q(s, a) <- S(s, a) / N(s, a)
            step size:                 Q(s, a) <- Q(s, a) + alpha * (G_t - Q(s, a))
    """
    if event == KEEPS_TRAJECTORY:
        return 1
    if event == GAME_OVER:
        credit_episode(q, n, extra[0], states, actions, returns, length, alpha, np.bool_(False))
    return GREEDY


@njit(inline="always")
def first_visit_monte_carlo(
    event, q, n, extra, seen, x, mask, action, pending, pending_action, closed, target,
    gamma, alpha, epsilon, states, actions, explored, returns, length,
):  # fmt: skip
    """Monte Carlo control, first visit.  ``extra[0]`` holds the sums of returns.  Pseudocode::

    after each game, for each decision t = (s, a) of the learner, in order, that is the
    first occurrence of (s, a) in the game:
        G_t <- gamma ** (decisions after t) * G
        N(s, a) <- N(s, a) + 1;  S(s, a) <- S(s, a) + G_t;  Q(s, a) <- S(s, a) / N(s, a)
        (a step size: Q(s, a) <- Q(s, a) + alpha * (G_t - Q(s, a)))
    """
    if event == KEEPS_TRAJECTORY:
        return 1
    if event == GAME_OVER:
        credit_episode(q, n, extra[0], states, actions, returns, length, alpha, np.bool_(True))
    return GREEDY
