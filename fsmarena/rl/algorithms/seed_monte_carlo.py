"""The seed notebook's Monte Carlo (``mc-seed``): it credits its policy's action, not the one taken.

The seed (the notebook this project grew from) keeps a policy table ``pi`` beside ``Q``.  In the
first two rounds of a game it *overwrites* ``pi(s)`` with a random action and plays ``pi(s)``, so
a state explored early plays that random action again when it comes back in the same game;
after the game it walks the states it saw, in order, and credits ``(s, pi(s))``, setting
``pi(s) <- argmax Q(s)`` after each update.  The first credit of a state therefore goes to the
action last played there, and every later one in the same game to the action that is greedy
*after* the earlier credits, whatever was played: those decisions' returns are credited to an
action that was not taken.  ``mc`` credits the action taken at every decision (the textbook's
every-visit Monte Carlo); ``mc-seed`` runs the seed's rule so that a study can show what it
changes.

Here ``pi`` is not stored: at the start of every game it is the greedy table of ``Q`` (every
state the learner has seen was last credited, and so set to its greedy action, at the end of a
game), so the game's own explored decisions are all it adds.  Two differences from the notebook
are kept: its ``pi`` starts random, this one greedy in the initial ``Q`` (the lowest legal
action, as every fsmarena learner), and its argmax runs over every action, this one over the
actions seen legal in the state (the same in divide-the-dollar, where all three always are).
"""

from __future__ import annotations

from fsmarena.jit import njit
from fsmarena.rl.algorithms.contract import DECIDE, GAME_OVER, GREEDY, KEEPS_TRAJECTORY, greedy_action


@njit
def last_explored(states, actions, explored, length, x):
    """The action of the game's last exploring decision in state ``x`` (its ``pi(x)``), or -1."""
    for t in range(length - 1, -1, -1):
        if states[t] == x and explored[t]:
            return actions[t]
    return -1


@njit
def _seen_before(states, t, x):
    """Whether state ``x`` occurs among the game's decisions before ``t``."""
    for u in range(t):
        if states[u] == x:
            return True
    return False


@njit(inline="always")
def seed_monte_carlo(
    event, q, n, extra, seen, x, mask, action, pending, pending_action, closed, target,
    gamma, alpha, epsilon, states, actions, explored, returns, length,
):  # fmt: skip
    """The seed's every-visit Monte Carlo (module doc; ``extra[0]`` holds the sums of returns).
    Pseudocode::

        at each decision in state s:  a <- pi(s), the action of the game's last exploring
                                      decision in s if any, else argmax Q(s)
                                      (exploring: a random action, and pi(s) <- a)
        after each game, for each decision t = (s, _) of the learner, in order:
            a <- pi(s)                                       (not the action taken at t)
            G_t <- gamma ** (decisions after t) * G
            N(s, a) <- N(s, a) + 1;  S(s, a) <- S(s, a) + G_t;  Q(s, a) <- S(s, a) / N(s, a)
            pi(s) <- argmax Q(s)
    """
    if event == KEEPS_TRAJECTORY:
        return 1
    if event == DECIDE:
        return last_explored(states, actions, explored, length, x)
    if event == GAME_OVER:
        sums = extra[0]
        for t in range(length):
            s = states[t]
            a = -1 if _seen_before(states, t, s) else last_explored(states, actions, explored, length, s)
            if a < 0:
                a = greedy_action(q, seen[s], s)
            n[s, a] += 1
            sums[s, a] += returns[t]
            q[s, a] = sums[s, a] / n[s, a]
    return GREEDY
