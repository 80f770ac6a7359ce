"""Players as flat arrays, for the compiled loops: the driver's seats that decide without Python
and the sequential learners' opponents.

:func:`compile_player` turns a :class:`fsmarena.games.players.Player` into a :class:`CompiledPlayer`:
one or more *members* (a pool of champions: one member drawn per game and seat) packed
into three arrays: ``ints`` (int64: each member's kind and settings), ``floats`` (float64)
and ``tables`` (the members' big tables as small integers, :func:`table_dtype`:
int8 for every game today, so a Vautour table policy reads 0.5 MB instead of 4 MB at
random places), with the start of every member in ``int_start`` / ``float_start`` /
``table_start``.  A member plays exactly like the batched player does; the driver's loop
(:func:`fsmarena.games.row_loops.advance_rows`) chooses by kind itself, the sequential training
loop through the interpreter :func:`make_opponent_act` (both compiled per game kernel and cached on
disk; the table FSM's and BDA's moves are :func:`fsm_action` and :func:`bda_action`, compiled
into both):

===========  ===========================================  ===================================
kind         ints (from the member's start)               tables (from the member's start)
===========  ===========================================  ===================================
RANDOM       ``[RANDOM]``: a uniformly random legal
             action (a uniform float x legal count)
FIXED        ``[FIXED, action]``
BUILTIN      ``[BUILTIN, code]``: the kernel's
             ``builtin_action`` number ``code``;
             floats: its arguments
TABLE        ``[TABLE, n_states]``                        ``action per state``
SELF         ``[SELF]``: the learner's frozen greedy
             table (self-play snapshot)
FSM          ``[FSM, S, I, parts, (part, size) per        ``next_state S*I, action S*I``
             part]``; part -1 is the observation index,
             ``w >= 0`` the kernel's encoding ``w``
BDA          ``[BDA, S, max_tests, feature S, true
             action S, true next S, false action S,
             false next S]``; floats ``[lo S, hi S]``
             (the open interval each test checks)
===========  ===========================================  ===================================

Finite-state members keep one integer of memory per seat (their current state, 0 at the
start of every game).  An illegal action falls back to the first legal one, as
:func:`fsmarena.games.players.legal_or_first` does.  Anything else (an agent with a neural network, a
builtin with no kernel code) is a FsmarenaError naming the player and why.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.builtin_player import BuiltinPlayer
from fsmarena.games.draws import uniform_float
from fsmarena.games.kernel_calls import (
    k_builtin_action,
    k_encoding,
    k_features,
    k_is_legal,
    k_legal,
    k_observe_index,
)
from fsmarena.games.players import FixedActionPlayer, GroupedStack, Mixture, Player, RandomPlayer, TablePolicy
from fsmarena.jit import njit
from fsmarena.specialise import built_per_kernel, specialise

RANDOM, FIXED, BUILTIN, TABLE, SELF, FSM, BDA = range(7)


def table_dtype(n_values: int) -> type[np.signedinteger]:
    """The integer type of the compiled players' tables holding the numbers ``0 .. n_values - 1``
    (a game's actions, a table FSM's states): the smallest of int8, int16, int32 and int64.
    A table is read at random places, one entry per decision: Vautour's table policy is 0.5 MB
    in int8 and 4 MB in int64, which no longer fits the cache (a decision 1.5 times slower)."""
    for dtype in (np.int8, np.int16, np.int32):
        if n_values - 1 <= np.iinfo(dtype).max:
            return dtype
    return np.int64


@dataclass(frozen=True)
class CompiledPlayer:
    """A player (or pool of players) as arrays for :func:`make_opponent_act` (module doc)."""

    label: str
    ints: np.ndarray
    floats: np.ndarray
    tables: np.ndarray
    int_start: np.ndarray
    float_start: np.ndarray
    table_start: np.ndarray

    @property
    def n_members(self) -> int:
        return len(self.int_start)

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``ints``, ``floats`` and ``tables``."""
        return self.ints, self.floats, self.tables

    @property
    def starts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where each member starts in ``ints``, ``floats`` and ``tables``."""
        return self.int_start, self.float_start, self.table_start


#: one member's arrays: its ints, floats and table (:class:`CompiledPlayer`)
Member = tuple[list[int] | np.ndarray, list[float] | np.ndarray, np.ndarray]

#: the table of a member without one
NO_TABLE = np.zeros(0, dtype=np.int64)


class CompilesItself(ABC):
    """A declared capability of a player kind defined above the games layer (table FSMs and BDAs,
    :mod:`fsmarena.evo`): it packs itself as one member of the format above, and a stack of it
    splits into its members."""

    @abstractmethod
    def compiled(self, game: Any) -> Member:
        """This single player's ``(ints, floats, table)`` for ``game`` (FsmarenaError when it does not fit)."""

    @abstractmethod
    def split(self) -> list[Player]:
        """The members of this stack as single players, in member order."""

    def compiled_members(self, game: Any) -> list[Member]:
        """Every member's ``(ints, floats, table)``, in member order: what :meth:`compiled`
        gives for each member of :meth:`split`.  A kind may pack its stack at once instead
        (evolution packs its population every generation)."""
        return [member.compiled(game) for member in self.split()]  # type: ignore[attr-defined]


