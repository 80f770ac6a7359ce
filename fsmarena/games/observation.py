"""What a deciding seat sees and what a batch of games ends with: the two records every engine,
player and learner share (:class:`Observation`, :class:`Outcome`), kept apart from
:class:`fsmarena.games.base.Game` so that the generic driver (:mod:`fsmarena.games.driver`), which the game's
``play`` runs, and the kernel contract (:mod:`fsmarena.games.kernel`) read them without importing the
game contract.  :mod:`fsmarena.games.base` re-exports them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fsmarena.errors import FsmarenaError

Decide = Callable[[int, "Observation", "np.ndarray | None"], np.ndarray]


class Observation:
    """What one seat sees at one decision, for a batch of games; parts computed on first use.

    ``n`` is the number of rows and ``n_actions`` the game's number of abstract actions.
    Standard parts: ``index`` (int array, values in ``[0, game.n_states)``), ``features``
    (float array ``(rows, len(game.feature_names))``), ``mask`` (bool array
    ``(rows, game.n_actions)`` or ``None`` when all actions are legal), ``step`` (the
    decision number within the game, an int or int array).  Games add their own
    small-integer encodings (listed in ``game.encodings``).

    ``source``: the kernel's readers over the states these rows were read from
    (:class:`fsmarena.games.kernel.Reader`), through which players that are kernel code (the
    games' builtins, :class:`fsmarena.games.builtin_player.BuiltinPlayer`) decide; ``None`` for an
    observation built otherwise.
    """

    #: ``__dict__`` holds the parts read so far, so a part read again is a plain attribute
    __slots__ = ("n", "n_actions", "source", "_parts", "__dict__")

    def __init__(self, n: int, n_actions: int, source: Any = None, **parts: Callable[[], Any] | Any):
        self.n = n
        self.n_actions = n_actions
        self.source = source
        self._parts = parts

    def __getattr__(self, name: str) -> Any:
        """Part ``name`` on its first read (Python asks here only for a name not found)."""
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            part = self._parts[name]
        except KeyError:
            raise AttributeError(f"this observation has no part '{name}'") from None
        value = part() if callable(part) else part
        self.__dict__[name] = value
        return value

    def with_part(self, name: str, value: Any) -> "Observation":
        """This observation with part ``name`` given as ``value`` (e.g. one number for the
        whole batch where the rows all hold it)."""
        return Observation(self.n, self.n_actions, self.source, **{**self._parts, name: value})

    def subset(self, rows: np.ndarray) -> "Observation":
        """The same observation restricted to ``rows`` (positions within this batch).  A part
        not yet read stays unread: it is read here, and cut to ``rows``, when the subset is
        first asked for it (a player that reads one part pays for that part only)."""
        parts = {name: self._rows_of(name, rows) for name in self._parts}
        source = None if self.source is None else self.source.subset(rows)
        return Observation(len(rows), self.n_actions, source, **parts)

    def _rows_of(self, name: str, rows: np.ndarray) -> Callable[[], Any] | Any:
        """Part ``name`` restricted to ``rows``: the value when it is known, else how to get it."""
        if name in self.__dict__ or not callable(self._parts[name]):
            return _cut(getattr(self, name), rows)
        return lambda: _cut(getattr(self, name), rows)


def _cut(value: Any, rows: np.ndarray) -> Any:
    """``value[rows]`` for an array with rows; anything else (one number for the batch) as it is."""
    return value[rows] if isinstance(value, np.ndarray) and value.ndim else value


@dataclass
class Outcome:
    """Final result of a batch of games.

    ``scores``: ``(n, n_seats)`` float, the game's own score (card points, dice score, lives,
    prize total).  ``rewards``: ``(n, n_seats)`` float, what learners maximise and what
    win/draw/loss counts come from: +1 for a sole winner, 0 for a shared first place, -1
    otherwise; in a one-player game the reward is the score itself.
    """

    scores: np.ndarray
    rewards: np.ndarray

    @property
    def n(self) -> int:
        return len(self.scores)


def rewards_from_ranking(points: np.ndarray) -> np.ndarray:
    """+1 sole best, 0 shared best, -1 otherwise, from ``(n, seats)`` comparable points.

    Pass exact (integer) points where the game has them, so ties are exact.
    """
    best = points.max(axis=1, keepdims=True)
    at_best = points == best
    shared = at_best.sum(axis=1, keepdims=True) > 1
    rewards = np.where(at_best, np.where(shared, 0.0, 1.0), -1.0)
    return rewards


#: what a game's study maximises (:attr:`fsmarena.games.base.Game.objective`)
OBJECTIVES = ("rank", "score")


def objective_values(objective: str, outcome: Outcome) -> np.ndarray:
    """The ``(n, seats)`` values learners and evolution maximise under ``objective``: the ranking
    rewards (``"rank"``) or the game's own scores (``"score"``); win counts stay the rewards'."""
    if objective not in OBJECTIVES:
        raise FsmarenaError(f"unknown objective '{objective}' (known: {', '.join(OBJECTIVES)})")
    return outcome.scores if objective == "score" else outcome.rewards
