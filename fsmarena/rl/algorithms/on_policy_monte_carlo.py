"""On-policy Monte Carlo control: every visit, epsilon-greedy, no exploring starts (``mc-on-policy``)."""

from __future__ import annotations

from fsmarena.jit import njit
from fsmarena.rl.algorithms.contract import GAME_OVER, GREEDY, KEEPS_TRAJECTORY, step_update


@njit(inline="always")
def on_policy_monte_carlo(
    event, q, n, extra, seen, x, mask, action, pending, pending_action, closed, target,
    gamma, alpha, epsilon, states, actions, explored, returns, length,
):  # fmt: skip
    """Every-visit on-policy Monte Carlo control for epsilon-soft policies (Sutton & Barto
    5.4, every visit): the policy that learns is the one that plays, epsilon-greedy in Q,
    so no exploring starts are needed (its defaults: epsilon 0.1 throughout, no random opening
    decisions, the incremental sample average).  It differs from ``mc`` (the thesis's Monte
    Carlo with exploring starts) in its defaults and in the form of the average: ``Q += (G -
    Q) / N`` rather than ``Q = S / N`` (equal in exact arithmetic).  Pseudocode::

        at each decision in state s:  a <- a uniformly random legal action with probability
                                      epsilon, else argmax_a Q(s, a)      (the loop's behaviour)
        after each game, for each decision t = (s, a) of the learner, in order:
            G_t <- gamma ** (decisions after t) * G          (G: the final reward)
            N(s, a) <- N(s, a) + 1
            Q(s, a) <- Q(s, a) + step * (G_t - Q(s, a))      (step: 1 / N(s, a), or alpha)
    """
    if event == KEEPS_TRAJECTORY:
        return 1
    if event == GAME_OVER:
        for t in range(length):
            step_update(q, n, states[t], actions[t], returns[t], alpha)
    return GREEDY