def self_play(game: Any) -> CompiledPlayer:
    """The self-play opponent: the learner's frozen greedy table."""
    return _pack("self (frozen)", [([SELF], [], NO_TABLE)], game)


def compile_player(player: Player, game: Any) -> CompiledPlayer:
    """``player`` as arrays; a :class:`fsmarena.games.players.Mixture` (one member drawn per game)
    becomes a pool of its members."""
    members = player.players if isinstance(player, Mixture) else [player]
    return _pack(player.label, [_member(member, game) for member in members], game)


def compile_stack(player: Player, game: Any) -> CompiledPlayer:
    """A stack's members as a pool, member ``i`` of the stack at position ``i``: a seat with a
    member per game (evolution's populations, cross-play's stacks) indexes it by its members.
    A single player is a stack of one."""
    if isinstance(player, CompilesItself):
        return _pack(player.label, player.compiled_members(game), game)
    return _pack(player.label, [_member(member, game) for member in stack_members(player)], game)


def stack_members(player: Player) -> list[Player]:
    """The members of a stack as single players, in member order: the rows of a stacked table
    policy, table FSM or BDA, or the players behind a :class:`fsmarena.games.players.GroupedStack`
    (FsmarenaError for a stack of another kind)."""
    if isinstance(player, GroupedStack):
        groups = [stack_members(group) for group in player.groups]
        pairs = list(zip(player.group_of.tolist(), player.local.tolist()))
        if any(local >= len(groups[g]) for g, local in pairs):  # a stacked kind this module cannot split
            raise FsmarenaError(f"player '{player.label}' stacks players whose members do not compile")
        return [groups[g][local] for g, local in pairs]
    if getattr(player, "n_members", 1) == 1:
        return [player]
    if type(player) is TablePolicy:
        return [TablePolicy(table, player.label) for table in player.table]
    if isinstance(player, CompilesItself):
        return player.split()
    raise FsmarenaError(f"player '{player.label}' is a stack of {player.kind} players, which do not compile")


def _pack(label: str, members: list[Member], game: Any) -> CompiledPlayer:
    """The members' arrays end to end.  The tables take the game's small integer type
    (:func:`table_dtype`), or a wider one when a member's table holds larger
    numbers (a table FSM of more than 127 states): any type plays the same games."""
    ints = [np.asarray(i, dtype=np.int64) for i, _, _ in members]
    floats = [np.asarray(f, dtype=np.float64) for _, f, _ in members]
    tables = [table for _, _, table in members]
    largest = max([game.n_actions - 1] + [int(table.max()) for table in tables if len(table)])
    dtype = table_dtype(largest + 1)
    return CompiledPlayer(
        label,
        np.concatenate(ints),
        np.concatenate(floats + [np.zeros(1)]),
        np.concatenate([table.astype(dtype) for table in tables] + [np.zeros(1, dtype)]),
        _starts(ints),
        _starts(floats),
        _starts(tables),
    )


def _starts(parts: list[np.ndarray]) -> np.ndarray:
    """Where each of ``parts`` starts when they are put end to end."""
    return np.cumsum([0] + [len(part) for part in parts[:-1]]).astype(np.int64)


def _member(player: Player, game: Any) -> Member:
    """One player's arrays (FsmarenaError naming it when it cannot be compiled).  A table is
    packed as an array, not a list: a list of Vautour's 491,000 entries cost 29 ms a seat."""
    if getattr(player, "n_members", 1) != 1:
        raise FsmarenaError(
            f"player '{player.label}' is a stack of {player.n_members} players: "
            "give them as a mixture to train against them as a pool"
        )
    if type(player) is RandomPlayer:
        return [RANDOM], [], NO_TABLE
    if type(player) is FixedActionPlayer:
        if not 0 <= player.action < game.n_actions:  # compiled code steps with it unchecked
            raise FsmarenaError(
                f"fixed-action player '{player.label}' plays action {player.action}: {game.name} has 0 to {game.n_actions - 1}"
            )
        return [FIXED, player.action], [], NO_TABLE
    if type(player) is TablePolicy:
        table = player.table[0]
        if len(table) != game.n_states or table.min(initial=0) < 0 or table.max(initial=0) >= game.n_actions:
            raise FsmarenaError(f"table policy '{player.label}' does not fit {game.name}")
        return [TABLE, len(table)], [], table
    if isinstance(player, CompilesItself):
        return player.compiled(game)
    if type(player) is BuiltinPlayer:
        code, args = player.resolve(game)
        return [BUILTIN, code], args.tolist(), NO_TABLE
    raise FsmarenaError(
        f"player '{player.label}' ({player.kind}) cannot be compiled for sequential training: "
        "only random, fixed-action, table-policy, table-fsm, bda, mixtures of them and the "
        "game kernel's builtins can (use --batch K to train against it with the batched "
        "algorithm)"
    )


