"""The textbook sequential tabular learners, compiled: one game at a time, updates in textbook order.

One generic loop (:func:`make_runner`, compiled per game kernel, see :mod:`fsmarena.games.kernel`
and :mod:`fsmarena.specialise`, and per build, below) plays the games and the learner's
behaviour for every algorithm and every game with a kernel; what the learner learns is its
*update*, one compiled function per algorithm that the loop calls at every decision and at the
end of every game (:mod:`fsmarena.rl.algorithms.contract`; the updates of Monte Carlo, SARSA,
Q-learning and the others are in :mod:`fsmarena.rl.algorithms`, each named by its registry line,
:mod:`fsmarena.rl.registry`).  The loop keeps the learner's pending decision (its previous one
in the game, for the TD updates) and, for the updates that read it, the game's trajectory: the
decisions' states, actions and whether they explored, and after the game their returns
``G_t = r * gamma^(L - 1 - t)``.

Segment rewards (``I_SEGMENTED``, kernels that define ``segment`` and ``potential``: 31's
rounds, :mod:`fsmarena.rl.segments`): every segment of the learner's decisions is an episode of its
own, rewarded by the change of the potential across it (the potential at the learner's next
segment, or the final reward after its last, minus the potential at this one).  A decision ``j``
decisions before the end of its segment has the return ``gamma^j`` times that reward; a pending
decision whose segment closed is given the change of the potential as its target (``closed``),
and the last one the final reward minus its potential.  The batched learners apply the same
rule (:mod:`fsmarena.rl.learners`).

The loop reads every array argument through a borrowed view (:func:`fsmarena.jit.borrowed`):
numba counts an array's references atomically at every compiled call that passes it, a dozen
times a decision here, and those counts were about two fifths of a divide-the-dollar training
game's time.  Its steps are helpers: those of every game and decision are compiled into it
(``inline="always"``, so that they cost no call and no reference count), those that call the
kernel being templates specialised per kernel like the loop itself (:func:`compiled_in`); the
trajectory buffers are made and grown by ordinary compiled calls.  The learner's update is called
by the loop itself, never by a helper: it is the loop's one slot, bound once per build (a helper
calling it would need a build per kernel *and* update, and a slot of the loop's own to reach it).

Builds: the update is compiled into the loop (called instead, its twenty arguments slow every
decision; docs/sequential-learning.md), through a switch over the updates
the build serves (:func:`fsmarena.specialise.switch`; the loop passes it ``which``).  A build
for one update is the fastest loop, compiled once per game and update.  A build for several
(:func:`fsmarena.rl.sequential_run.shared_updates`: every learner of the toolkit) is compiled once
per game for all of them, and its games are slower: 0.71x (Monte Carlo ES) and 0.76x
(Q-learning) of the own build's speed on divide-the-dollar, 0.39x and 0.86x on Vautour
(docs/sequential-learning.md).  Both play the same games and learn the same numbers, bit for
bit; :mod:`fsmarena.rl.sequential_run` says which build a run takes.

Behaviour (the batched learners' rule, :mod:`fsmarena.rl.learners`): greedy in Q over the legal
actions (ties to the lowest action; an update may name its own policy's action instead, the
seed's Monte Carlo does), except that the first ``explore_steps`` decisions of a
game are uniformly random legal actions (exploring starts) and any decision is random with
probability ``epsilon`` (``epsilon`` from :class:`fsmarena.rl.schedules.EpsilonSchedule`, evaluated
at every game: ``value(g, total)`` for training game ``g``).

Random numbers: one stream, numba's ``np.random`` (Mersenne Twister; seeded by the caller).
Per game, in this order: the deal (``draw_deal``); one ``random()`` per opponent seat in
seat order to draw its pool member (only when the pool has several members); then, decision
by decision, the draws of the learner's update before it chooses (double Q-learning's coin),
the learner's ``random()`` for epsilon (only when epsilon > 0) and one more for a random action
(only when it explores), or the opponent's own draws (random players); then the update's draws
at the end of the game (double Q-learning's last coin).

The learner takes seat ``g mod n_seats`` in game ``g`` (``learner_seat = -1``, alternate) or
a fixed seat; every other seat holds the opponent, or in self-play the frozen greedy table of
the learner, refreshed at every multiple of ``self_play_every`` games (before the game).

Batches (``I_BATCH`` 1, Monte Carlo only): the call's ``count`` games are one batch of the
batched algorithm (:mod:`fsmarena.rl.learners`): the learner acts by Q as it was at the call's
start (a copy, so the credits of the batch's games wait for the next batch to act on) and
epsilon and alpha are read at the call's first game.  The credits themselves are applied game
by game, in game order, as the batched Monte Carlo learner applies them at the batch's end.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, Sequence

import numpy as np

from fsmarena.games.compiled_players import make_opponent_act, random_legal
from fsmarena.games.draws import uniform_float
from fsmarena.games.kernel_calls import (
    k_draw_deal,
    k_legal,
    k_n_seats,
    k_objective,
    k_observe_index,
    k_reset,
    k_step,
    k_to_move,
)
from fsmarena.jit import borrowed, njit
from fsmarena.rl.algorithms.contract import CHOSEN, DECIDE, GAME_OVER, GREEDY, KEEPS_TRAJECTORY, greedy_action
from fsmarena.specialise import PerKernel, built_per_kernel, kernel_function, slot, specialise, switch

SCHEDULE_CODES = {"constant": 0, "linear": 1, "exponential": 2}
#: int settings: explore steps, epsilon schedule, learner seat (-1 alternate), self-play period
#: (0 none), segment rewards (1 on, 0 the game's final reward), alpha schedule, batch (1: the call is
#: one batch, its policy frozen; 0: textbook, one game at a time)
I_EXPLORE, I_SCHEDULE, I_SEAT, I_REFRESH, I_SEGMENTED, I_ALPHA_SCHEDULE, I_BATCH = range(7)
#: float settings: gamma, alpha (-1 = 1/N), epsilon start, epsilon final, total games, final alpha
F_GAMMA, F_ALPHA, F_EPS, F_EPS_FINAL, F_TOTAL, F_ALPHA_FINAL = range(6)


@njit
def scheduled(kind: int, start: float, final: float, done: int, total: float) -> float:
    """:meth:`fsmarena.rl.schedules.EpsilonSchedule.value` (epsilon's and alpha's), compiled (same arithmetic)."""
    if kind == 0:
        return start
    fraction = min(1.0, done / total) if total > 0 else 1.0
    if kind == 1:
        return start + (final - start) * fraction
    return start * (final / start) ** fraction


@njit
def greedy_table(q, seen, out):
    """The greedy action of every state over its seen-legal actions (``ActionValues.greedy_table``)."""
    for x in range(q.shape[0]):
        out[x] = greedy_action(q, seen[x], x)


@njit
def _no_segment(p, s, seat):
    """The segment of a game without segments: always the first."""
    return 0


@njit
def _no_potential(p, s, seat, table):
    """The potential of a game without segments: none."""
    return 0.0


@njit
def _game_returns(length, reward, gamma, out):
    """The discounted final reward ``G_t = r gamma^(L - 1 - t)`` of each decision."""
    for t in range(length):
        out[t] = reward * gamma ** float(length - 1 - t) if gamma != 1.0 else reward


@njit
def _segment_returns(segments, potentials, length, reward, gamma, out):
    """Each decision's return under segment rewards (module doc; :func:`fsmarena.rl.segments.segment_returns`)."""
    start = 0
    while start < length:
        end = start
        while end + 1 < length and segments[end + 1] == segments[start]:
            end += 1
        after = potentials[end + 1] if end + 1 < length else reward
        change = after - potentials[start]
        for t in range(start, end + 1):
            out[t] = change * gamma ** float(end - t) if gamma != 1.0 else change
        start = end + 1


