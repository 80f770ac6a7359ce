"""The kernel is the game: one generic batched driver over a game's compiled kernel.

Every game with a single-game kernel (:mod:`games.kernel`) can be played in batches by this
one driver instead of a hand-vectorised engine.  :meth:`Driver.play` has the shape of
:meth:`games.base.Game.play` (``n`` games, a numpy Generator, a ``decide(seat, observation,
rows)`` callback, an :class:`~games.base.Outcome`); :func:`play_seated` has the shape of
:func:`games.arena.play_games` (players in seats).  How it plays:

* the deals are drawn by the kernel (``draw_deal``), or given (``deals``, one kernel deal per
  row: scripted decks, dice, prize orders);
* every game is an int64 state vector (one row of ``states``); compiled loops over the rows
  reset, step and read them;
* a seat whose player compiles (random, fixed action, table policy, table FSM, BDA, the
  kernel's builtins, and pools of them: :data:`games.registry.PLAYER_COMPILER`) is played
  inside the compiled loop; when every seat compiles, the whole batch is one compiled loop
  (:meth:`Driver.play_compiled`, no Python per decision);
* the other seats decide in Python, in batches: the compiled loop advances every game to its
  next Python decision, then each such seat, in seat order, gets one :class:`Observation`
  of the rows where it is to move (every part the engine shows: index, features, mask,
  encodings, ``step`` and the game's own parts, :mod:`games.kernel`; each built by the
  kernel on first read, for those rows only), answers through ``decide``, and those rows step.
  Simultaneous-move games (Stupide Vautour, Goofspiel) are serialised by their kernels with
  the pending choices hidden in the state, so every seat of a turn is asked before anything
  of the turn is revealed, as the batched engines do.

Random numbers: the compiled code draws from numba's ``np.random`` stream, seeded from the
generator: one draw for the deals, then one before every compiled step or advance of the
Python path (a few per round of decisions), or one for the whole compiled batch.  Rows are
always played in order, so how the batch is cut into compiled calls (``chunk``) never changes a result, and
the same generator gives the same outcomes.  Python players draw from the generator itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.jit import njit
from fsmarena.specialise import built_per_kernel, kernel_function, specialise
from games.arena import Seat
from games.base import Decide, Game, Observation, Outcome
from games.kernel import Layout, kernel_of, observation_of, params_of, part_data_of, seed
from games.players import Player
from games.registry import PLAYER_COMPILER, PLAYER_INTERPRETER, STACK_COMPILER, resolve

#: kind numbers of fixed-action, builtin and table members in the compiled players' format
#: (:data:`games.registry.PLAYER_COMPILER`), which the driver's loops play directly
FIXED, BUILTIN, TABLE = 1, 2, 3

#: games played per compiled call of :meth:`Driver.play_compiled` (bounds nothing but the time
#: between two checks for Ctrl-C; results do not depend on it)
DEFAULT_CHUNK = 65_536


@dataclass(frozen=True)
class Program:
    """The compiled players of a batch: ``ints`` / ``floats`` hold every seat's members (the
    format of :data:`games.registry.PLAYER_COMPILER`); ``start[row, seat]`` and
    ``fstart[row, seat]`` locate the member playing that seat of that game, ``-1`` for a
    seat played in Python."""

    ints: np.ndarray
    floats: np.ndarray
    start: np.ndarray
    fstart: np.ndarray

    @property
    def python_seats(self) -> list[int]:
        """Seats that decide in Python (in at least one row)."""
        return [int(s) for s in np.flatnonzero((self.start < 0).any(axis=0))] if len(self.start) else []


def python_program(n: int, seats: int) -> Program:
    """Every seat decides in Python."""
    empty = np.full((n, seats), -1, dtype=np.int64)
    return Program(np.zeros(1, np.int64), np.zeros(1), empty, empty.copy())


class Driver:
    """The batched driver of one game (module doc): its kernel, its packed rules and the
    compiled loops of that kernel."""

    def __init__(self, game: Game):
        self.game = game
        self.kernel = kernel_of(game)
        self.p = params_of(game)
        self.loops = loops_for(self.kernel)
        k, p = self.kernel, self.p
        self.n_seats = int(k.n_seats(p))
        self.n_actions = int(k.n_actions(p))
        self.n_features = int(k.n_features(p))
        self.deal_size = int(k.deal_size(p))
        self.state_size = int(k.state_size(p))
        self.layout = Layout.of(game, k, p)

    # ---- deals ---------------------------------------------------------------------------
    def deals(self, n: int, rng: np.random.Generator, deals: np.ndarray | None = None) -> np.ndarray:
        """``n`` kernel deals: ``deals`` checked, or fresh ones drawn by the kernel (one draw
        from ``rng`` seeds the compiled stream)."""
        _check_n(n)
        if deals is not None:
            return self._checked_deals(n, deals)
        out = np.zeros((n, self.deal_size), dtype=np.int64)
        seed(int(rng.integers(2**32)))
        self.loops.draw_deals(self.p, out)
        return out

    def _checked_deals(self, n: int, deals: Any) -> np.ndarray:
        array = np.asarray(deals)
        if array.shape != (n, self.deal_size) or not np.issubdtype(array.dtype, np.integer):
            raise FsmarenaError(
                f"{self.game.name}: scripted deals must be integers of shape ({n}, {self.deal_size}), "
                f"got {array.dtype} {array.shape}"
            )
        return np.ascontiguousarray(array, dtype=np.int64)

    # ---- the Game.play shape -------------------------------------------------------------
    def play(self, n: int, rng: np.random.Generator, decide: Decide, deals: np.ndarray | None = None) -> Outcome:
        """Play ``n`` games asking ``decide`` for every move (:meth:`games.base.Game.play`)."""
        dealt = self.deals(n, rng, deals)
        return self.play_program(dealt, python_program(n, self.n_seats), rng, decide)

    def play_program(
        self, deals: np.ndarray, program: Program, rng: np.random.Generator, decide: Decide | None
    ) -> Outcome:
        """Play one game per deal: compiled seats inside the compiled loop, the others through
        ``decide`` in batches (module doc)."""
        n = len(deals)
        loops, p = self.loops, self.p
        states = np.zeros((n, self.state_size), dtype=np.int64)
        loops.reset_all(p, states, deals)
        memory = np.zeros((n, self.n_seats), dtype=np.int64)
        to_move = np.zeros(n, dtype=np.int64)
        every = np.arange(n, dtype=np.int64)
        self._advance(states, every, program, memory, to_move, rng)
        while True:
            waiting = to_move >= 0
            if not waiting.any():
                break
            if decide is None:  # a programming error: a Python seat without a callback
                raise TypeError("a seat decides in Python but no decide callback was given")
            for seat in range(self.n_seats):
                rows = np.flatnonzero(to_move == seat)
                if not len(rows):
                    continue
                obs = self.observation(states, rows, seat)
                actions = decide(seat, obs, None if len(rows) == n else rows)
                self._step(states, rows, seat, actions, rng)
                self._advance(states, rows, program, memory, to_move, rng)
        return self._outcome(states)

    def _advance(self, states, rows, program, memory, to_move, rng) -> None:
        """Compiled seats move in ``rows`` until a Python seat is to move or the game ends."""
        seed(int(rng.integers(2**32)))
        self.loops.advance(
            self.p,
            states,
            rows,
            program.ints,
            program.floats,
            program.start,
            program.fstart,
            memory,
            to_move,
        )

    def _step(self, states, rows, seat, actions, rng) -> None:
        """The Python seat ``seat`` plays ``actions`` in ``rows`` (checked first: one clear
        error, nothing played, for a wrong shape or an illegal action)."""
        actions = np.asarray(actions)
        if actions.shape != (len(rows),) or not np.issubdtype(actions.dtype, np.integer):
            raise FsmarenaError(
                f"{self.game.name}: the player in seat {seat} gave {actions.dtype} {actions.shape} "
                f"actions for {len(rows)} games"
            )
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        seed(int(rng.integers(2**32)))
        bad = self.loops.step_rows(self.p, states, rows, actions)
        if bad >= 0:
            raise FsmarenaError(
                f"{self.game.name}: the player in seat {seat} chose action {actions[bad]}, which is "
                f"not legal there (legal: {np.flatnonzero(self.mask_rows(states, rows[bad : bad + 1], seat)[0]).tolist()})"
            )

    def _outcome(self, states: np.ndarray) -> Outcome:
        n = len(states)
        rewards = np.zeros((n, self.n_seats))
        scores = np.zeros((n, self.n_seats))
        self.loops.results(self.p, states, rewards, scores)
        return Outcome(scores, rewards)

    # ---- observations ----------------------------------------------------------------------
    def observation(self, states: np.ndarray, rows: np.ndarray, seat: int) -> Observation:
        """What ``seat`` sees in ``rows``: every part the engine shows, each built by the
        kernel on first read, for these rows only (:func:`games.kernel.observation_of`)."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        return observation_of(self.layout, len(rows), _RowsReader(self, states, rows, seat))

    def part_data(self) -> np.ndarray:
        """The table the kernel's observation parts read (:func:`games.kernel.part_data_of`)."""
        return part_data_of(self.game)

    def mask_rows(self, states: np.ndarray, rows: np.ndarray, seat: int) -> np.ndarray:
        out = np.zeros((len(rows), self.n_actions), dtype=np.bool_)
        self.loops.legal_rows(self.p, states, rows, seat, out)
        return out

    # ---- every seat compiled ---------------------------------------------------------------
    def play_compiled(
        self, deals: np.ndarray, program: Program, rng: np.random.Generator, chunk: int = DEFAULT_CHUNK
    ) -> Outcome:
        """One game per deal, every seat compiled: one compiled loop, ``chunk`` games per call,
        the rows in order (so ``chunk`` changes no result)."""
        if program.python_seats:
            raise TypeError("play_compiled needs a program that compiles every seat")
        n = len(deals)
        rewards = np.zeros((n, self.n_seats))
        scores = np.zeros((n, self.n_seats))
        seed(int(rng.integers(2**32)))
        for first in range(0, n, max(1, chunk)):
            last = min(n, first + max(1, chunk))
            self.loops.play_rows(
                self.p, deals, first, last, program.ints, program.floats, program.start, program.fstart, rewards, scores
            )
        return Outcome(scores, rewards)


