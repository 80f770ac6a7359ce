"""What the compiled training loop tells a learner's update, and the primitives updates share.

The loop (:mod:`fsmarena.rl.sequential`) plays the games, draws the random numbers and chooses the
learner's actions; a learner's *update* is one compiled function that learns from what the loop
tells it, with one signature for every algorithm::

    update(event, q, n, extra, seen, x, mask, action, pending, pending_action, closed, target,
           gamma, alpha, epsilon, states, actions, explored, returns, length) -> int

``q`` and ``n`` are the action values and their update counts (the learner's greedy policy is
read from ``q``), ``extra`` the learner's own tables (shape ``(k, states, actions)``: Monte
Carlo's sums of returns, double Q-learning's two estimates; checkpointed with the others) and
``seen`` the actions ever seen legal per state.  ``gamma`` discounts per decision, ``alpha`` is
the step size of this game (``-1``: the sample average ``1 / N``), ``epsilon`` the exploration
probability of this game.  The loop calls it with ``event``:

* :data:`KEEPS_TRAJECTORY`, once per call of the loop: return 1 if the update reads the game's
  decisions (``states``, ``actions``, ``explored`` and ``returns``, which the loop then records);
* :data:`DECIDE`, at each decision of the learner, before it chooses: ``x`` is its state and
  ``mask`` its legal actions; ``pending``, ``pending_action`` its previous decision in this game
  (``pending`` -1: none); ``closed`` says that decision's segment ended (segment rewards), and
  then ``target`` is the change of the potential across it; ``states[:length]`` etc. are the
  game's decisions so far.  Return the action the learner's own policy plays when it does not
  explore, or -1 for the greedy action of the acting table (every learner but the seed's);
* :data:`CHOSEN`, right after the choice: ``action`` is the action taken (the same other
  arguments);
* :data:`GAME_OVER`, at the end of the game: ``target`` is the pending decision's final target (the
  final reward, minus the pending potential under segment rewards) and ``returns[:length]`` each
  recorded decision's discounted return.

The loop makes every random draw of the behaviour (exploring starts, epsilon) in the order its
module documents; an update that draws random numbers of its own (double Q-learning's coin)
documents where.  Return :data:`GREEDY` (-1) where the event asks for nothing.
"""

from __future__ import annotations

import numpy as np

from fsmarena.jit import njit

KEEPS_TRAJECTORY, DECIDE, CHOSEN, GAME_OVER = range(4)
#: DECIDE's answer: no action of its own, the loop plays the greedy action of the acting table
GREEDY = -1


@njit
def greedy_action(q, legal_row, x):
    """argmax of ``q[x]`` over the True entries of ``legal_row`` (lowest on ties; 0 if none)."""
    best = -1
    for a in range(q.shape[1]):
        if legal_row[a] and (best < 0 or q[x, a] > q[x, best]):
            best = a
    return 0 if best < 0 else best


@njit
def step_update(q, n, x, a, target, alpha):
    """``N(x, a) += 1; Q(x, a) += step (target - Q(x, a))``, step ``alpha`` or ``1 / N`` (alpha -1)."""
    n[x, a] += 1
    step = alpha if alpha >= 0 else 1.0 / n[x, a]
    q[x, a] += step * (target - q[x, a])


@njit
def masked_max(q, mask, x):
    """``max_a Q(x, a)`` over the legal actions ``mask`` (-inf when there is none)."""
    best = -np.inf
    for a in range(q.shape[1]):
        if mask[a] and q[x, a] > best:
            best = q[x, a]
    return best