@njit
def random_legal(mask: np.ndarray) -> int:
    """A uniformly random legal action (one :func:`fsmarena.games.draws.uniform_float` draw)."""
    count = 0
    for a in range(len(mask)):
        count += mask[a]
    pick = int(uniform_float() * count)
    for a in range(len(mask)):
        if mask[a]:
            if pick == 0:
                return a
            pick -= 1
    return 0


@njit(inline="always")
def legal_or_first_legal(mask: np.ndarray, action: int) -> int:
    """``action`` if ``mask`` allows it, else the first legal action: the compiled seats' rule,
    as :func:`fsmarena.games.players.legal_or_first` is the batched players'."""
    if mask[action]:
        return action
    for a in range(len(mask)):
        if mask[a]:
            return a
    return action


def make_opponent_act(kernel: ModuleType) -> Callable[..., int]:
    """The compiled interpreter of :class:`CompiledPlayer` members for ``kernel``'s game:
    ``act(p, s, seat, ints, floats, tables, at, fat, tat, memory, mask, feats, frozen) -> action``
    plays the member whose arrays start at ``ints[at]``, ``floats[fat]`` and ``tables[tat]``;
    ``memory[seat]`` is the member's finite-state memory for this game (:func:`opponent_act`
    specialised for ``kernel``, cached on disk, and compiled into its callers: called, its thirteen
    arguments cost 5 to 9% of a training game's time on divide-the-dollar)."""
    return specialise(opponent_act, kernel, inline=True)


def make_fsm_action(kernel: ModuleType) -> Callable[..., int]:
    """:func:`fsm_action` for ``kernel``, compiled into its callers."""
    return specialise(fsm_action, kernel, inline=True)


def make_bda_action(kernel: ModuleType) -> Callable[..., int]:
    """:func:`bda_action` for ``kernel``, compiled into its callers."""
    return specialise(bda_action, kernel, inline=True)


# A member of each kind is played by one small function (a template, compiled into its callers
# with ``inline="always"``) taking only the arrays it reads: every array argument of a compiled
# call costs reference counting at every decision, and the interpreter's thirteen made a table
# FSM's decision about twice as slow as the kind's own few lines.  The driver's loop
# (:func:`fsmarena.games.row_loops.advance_rows`) calls them directly; the training loop through
# :func:`opponent_act`.
k_fsm_action = built_per_kernel(make_fsm_action)
k_bda_action = built_per_kernel(make_bda_action)


def fsm_action(p, s, seat, ints, tables, at, tat, memory):
    """A table FSM's move (module doc): the input is the mixed-radix code of its parts (the
    observation index, or the kernel's encodings), the table gives the next state and the action."""
    n_inputs = ints[at + 2]
    code = 0
    for part in range(ints[at + 3]):
        which = ints[at + 4 + 2 * part]
        value = k_observe_index(p, s, seat) if which < 0 else k_encoding(p, s, seat, which)
        code = code * ints[at + 5 + 2 * part] + value
    flat = tat + memory[seat] * n_inputs + code
    memory[seat] = tables[flat]
    return np.int64(tables[flat + ints[at + 1] * n_inputs])


def bda_action(p, s, seat, ints, floats, at, fat, memory, feats):
    """A binary decision automaton's move (module doc): from its current state, up to
    ``max_tests`` tests of one feature each (value x 1000 inside the state's open interval); the
    first that holds, or the last test, gives the action and the next state."""
    S = ints[at + 1]
    max_tests = ints[at + 2]
    genes = at + 3
    k_features(p, s, seat, feats)
    state = memory[seat]
    action = np.int64(0)
    for test in range(max_tests):
        x = feats[ints[genes + state]] * 1000.0
        if floats[fat + state] < x and x < floats[fat + S + state]:
            action = ints[genes + S + state]
            memory[seat] = ints[genes + 2 * S + state]
            break
        if test == max_tests - 1:
            action = ints[genes + 3 * S + state]
            memory[seat] = ints[genes + 4 * S + state]
            break
        state = ints[genes + 4 * S + state]
    return action


def opponent_act(p, s, seat, ints, floats, tables, at, fat, tat, memory, mask, feats, frozen):
    """The interpreter's template (:func:`make_opponent_act`; module doc): the member starting
    at ``at`` / ``fat`` / ``tat`` decides for ``seat``; an illegal choice becomes the first legal action."""
    kind = ints[at]
    action = np.int64(0)
    if kind == FIXED:
        action = ints[at + 1]
    elif kind == BUILTIN:
        action = k_builtin_action(p, s, seat, ints[at + 1], floats[fat:])
    elif kind == TABLE or kind == SELF:
        index = k_observe_index(p, s, seat)  # one call site: each is compiled into the loop
        action = np.int64(tables[tat + index]) if kind == TABLE else frozen[index]
    elif kind == FSM:
        action = k_fsm_action(p, s, seat, ints, tables, at, tat, memory)
    elif kind == BDA:
        action = k_bda_action(p, s, seat, ints, floats, at, fat, memory, feats)
    # the game's own rule asks no mask (kernel.is_legal); one call site of each
    if kind != RANDOM and k_is_legal(p, s, seat, action, mask):
        return action
    k_legal(p, s, seat, mask)
    return random_legal(mask) if kind == RANDOM else legal_or_first_legal(mask, action)
