"""The kernel is the game: one generic batched driver over a game's compiled kernel.

Every game with a single-game kernel (:mod:`fsmarena.games.kernel`) can be played in batches by this
one driver.  :meth:`Driver.play` has the shape of
:meth:`fsmarena.games.base.Game.play`, which runs it (``n`` games, a numpy Generator, a ``decide(seat,
observation, rows)`` callback, an :class:`~games.base.Outcome`); :func:`fsmarena.games.arena.play_games`
seats players on it.  How it plays:

* the deals are drawn by the kernel (``draw_deal``), or given (``deals``, one kernel deal per
  row: scripted decks, dice, prize orders);
* every game is an int64 state vector (one row of ``states``); compiled loops over the rows
  reset, step and read them;
* a seat whose player compiles (random, fixed action, table policy, table FSM, BDA, the
  kernel's builtins, and pools of them: :mod:`fsmarena.games.compiled_players`) is played
  inside the compiled loop; when every seat compiles, the whole batch is one compiled loop
  (:meth:`Driver.play_compiled`, no Python per decision);
* the other seats decide in Python, in batches: the compiled loop advances every game to its
  next Python decision, then each such seat, in seat order, gets one :class:`Observation`
  of the rows where it is to move (every part of the game's observation: index, features, mask,
  encodings, ``step`` and the game's own parts, :mod:`fsmarena.games.kernel`; each built by the
  kernel on first read, for those rows only), answers through ``decide``, and those rows step.
  Simultaneous-move games (Stupide Vautour, Goofspiel) are serialised by their kernels with
  the pending choices hidden in the state, so every seat of a turn is asked before anything
  of the turn is revealed.

Random numbers: the compiled code draws from numba's ``np.random`` stream, seeded from the
generator: one draw for the deals, then one before every compiled step or advance of the
Python path (a few per round of decisions), or one for the whole compiled batch.  Rows are
always played in order, so how the batch is cut into compiled calls (``chunk``) never changes a result, and
the same generator gives the same outcomes.  Python players draw from the generator itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.compiled_players import table_dtype
from fsmarena.games.kernel import Layout, kernel_of, observation_of, params_of, part_data_of, seed
from fsmarena.games.observation import Decide, Observation, Outcome
from fsmarena.games.row_loops import loops_for

if TYPE_CHECKING:
    from fsmarena.games.base import Game

#: games played per compiled call of :meth:`Driver.play_compiled` (bounds nothing but the time
#: between two checks for Ctrl-C; results do not depend on it)
DEFAULT_CHUNK = 65_536


@dataclass(frozen=True)
class Program:
    """The compiled players of a batch: ``ints`` / ``floats`` / ``tables`` hold every seat's
    members (the format of :mod:`fsmarena.games.compiled_players`); ``start[row, seat]``,
    ``fstart[row, seat]`` and ``tstart[row, seat]`` locate the member playing that seat of
    that game, ``start`` ``-1`` for a seat played in Python.  When every seat plays the same
    member in every game, the three have one row, which holds for every game: a batch then
    costs no array of a row per game (measured: about a quarter of a batch of 421, whose games
    are a few dozen nanoseconds each)."""

    ints: np.ndarray
    floats: np.ndarray
    tables: np.ndarray
    start: np.ndarray
    fstart: np.ndarray
    tstart: np.ndarray

    def rows(self, first: int, last: int) -> Program:
        """The program of games ``first .. last - 1``."""
        if len(self.start) == 1:
            return self
        cut = slice(first, last)
        return Program(self.ints, self.floats, self.tables, self.start[cut], self.fstart[cut], self.tstart[cut])

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in the order the compiled loops take them."""
        return self.ints, self.floats, self.tables, self.start, self.fstart, self.tstart

    @property
    def python_seats(self) -> list[int]:
        """Seats that decide in Python (in at least one row)."""
        return [int(s) for s in np.flatnonzero((self.start < 0).any(axis=0))] if len(self.start) else []


