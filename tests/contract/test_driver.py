"""The generic batched driver (:mod:`fsmarena.games.driver`) against the kernel's single games and the
plain-Python references, for every game with a kernel (a new game inherits these tests by
registering a kernel).

* exact: on the same scripted deals and the same scripted picks, the driver's batched games are
  the kernel's single games (every declared part present with its kind; index, features, mask
  and encodings equal at every decision), and the game's reference replaying them
  (:mod:`reference_replay`) ends with the same rewards and scores;
* two implementations of the players: the compiled loop (table policies, table FSMs, BDAs)
  decides exactly as the same players asked in Python with batched observations;
* seed equality: same generator, same outcomes, however the batch is cut into compiled calls;
* statistics: builtin pairs win as often on two independent seeds (99% intervals);
* invariants (Hypothesis): legal masks, observation ranges, reward rules, simultaneous seats
  that cannot see each other's pending answers;
* bad input: wrong deals, wrong or illegal actions are one FsmarenaError each.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import (
    CONFIG_CASES,
    CONFIG_IDS,
    KERNEL_GAMES,
    configs_of,
    game_of,
    kernel_of,
    logging_decide,
    parts_decide,
)
from reference_replay import has_reference, kernel_game, reference_agrees

from fsmarena.errors import FsmarenaError
from fsmarena.evo.bda import BDASpec
from fsmarena.evo.table_fsm import FSMSpec
from fsmarena.games import arena, compiled_players, row_loops
from fsmarena.games.arena import Seat, compile_seats, play_games
from fsmarena.games.capabilities import SimultaneousMoves
from fsmarena.games.driver import Driver, Program
from fsmarena.games.kernel import PART_KINDS, params_of
from fsmarena.games.players import GroupedStack, Mixture, Player, RandomPlayer, TablePolicy

IDS = [e.name for e in KERNEL_GAMES]


def _kernel_deals(game, module, seed, n):
    driver = Driver(game)
    return driver.deals(n, np.random.default_rng(seed))


@pytest.mark.parametrize("case", CONFIG_CASES, ids=CONFIG_IDS)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_driver_plays_the_reference_rules_on_scripted_deals(case, seed):
    """The driver's batched games, decision by decision, are the kernel's single games (every
    part of every observation present, index, features, mask and encodings equal), and the
    plain-Python reference replaying them agrees decision by decision (the parts it defines
    too, as the driver showed them) and ends with the same rewards and scores."""
    entry, number = case
    module = kernel_of(entry)
    game = game_of(entry, configs_of(entry)[number])
    n = 10
    deals = _kernel_deals(game, module, seed, n)
    picks = np.random.default_rng(seed).integers(0, 720, size=(n, game.n_seats, 4096))
    driver_log: dict = {}
    driven = Driver(game).play(n, np.random.default_rng(0), parts_decide(game, module, n, picks, driver_log), deals)
    p = params_of(game)
    kinds = {part.name: np.dtype(PART_KINDS[part.kind]).kind for part in Driver(game).layout.parts}
    for g in range(n):
        log, rewards, scores = kernel_game(module, p, deals[g], g, picks)
        for seat, decisions in log.items():
            assert driver_log[(g, seat)] == decisions, (g, seat)
            shown = driver_log[(g, seat, "parts")]
            assert len(shown) == len(decisions)
            for row in shown:  # every part the kernel declares, of its declared kind
                assert {name: row[name][0] for name in kinds} == kinds, (g, seat)
        assert {key[1] for key in driver_log if key[0] == g and len(key) == 2} == set(log)
        assert np.array_equal(driven.rewards[g], rewards)
        assert np.allclose(driven.scores[g], scores, rtol=0, atol=1e-12)
        if has_reference(game):
            parts = {seat: driver_log[(g, seat, "parts")] for seat in log}
            reference_agrees(game, deals[g], log, rewards, scores, g, parts)


def _deterministic_players(game, rng):
    """Per seat: a table policy (random entries, illegal ones included), a table FSM over every
    input the game has, and a BDA where the game has features."""
    fsm = _fsm_spec(game)
    lineups = [
        [TablePolicy(rng.integers(0, game.n_actions, game.n_states)) for _ in range(game.n_seats)],
        [fsm.player(fsm.random(rng, 1)) for _ in range(game.n_seats)],
    ]
    if game.feature_names:
        bda = BDASpec(game, 4)
        lineups.append([bda.player(bda.random(rng, 1)) for _ in range(game.n_seats)])
    mixed = [lineups[s % len(lineups)][s] for s in range(game.n_seats)]
    return lineups + [mixed]


def _fsm_spec(game):
    """Table FSMs over the index and every encoding, or the largest of them that fits."""
    for inputs in ("+".join(["index", *game.encodings]), "+".join(game.encodings), "index"):
        try:
            return FSMSpec(game, 3, inputs)
        except FsmarenaError:
            continue
    raise AssertionError("no FSM inputs fit")


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=IDS)
def test_the_compiled_loop_decides_as_the_players_in_python(entry):
    """The same deterministic players, compiled (one compiled loop) and asked in Python with
    batched observations: identical games, hence identical outcomes."""
    game = game_of(entry)
    for lineup in _deterministic_players(game, np.random.default_rng(7)):
        compiled = play_games(game, lineup, 300, np.random.default_rng(11))
        python = play_games(game, lineup, 300, np.random.default_rng(11), compiled=False)
        assert np.array_equal(compiled.rewards, python.rewards), [p.label for p in lineup]
        assert np.array_equal(compiled.scores, python.scores)
        # and a mixed batch: the first seat in Python, the others compiled
        first_python = play_games(game, [_PythonOnly(lineup[0]), *lineup[1:]], 300, np.random.default_rng(11))
        assert np.array_equal(first_python.scores, python.scores)


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=IDS)
def test_a_program_of_one_row_plays_as_one_written_out_per_game(entry, monkeypatch):
    """Seats whose member is the same in every game compile to a program of one row, which
    holds for every game: the same games as that program written out row by row, on the
    compiled path and on the Python path across several blocks (a Python seat beside compiled
    ones)."""
    game = game_of(entry)
    n = 150
    lineup = _deterministic_players(game, np.random.default_rng(7))[-1]
    program, _ = compile_seats(game, [Seat(player) for player in lineup], n, np.random.default_rng(0))
    assert program.start.shape == program.fstart.shape == program.tstart.shape == (1, game.n_seats)
    assert program.rows(64, 128).tstart.shape == (1, game.n_seats)  # a block's program: the same row
    monkeypatch.setattr(Driver, "block_rows", 64)  # three blocks on the Python path

    def outcomes() -> list:
        mixed = [_PythonOnly(lineup[0]), *lineup[1:]]
        return [play_games(game, seats, n, np.random.default_rng(3)) for seats in (lineup, mixed)]

    one_row = outcomes()
    monkeypatch.setattr(arena, "compile_seats", _written_out(arena.compile_seats))
    per_game = outcomes()
    for short, long in zip(one_row, per_game):
        assert np.array_equal(short.scores, long.scores)
        assert np.array_equal(short.rewards, long.rewards)
    assert np.array_equal(one_row[0].scores, one_row[1].scores)  # and Python asks as compiled plays


def _written_out(compile_seats):
    """``compile_seats`` whose programs have a row per game, every row the one row it made."""

    def written_out(game, seats, n, rng):
        program, python = compile_seats(game, seats, n, rng)
        assert len(program.start) == 1
        rows = [np.repeat(a, n, axis=0) for a in (program.start, program.fstart, program.tstart)]
        return Program(program.ints, program.floats, program.tables, *rows), python

    return written_out


@pytest.mark.parametrize("entry", KERNEL_GAMES[:2], ids=IDS[:2])
def test_a_mixture_draws_its_members_as_in_python(entry):
    """A pool (a mixture of table policies) compiled draws each game's member from the
    generator where the batched mixture does: the same games as asked in Python."""
    game = game_of(entry)
    rng = np.random.default_rng(5)
    pool = Mixture([TablePolicy(rng.integers(0, game.n_actions, game.n_states)) for _ in range(3)])
    lineup = [pool, *[TablePolicy(rng.integers(0, game.n_actions, game.n_states)) for _ in range(game.n_seats - 1)]]
    _, python_seats = compile_seats(game, [Seat(player) for player in lineup], 4, np.random.default_rng(0))
    assert python_seats == [None] * game.n_seats  # the pool compiles
    compiled = play_games(game, lineup, 200, np.random.default_rng(8))
    python = play_games(game, lineup, 200, np.random.default_rng(8), compiled=False)
    assert np.array_equal(compiled.scores, python.scores)
    single = play_games(game, [pool.players[0], *lineup[1:]], 200, np.random.default_rng(8))
    assert not np.array_equal(single.scores, compiled.scores)  # the members do differ


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=IDS)
def test_stacks_with_a_member_per_game_compile_and_play_as_in_python(entry):
    """Evolution's and cross-play's seats (a stack, one member per game) compile once as a pool
    indexed by the members: the same games as the stack asked in Python, member by member."""
    game = game_of(entry)
    rng = np.random.default_rng(21)
    fsm = _fsm_spec(game)
    stacks = [fsm.player(fsm.random(rng, 4)), TablePolicy(rng.integers(0, game.n_actions, (3, game.n_states)))]
    if game.feature_names:
        bda = BDASpec(game, 4)
        stacks.append(bda.player(bda.random(rng, 3)))
    singles = [TablePolicy(rng.integers(0, game.n_actions, game.n_states)), *_deterministic_players(game, rng)[1]]
    stacks.append(GroupedStack(singles))  # table policies and FSMs behind one seat
    n = 240
    members_differ = []
    for stack in stacks:
        members = rng.integers(0, stack.n_members, n)
        lineup = [Seat(stack, members), *[Seat(p) for p in _deterministic_players(game, rng)[0][1:]]]
        program, python_seats = compile_seats(game, lineup, n, np.random.default_rng(0))
        assert python_seats == [None] * game.n_seats, stack.label  # the stack compiles
        assert program.start.shape == (n, game.n_seats)  # a member per game
        compiled = play_games(game, lineup, n, np.random.default_rng(9))
        python = play_games(game, lineup, n, np.random.default_rng(9), compiled=False)
        assert np.array_equal(compiled.scores, python.scores), stack.label
        assert np.array_equal(compiled.rewards, python.rewards)
        first = play_games(game, [Seat(stack, np.zeros(n, np.int64)), *lineup[1:]], n, np.random.default_rng(9))
        members_differ.append(not np.array_equal(first.scores, compiled.scores))
    # the members do differ: in some stack (random machines may all tie against one opponent,
    # as the last stack's three do in the prisoner's dilemma)
    assert any(members_differ)


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=IDS)
def test_a_player_in_several_seats_is_packed_once(entry):
    """A population in every seat of a round robin is packed once and its arrays held once:
    the same games as distinct copies of it in each seat."""
    game = game_of(entry)
    if game.n_seats < 2:
        pytest.skip("one seat")
    rng = np.random.default_rng(31)
    fsm = _fsm_spec(game)
    population = fsm.player(fsm.random(rng, 5))
    n = 120
    members = [rng.integers(0, 5, n) for _ in range(game.n_seats)]
    shared = [Seat(population, m) for m in members]
    copies = [Seat(copy.deepcopy(population), m) for m in members]
    once, _ = compile_seats(game, shared, n, np.random.default_rng(0))
    each, _ = compile_seats(game, copies, n, np.random.default_rng(0))
    assert len(each.tables) == game.n_seats * len(once.tables)
    assert np.array_equal(
        play_games(game, shared, n, np.random.default_rng(2)).scores,
        play_games(game, copies, n, np.random.default_rng(2)).scores,
    )


def test_a_stack_that_cannot_compile_plays_in_python():
    """A member the compiler refuses, or members out of the stack's range, leave the seat in
    Python (where the player's own checks speak)."""
    game = game_of(KERNEL_GAMES[0])
    stack = GroupedStack([TablePolicy(np.zeros(game.n_states, np.int64)), _PythonOnly(RandomPlayer())])
    seats = [Seat(stack, np.array([0, 1, 0])), *[Seat(RandomPlayer()) for _ in range(game.n_seats - 1)]]
    assert compile_seats(game, seats, 3, np.random.default_rng(0))[1][0] is seats[0]
    policies = TablePolicy(np.zeros((2, game.n_states), np.int64))
    seats[0] = Seat(policies, np.array([0, 2, 1]))
    assert compile_seats(game, seats, 3, np.random.default_rng(0))[1][0] is seats[0]


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=IDS)
def test_the_trace_hands_every_decision_and_replays_the_games(entry):
    """The generic trace sees every batched decision (seat, rows, observation, actions) even
    of players that compile: answering the trace's actions back, call by call, on the same
    deals plays the same games, and the trace holds exactly what the players chose."""
    game = game_of(entry)
    n = 60
    deals = Driver(game).deals(n, np.random.default_rng(1))
    players = [
        TablePolicy(np.random.default_rng(s).integers(0, game.n_actions, game.n_states)) for s in range(game.n_seats)
    ]
    records: list = []

    def record(seat, rows, obs, actions):
        records.append((seat, rows.copy(), obs.index.copy(), actions.copy()))
        if game.decide_by is not None:  # one kind of decision per call, given as one number
            assert isinstance(getattr(obs, game.decide_by), int)

    outcome = play_games(game, players, n, np.random.default_rng(2), deals=deals, trace=record)
    assert sum(len(rows) for _, rows, _, _ in records) >= n  # every game decided at least once
    compiled = play_games(game, players, n, np.random.default_rng(2), deals=deals)
    assert np.array_equal(compiled.scores, outcome.scores)  # tracing changes no game
    pending = iter(records)

    def replay(seat, obs, rows):
        recorded_seat, recorded_rows, index, actions = next(pending)
        assert seat == recorded_seat and np.array_equal(np.arange(obs.n) if rows is None else rows, recorded_rows)
        assert np.array_equal(obs.index, index)
        assert np.array_equal(legal_actions(obs, actions), actions)  # the trace holds legal answers
        return actions

    again = game.play(n, np.random.default_rng(2), replay, deals=deals)
    assert next(pending, None) is None
    assert np.array_equal(again.scores, outcome.scores) and np.array_equal(again.rewards, outcome.rewards)


