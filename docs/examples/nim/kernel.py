"""Nim, one game at a time, compiled: the rules (the contract of :mod:`fsmarena.games.kernel`).

Parameters ``p`` (int64): ``[stones, max_take]``.  State ``s`` (int64): ``[stones left, seat
to move, winner (-1 while playing), decisions so far]``.  What Nim does not need (chance,
encodings, parts beyond ``step``, a mask always shown) is the contract's defaults, given by
``complete(globals())`` on the last line.
"""

from __future__ import annotations

import numpy as np

from fsmarena.games.kernel import complete, rank_rewards
from fsmarena.jit import njit

BUILTINS = ("random", "take-one", "optimal")
_STONES, _TAKE = 0, 1
_LEFT, _MOVER, _WINNER, _STEP = 0, 1, 2, 3


def make_params(config) -> np.ndarray:
    return np.array([config.stones, config.max_take], dtype=np.int64)


@njit
def state_size(p):
    return 4


@njit
def n_seats(p):
    return 2


@njit
def n_actions(p):
    return p[_TAKE]


@njit
def n_states(p):
    return p[_STONES] + 1


@njit
def n_features(p):
    return 2


@njit
def reset(p, s, deal):
    s[_LEFT] = p[_STONES]
    s[_MOVER] = 0
    s[_WINNER] = -1
    s[_STEP] = 0


@njit
def to_move(p, s):
    return -1 if s[_WINNER] >= 0 else s[_MOVER]


@njit
def observe_index(p, s, seat):
    return s[_LEFT]


@njit
def features(p, s, seat, out):
    out[0] = s[_LEFT] / p[_STONES]
    out[1] = (s[_LEFT] % (p[_TAKE] + 1)) / p[_TAKE]


@njit
def legal(p, s, seat, mask):
    for action in range(p[_TAKE]):
        mask[action] = action + 1 <= s[_LEFT]


@njit
def step(p, s, action):
    """Take ``action + 1`` stones (never more than are left: an illegal take takes them all)."""
    seat = s[_MOVER]
    s[_LEFT] -= min(action + 1, s[_LEFT])
    s[_STEP] += 1
    if s[_LEFT] == 0:
        s[_WINNER] = seat
    else:
        s[_MOVER] = 1 - seat


@njit
def rewards(p, s, out):
    scores(p, s, out)
    rank_rewards(out)


@njit
def scores(p, s, out):
    out[0] = 1.0 if s[_WINNER] == 0 else 0.0
    out[1] = 1.0 - out[0]


@njit
def builtin_action(p, s, seat, code, args):
    """``random``, ``take-one`` and ``optimal`` (leave a multiple of ``max_take + 1``)."""
    if code == 0:
        return np.random.randint(0, min(p[_TAKE], s[_LEFT]))
    if code == 1:
        return 0
    take = s[_LEFT] % (p[_TAKE] + 1)
    return take - 1 if take > 0 else 0


@njit
def observe_part(p, data, s, seat, which, out):
    out[0] = s[_STEP]


def test_configs() -> list:
    """The configurations the kernel tests play: heaps long enough for the random player to
    draw often (a seed must change its games) and the default."""
    from .game import NimConfig  # the configuration lives with the game; imported here on use

    return [NimConfig(stones=60, max_take=4), NimConfig(), NimConfig(stones=3, max_take=2)]


complete(globals())