class _RowsReader:
    """The kernel's readers over the rows of a batch that decide (:class:`games.kernel.Reader`)."""

    def __init__(self, driver: Driver, states: np.ndarray, rows: np.ndarray, seat: int):
        self.driver, self.states, self.rows, self.seat = driver, states, rows, seat

    def index(self, out: np.ndarray) -> None:
        self.driver.loops.index_rows(self.driver.p, self.states, self.rows, self.seat, out)

    def mask(self, out: np.ndarray) -> None:
        self.driver.loops.legal_rows(self.driver.p, self.states, self.rows, self.seat, out)

    def features(self, out: np.ndarray) -> None:
        self.driver.loops.features_rows(self.driver.p, self.states, self.rows, self.seat, out)

    def encoding(self, which: int, out: np.ndarray) -> None:
        self.driver.loops.encoding_rows(self.driver.p, self.states, self.rows, self.seat, which, out)

    def part(self, which: int, out: np.ndarray) -> None:
        driver = self.driver
        driver.loops.part_rows(driver.p, driver.part_data(), self.states, self.rows, self.seat, which, out)


_DRIVERS: dict[tuple[str, Any], Driver] = {}


def driver_for(game: Game) -> Driver:
    """The driver of ``game``'s configuration, made once per process (packing the rules may
    be costly: 421's optimal builtin solves the game) and kept for the next batches."""
    try:
        key = (game.name, game.config)
        hash(key)
    except TypeError:  # an unhashable configuration: no reuse
        return Driver(game)
    if key not in _DRIVERS:
        _DRIVERS[key] = Driver(game)
    return _DRIVERS[key]