def legal_actions(obs, actions):
    """``actions`` where legal in ``obs``, else -1."""
    if obs.mask is None:
        return actions
    return np.where(obs.mask[np.arange(obs.n), actions], actions, -1)


class _PythonOnly(Player):
    """A player the compiler refuses (not one of its kinds) that plays like ``inner``."""

    kind = "python-only"

    def __init__(self, inner):
        super().__init__("python " + inner.label)
        self.inner = inner

    def begin(self, game, n, members, rng):
        return self.inner.begin(game, n, members, rng)

    def act(self, obs, memory, rows, rng):
        return self.inner.act(obs, memory, rows, rng)


def _builtin_lineups(game, module):
    """Builtin pairs the kernel plays: the first two non-random builtins around the table, and
    random against the first one."""
    names = list(module.BUILTINS)
    fixed = names[1:] or names
    factories = game.builtin_players()
    lineups = [[fixed[s % len(fixed)] for s in range(game.n_seats)]]
    lineups.append([("random" if s == 0 else fixed[0]) for s in range(game.n_seats)])
    return [[factories[name]() for name in lineup] for lineup in lineups]


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=IDS)
def test_same_seed_same_outcomes_whatever_the_chunking(entry):
    game = game_of(entry)
    lineup = [RandomPlayer() for _ in range(game.n_seats)]  # draws at every move, compiled or in Python
    base = play_games(game, lineup, 257, np.random.default_rng(3))
    for chunk in (1, 16, 100):
        again = play_games(game, lineup, 257, np.random.default_rng(3), chunk=chunk)
        assert np.array_equal(again.scores, base.scores)
    other = play_games(game, lineup, 257, np.random.default_rng(4))
    assert not np.array_equal(other.scores, base.scores)
    python = play_games(game, lineup, 257, np.random.default_rng(3), compiled=False)
    assert np.array_equal(play_games(game, lineup, 257, np.random.default_rng(3), compiled=False).scores, python.scores)


