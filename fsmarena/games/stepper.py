"""One game, one decision at a time, on the game's compiled kernel: what the environments step.

Every fsmarena game has a compiled single-game kernel (:mod:`fsmarena.games.kernel`).  Reinforcement-
learning libraries call the game one action at a time (``step``); a :class:`KernelStepper`
plays one game so, with no thread and no batched driver: the whole game is one int64 state
vector, a step one compiled call.

* :meth:`KernelStepper.start` begins one game and returns the first :class:`Decision` (which
  seat is to move, with every part of the observation the batched driver would show it) or the
  :class:`Final` outcome;
* :meth:`KernelStepper.answer` gives the action of the seat to move and returns the next one;
* :meth:`KernelStepper.close` abandons the game.

A game is defined by its generator: the stepper draws the game's deal with the kernel
(:class:`KernelDeals`: one 32-bit seed of the compiled stream, then ``draw_deal``), and seeds
the compiled stream again before every answer (chance actions, such as Stupide Vautour's
``random`` bid, draws from it).  The batched driver
plays the same game when given the deal, and the game's plain-Python reference replays it
from the deal in its own terms (``kernel.reference_deal``): the tests' oracles.

A :class:`Decision`'s observation is built by the kernel as it is read, from the game as it
stands: read what you need before answering, or keep :func:`freeze` of it.

Every answer is checked before the game sees it (:func:`checked_answer`): an action that is
not a whole number, out of range or outside the legal mask raises :class:`IllegalAction` and
leaves the game as it was, so no caller, whether a learner or an opponent's player object,
can index a compiled kernel out of bounds.

A stepper pickles and deep-copies, mid-game included, and the copy continues the same game:
it keeps its whole game in its state vector and its generator (the kernel module is looked up
again on loading, and the pending decision's observation rebuilt from the state).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game, Observation, Outcome
from fsmarena.games.kernel import Layout, has_kernel, kernel_of, observation_of, params_of, part_data_of, seed

#: stepper choices of :func:`make_stepper` (and of the environments' ``stepper`` keyword):
#: both are the kernel stepper (the engine-in-a-thread stepper is gone)
STEPPERS = ("auto", "kernel")


@dataclass(frozen=True)
class Decision:
    """Seat ``seat`` is to move and sees ``observation`` (one row); ``number`` counts the
    decisions of the game so far (0 for the first)."""

    seat: int
    observation: Observation
    number: int


@dataclass(frozen=True)
class Final:
    """The game is over: ``outcome`` holds one row of scores and rewards; ``decisions`` is
    the number of decisions the game took."""

    outcome: Outcome
    decisions: int = 0

    @property
    def rewards(self) -> np.ndarray:
        return self.outcome.rewards[0]

    @property
    def scores(self) -> np.ndarray:
        return self.outcome.scores[0]


Turn = Decision | Final


class IllegalAction(FsmarenaError, ValueError):
    """An action outside the action space or the legal-action mask."""


def action_number(action: Any, n_actions: int, who: str) -> int:
    """``action`` as an action number in ``0..n_actions-1`` (a Python or numpy integer, or a
    one-element integer array); IllegalAction naming ``who`` otherwise.  Booleans are refused:
    ``True`` is not an action."""
    if isinstance(action, np.ndarray) and action.size == 1:
        action = action.reshape(-1)[0]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise IllegalAction(f"{who}: the action must be a whole number, got {action!r}")
    number = int(action)
    if not 0 <= number < n_actions:
        raise IllegalAction(f"{who}: action {number} is out of range (0..{n_actions - 1})")
    return number


def checked_answer(turn: "Turn | None", action: Any) -> int:
    """``action`` as a legal action number of the pending decision ``turn``; IllegalAction if
    it is not one (RuntimeError if no decision is pending)."""
    if not isinstance(turn, Decision):
        raise RuntimeError("no decision is pending: start a game first")
    who = f"seat {turn.seat}"
    number = action_number(action, turn.observation.n_actions, who)
    mask = turn.observation.mask
    if mask is not None and not np.asarray(mask).reshape(-1)[number]:
        raise IllegalAction(f"{who}: action {number} is not legal now")
    return number


def freeze(obs: Observation) -> Observation:
    """A copy of ``obs`` with every part evaluated now (arrays copied), independent of the
    game's later state."""
    parts = {}
    for name in obs._parts:  # noqa: SLF001 - the contract's own part list
        value = getattr(obs, name)
        parts[name] = value.copy() if isinstance(value, np.ndarray) else value
    source = None if obs.source is None else obs.source.frozen()
    return Observation(obs.n, obs.n_actions, source, **parts)


