"""Minimal machines: the smallest table FSM or BDA that plays exactly like a given one.

Three reductions, in this order:

1. **Inputs that never occur.**  An input domain says which observations the game can show the
   machine.  Without one, every input code of a table FSM counts, and a BDA's features may take
   any value in [0, 1] (the range its thresholds cover); this is exact.  With an
   :class:`InputDomain` (built by :func:`fsmarena.evo.usage.observed_domain`, which plays the machine
   against a panel of builtins and random players and collects what it saw), the reduction is
   empirical: the minimal machine plays exactly like the original on every observation of the
   domain, and nothing is promised elsewhere.  Entries for inputs outside the domain become a
   canonical "stay, play action 0" (table FSM); a BDA test that never holds on the domain loses
   its true branch, a test that always holds loses its false branch.
2. **Unreachable states** are dropped: those no used entry leads to from the start state 0.
3. **Equivalent states** are merged by partition refinement (Moore's algorithm for Mealy
   machines): two states are equivalent when they answer every input in the domain with the
   same action and move to equivalent states.  For a BDA a state's own fields (feature, test,
   threshold, true and false actions) play the role of the actions and its true and false
   successors that of the moves; this is a bisimulation, so merged states behave alike
   whatever number of tests is left in a decision.

The result is numbered canonically (breadth-first from state 0, successors in input order,
for a BDA true before false), so minimising a minimal machine changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.evo.bda import (
    FALSE_ACTION,
    FALSE_NEXT,
    FEATURE,
    GREATER,
    LESS,
    NEAR_WIDTH,
    TEST,
    THETA,
    THETA_STEPS,
    TRUE_ACTION,
    TRUE_NEXT,
    BinaryDecisionAutomaton,
)
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.games.players import Player


@dataclass(frozen=True)
class InputDomain:
    """The observations a machine can meet.

    ``inputs``: for a table FSM, a boolean mask over its input codes (True: the input occurs).
    ``features``: for a BDA, per feature the values it takes, scaled by ``THETA_STEPS`` exactly
    as the automaton scales them before its tests.
    """

    inputs: np.ndarray | None = None
    features: tuple[np.ndarray, ...] | None = None
    #: the states used in play (boolean mask; None: every state counts).  A move to a state
    #: never used can only have fired as a game's last move (or never): it becomes "stay",
    #: so the states never used drop out as unreachable (``fsmarena draw --minimise played``)
    states: np.ndarray | None = None


@dataclass(frozen=True)
class Minimal:
    """A minimised machine: ``player`` plays like the original on the domain.

    ``state_of[s]`` is the minimal state of original state ``s`` (-1: unreachable) and
    ``inputs`` the input codes kept (table FSM; ``None`` for a BDA).
    """

    player: Player
    state_of: np.ndarray
    inputs: np.ndarray | None

    @property
    def n_states(self) -> int:
        """The effective number of states."""
        return int(self.state_of.max()) + 1


def minimise(player: Player, domain: InputDomain | None = None) -> Minimal:
    """The minimal machine of a single table FSM or BDA (see the module docstring)."""
    if player.n_members != 1:
        raise FsmarenaError("minimise the members of a stacked machine one by one")
    if domain is not None and domain.states is not None:
        player = _stay_in_played(player, np.asarray(domain.states, dtype=bool))
    if isinstance(player, TableFSM):
        return _minimise_fsm(player, None if domain is None else domain.inputs)
    if isinstance(player, BinaryDecisionAutomaton):
        return _minimise_bda(player, None if domain is None else domain.features)
    raise FsmarenaError(f"only table-fsm and bda players can be minimised, not '{player.kind}'")


def _stay_in_played(player: Player, played: np.ndarray) -> Player:
    """``player`` with every move to a state never used in play turned into a stay (see
    :attr:`InputDomain.states`); the start state counts as used."""
    played = played.copy()
    if isinstance(player, TableFSM):
        if played.shape != (player.n_states,):
            raise FsmarenaError(f"the domain marks {played.size} states, the machine has {player.n_states}")
        played[0] = True
        next_state = player.next_state[0].copy()
        own = np.broadcast_to(np.arange(player.n_states)[:, None], next_state.shape)
        unused = ~played[next_state]
        next_state[unused] = own[unused]
        return TableFSM(next_state, player.action[0], player.inputs, label=player.label)
    if isinstance(player, BinaryDecisionAutomaton):
        if played.shape != (player.n_states,):
            raise FsmarenaError(f"the domain marks {played.size} states, the machine has {player.n_states}")
        played[0] = True
        genes = player.genes[0].copy()
        own = np.arange(len(genes))
        for column in (TRUE_NEXT, FALSE_NEXT):
            unused = ~played[genes[:, column]]
            genes[unused, column] = own[unused]
        return BinaryDecisionAutomaton(genes, player.max_tests, label=player.label, names=player.names)
    raise FsmarenaError(f"only table-fsm and bda players can be minimised, not '{player.kind}'")


# ---- shared: reachability, refinement, canonical numbering ------------------------------------


def _reachable(successors: list[list[int]], start: int = 0) -> list[int]:
    """States reachable from ``start``, breadth first, successors in their listed order."""
    order, seen = [start], {start}
    for state in order:
        for target in successors[state]:
            if target not in seen:
                seen.add(target)
                order.append(target)
    return order


def _refine(signature: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """Coarsest partition of the rows of ``signature`` (``(S, k)`` ints) such that states in
    one block have equal signatures and move (``moves``: ``(S, m)`` successor states) to equal
    blocks; returns the block number of each state."""
    _, block = np.unique(signature, axis=0, return_inverse=True)
    block = block.reshape(-1)
    while True:
        key = np.concatenate([block[:, None], block[moves]], axis=1)
        _, refined = np.unique(key, axis=0, return_inverse=True)
        refined = refined.reshape(-1)
        if refined.max() == block.max():
            return refined
        block = refined


def _quotient(successors: np.ndarray, signature: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Reachable states merged by refinement and numbered breadth first.

    ``successors`` (``(S, m)``) are the moves that matter, in canonical order, ``signature``
    (``(S, k)``) what a state must share with another to be merged.  Returns the new number of
    every original state (-1: unreachable) and a representative original state per new state.
    """
    order = _reachable(successors.tolist())
    position = np.full(len(successors), -1, dtype=np.int64)
    position[order] = np.arange(len(order))
    block = _refine(signature[order], position[successors[order]])
    first: dict[int, int] = {}  # block -> its first state in breadth-first order
    for state, b in zip(order, block.tolist()):
        first.setdefault(b, state)
    moves = [[int(block[position[t]]) for t in successors[first[b]]] for b in range(len(first))]
    renumber = np.empty(len(first), dtype=np.int64)
    renumber[_reachable(moves, int(block[0]))] = np.arange(len(first))
    state_of = np.full(len(successors), -1, dtype=np.int64)
    state_of[order] = renumber[block]
    representatives = np.empty(len(first), dtype=np.int64)
    representatives[renumber[list(first)]] = list(first.values())
    return state_of, representatives