def _two_sample_ok(a: np.ndarray, b: np.ndarray, z: float = 2.576) -> bool:
    """Whether two samples' means agree within the 99% interval of their difference."""
    spread = np.sqrt(a.var() / len(a) + b.var() / len(b))
    return abs(a.mean() - b.mean()) <= z * max(spread, 1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=IDS)
def test_builtin_pairs_win_as_often_on_two_seeds(entry):
    game = game_of(entry)
    module = kernel_of(entry)
    n = 20_000
    for number, lineup in enumerate(_builtin_lineups(game, module)):
        first = play_games(game, lineup, n, np.random.default_rng(100 + number))
        second = play_games(game, lineup, n, np.random.default_rng(200 + number))
        labels = [p.label for p in lineup]
        if game.n_seats == 1:
            assert _two_sample_ok(first.scores[:, 0], second.scores[:, 0]), labels
            continue
        for seat in range(game.n_seats):
            wins_first = (first.rewards[:, seat] > 0).astype(float)
            wins_second = (second.rewards[:, seat] > 0).astype(float)
            assert _two_sample_ok(wins_first, wins_second), (labels, seat, wins_first.mean(), wins_second.mean())


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=IDS)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_observations_and_rewards_keep_the_contract(entry, seed):
    """Random legal play: every observation has a legal action and parts in range, and the
    rewards follow the ranking rule (one-player: the score)."""
    game = game_of(entry)
    rng = np.random.default_rng(seed)
    sizes = dict(game.encodings)

    def decide(seat, obs, rows):
        mask = obs.mask if obs.mask is not None else np.ones((obs.n, game.n_actions), dtype=bool)
        assert mask.shape == (obs.n, game.n_actions) and mask.any(axis=1).all()
        assert ((0 <= obs.index) & (obs.index < game.n_states)).all()
        for name, size in sizes.items():
            values = np.asarray(getattr(obs, name))
            assert ((0 <= values) & (values < size)).all(), name
        if game.feature_names:
            assert obs.features.shape == (obs.n, len(game.feature_names))
            assert np.isfinite(obs.features).all()
        pick = (rng.random(obs.n) * mask.sum(axis=1)).astype(np.int64)
        return np.argmax(np.cumsum(mask, axis=1) > pick[:, None], axis=1)

    outcome = Driver(game).play(40, rng, decide)
    rewards = outcome.rewards
    if game.n_seats == 1:
        assert np.array_equal(rewards, outcome.scores)
        return
    assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
    winners = (rewards == 1).sum(axis=1)
    sharers = (rewards == 0).sum(axis=1)
    assert ((winners == 1) & (sharers == 0) | (winners == 0) & (sharers >= 2)).all()