#: the optional kernel functions of segment rewards, bound per kernel (:mod:`fsmarena.specialise`;
#: the contract's own are in :mod:`fsmarena.games.kernel_calls`)
k_segment = kernel_function("segment", _no_segment)
k_potential = kernel_function("potential", _no_potential)
#: the compiled opponents' interpreter of the same kernel
opponent_act = built_per_kernel(make_opponent_act)
#: the learner's update (:mod:`fsmarena.rl.algorithms.contract`), bound per build
learner_update = slot("the learner's update")


def make_runner(kernel: ModuleType, updates: Sequence[Callable[..., Any]], which: int = 0) -> Callable[..., Any]:
    """The compiled training loop for ``kernel``'s game, built for the learner ``updates`` and
    running ``updates[which]`` (:func:`train_games` specialised for both, its update slot bound to
    their :func:`fsmarena.specialise.switch`, compiled once and cached on disk, module doc).  One
    update gives the loop of that update alone; several give one build that runs any of them
    (module doc: builds).

    ``run(p, q, n, extra, seen, frozen, first, count, isets, fsets, ints, floats, tables, int_start,
    float_start, table_start, potentials) -> float`` plays training games ``first .. first + count - 1`` and
    returns the sum of the learner's final rewards in them.  ``extra`` is the learner's own tables
    (3-d; any when it has none), ``potentials`` the kernel's ``potential_table`` under segment rewards
    (any 2-d array otherwise).
    """
    if not 0 <= which < len(updates):
        raise IndexError(f"update {which} of a loop built for {len(updates)}")
    label = f"{len(updates)} learner updates" if len(updates) > 1 else None  # else the update's own name
    play = specialise(train_games, kernel, slots={"learner_update": switch(updates)}, seconds=20, label=label)
    chosen = np.int64(which)

    def run(p: np.ndarray, *arrays: Any) -> float:
        return play(p, *arrays, *work_arrays(kernel, p), chosen)

    return run