def _check_n(n: Any) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise FsmarenaError(f"the number of games must be a non-negative integer, got {n!r}")


# ---- players in seats -------------------------------------------------------------------------


def play_seated(
    game: Game,
    seats: Sequence[Player | Seat],
    n: int,
    rng: np.random.Generator,
    *,
    deals: np.ndarray | None = None,
    compiled: bool = True,
    chunk: int = DEFAULT_CHUNK,
) -> Outcome:
    """Play ``n`` games of ``game`` with ``seats[s]`` in seat ``s`` on the driver
    (:func:`games.arena.play_games`' shape).  Seats whose player compiles play inside the
    compiled loop (all of them: one compiled loop); ``compiled=False`` asks every player in
    Python (the same decisions for deterministic players: the tests' second implementation).
    Python players get ``begin`` before and ``finish`` after the batch, as in the arena."""
    driver = driver_for(game)
    seated = [s if isinstance(s, Seat) else Seat(s) for s in seats]
    if len(seated) != driver.n_seats:
        raise FsmarenaError(f"{game.name} needs {driver.n_seats} players, got {len(seated)}")
    dealt = driver.deals(n, rng, deals)
    program, python = compile_seats(game, seated, n, rng) if compiled else (python_program(n, driver.n_seats), seated)
    memories = {s: seat.player.begin(game, n, seat.members, rng) for s, seat in enumerate(python) if seat is not None}
    if not memories:
        return driver.play_compiled(dealt, program, rng, chunk)

    def decide(seat: int, obs: Observation, rows: np.ndarray | None) -> np.ndarray:
        player = python[seat]
        assert player is not None  # only Python seats are asked
        return player.player.act(obs, memories[seat], rows, rng)

    outcome = driver.play_program(dealt, program, rng, decide)
    for s, memory in memories.items():
        player = python[s]
        assert player is not None
        player.player.finish(memory, outcome, s)
    return outcome