SIMULTANEOUS = [e for e in KERNEL_GAMES if isinstance(game_of(e), SimultaneousMoves)]


@pytest.mark.parametrize("entry", SIMULTANEOUS, ids=[e.name for e in SIMULTANEOUS])
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), turn=st.integers(0, 3))
def test_simultaneous_seats_do_not_see_a_pending_answer(entry, seed, turn):
    """Seat 0 answers differently at one turn: the other seats' observations of that turn
    are unchanged (every seat is asked before the turn is revealed)."""
    game = game_of(entry)
    module = kernel_of(entry)
    n = 6
    deals = _kernel_deals(game, module, seed, n)
    picks = np.random.default_rng(seed).integers(0, 720, size=(n, game.n_seats, 1024))  # decisions per seat
    changed = picks.copy()
    changed[:, 0, turn] += 1
    logs = []
    for table in (picks, changed):
        log: dict = {}
        Driver(game).play(n, np.random.default_rng(0), logging_decide(game, module, n, table, log), deals)
        logs.append(log)
    for g in range(n):
        for seat in range(1, game.n_seats):
            assert logs[0][(g, seat)][: turn + 1] == logs[1][(g, seat)][: turn + 1]


def test_the_driver_plays_the_interpreter_kinds_it_names():
    assert (row_loops.FIXED, row_loops.BUILTIN, row_loops.TABLE) == (
        compiled_players.FIXED,
        compiled_players.BUILTIN,
        compiled_players.TABLE,
    )