def _collect(
    turn: Turn, answer: Callable[[int], Turn], seats: int, filler: Callable[[Observation], int], convert: Callable
) -> list[Any]:
    """The probe loop: ``convert`` of the observations of the next ``seats`` decisions from
    ``turn`` on, answering each but the last with ``filler``."""
    seen: list = []
    while isinstance(turn, Decision) and len(seen) < seats:
        seen.append(convert(turn.observation))
        if len(seen) < seats:
            turn = answer(filler(turn.observation))
    return seen


class KernelDeals:
    """The deal of a game drawn by the game's kernel from a generator (module docstring)."""

    def __init__(self, game: Game):
        self.game = game
        self.kernel = kernel_of(game)
        self.p = params_of(game)
        self.deal = np.zeros(self.kernel.deal_size(self.p), dtype=np.int64)

    def __getstate__(self) -> dict[str, Any]:
        return {name: value for name, value in self.__dict__.items() if name != "kernel"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.kernel = kernel_of(self.game)

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """A fresh deal into :attr:`deal` (one draw from ``rng`` seeds the compiled stream)."""
        seed(int(rng.integers(2**32)))
        self.kernel.draw_deal(self.p, self.deal)
        return self.deal


class _StateReader:
    """The kernel's readers on one state vector (:class:`fsmarena.games.kernel.Reader`, one row):
    the stepper's own, read as the game stands, or a copy (:meth:`frozen`)."""

    def __init__(self, stepper: "KernelStepper", state: np.ndarray, seat: int):
        self.stepper, self.state, self.seat = stepper, state, seat

    def index(self, out: np.ndarray) -> None:
        out[0] = self.stepper.kernel.observe_index(self.stepper.p, self.state, self.seat)

    def mask(self, out: np.ndarray) -> None:
        self.stepper.kernel.legal(self.stepper.p, self.state, self.seat, out[0])

    def features(self, out: np.ndarray) -> None:
        self.stepper.kernel.features(self.stepper.p, self.state, self.seat, out[0])

    def encoding(self, which: int, out: np.ndarray) -> None:
        out[0] = self.stepper.kernel.encoding(self.stepper.p, self.state, self.seat, which)

    def part(self, which: int, out: np.ndarray) -> None:
        stepper = self.stepper
        stepper.kernel.observe_part(stepper.p, part_data_of(stepper.game), self.state, self.seat, which, out[0])

    def builtin(self, code: int, args: np.ndarray, out: np.ndarray) -> None:
        out[0] = self.stepper.kernel.builtin_action(self.stepper.p, self.state, self.seat, code, args)

    def builtin_law(self, code: int, args: np.ndarray, out: np.ndarray) -> None:
        self.stepper.kernel.builtin_law(self.stepper.p, self.state, self.seat, code, args, out[0])

    def subset(self, rows: np.ndarray) -> "_StateReader":
        if list(np.asarray(rows).reshape(-1)) != [0]:
            raise IndexError("a stepper's observation has one row")
        return self

    def frozen(self) -> "_StateReader":
        """These readers on a copy of the state as it is now."""
        return _StateReader(self.stepper, self.state.copy(), self.seat)


class KernelStepper:
    """One game on the game's compiled kernel (module docstring).

    ``deal`` is the deal of the current game; ``history`` the answers given so far.
    """

    def __init__(self, game: Game):
        self.game = game
        self.dealer = KernelDeals(game)
        self.kernel, self.p = self.dealer.kernel, self.dealer.p
        self.layout = Layout.of(game, self.kernel, self.p)
        self.state = np.zeros(self.kernel.state_size(self.p), dtype=np.int64)
        self.deal = self.dealer.deal
        self.history: list[int] = []
        self._rng: np.random.Generator | None = None
        self._turn: Turn | None = None
        self._count = 0

    @property
    def turn(self) -> Turn | None:
        """The current turn (``None`` before the first :meth:`start` and after :meth:`close`)."""
        return self._turn

    @property
    def running(self) -> bool:
        """Whether a decision is pending."""
        return isinstance(self._turn, Decision)

    def start(self, rng: np.random.Generator) -> Turn:
        """Begin a new game dealt from ``rng`` (abandoning any game in progress)."""
        self._rng = rng
        self.history, self._count = [], 0
        self.dealer.draw(rng)
        self.kernel.reset(self.p, self.state, self.deal)
        return self._next()

    def answer(self, action: int) -> Turn:
        """The action of the seat to move (checked first); returns what comes next."""
        number = checked_answer(self._turn, action)
        self._play(number)
        self.history.append(number)
        return self._next()

    def close(self) -> None:
        """Abandon the game in progress (idempotent)."""
        self._turn = None

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the kernel module and the pending observation (both rebuilt on loading)."""
        state = {name: value for name, value in self.__dict__.items() if name != "kernel"}
        if isinstance(self._turn, Decision):
            state["_turn"] = ("decision", self._turn.seat, self._turn.number)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.kernel = self.dealer.kernel
        self.deal = self.dealer.deal
        if isinstance(self._turn, tuple):
            _, seat, number = self._turn
            self._turn = Decision(seat, self._observation(seat), number)

    def probe(
        self, seats: int, filler: Callable[[Observation], int], convert: Callable[[Observation], Any] = freeze
    ) -> list[Any]:
        """``convert`` of the observations of the next ``seats`` decisions if the pending one
        and those after it were answered by ``filler(observation) -> action``, on a copy of
        the state vector: this game is left as it was.

        For a simultaneous-move game at the first seat of a turn this gives every seat's
        observation of the turn: the kernel hides the pending answers, so they do not depend
        on the filler's."""
        if not isinstance(self._turn, Decision):
            raise RuntimeError("no decision is pending: start a game first")
        saved = (self.state.copy(), self._turn, self._count, list(self.history))
        state_seed = None if self._rng is None else copy.deepcopy(self._rng)
        try:
            return _collect(self._turn, self.answer, seats, filler, convert)
        finally:
            self.state[:], self._turn, self._count, self.history = saved
            self._rng = state_seed

    def _play(self, action: int) -> None:
        assert self._rng is not None
        seed(int(self._rng.integers(2**32)))
        self.kernel.step(self.p, self.state, action)
        self._count += 1

    def _next(self) -> Turn:
        """The next decision or the end."""
        seat = self.kernel.to_move(self.p, self.state)
        if seat < 0:
            self._turn = Final(self._outcome(), self._count)
        else:
            self._turn = Decision(int(seat), self._observation(int(seat)), self._count)
        return self._turn

    def _observation(self, seat: int) -> Observation:
        """What ``seat`` sees now: every part the driver shows, read from the state on first use."""
        return observation_of(self.layout, 1, _StateReader(self, self.state, seat))

    def _outcome(self) -> Outcome:
        k, p, s = self.kernel, self.p, self.state
        seats = k.n_seats(p)
        rewards, scores = np.zeros(seats), np.zeros(seats)
        k.rewards(p, s, rewards)
        k.scores(p, s, scores)
        return Outcome(scores.reshape(1, -1), rewards.reshape(1, -1))


def make_stepper(game: Game, kind: str = "auto") -> KernelStepper:
    """The stepper of ``game`` (``kind``: ``auto`` or ``kernel``, the same stepper); a game
    without a kernel (a learner's toy MDP) has none: one FsmarenaError saying so."""
    if kind not in STEPPERS:
        raise FsmarenaError(f"stepper must be one of {', '.join(STEPPERS)}, got {kind!r}")
    if not has_kernel(game):
        raise FsmarenaError(f"{game.name} has no single-game kernel: the environments step a game's kernel")
    return KernelStepper(game)
