"""One game, one decision at a time: the engine's ``decide`` callback turned inside out.

Every fsmarena game has a batched engine, :meth:`games.base.Game.play`, which *calls* its
players.  Reinforcement-learning libraries want the opposite: they call the game, one action
at a time (``step``).  A :class:`Stepper` bridges the two for any registered game, so every
game (and every future one) gets environments just by being registered:

* :meth:`Stepper.start` begins one game and returns the first :class:`Decision` (which seat
  is to move, with the observation the engine built for it) or the :class:`Final` outcome;
* :meth:`Stepper.answer` gives the action of the seat to move and returns the next one;
* :meth:`Stepper.close` abandons the game.

:class:`ThreadStepper` is the generic implementation: the engine plays ``Game.play(1, rng,
decide)`` in a worker thread, and ``decide`` hands each observation over and waits for the
answer, so the engine runs unchanged and a game played step by step is *the same game*
``Game.play`` plays with the same generator and the same answers (the random draws happen in
the same order).  Only one side runs at a time.  The worker never holds a reference to its
stepper, so a stepper dropped mid-game is garbage-collected and its worker ends; ``close``
ends it at once.  :class:`KernelStepper` implements the same methods without a thread, on
the game's compiled single-game kernel (reset / to_move / observe / step / outcome), for the
games that have one: one compiled call per step instead of a thread hand-over and a batched
engine call for a single game.

Both steppers can play *the same episodes*: a game is defined by its generator, from which
the stepper draws the game's deal with the kernel (:class:`KernelDeals`: one 32-bit seed of
the compiled stream, then ``draw_deal``).  :class:`KernelStepper` always deals this way; a
:class:`ThreadStepper` given a :class:`KernelDeals` hands the same deal to the engine (the
kernel's ``engine_script``), so on the same generator and the same answers both give the
same observations, rewards and outcome.  The one exception is a chance *action* (Stupide
Vautour's ``random`` bid under ``action_set=abstract``), which each side draws from its own
stream.  :func:`make_stepper` chooses: the kernel where the game has one, else the thread.

A :class:`Decision`'s observation is the engine's own, valid until the decision is answered
(the engine may then reuse what its parts read): read what you need first, or keep
:func:`freeze` of it.

Both steppers check every answer before the game sees it (:func:`checked_answer`): an action
that is not a whole number, out of range or outside the legal mask raises
:class:`IllegalAction` and leaves the game as it was, so no caller, whether a learner or an
opponent's player object, can index a compiled kernel out of bounds.

Both steppers pickle and deep-copy, mid-game included, and the copy continues the same game:
:class:`KernelStepper` keeps its whole game in its state vector and its generator (the kernel
module is looked up again on loading); :class:`ThreadStepper` keeps the generator it started
from and the answers given, and the copy's worker replays them.
"""

from __future__ import annotations

import copy
import queue
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from fsmarena.errors import FsmarenaError
from games.base import Game, Observation, Outcome

#: stepper choices of :func:`make_stepper` (and of the environments' ``stepper`` keyword)
STEPPERS = ("auto", "kernel", "thread")


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


class Stepper(Protocol):
    """A game played one decision at a time (see the module docstring)."""

    game: Game

    def start(self, rng: np.random.Generator) -> Turn:
        """Begin a new game with ``rng`` (abandoning any game in progress)."""

    def answer(self, action: int) -> Turn:
        """The action of the seat to move; returns what comes next."""

    def close(self) -> None:
        """Abandon the game in progress and release what it holds (idempotent)."""


def freeze(obs: Observation) -> Observation:
    """A copy of ``obs`` with every part evaluated now (arrays copied), independent of the
    engine's state."""
    parts = {}
    for name in obs._parts:  # noqa: SLF001 - the contract's own part list
        value = getattr(obs, name)
        parts[name] = value.copy() if isinstance(value, np.ndarray) else value
    return Observation(obs.n, obs.n_actions, **parts)


def _collect(
    turn: Turn, answer: Callable[[int], Turn], seats: int, filler: Callable[[Observation], int], convert: Callable
) -> list[Any]:
    """The probe loop both steppers share: ``convert`` of the observations of the next
    ``seats`` decisions from ``turn`` on, answering each but the last with ``filler``."""
    seen: list = []
    while isinstance(turn, Decision) and len(seen) < seats:
        seen.append(convert(turn.observation))
        if len(seen) < seats:
            turn = answer(filler(turn.observation))
    return seen


