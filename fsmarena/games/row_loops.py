"""The compiled loops over the rows of a batch of one game kernel, written once for every game.

Each loop is a template written once over placeholder names (``k_step``, ...) and compiled per
kernel by :func:`fsmarena.specialise.specialise`, which caches the compiled code on disk;
:func:`loops_for` gives a kernel's set.  :class:`fsmarena.games.driver.Driver` plays batches with
them: :func:`advance_rows` plays the games (every seat compiled, or up to the next decision of a
Python seat), the others read the kernel's observations, masks and results row by row.

Every loop reads its arrays through borrowed views (:func:`fsmarena.jit.borrowed`): numba
counts an array's references atomically at each inlined kernel call that passes it, which
took two fifths of a Stupide Vautour game's time in :func:`advance_rows`.  So every array such
a loop reads is an argument, its work arrays included: the caller holds them for the call.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Callable

import numpy as np

from fsmarena.games.compiled_players import (
    BDA,
    BUILTIN,
    FIXED,
    FSM,
    RANDOM,
    TABLE,
    k_bda_action,
    k_fsm_action,
    legal_or_first_legal,
    random_legal,
)
from fsmarena.games.kernel_calls import (
    k_builtin_action,
    k_builtin_law,
    k_draw_deal,
    k_encoding,
    k_features,
    k_is_legal,
    k_legal,
    k_observe_index,
    k_observe_part,
    k_reset,
    k_rewards,
    k_scores,
    k_step,
    k_to_move,
)
from fsmarena.jit import borrowed
from fsmarena.specialise import built_per_kernel, specialise


@dataclass(frozen=True)
class Loops:
    """The compiled loops over rows of one kernel (:func:`loops_for`)."""

    draw_deals: Callable[..., None]
    reset_all: Callable[..., None]
    advance_rows: Callable[..., int]
    index_rows: Callable[..., None]
    features_rows: Callable[..., None]
    legal_rows: Callable[..., None]
    encoding_rows: Callable[..., None]
    part_rows: Callable[..., None]
    builtin_rows: Callable[..., None]
    law_rows: Callable[..., None]
    results: Callable[..., None]


_LOOPS: dict[str, Loops] = {}


def loops_for(kernel: ModuleType) -> Loops:
    """The driver's compiled loops for ``kernel`` (compiled once per process and kernel)."""
    if kernel.__name__ not in _LOOPS:
        _LOOPS[kernel.__name__] = _make_loops(kernel)
    return _LOOPS[kernel.__name__]


# Each loop is a template written once over the kernel contract's placeholder names
# (:mod:`fsmarena.games.kernel_calls`, and the players' :data:`fsmarena.games.compiled_players.k_fsm_action`
# and ``k_bda_action``) and compiled per kernel by :func:`fsmarena.specialise.specialise`, which
# caches the compiled code on disk.


def draw_deals(p, deals):
    for row in range(deals.shape[0]):
        k_draw_deal(p, deals[row])


def reset_all(p, states, deals):
    for row in range(states.shape[0]):
        k_reset(p, states[row], deals[row])


# A compiled seat's move in :func:`advance_rows`, in two steps, each a template compiled into the
# loop (``inline="always"``, as the players' own, :mod:`fsmarena.games.compiled_players`): a call
# would cost reference counts on its array arguments at every move, and each kernel function is
# still called from one place in the loop (each call site is compiled into it, and compiling is
# most of a cold start).


def seat_choice(p, s, seat, kind, ints, floats, tables, at, fstart, tstart, player_row, memory, feats):
    """What the compiled player of ``kind`` starting at ``ints[at]`` chooses for ``seat``, before
    any check (0 for a random player, which chooses once the mask is known: :func:`checked_choice`)."""
    action = np.int64(0)
    if kind == FIXED:
        action = ints[at + 1]
    elif kind == TABLE:
        action = np.int64(tables[tstart[player_row, seat] + k_observe_index(p, s, seat)])
    elif kind == BUILTIN:
        action = k_builtin_action(p, s, seat, ints[at + 1], floats[fstart[player_row, seat] :])
    elif kind == FSM:
        action = k_fsm_action(p, s, seat, ints, tables, at, tstart[player_row, seat], memory)
    elif kind == BDA:  # (the driver never seats SELF, the training loop's frozen learner)
        action = k_bda_action(p, s, seat, ints, floats, at, fstart[player_row, seat], memory, feats)
    return action


