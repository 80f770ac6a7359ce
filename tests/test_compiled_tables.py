"""The compiled players' tables as small integers (:func:`fsmarena.games.compiled_players.table_dtype`).

Table policies' and table FSMs' tables are packed apart from the members' other integers, in
the smallest integer type that holds the game's actions (and an FSM's states).  What is
checked here, beyond the driver's contract suite (tests/contract/test_driver.py, which plays
every game's compiled players against the same players asked in Python):

* the type: its boundaries, and every game's compiled tables in it, entry for entry equal to
  the players' own tables;
* a wider table (an FSM with more states than int8 holds) plays the same games as asked in
  Python, alone and beside an int8 seat in one program (the arrays then widen together);
* a batch where every seat decides in Python carries tables of the type the game's compiled
  players have, so the driver's loops are compiled once per game, not once per type.
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_helpers import KERNEL_GAMES, game_of

from fsmarena.errors import FsmarenaError
from fsmarena.evo.table_fsm import FSMSpec, TableFSM
from fsmarena.games.arena import Seat, compile_seats, play_games
from fsmarena.games.compiled_players import FSM, TABLE, compile_player, compile_stack, table_dtype
from fsmarena.games.driver import python_program
from fsmarena.games.players import TablePolicy

IDS = [e.name for e in KERNEL_GAMES]


def test_the_table_type_is_the_smallest_that_holds_every_value():
    assert table_dtype(1) is np.int8 and table_dtype(128) is np.int8
    assert table_dtype(129) is np.int16 and table_dtype(32_768) is np.int16
    assert table_dtype(32_769) is np.int32 and table_dtype(2**31) is np.int32
    assert table_dtype(2**31 + 1) is np.int64


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=IDS)
def test_tables_are_packed_in_the_games_small_type_entry_for_entry(entry):
    game = game_of(entry)
    rng = np.random.default_rng(4)
    policy = TablePolicy(rng.integers(0, game.n_actions, game.n_states))
    packed = compile_player(policy, game)
    assert packed.tables.dtype == table_dtype(game.n_actions) == np.int8  # every game has < 128 actions
    assert packed.ints[packed.int_start[0]] == TABLE
    at = packed.table_start[0]
    assert np.array_equal(packed.tables[at : at + game.n_states], policy.table[0])
    spec = _fsm_spec(game, 3)
    machines = spec.player(spec.random(rng, 2))
    stack = compile_stack(machines, game)
    for member in range(2):
        assert stack.ints[stack.int_start[member]] == FSM
        at, cells = stack.table_start[member], 3 * machines.n_inputs
        assert np.array_equal(stack.tables[at : at + cells], machines.next_state[member].reshape(-1))
        assert np.array_equal(stack.tables[at + cells : at + 2 * cells], machines.action[member].reshape(-1))


def _fsm_spec(game, states):
    """Table FSMs over the game's encodings, or its index when it has none (or they do not fit)."""
    for inputs in ("+".join(game.encodings), "index"):
        try:
            return FSMSpec(game, states, inputs)
        except FsmarenaError:
            continue
    raise AssertionError("no FSM inputs fit")


def _many_states_fsm(game, rng, states=200):
    """A table FSM whose next states need int16."""
    spec = _fsm_spec(game, 1)
    n_inputs = spec.player(spec.random(rng, 1)).n_inputs
    return TableFSM(
        rng.integers(0, states, (states, n_inputs)), rng.integers(0, game.n_actions, (states, n_inputs)), spec.inputs
    )


@pytest.mark.parametrize("entry", KERNEL_GAMES[:2], ids=IDS[:2])
def test_a_wider_table_plays_as_in_python_alone_and_beside_a_small_one(entry):
    game = game_of(entry)
    rng = np.random.default_rng(12)
    wide = _many_states_fsm(game, rng)
    assert compile_player(wide, game).tables.dtype == np.int16
    small = [TablePolicy(rng.integers(0, game.n_actions, game.n_states)) for _ in range(game.n_seats)]
    lineups = [[wide] * game.n_seats, [wide, *small[1:]]]
    for lineup in lineups:
        program, python = compile_seats(game, [Seat(player) for player in lineup], 5, np.random.default_rng(0))
        assert python == [None] * game.n_seats and program.tables.dtype == np.int16
        compiled = play_games(game, lineup, 400, np.random.default_rng(2))
        asked = play_games(game, lineup, 400, np.random.default_rng(2), compiled=False)
        assert np.array_equal(compiled.scores, asked.scores)
        assert np.array_equal(compiled.rewards, asked.rewards)
    narrow = TableFSM(wide.next_state[0] % 2, wide.action[0], wide.inputs)  # same actions, 2 states
    differs = play_games(game, [narrow] * game.n_seats, 400, np.random.default_rng(2))
    assert not np.array_equal(differs.scores, play_games(game, lineups[0], 400, np.random.default_rng(2)).scores)


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=IDS)
def test_a_batch_asked_in_python_has_the_tables_of_compiled_players(entry):
    game = game_of(entry)
    policy = TablePolicy(np.zeros(game.n_states, dtype=np.int64))
    program, _ = compile_seats(game, [Seat(policy)] * game.n_seats, 3, np.random.default_rng(0))
    assert python_program(game.n_seats, game.n_actions).tables.dtype == program.tables.dtype
