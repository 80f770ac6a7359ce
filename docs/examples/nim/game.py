"""Nim with one heap: the configuration and labels of the game (its rules and builtins are the
kernel, :mod:`.kernel`).

Rules.  A heap of ``stones`` (default 7); the players take turns, seat 0 first, each taking
1 to ``max_take`` (default 3) stones; whoever takes the last stone wins (+1, the other -1).
The first player wins with best play unless ``stones`` is a multiple of ``max_take + 1``: the
``optimal`` builtin takes ``stones_left % (max_take + 1)`` stones (one when that is zero).

Observations: ``index`` is the number of stones left (``stones + 1`` states, 0 never decides);
``features`` are the stones left as a share of the heap and the remainder modulo
``max_take + 1`` as a share of ``max_take``.  Actions: ``take_k`` takes ``k`` stones; the mask
allows at most the stones left.
"""

from __future__ import annotations

from dataclasses import dataclass

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game

MAX_STONES = 1000


@dataclass(frozen=True)
class NimConfig:
    """The heap's size and how many stones a move may take."""

    stones: int = 7
    max_take: int = 3

    def __post_init__(self) -> None:
        for name, value, high in (("stones", self.stones, MAX_STONES), ("max_take", self.max_take, 20)):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
                raise FsmarenaError(f"nim: {name} must be a whole number from 1 to {high}, got {value!r}")


class Nim(Game):
    """One-heap Nim; see the module docstring."""

    name = "nim"
    title = "Nim (2 players, one heap, take 1..k stones, the last stone wins)"
    Config = NimConfig
    feature_names = ("left", "remainder")

    @property
    def n_seats(self) -> int:
        return 2

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(f"take_{k}" for k in range(1, self.config.max_take + 1))

    @property
    def n_states(self) -> int:
        return self.config.stones + 1

    def state_label(self, index: int) -> str:
        return f"{int(index)} left"