@pytest.mark.parametrize("entry", KERNEL_GAMES[:1], ids=IDS[:1])
def test_bad_input_is_one_clear_error(entry):
    game = game_of(entry)
    driver = Driver(game)
    rng = np.random.default_rng(0)
    with pytest.raises(FsmarenaError, match=r"scripted deals must be integers, one row per game \(3\)"):
        driver.play(3, rng, lambda seat, obs, rows: np.zeros(obs.n, dtype=np.int64), np.zeros((2, 1)))
    with pytest.raises(FsmarenaError, match=r"scripted deals must be integers of shape \(3, "):
        driver.play(3, rng, lambda seat, obs, rows: np.zeros(obs.n, dtype=np.int64), np.zeros((3, 1), dtype=int))
    with pytest.raises(FsmarenaError, match="non-negative integer"):
        driver.play(-1, rng, lambda seat, obs, rows: np.zeros(obs.n, dtype=np.int64))
    with pytest.raises(FsmarenaError, match=r"seat 0 gave .* actions for 3 games"):
        driver.play(3, rng, lambda seat, obs, rows: np.zeros(obs.n + 1, dtype=np.int64))
    with pytest.raises(FsmarenaError, match="seat 0 chose action 99, out of range"):
        driver.play(3, rng, lambda seat, obs, rows: np.full(obs.n, 99, dtype=np.int64))
    with pytest.raises(FsmarenaError, match="needs 2 players"):
        play_games(game, [game.builtin_players()["random"]()], 3, rng)


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=IDS)
def test_bench_times_compiled_seats_against_python_seats_for_every_game(entry):
    """``fsmarena bench`` has the compiled-vs-Python seat cases of every game with a kernel,
    and both sides run."""
    from fsmarena.games.bench import cases_for

    game = game_of(entry)
    cases = {case.name: case for case in cases_for(game) if case.name.startswith("compiled vs Python seats")}
    assert "compiled vs Python seats: table vs table" in cases
    assert any(name.startswith("compiled vs Python seats: builtins") for name in cases)
    for case in cases.values():
        assert case.plain is not None and case.opt_in
        case.engine(5, 0)
        case.plain(5, 0)