def compile_seats(
    game: Game, seats: Sequence[Seat], n: int, rng: np.random.Generator
) -> tuple[Program, list[Seat | None]]:
    """The program of the seats that compile, and the Python seats (``None`` where the seat
    compiled).  A seat with a member per game (a stack: evolution's population, cross-play's
    players) compiles its stack once, as a pool indexed by the seat's ``members``.  A pool of
    several members (a mixture) has one member drawn per game, as the batched mixture does
    (``rng.integers(0, members, n)``; drawn here in seat order, before the Python players begin)."""
    compile_player = resolve(PLAYER_COMPILER, "player compiler")
    compile_stack = resolve(STACK_COMPILER, "stack compiler")
    ints: list[np.ndarray] = []
    floats: list[np.ndarray] = []
    start = np.full((n, len(seats)), -1, dtype=np.int64)
    fstart = np.full((n, len(seats)), -1, dtype=np.int64)
    python: list[Seat | None] = []
    offset = foffset = 0
    for number, seat in enumerate(seats):
        packed = _compiled(compile_stack if seat.members is not None else compile_player, seat, game)
        if packed is None:
            python.append(seat)
            continue
        python.append(None)
        if seat.members is not None:
            member = np.asarray(seat.members, dtype=np.int64)
        elif packed.n_members == 1:
            member = np.zeros(n, dtype=np.int64)
        else:
            member = rng.integers(0, packed.n_members, size=n)
        start[:, number] = offset + packed.int_start[member]
        fstart[:, number] = foffset + packed.float_start[member]
        ints.append(packed.ints)
        floats.append(packed.floats)
        offset += len(packed.ints)
        foffset += len(packed.floats)
    program = Program(
        np.concatenate(ints) if ints else np.zeros(1, np.int64),
        np.concatenate(floats) if floats else np.zeros(1),
        start,
        fstart,
    )
    return program, python