class KernelDeals:
    """The deal of a game drawn by the game's kernel from a generator (module docstring):
    the one episode definition both steppers share."""

    def __init__(self, game: Game):
        from games.kernel import kernel_of, params_of

        self.game = game
        self.kernel = kernel_of(game)
        self.p = params_of(game)
        self.deal = np.zeros(self.kernel.deal_size(self.p), dtype=np.int64)

    def __getstate__(self) -> dict[str, Any]:
        return {name: value for name, value in self.__dict__.items() if name != "kernel"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        from games.kernel import kernel_of

        self.__dict__.update(state)
        self.kernel = kernel_of(self.game)

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """A fresh deal into :attr:`deal` (one draw from ``rng`` seeds the compiled stream)."""
        from games.kernel import seed

        seed(int(rng.integers(2**32)))
        self.kernel.draw_deal(self.p, self.deal)
        return self.deal

    def script(self) -> dict[str, Any]:
        """The keywords of ``Game.play`` that make the engine play the current deal."""
        return dict(self.kernel.engine_script(self.game.config, self.deal.reshape(1, -1).copy()))


class _Abort(BaseException):
    """Raised inside the engine's ``decide`` to unwind an abandoned game (a BaseException,
    so that no ``except Exception`` in an engine can swallow it)."""


_ABORT = object()


@dataclass
class _Channel:
    """The two one-way queues between the engine thread and the stepper."""

    requests: "queue.SimpleQueue[object]" = field(default_factory=queue.SimpleQueue)
    answers: "queue.SimpleQueue[object]" = field(default_factory=queue.SimpleQueue)


@dataclass(frozen=True)
class _Failed:
    error: BaseException


def _engine(game: Game, rng: np.random.Generator, channel: _Channel, script: dict[str, Any]) -> None:
    """The worker: plays one game (``script``: scripted-deal keywords of ``Game.play``),
    handing every decision over ``channel``."""
    count = 0

    def decide(seat: int, obs: Observation, rows: np.ndarray | None) -> np.ndarray:
        nonlocal count
        if obs.n == 0:
            return np.zeros(0, dtype=np.int64)
        channel.requests.put(Decision(int(seat), obs, count))
        reply = channel.answers.get()
        if reply is _ABORT:
            raise _Abort
        count += 1
        return np.full(obs.n, reply, dtype=np.int64)

    try:
        outcome = game.play(1, rng, decide, **script)
    except _Abort:
        return
    except BaseException as exc:  # handed to the caller, raised there
        channel.requests.put(_Failed(exc))
        return
    channel.requests.put(Final(outcome, count))


def _stop(channel: _Channel, thread: threading.Thread | None) -> None:
    """End a worker: tell it to abort (it is waiting for an answer, or soon will be) and
    wait for it.  Module-level, so a finalizer can call it without the stepper."""
    if thread is not None and thread.is_alive():
        channel.answers.put(_ABORT)
        if thread is not threading.current_thread():
            thread.join()


class ThreadStepper:
    """The generic stepper: the batched engine on one game, in a worker thread.

    Between :meth:`start` and the :class:`Final` turn exactly one worker exists; it ends by
    itself when the game is over, and :meth:`close`, a new :meth:`start` or garbage
    collection of the stepper end it early.  ``history`` records the answers given so far,
    which :meth:`probe` replays.

    With a ``dealer`` (:class:`KernelDeals` of a game with a kernel) every game is dealt from
    the generator given to :meth:`start`, so it is the game :class:`KernelStepper` plays with
    that generator; ``deal`` is then the current deal.  Without one the engine deals itself,
    so a game is exactly ``Game.play(1, rng, ...)``'s.
    """

    def __init__(self, game: Game, dealer: KernelDeals | None = None):
        self.game = game
        self.dealer = dealer
        self.history: list[int] = []
        self._channel = _Channel()
        self._thread: threading.Thread | None = None
        self._initial: np.random.Generator | None = None
        self._turn: Turn | None = None
        self._finalizer = weakref.finalize(self, _stop, self._channel, None)

    @property
    def turn(self) -> Turn | None:
        """The current turn (``None`` before the first :meth:`start` and after :meth:`close`)."""
        return self._turn

    @property
    def deal(self) -> np.ndarray | None:
        """The current game's kernel deal (with a dealer), else None."""
        return None if self.dealer is None else self.dealer.deal

    @property
    def running(self) -> bool:
        """Whether a worker thread is alive (a game is in progress)."""
        return self._thread is not None and self._thread.is_alive()

    def start(self, rng: np.random.Generator) -> Turn:
        self.close()
        self._initial = copy.deepcopy(rng)
        self.history = []
        return self._launch(rng)

    def _launch(self, rng: np.random.Generator) -> Turn:
        """Start the worker on a new game dealt from ``rng``; its first turn."""
        script: dict[str, Any] = {}
        if self.dealer is not None:
            self.dealer.draw(rng)
            script = self.dealer.script()
        self._channel = _Channel()
        self._thread = threading.Thread(
            target=_engine,
            args=(self.game, rng, self._channel, script),
            name=f"fsmarena-{self.game.name}-engine",
            daemon=True,
        )
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _stop, self._channel, self._thread)
        self._thread.start()
        return self._receive()

    def answer(self, action: int) -> Turn:
        number = checked_answer(self._turn, action)
        self.history.append(number)
        self._channel.answers.put(number)
        return self._receive()

    def close(self) -> None:
        _stop(self._channel, self._thread)
        self._thread = None
        self._turn = None

    def __getstate__(self) -> dict[str, Any]:
        """The game so far as its starting generator and its answers (the worker, its queues
        and the engine's observations stay behind)."""
        return {
            "game": self.game,
            "dealer": self.dealer,
            "initial": self._initial,
            "history": list(self.history),
            "running": isinstance(self._turn, Decision),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A new worker replays the pickled game up to its pending decision."""
        ThreadStepper.__init__(self, state["game"], state["dealer"])
        self._initial = state["initial"]
        if state["running"] and self._initial is not None:
            self._launch(copy.deepcopy(self._initial))
            for action in state["history"]:
                self.answer(action)
        self.history = list(state["history"])

    def _receive(self) -> Turn:
        message = self._channel.requests.get()
        if isinstance(message, _Failed):
            self._join()
            self._turn = None
            raise message.error
        assert isinstance(message, (Decision, Final))
        if isinstance(message, Final):
            self._join()
        self._turn = message
        return message

    def _join(self) -> None:
        if self._thread is not None:
            self._thread.join()
        self._thread = None

    def probe(
        self, seats: int, filler: Callable[[Observation], int], convert: Callable[[Observation], Any] = freeze
    ) -> list[Any]:
        """``convert`` of the observations of the next ``seats`` decisions if the pending one
        and those after it were answered by ``filler(observation) -> action``, without
        touching this game: a second worker replays the game so far (same generator state,
        same answers) and is then abandoned.

        For a simultaneous-move game at the first seat of a turn this gives every seat's
        observation of the turn: they are built before any bid is revealed, so they do not
        depend on the filler's answers.
        """
        if self._initial is None or not isinstance(self._turn, Decision):
            raise RuntimeError("no decision is pending: start a game first")
        shadow = ThreadStepper(self.game, self.dealer)
        try:
            turn = shadow.start(copy.deepcopy(self._initial))
            for action in self.history:
                turn = shadow.answer(action)
            return _collect(turn, shadow.answer, seats, filler, convert)
        finally:
            shadow.close()


class KernelStepper:
    """A stepper over the game's compiled single-game kernel (:mod:`games.kernel`): no
    thread, the whole game is one int64 state vector, a step is one compiled call.

    The kernel draws its deal (and any chance action, such as Stupide Vautour's ``random``
    bid) from the compiled random stream; the stepper seeds that stream from the generator
    given to :meth:`start` before the deal and before every answer, so a game depends only on
    that generator and the answers, however many steppers share the process.  ``deal`` is
    the deal of the current game: the batched engine plays the same game when given it
    (``kernel.engine_script``), which is how the tests check that both agree.

    ``opponents`` maps seats to kernel builtin codes (``kernel.BUILTINS``): those seats are
    played inside the stepper, and only the other seats' decisions are returned.
    """

    def __init__(self, game: Game, opponents: dict[int, int] | None = None):
        self.game = game
        self.dealer = KernelDeals(game)
        self.kernel, self.p = self.dealer.kernel, self.dealer.p
        self.opponents = dict(opponents or {})
        k, p = self.kernel, self.p
        self._state = np.zeros(k.state_size(p), dtype=np.int64)
        self._mask = np.zeros(k.n_actions(p), dtype=np.bool_)
        self._features = np.zeros(max(1, k.n_features(p)))
        self._n_features = k.n_features(p)
        self._encodings = list(game.encodings)
        self.deal = self.dealer.deal
        self.history: list[int] = []
        self._rng: np.random.Generator | None = None
        self._turn: Turn | None = None
        self._count = 0

    @property
    def turn(self) -> Turn | None:
        return self._turn

    @property
    def running(self) -> bool:
        return isinstance(self._turn, Decision)

    def start(self, rng: np.random.Generator) -> Turn:
        self._rng = rng
        self.history, self._count = [], 0
        self.dealer.draw(rng)
        self.kernel.reset(self.p, self._state, self.deal)
        return self._next()

    def answer(self, action: int) -> Turn:
        number = checked_answer(self._turn, action)
        self._play(number)
        self.history.append(number)
        return self._next()

    def close(self) -> None:
        self._turn = None

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the kernel module, which loading looks up again."""
        return {name: value for name, value in self.__dict__.items() if name != "kernel"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.kernel = self.dealer.kernel
        self.deal = self.dealer.deal

    def probe(
        self, seats: int, filler: Callable[[Observation], int], convert: Callable[[Observation], Any] = freeze
    ) -> list[Any]:
        """As :meth:`ThreadStepper.probe`, on a copy of the state vector."""
        if not isinstance(self._turn, Decision):
            raise RuntimeError("no decision is pending: start a game first")
        saved = (self._state.copy(), self._turn, self._count, list(self.history))
        state_seed = None if self._rng is None else copy.deepcopy(self._rng)
        try:
            return _collect(self._turn, self.answer, seats, filler, convert)
        finally:
            self._state[:], self._turn, self._count, self.history = saved
            self._rng = state_seed

    def _play(self, action: int) -> None:
        from games.kernel import seed

        assert self._rng is not None
        seed(int(self._rng.integers(2**32)))
        self.kernel.step(self.p, self._state, action)
        self._count += 1

    def _next(self) -> Turn:
        """Play the stepper's own seats, then return the next outside decision or the end."""
        k, p, s = self.kernel, self.p, self._state
        while True:
            seat = k.to_move(p, s)
            if seat < 0:
                self._turn = Final(self._outcome(), self._count)
                return self._turn
            if seat not in self.opponents:
                self._turn = Decision(int(seat), self._observation(int(seat)), self._count)
                return self._turn
            self._play_builtin(int(seat))

    def _play_builtin(self, seat: int) -> None:
        """The stepper's own seat ``seat`` moves (its builtin draws from the seeded stream)."""
        from games.kernel import seed

        assert self._rng is not None
        seed(int(self._rng.integers(2**32)))
        action = self.kernel.builtin_action(self.p, self._state, seat, self.opponents[seat])
        self._play(int(action))

    def _observation(self, seat: int) -> Observation:
        k, p, s = self.kernel, self.p, self._state
        k.legal(p, s, seat, self._mask)
        parts: dict[str, Any] = {
            "index": np.array([k.observe_index(p, s, seat)], dtype=np.int64),
            # None when every action is legal, as the engines give it (players draw differently)
            "mask": None if self._mask.all() else self._mask.reshape(1, -1).copy(),
            "step": self._count,
        }
        if self._n_features:
            k.features(p, s, seat, self._features)
            parts["features"] = self._features[: self._n_features].reshape(1, -1).copy()
        for which, name in enumerate(self._encodings):
            parts[name] = np.array([k.encoding(p, s, seat, which)], dtype=np.int64)
        return Observation(1, k.n_actions(p), **parts)

    def _outcome(self) -> Outcome:
        k, p, s = self.kernel, self.p, self._state
        seats = k.n_seats(p)
        rewards, scores = np.zeros(seats), np.zeros(seats)
        k.rewards(p, s, rewards)
        k.scores(p, s, scores)
        return Outcome(scores.reshape(1, -1), rewards.reshape(1, -1))


def make_stepper(game: Game, kind: str = "auto") -> ThreadStepper | KernelStepper:
    """A stepper for ``game``: ``kernel`` (:class:`KernelStepper`), ``thread`` (a dealt
    :class:`ThreadStepper` when the game has a kernel, so both play the same episodes; the
    engine's own deal otherwise) or ``auto`` (the kernel where the game has one)."""
    from games.kernel import has_kernel

    if kind not in STEPPERS:
        raise FsmarenaError(f"stepper must be one of {', '.join(STEPPERS)}, got {kind!r}")
    compiled = has_kernel(game)
    if kind == "kernel" and not compiled:
        raise FsmarenaError(f"{game.name} has no single-game kernel: use stepper='thread' (or 'auto')")
    if kind == "kernel" or (kind == "auto" and compiled):
        return KernelStepper(game)
    return ThreadStepper(game, KernelDeals(game) if compiled else None)
