"""Segment rewards: a long game cut into short episodes, each rewarded by a potential's change.

Some games hand out their only reward after dozens of rounds (31: +1 / -1 once a single
player is left), which drowns each decision's effect in the noise of every later round.  A
game that declares :class:`fsmarena.games.capabilities.SegmentRewards` cuts itself into *segments*
(31: its rounds) and gives, at every decision, the segment number (observation part
``segment``) and the deciding seat's *potential* there (part ``potential``, constant within
a segment: 31's lives potential).  With ``reward = "segment"`` a learner then treats every
segment as an episode of its own, rewarded by the change of the potential across it:

    reward of segment k = potential at the learner's next segment (or, after its last
                          segment, the game's final reward) - potential at segment k

A decision ``j`` decisions before the end of its segment is credited ``gamma**j`` times that
reward, and nothing from later segments.  Summed over a game the segment rewards telescope
to the final reward minus the potential of the start, so the best policy for the game is
still the goal, but every segment carries its own signal.

:func:`segment_returns` is the one implementation: the tabular Monte Carlo learners
(:mod:`fsmarena.rl.learners`) and the network learner (:mod:`fsmarena.rl.network_training`) both
call it; the TD learners apply the same rule transition by transition.
"""

from __future__ import annotations

import numpy as np

#: reward modes of the learners: the game's final reward, or segment rewards (above)
REWARDS = ("game", "segment")


def segment_returns(
    games: np.ndarray, segments: np.ndarray, potential: np.ndarray, final: np.ndarray, gamma: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns of decisions given game-major, in decision order within a game.

    ``games[i]``, ``segments[i]``, ``potential[i]``: decision i's game, segment and potential;
    ``final[i]``: the final reward of decision i's game.  Returns ``(return per decision,
    reward per segment played, decisions per segment played)``.
    """
    n = len(games)
    if n == 0:
        empty = np.zeros(0)
        return empty, empty, np.zeros(0, dtype=np.int64)
    new_segment = np.r_[True, (games[1:] != games[:-1]) | (segments[1:] != segments[:-1])]
    group = np.cumsum(new_segment) - 1
    starts = np.flatnonzero(new_segment)
    sizes = np.diff(np.r_[starts, n])
    last = np.r_[games[starts][1:] != games[starts][:-1], True]
    before = np.asarray(potential, dtype=float)[starts]
    after = np.where(last, np.asarray(final, dtype=float)[starts], np.r_[before[1:], 0.0])
    reward = after - before
    steps_left = np.repeat(starts + sizes, sizes) - 1 - np.arange(n)
    return reward[group] * np.power(gamma, steps_left), reward, sizes