# ---- table FSMs -------------------------------------------------------------------------------


def _minimise_fsm(fsm: TableFSM, inputs: np.ndarray | None) -> Minimal:
    n_states, n_inputs = fsm.n_states, fsm.n_inputs
    used = np.ones(n_inputs, dtype=bool) if inputs is None else np.asarray(inputs, dtype=bool)
    if used.shape != (n_inputs,):
        raise FsmarenaError(f"the input domain has {used.size} inputs, the machine {n_inputs}")
    kept = np.flatnonzero(used)
    next_state, action = fsm.next_state[0], fsm.action[0]
    if not len(kept):  # no decision is ever taken: a one-state machine
        state_of = np.full(n_states, -1, dtype=np.int64)
        state_of[0] = 0
        zeros = np.zeros((1, n_inputs), dtype=np.int64)
        return Minimal(TableFSM(zeros, zeros, fsm.inputs, label=fsm.label), state_of, kept)
    state_of, reps = _quotient(next_state[:, kept], action[:, kept])
    new_next = np.repeat(np.arange(len(reps))[:, None], n_inputs, axis=1)
    new_action = np.zeros((len(reps), n_inputs), dtype=np.int64)
    new_next[:, kept] = state_of[next_state[reps][:, kept]]
    new_action[:, kept] = action[reps][:, kept]
    return Minimal(TableFSM(new_next, new_action, fsm.inputs, label=fsm.label), state_of, kept)