def _compiled(compile_player: Callable[[Player, Game], Any], seat: Seat, game: Game) -> Any:
    """The compiled form of the seat's player (its stack's members when the seat has members
    per game), or None when it decides in Python (a player the compiler refuses, members
    out of the stack's range)."""
    if seat.members is None and getattr(seat.player, "n_members", 1) != 1:
        return None
    try:
        packed = compile_player(seat.player, game)
    except FsmarenaError:
        return None
    members = seat.members
    if members is not None and len(members) and (np.min(members) < 0 or np.max(members) >= packed.n_members):
        return None
    return packed


# ---- the compiled loops of one kernel -----------------------------------------------------------


@dataclass(frozen=True)
class Loops:
    """The compiled loops over rows of one kernel (:func:`loops_for`)."""

    draw_deals: Callable[..., None]
    reset_all: Callable[..., None]
    advance: Callable[..., None]
    step_rows: Callable[..., int]
    index_rows: Callable[..., None]
    features_rows: Callable[..., None]
    legal_rows: Callable[..., None]
    encoding_rows: Callable[..., None]
    part_rows: Callable[..., None]
    results: Callable[..., None]
    play_rows: Callable[..., None]


_LOOPS: dict[str, Loops] = {}


def loops_for(kernel: ModuleType) -> Loops:
    """The driver's compiled loops for ``kernel`` (compiled once per process and kernel)."""
    if kernel.__name__ not in _LOOPS:
        _LOOPS[kernel.__name__] = _make_loops(kernel)
    return _LOOPS[kernel.__name__]


@njit
def legal_or_first(mask: np.ndarray, action: int) -> int:
    """``action`` if legal, else the first legal action (the compiled players' fallback)."""
    if mask[action]:
        return action
    for a in range(len(mask)):
        if mask[a]:
            return a
    return action


# Each loop is a template written once over placeholder names (``k_step``, ...) and compiled
# per kernel by :func:`fsmarena.specialise.specialise`, which caches the compiled code on disk.
k_draw_deal = kernel_function("draw_deal")
k_reset = kernel_function("reset")
k_to_move = kernel_function("to_move")
k_step = kernel_function("step")
k_legal = kernel_function("legal")
k_observe_index = kernel_function("observe_index")
k_features = kernel_function("features")
k_encoding = kernel_function("encoding")
k_builtin_action = kernel_function("builtin_action")
k_observe_part = kernel_function("observe_part")
k_rewards = kernel_function("rewards")
k_scores = kernel_function("scores")
k_n_seats = kernel_function("n_seats")
k_n_actions = kernel_function("n_actions")
k_n_features = kernel_function("n_features")
k_state_size = kernel_function("state_size")


def _interpreter(kernel: ModuleType) -> Callable[..., Any]:
    """The compiled player interpreter of ``kernel`` (registered by the players' package)."""
    return resolve(PLAYER_INTERPRETER, "player interpreter")(kernel)


def _table_action_for(kernel: ModuleType) -> Callable[..., Any]:
    return specialise(table_action, kernel)


def _builtin_member_for(kernel: ModuleType) -> Callable[..., Any]:
    return specialise(builtin_member, kernel)


k_act = built_per_kernel(_interpreter)
k_table_action = built_per_kernel(_table_action_for)
k_builtin_member = built_per_kernel(_builtin_member_for)


def table_action(p, s, seat, ints, start, mask):
    """A fixed-action or table member decides, by the interpreter's rules."""
    k_legal(p, s, seat, mask)
    if ints[start] == FIXED:
        return legal_or_first(mask, ints[start + 1])
    return legal_or_first(mask, ints[start + 2 + k_observe_index(p, s, seat)])


def builtin_member(p, s, seat, ints, start, mask):
    """A builtin member decides, by the interpreter's rules."""
    k_legal(p, s, seat, mask)
    return legal_or_first(mask, k_builtin_action(p, s, seat, ints[start + 1]))


def draw_deals(p, deals):
    for row in range(deals.shape[0]):
        k_draw_deal(p, deals[row])


def reset_all(p, states, deals):
    for row in range(states.shape[0]):
        k_reset(p, states[row], deals[row])