def python_program(seats: int, n_actions: int) -> Program:
    """Every seat decides in Python, in every game (the tables of the type compiled players of a
    game of ``n_actions`` actions have, so the compiled loops are the same)."""
    empty = np.full((1, seats), -1, dtype=np.int64)
    return Program(np.zeros(1, np.int64), np.zeros(1), np.zeros(1, table_dtype(n_actions)), empty, empty, empty)


class Driver:
    """The batched driver of one game (module doc): its kernel, its packed rules and the
    compiled loops of that kernel."""

    def __init__(self, game: Game, params: np.ndarray | None = None):
        self.game = game
        self.kernel = kernel_of(game)
        #: the packed rules: the game's, or those of scripted deals of another length (:meth:`scripted`)
        self.p = params_of(game) if params is None else params
        self.loops = loops_for(self.kernel)
        k, p = self.kernel, self.p
        self.n_seats = int(k.n_seats(p))
        self.n_actions = int(k.n_actions(p))
        self.n_features = int(k.n_features(p))
        self.deal_size = int(k.deal_size(p))
        self.state_size = int(k.state_size(p))
        self.layout = Layout.of(game, k, p)
        #: the encoding every decide call holds one value of (:attr:`fsmarena.games.base.Game.decide_by`)
        self.decide_by = -1 if game.decide_by is None else list(game.encodings).index(game.decide_by)
        self._part_data: np.ndarray | None = None
        #: the Python path's stand-ins for the compiled path's deals and results (:func:`advance_rows`)
        self._unused = (np.zeros((0, self.deal_size), dtype=np.int64), np.zeros((0, self.n_seats)))

    # ---- deals ---------------------------------------------------------------------------
    def deals(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` fresh kernel deals drawn by the kernel (one draw from ``rng`` seeds the
        compiled stream); :meth:`scripted` plays given ones."""
        _check_n(n)
        out = np.zeros((n, self.deal_size), dtype=np.int64)
        seed(int(rng.integers(2**32)))
        self.loops.draw_deals(self.p, out)
        return out

    def _checked_deals(self, n: int, array: np.ndarray) -> np.ndarray:
        if array.shape != (n, self.deal_size):
            raise FsmarenaError(
                f"{self.game.name}: scripted deals must be integers of shape ({n}, {self.deal_size}), "
                f"got {array.dtype} {array.shape}"
            )
        return array

    # ---- the Game.play shape -------------------------------------------------------------
    def play(
        self,
        n: int,
        rng: np.random.Generator,
        decide: Decide,
        deals: np.ndarray | None = None,
        trace: Trace | None = None,
    ) -> Outcome:
        """Play ``n`` games asking ``decide`` for every move (:meth:`fsmarena.games.base.Game.play`);
        ``trace`` sees every decision (:func:`traced`)."""
        driver, dealt = self.scripted(n, deals) if deals is not None else (self, self.deals(n, rng))
        ask = decide if trace is None else traced(decide, trace)
        return driver.play_program(dealt, python_program(self.n_seats, self.n_actions), rng, ask)

    def scripted(self, n: int, deals: Any) -> tuple[Driver, np.ndarray]:
        """The driver and kernel deals that play ``n`` scripted deals: the game's own when they
        are ``deal_size`` wide; for a kernel whose deal holds a variable amount of chance (its
        optional ``scripted(config, deals)``, :mod:`fsmarena.games.kernel`: 421's throws, 31's decks),
        one whose rules fit the script."""
        _check_n(n)
        array = np.asarray(deals)
        if array.ndim != 2 or len(array) != n or not np.issubdtype(array.dtype, np.integer):
            raise FsmarenaError(
                f"{self.game.name}: scripted deals must be integers, one row per game ({n}), "
                f"got {array.dtype} {array.shape}"
            )
        array = np.ascontiguousarray(array, dtype=np.int64)
        rules = getattr(self.kernel, "scripted", None)
        if array.shape[1] == self.deal_size or rules is None:
            return self, self._checked_deals(n, array)
        try:
            params, full = rules(self.game.config, array)
        except ValueError as error:
            raise FsmarenaError(f"{self.game.name}: {error}") from None
        return Driver(self.game, np.ascontiguousarray(params, dtype=np.int64)), full

    def play_program(
        self, deals: np.ndarray, program: Program, rng: np.random.Generator, decide: Decide | None
    ) -> Outcome:
        """Play one game per deal: compiled seats inside the compiled loop, the others through
        ``decide`` in batches (module doc).  The games are played block by block
        (:attr:`block_rows` games, a few megabytes of states: every pass over the rows then
        reads memory the cache holds), the rows of each block in order; ``decide`` gets the
        rows' positions in the whole batch."""
        n = len(deals)
        rewards = np.zeros((n, self.n_seats))
        scores = np.zeros((n, self.n_seats))
        for first in range(0, n, self.block_rows):
            last = min(n, first + self.block_rows)
            states = self._play_block(deals[first:last], program.rows(first, last), rng, decide, first, n)
            self.loops.results(self.p, states, rewards[first:last], scores[first:last])
        return Outcome(scores, rewards)

    @property
    def block_rows(self) -> int:
        """Games per block of the Python path: about four megabytes of states."""
        return max(1024, (4 << 20) // (8 * self.state_size))

    def _play_block(
        self, deals: np.ndarray, program: Program, rng: np.random.Generator, decide: Decide | None, first: int, n: int
    ) -> np.ndarray:
        """Play the games of ``deals`` (rows ``first`` on of a batch of ``n``); their final states."""
        size = len(deals)
        states = np.zeros((size, self.state_size), dtype=np.int64)
        self.loops.reset_all(self.p, states, deals)
        memory = np.zeros((size, self.n_seats), dtype=np.int64)
        to_move = np.zeros(size, dtype=np.int64)
        no_actions = np.zeros(0, dtype=np.int64)
        self._move(states, np.arange(size, dtype=np.int64), no_actions, program, memory, to_move, rng, -1)
        while (to_move >= 0).any():
            if decide is None:  # a programming error: a Python seat without a callback
                raise TypeError("a seat decides in Python but no decide callback was given")
            for seat in range(self.n_seats):
                for rows, obs in self._asked(states, np.flatnonzero(to_move == seat), seat):
                    actions = decide(seat, obs, None if len(rows) == n else rows + first)
                    self._move(states, rows, self._checked(actions, rows, seat), program, memory, to_move, rng, seat)
        return states

    def _asked(self, states: np.ndarray, rows: np.ndarray, seat: int) -> list[tuple[np.ndarray, Observation]]:
        """The decide calls of ``seat`` on ``rows``: one, or one per value of the game's
        ``decide_by`` encoding (that part then one number)."""
        if not len(rows):
            return []
        if self.decide_by < 0:
            return [(rows, self.observation(states, rows, seat))]
        values = np.zeros(len(rows), dtype=np.int64)
        self.loops.encoding_rows(self.p, states, rows, seat, self.decide_by, values)
        name = self.layout.encodings[self.decide_by]
        asked = []
        for value in np.unique(values).tolist():
            some = rows[values == value]
            asked.append((some, self.observation(states, some, seat).with_part(name, value)))
        return asked

    def _checked(self, actions: Any, rows: np.ndarray, seat: int) -> np.ndarray:
        """``actions`` as int64, one per row (one clear error for a wrong shape or type)."""
        actions = np.asarray(actions)
        if actions.shape != (len(rows),) or not np.issubdtype(actions.dtype, np.integer):
            raise FsmarenaError(
                f"{self.game.name}: the player in seat {seat} gave {actions.dtype} {actions.shape} "
                f"actions for {len(rows)} games"
            )
        return np.ascontiguousarray(actions, dtype=np.int64)

    def _move(self, states, rows, actions, program, memory, to_move, rng, seat) -> None:
        """In one compiled pass over ``rows``: the Python seat ``seat`` plays ``actions``
        (checked there: one clear error for an illegal action; the batch is then abandoned),
        then the compiled seats move until a Python seat is to move or the game ends."""
        seed(int(rng.integers(2**32)))
        p = self.p
        no_deals, no_results = self._unused
        bad = self.loops.advance_rows(
            p,
            states,
            rows,
            actions,
            no_deals,
            *program.arrays(),
            memory,
            to_move,
            no_results,
            no_results,
            *self._work(),
        )
        if bad < 0:
            return
        action = actions[bad]
        if not 0 <= action < self.n_actions:
            raise FsmarenaError(
                f"{self.game.name}: the player in seat {seat} chose action {action}, "
                f"out of range (actions are 0 to {self.n_actions - 1})"
            )
        legal = np.flatnonzero(self.mask_rows(states, rows[bad : bad + 1], seat)[0]).tolist()
        raise FsmarenaError(
            f"{self.game.name}: the player in seat {seat} chose action {action}, which is "
            f"not legal there (legal: {legal})"
        )

    # ---- observations ----------------------------------------------------------------------
    def observation(self, states: np.ndarray, rows: np.ndarray, seat: int) -> Observation:
        """What ``seat`` sees in ``rows``: every part of the game's observation, each built by the
        kernel on first read, for these rows only (:func:`fsmarena.games.kernel.observation_of`)."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        return observation_of(self.layout, len(rows), _RowsReader(self, states, rows, seat))

    def part_data(self) -> np.ndarray:
        """The table the kernel's observation parts read (:func:`fsmarena.games.kernel.part_data_of`),
        looked up once per driver: a part is read at every decision of a Python seat."""
        if self._part_data is None:
            self._part_data = part_data_of(self.game)
        return self._part_data

    def _work(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The work arrays of :func:`advance_rows` (a state, a mask, the features), new for each
        call: the loop borrows every array it reads, so its caller owns them, and a driver may
        play in several threads at once."""
        return (
            np.zeros(self.state_size, dtype=np.int64),
            np.zeros(self.n_actions, dtype=np.bool_),
            np.zeros(max(1, self.n_features)),
        )

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
        no_states = np.zeros((0, self.state_size), dtype=np.int64)
        no_actions = no_waiting = np.zeros(0, dtype=np.int64)
        memory = np.zeros((1, self.n_seats), dtype=np.int64)
        work = self._work()
        for first in range(0, n, max(1, chunk)):
            rows = np.arange(first, min(n, first + max(1, chunk)), dtype=np.int64)
            self.loops.advance_rows(
                self.p,
                no_states,
                rows,
                no_actions,
                deals,
                *program.arrays(),
                memory,
                no_waiting,
                rewards,
                scores,
                *work,
            )
        return Outcome(scores, rewards)


#: ``trace(seat, rows, observation, actions)``: one batched decision (``rows``: the games'
#: positions in the batch), for tests and tools that follow a game decision by decision
Trace = Callable[[int, np.ndarray, Observation, np.ndarray], None]


def traced(decide: Decide, trace: Trace) -> Decide:
    """``decide`` that also hands every batched decision to ``trace``, after it is made: the
    seat, the rows, the observation the seat saw and the actions it chose.  One hook for every
    game: what a game shows of its state is its observation's parts."""

    def ask(seat: int, obs: Observation, rows: np.ndarray | None) -> np.ndarray:
        actions = decide(seat, obs, rows)
        trace(seat, np.arange(obs.n) if rows is None else rows, obs, np.asarray(actions))
        return actions

    return ask


class _RowsReader:
    """The kernel's readers over the rows of a batch that decide (:class:`fsmarena.games.kernel.Reader`)."""

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

    def builtin(self, code: int, args: np.ndarray, out: np.ndarray) -> None:
        self.driver.loops.builtin_rows(self.driver.p, self.states, self.rows, self.seat, code, args, out)

    def builtin_law(self, code: int, args: np.ndarray, out: np.ndarray) -> None:
        self.driver.loops.law_rows(self.driver.p, self.states, self.rows, self.seat, code, args, out)

    def subset(self, rows: np.ndarray) -> _RowsReader:
        return _RowsReader(self.driver, self.states, np.ascontiguousarray(self.rows[rows]), self.seat)

    def frozen(self) -> _RowsReader:
        """These readers on a copy of the rows' states as they are now."""
        states = np.ascontiguousarray(self.states[self.rows])
        return _RowsReader(self.driver, states, np.arange(len(self.rows), dtype=np.int64), self.seat)


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