def work_arrays(kernel: ModuleType, p: np.ndarray) -> tuple[np.ndarray, ...]:
    """The training loop's work arrays for a game of rules ``p``: a state, a deal, a mask, the
    features, the rewards, each seat's pool member and each seat's finite-state memory."""
    seats = int(kernel.n_seats(p))
    return (
        np.zeros(int(kernel.state_size(p)), dtype=np.int64),
        np.zeros(int(kernel.deal_size(p)), dtype=np.int64),
        np.zeros(int(kernel.n_actions(p)), dtype=np.bool_),
        np.zeros(max(1, int(kernel.n_features(p)))),
        np.zeros(seats),
        np.zeros(seats, dtype=np.int64),
        np.zeros(seats, dtype=np.int64),
    )


@njit
def _trajectory(size):
    """Empty trajectory buffers for ``size`` decisions of a game: their states, actions, whether
    they explored, their segments, their potentials (``marks``) and their returns."""
    return (
        np.zeros(size, dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        np.zeros(size, dtype=np.bool_),
        np.zeros(size, dtype=np.int64),
        np.zeros(size),
        np.zeros(size),
    )


@njit
def _grown(states, actions, explored, segments, marks, returns):
    """The trajectory buffers twice as long (their decisions kept), for a game longer than they are.

    The loop plays a game in passes of its decision loop: a pass ends with the game, or when the
    buffers are full; they grow here, between passes, never inside one (an array reassigned
    inside the decision loop cost numba reference counts at every decision: a quarter of a
    divide-the-dollar training game)."""
    return (
        np.concatenate((states, np.zeros(len(states), dtype=np.int64))),
        np.concatenate((actions, np.zeros(len(actions), dtype=np.int64))),
        np.concatenate((explored, np.zeros(len(explored), dtype=np.bool_))),
        np.concatenate((segments, np.zeros(len(segments), dtype=np.int64))),
        np.concatenate((marks, np.zeros(len(marks)))),
        np.concatenate((returns, np.zeros(len(returns)))),
    )


@njit(inline="always")
def _behaviour(acting, mask, x, own, decisions, explore_steps, epsilon):
    """``(action, explored)``: the learner's action in state ``x`` (module doc: behaviour, and the
    order of its draws): ``own``, its update's policy's, or the greedy action of ``acting``
    (``own`` :data:`GREEDY`); but a random legal one among the game's first ``explore_steps``
    ``decisions`` and, one draw when ``epsilon`` > 0, with probability ``epsilon``."""
    action = greedy_action(acting, mask, x) if own == GREEDY else own
    explore = decisions < explore_steps
    if epsilon > 0 and uniform_float() < epsilon:
        explore = True
    if explore:
        action = random_legal(mask)
    return action, explore


@njit(inline="always")
def _record(keeps, t, x, action, explore, segment, potential, states, actions, explored, segments, marks):
    """Decision ``t`` of the game in the trajectory buffers, when the learner reads them (``keeps``)."""
    if keeps:
        states[t] = x
        actions[t] = action
        explored[t] = explore
        segments[t] = segment
        marks[t] = potential


def compiled_in(template: Callable[..., Any]) -> PerKernel:
    """The placeholder of ``template`` (a step of the training loop that calls the kernel),
    specialised for each kernel as the loop is and compiled into it (module doc)."""

    def build(kernel: ModuleType) -> Callable[..., Any]:
        return specialise(template, kernel, inline=True)

    build.__name__ = f"compiled_in({template.__name__})"
    return built_per_kernel(build)


# The steps of the training loop that call the kernel: templates over its placeholder names,
# each bound in the loop by its ``k_`` placeholder (:func:`compiled_in`).


def start_game(p, s, deal, q, seen, frozen, member, memory, isets, fsets, g, at, seats, members):
    """``(epsilon, alpha, learner)``: training game ``g`` set up (module doc): the frozen
    self-play table refreshed at every multiple of its period, epsilon and alpha read at game
    ``at``, the learner's seat, the deal in ``s`` and each opponent seat's pool member (one draw
    each, in seat order, when the pool has several of its ``members``) and fresh memory."""
    refresh = isets[I_REFRESH]
    if refresh > 0 and g % refresh == 0:
        greedy_table(q, seen, frozen)
    epsilon = scheduled(isets[I_SCHEDULE], fsets[F_EPS], fsets[F_EPS_FINAL], at, fsets[F_TOTAL])
    alpha_start = fsets[F_ALPHA]
    alpha = alpha_start  # -1: the sample average 1/N
    if alpha_start >= 0:
        alpha = scheduled(isets[I_ALPHA_SCHEDULE], alpha_start, fsets[F_ALPHA_FINAL], at, fsets[F_TOTAL])
    fixed_seat = isets[I_SEAT]
    learner = g % seats if fixed_seat < 0 else fixed_seat
    k_draw_deal(p, deal)
    k_reset(p, s, deal)
    for seat in range(seats):
        memory[seat] = 0
        if seat != learner:
            member[seat] = int(uniform_float() * members) if members > 1 else 0
    return epsilon, alpha, learner


def play_to_learner(
    p, s, learner, action, learner_moved, member, ints, floats, tables, int_start, float_start, table_start,
    memory, mask, feats, frozen,
):  # fmt: skip
    """The game played on to the learner's next decision: the learner's ``action`` first (when
    ``learner_moved``), then the opponents' moves (each seat's pool member ``member[seat]``).
    Returns the seat to move: the learner, or a negative one when the game is over."""
    moving = learner_moved
    while True:
        if moving:
            k_step(p, s, action)  # one call site: each is compiled into the loop
        seat = k_to_move(p, s)
        if seat < 0 or seat == learner:
            return seat
        m = member[seat]
        action = opponent_act(
            p, s, seat, ints, floats, tables, int_start[m], float_start[m], table_start[m], memory, mask, feats,
            frozen,
        )  # fmt: skip
        moving = True


def observe_learner(p, s, seat, mask, seen, potentials, segmented, pending, pending_segment):
    """``(x, segment, potential, closed)``: the learner's decision as it sees it: its state index
    ``x``, its legal actions in ``mask`` (also marked in ``seen``) and, under segment rewards,
    its segment and potential, and whether the segment of its ``pending`` decision has closed."""
    x = k_observe_index(p, s, seat)
    k_legal(p, s, seat, mask)
    for a in range(len(mask)):
        seen[x, a] |= mask[a]
    segment_now, potential_now, closed = 0, 0.0, False
    if segmented:
        segment_now = k_segment(p, s, seat)
        potential_now = k_potential(p, s, seat, potentials)
        closed = pending >= 0 and segment_now != pending_segment
    return x, segment_now, potential_now, closed


def finish_game(p, s, rewards, learner, keeps, segmented, gamma, decisions, segments, marks, returns, potential):
    """``(reward, final)``: the learner's final reward in the game that just ended (the ranking
    reward, or the score where the kernel's OBJECTIVE says so), with every recorded decision's
    return in ``returns`` when the learner reads them, and its pending decision's final target
    (the reward, minus that decision's ``potential`` under segment rewards)."""
    k_objective(p, s, rewards)
    reward = rewards[learner]
    if keeps:
        if segmented:
            _segment_returns(segments, marks, decisions, reward, gamma, returns)
        else:
            _game_returns(decisions, reward, gamma, returns)
    return reward, (reward - potential if segmented else reward)


k_start_game = compiled_in(start_game)
k_play_to_learner = compiled_in(play_to_learner)
k_observe_learner = compiled_in(observe_learner)
k_finish_game = compiled_in(finish_game)


def train_games(
    p, q, n, extra, seen, frozen, first, count, isets, fsets, ints, floats, tables, int_start, float_start,
    table_start, potentials, s, deal, mask, feats, rewards, member, memory, which,
):  # fmt: skip
    """The training loop's template (:func:`make_runner`; module doc: every array is read through a borrowed
    view).  ``s`` to ``memory`` are the work arrays (:func:`work_arrays`), the caller's to outlive their views;
    ``which`` the update the build's switch runs."""
    p, q, n, extra = borrowed(p), borrowed(q), borrowed(n), borrowed(extra)
    seen, frozen = borrowed(seen), borrowed(frozen)
    ints, floats, tables = borrowed(ints), borrowed(floats), borrowed(tables)
    int_start, float_start, table_start = borrowed(int_start), borrowed(float_start), borrowed(table_start)
    potentials, s, deal, mask = borrowed(potentials), borrowed(s), borrowed(deal), borrowed(mask)
    feats, rewards, member, memory = borrowed(feats), borrowed(rewards), borrowed(member), borrowed(memory)
    explore_steps, segmented, gamma = isets[I_EXPLORE], isets[I_SEGMENTED] == 1, fsets[F_GAMMA]
    batch = isets[I_BATCH] == 1
    acting = q.copy() if batch else q  # the Q the learner acts by (module doc: batches)
    seats, members = k_n_seats(p), len(int_start)
    states, actions, explored, segments, marks, returns = _trajectory(64)
    # int64 from the start, not literals: the calls below would compile twice (fsmarena.jit)
    decisions, pending, pending_action = np.int64(0), np.int64(-1), np.int64(0)
    asked = learner_update(
        which, KEEPS_TRAJECTORY, q, n, extra, seen, pending, mask, pending_action, pending, pending_action, False,
        0.0, gamma, fsets[F_ALPHA], 0.0, states, actions, explored, returns, decisions,
    )  # fmt: skip
    keeps = asked == 1  # whether the learner reads the game's trajectory
    total_reward = 0.0
    for g in range(first, first + count):
        epsilon, alpha, learner = k_start_game(
            p, s, deal, q, seen, frozen, member, memory, isets, fsets, g, first if batch else g, seats, members
        )
        decisions, pending, pending_action = np.int64(0), np.int64(-1), np.int64(0)
        pending_segment, pending_potential = 0, 0.0
        # the game in passes of the decision loop, the trajectory buffers growing between them (_grown)
        while True:
            full, moved, action = False, False, np.int64(0)
            while True:
                seat = k_play_to_learner(
                    p, s, learner, action, moved, member, ints, floats, tables, int_start, float_start, table_start,
                    memory, mask, feats, frozen,
                )  # fmt: skip
                if seat < 0:
                    break
                if keeps and decisions == len(states):
                    full = True  # before anything of this decision: the next pass makes it
                    break
                x, segment_now, potential_now, closed = k_observe_learner(
                    p, s, seat, mask, seen, potentials, segmented, pending, pending_segment
                )
                change = potential_now - pending_potential
                own = learner_update(
                    which, DECIDE, q, n, extra, seen, x, mask, pending_action, pending, pending_action, closed,
                    change, gamma, alpha, epsilon, states, actions, explored, returns, decisions,
                )  # fmt: skip
                action, explore = _behaviour(acting, mask, x, own, decisions, explore_steps, epsilon)
                learner_update(
                    which, CHOSEN, q, n, extra, seen, x, mask, action, pending, pending_action, closed,
                    change, gamma, alpha, epsilon, states, actions, explored, returns, decisions,
                )  # fmt: skip
                pending, pending_action = x, action
                pending_segment, pending_potential = segment_now, potential_now
                _record(
                    keeps, decisions, x, action, explore, segment_now, potential_now, states, actions, explored,
                    segments, marks,
                )  # fmt: skip
                decisions += 1
                moved = True
            if not full:
                break
            states, actions, explored, segments, marks, returns = _grown(
                states, actions, explored, segments, marks, returns
            )
        reward, final = k_finish_game(
            p, s, rewards, learner, keeps, segmented, gamma, decisions, segments, marks, returns, pending_potential
        )
        total_reward += reward
        learner_update(
            which, GAME_OVER, q, n, extra, seen, pending, mask, pending_action, pending, pending_action, False,
            final, gamma, alpha, epsilon, states, actions, explored, returns, decisions,
        )  # fmt: skip
    return total_reward