def advance(p, states, rows, ints, floats, start, fstart, memory, waiting):
    """Play the compiled seats of ``rows``; ``waiting[row]``: the Python seat to move, or -1."""
    mask = np.zeros(k_n_actions(p), dtype=np.bool_)
    feats = np.zeros(max(1, k_n_features(p)))
    frozen = np.zeros(1, dtype=np.int64)
    for row in rows:
        s = states[row]
        seat = k_to_move(p, s)
        while seat >= 0 and start[row, seat] >= 0:
            at = start[row, seat]
            kind = ints[at]
            if kind == TABLE or kind == FIXED:
                action = k_table_action(p, s, seat, ints, at, mask)
            elif kind == BUILTIN:
                action = k_builtin_member(p, s, seat, ints, at, mask)
            else:
                action = k_act(p, s, seat, ints, floats, at, fstart[row, seat], memory[row], mask, feats, frozen)
            k_step(p, s, action)
            seat = k_to_move(p, s)
        waiting[row] = seat


def step_rows(p, states, rows, actions):
    """Step every row (after checking them all); the position of the first illegal action, or -1."""
    mask = np.zeros(k_n_actions(p), dtype=np.bool_)
    for j in range(len(rows)):
        s = states[rows[j]]
        action = actions[j]
        if action < 0 or action >= len(mask):
            return j
        k_legal(p, s, k_to_move(p, s), mask)
        if not mask[action]:
            return j
    for j in range(len(rows)):
        s = states[rows[j]]
        k_step(p, s, actions[j])
    return -1


def index_rows(p, states, rows, seat, out):
    for j in range(len(rows)):
        out[j] = k_observe_index(p, states[rows[j]], seat)


def features_rows(p, states, rows, seat, out):
    for j in range(len(rows)):
        k_features(p, states[rows[j]], seat, out[j])


def legal_rows(p, states, rows, seat, out):
    for j in range(len(rows)):
        k_legal(p, states[rows[j]], seat, out[j])


def encoding_rows(p, states, rows, seat, which, out):
    for j in range(len(rows)):
        out[j] = k_encoding(p, states[rows[j]], seat, which)


def part_rows(p, data, states, rows, seat, which, out):
    for j in range(len(rows)):
        k_observe_part(p, data, states[rows[j]], seat, which, out[j])


def results(p, states, out_rewards, out_scores):
    for row in range(states.shape[0]):
        k_rewards(p, states[row], out_rewards[row])
        k_scores(p, states[row], out_scores[row])


def play_rows(p, deals, first, last, ints, floats, start, fstart, out_rewards, out_scores):
    s = np.zeros(k_state_size(p), dtype=np.int64)
    memory = np.zeros(k_n_seats(p), dtype=np.int64)
    mask = np.zeros(k_n_actions(p), dtype=np.bool_)
    feats = np.zeros(max(1, k_n_features(p)))
    frozen = np.zeros(1, dtype=np.int64)
    for row in range(first, last):
        k_reset(p, s, deals[row])
        memory[:] = 0
        seat = k_to_move(p, s)
        while seat >= 0:
            at = start[row, seat]
            kind = ints[at]
            if kind == TABLE or kind == FIXED:
                action = k_table_action(p, s, seat, ints, at, mask)
            elif kind == BUILTIN:
                action = k_builtin_member(p, s, seat, ints, at, mask)
            else:
                action = k_act(p, s, seat, ints, floats, at, fstart[row, seat], memory, mask, feats, frozen)
            k_step(p, s, action)
            seat = k_to_move(p, s)
        k_rewards(p, s, out_rewards[row])
        k_scores(p, s, out_scores[row])


#: the templates of :class:`Loops`' fields, in their order
_LOOP_TEMPLATES = (
    draw_deals,
    reset_all,
    advance,
    step_rows,
    index_rows,
    features_rows,
    legal_rows,
    encoding_rows,
    part_rows,
    results,
    play_rows,
)


def _make_loops(kernel: ModuleType) -> Loops:
    """Every loop of :class:`Loops` specialised for ``kernel`` (compiled, cached on disk)."""
    return Loops(*(specialise(template, kernel) for template in _LOOP_TEMPLATES))