# ---- binary decision automata -----------------------------------------------------------------


def _branches(genes: np.ndarray, features: tuple[np.ndarray, ...] | None) -> tuple[np.ndarray, np.ndarray]:
    """Per state: can its test hold, can it fail, over the domain?"""
    test, theta = genes[:, TEST], genes[:, THETA].astype(float)
    if features is None:  # features anywhere in [0, 1]: only the two empty tests never hold
        can_hold = ~(((test == GREATER) & (theta >= THETA_STEPS)) | ((test == LESS) & (theta <= 0)))
        return can_hold, np.ones(len(genes), dtype=bool)
    lo = np.where(test == GREATER, theta, np.where(test == LESS, -np.inf, theta - NEAR_WIDTH))
    hi = np.where(test == GREATER, np.inf, np.where(test == LESS, theta, theta + NEAR_WIDTH))
    can_hold = np.zeros(len(genes), dtype=bool)
    can_fail = np.zeros(len(genes), dtype=bool)
    for state, row in enumerate(genes):
        values = np.asarray(features[row[FEATURE]], dtype=float)
        holds = (lo[state] < values) & (values < hi[state])
        can_hold[state], can_fail[state] = holds.any(), (~holds).any()
    return can_hold, can_fail


def _minimise_bda(bda: BinaryDecisionAutomaton, features: tuple[np.ndarray, ...] | None) -> Minimal:
    genes = bda.genes[0].copy()
    can_hold, can_fail = _branches(genes, features)
    own = np.arange(len(genes))
    never = ~can_hold  # a test that never holds: canonical "1000 x > 1000", true branch unused
    genes[never, FEATURE], genes[never, TEST], genes[never, THETA] = 0, GREATER, THETA_STEPS
    genes[never, TRUE_ACTION], genes[never, TRUE_NEXT] = 0, own[never]
    always = ~can_fail  # a test that always holds: its false branch is unused
    genes[always, FALSE_ACTION], genes[always, FALSE_NEXT] = 0, own[always]
    successors = genes[:, [TRUE_NEXT, FALSE_NEXT]]
    signature = genes[:, [FEATURE, TEST, THETA, TRUE_ACTION, FALSE_ACTION]]
    state_of, reps = _quotient(successors, signature)
    new = genes[reps].copy()
    new[:, TRUE_NEXT] = state_of[genes[reps, TRUE_NEXT]]
    new[:, FALSE_NEXT] = state_of[genes[reps, FALSE_NEXT]]
    minimal = BinaryDecisionAutomaton(new, bda.max_tests, label=bda.label, names=bda.names)
    return Minimal(minimal, state_of, None)


def reachable_states(player: Player) -> list[int]:
    """The states of a single table FSM or BDA reachable from state 0 along any entry or
    branch, whatever the inputs (breadth first)."""
    if isinstance(player, TableFSM):
        return _reachable(player.next_state[0].tolist())
    if isinstance(player, BinaryDecisionAutomaton):
        return _reachable(player.genes[0][:, [TRUE_NEXT, FALSE_NEXT]].tolist())
    raise FsmarenaError(f"only table-fsm and bda players have states, not '{player.kind}'")