def checked_choice(p, s, seat, kind, action, mask):
    """``(action, legal)``: the move ``seat`` plays, its player of ``kind`` (-1: a Python seat)
    having chosen ``action``; ``legal`` False for a Python seat's out-of-range or illegal action.

    The mask is filled only where it is needed: a random choice, a Python one (checked: the batch
    stops at an illegal one), a compiled choice the game's own rule refuses (kernel.is_legal,
    :data:`fsmarena.games.kernel_calls.k_is_legal`; it becomes the first legal action)."""
    if kind <= RANDOM or not k_is_legal(p, s, seat, action, mask):
        k_legal(p, s, seat, mask)
        if kind == -1:
            if action < 0 or action >= len(mask) or not mask[action]:
                return action, False
        elif kind == RANDOM:
            action = random_legal(mask)
        else:
            action = legal_or_first_legal(mask, action)
    return action, True


def make_seat_choice(kernel: ModuleType) -> Callable[..., int]:
    """:func:`seat_choice` for ``kernel``, compiled into its callers."""
    return specialise(seat_choice, kernel, inline=True)


def make_checked_choice(kernel: ModuleType) -> Callable[..., tuple[int, bool]]:
    """:func:`checked_choice` for ``kernel``, compiled into its callers."""
    return specialise(checked_choice, kernel, inline=True)


k_seat_choice = built_per_kernel(make_seat_choice)
k_checked_choice = built_per_kernel(make_checked_choice)


def advance_rows(
    p,
    states,
    rows,
    actions,
    deals,
    ints,
    floats,
    tables,
    start,
    fstart,
    tstart,
    memory,
    waiting,
    out_rewards,
    out_scores,
    scratch,
    mask,
    feats,
):
    """The one compiled loop that plays games, row by row, in two modes.

    * Python seats (``deals`` empty): game ``rows[j]`` is ``states[rows[j]]`` with the compiled
      seats' memory ``memory[rows[j]]``; its Python seat to move plays ``actions[j]`` (none when
      ``actions`` is empty), then the compiled seats move until a Python seat is to move or the
      game ends; ``waiting[row]``: that seat, or -1.  Returns the position of the first
      out-of-range or illegal action (the rows before it have moved), or -1.
    * every seat compiled (``deals`` given): game ``rows[j]`` is dealt ``deals[rows[j]]`` in a
      scratch state (``memory[0]`` its memory) and played to the end; its rewards and scores go
      to ``out_rewards`` and ``out_scores``.

    ``start``, ``fstart`` and ``tstart`` locate each seat's compiled player per game, or once
    for every game when they have one row (:class:`fsmarena.games.driver.Program`).  A move is
    chosen (:func:`seat_choice`) and checked (:func:`checked_choice`) in one place each.
    ``scratch`` (a state), ``mask`` (one per action) and ``feats`` (one per feature) are the
    loop's work arrays, the caller's so that every array the loop reads is borrowed
    (:func:`fsmarena.jit.borrowed`)."""
    p, states, rows, actions, deals = borrowed(p), borrowed(states), borrowed(rows), borrowed(actions), borrowed(deals)
    ints, floats, tables = borrowed(ints), borrowed(floats), borrowed(tables)
    start, fstart, tstart, memory = borrowed(start), borrowed(fstart), borrowed(tstart), borrowed(memory)
    waiting, out_rewards, out_scores = borrowed(waiting), borrowed(out_rewards), borrowed(out_scores)
    scratch, mask, feats = borrowed(scratch), borrowed(mask), borrowed(feats)
    fresh = len(deals) > 0
    scratch_memory = memory[0]
    per_game = start.shape[0] > 1
    for j in range(len(rows)):
        row = rows[j]
        player_row = row if per_game else 0
        if fresh:
            s, seat_memory = scratch, scratch_memory
            k_reset(p, s, deals[row])
            for seat in range(len(seat_memory)):
                seat_memory[seat] = 0
        else:
            s, seat_memory = states[row], memory[row]
        python_turn = len(actions) > 0
        seat = k_to_move(p, s)
        while seat >= 0:
            at = start[player_row, seat]
            if not python_turn and at < 0:
                break  # a Python seat is to move
            kind = -1 if python_turn else ints[at]
            action = actions[j] if kind == -1 else np.int64(0)
            if kind != -1:
                action = k_seat_choice(
                    p, s, seat, kind, ints, floats, tables, at, fstart, tstart, player_row, seat_memory, feats
                )
            action, legal = k_checked_choice(p, s, seat, kind, action, mask)
            if not legal:
                return j
            python_turn = False  # (a compiled seat's turn already was not a Python one)
            k_step(p, s, action)
            seat = k_to_move(p, s)
        if fresh:
            k_rewards(p, s, out_rewards[row])
            k_scores(p, s, out_scores[row])
        else:
            waiting[row] = seat
    return -1


def index_rows(p, states, rows, seat, out):
    p, states = borrowed(p), borrowed(states)
    for j in range(len(rows)):
        out[j] = k_observe_index(p, states[rows[j]], seat)


def features_rows(p, states, rows, seat, out):
    p, states, out = borrowed(p), borrowed(states), borrowed(out)
    for j in range(len(rows)):
        k_features(p, states[rows[j]], seat, out[j])


def legal_rows(p, states, rows, seat, out):
    p, states, out = borrowed(p), borrowed(states), borrowed(out)
    for j in range(len(rows)):
        k_legal(p, states[rows[j]], seat, out[j])


def encoding_rows(p, states, rows, seat, which, out):
    p, states = borrowed(p), borrowed(states)
    for j in range(len(rows)):
        out[j] = k_encoding(p, states[rows[j]], seat, which)


def part_rows(p, data, states, rows, seat, which, out):
    p, data, states, out = borrowed(p), borrowed(data), borrowed(states), borrowed(out)
    for j in range(len(rows)):
        k_observe_part(p, data, states[rows[j]], seat, which, out[j])


def builtin_rows(p, states, rows, seat, code, args, out):
    p, states, args = borrowed(p), borrowed(states), borrowed(args)
    for j in range(len(rows)):
        out[j] = k_builtin_action(p, states[rows[j]], seat, code, args)


def law_rows(p, states, rows, seat, code, args, out):
    p, states, args, out = borrowed(p), borrowed(states), borrowed(args), borrowed(out)
    for j in range(len(rows)):
        k_builtin_law(p, states[rows[j]], seat, code, args, out[j])


def results(p, states, out_rewards, out_scores):
    p, states, out_rewards, out_scores = borrowed(p), borrowed(states), borrowed(out_rewards), borrowed(out_scores)
    for row in range(states.shape[0]):
        k_rewards(p, states[row], out_rewards[row])
        k_scores(p, states[row], out_scores[row])


#: the templates of :class:`Loops`' fields, in their order
_LOOP_TEMPLATES = (
    draw_deals,
    reset_all,
    advance_rows,
    index_rows,
    features_rows,
    legal_rows,
    encoding_rows,
    part_rows,
    builtin_rows,
    law_rows,
    results,
)


def _make_loops(kernel: ModuleType) -> Loops:
    """Every loop of :class:`Loops` specialised for ``kernel`` (compiled, cached on disk)."""
    return Loops(*(specialise(template, kernel) for template in _LOOP_TEMPLATES))
