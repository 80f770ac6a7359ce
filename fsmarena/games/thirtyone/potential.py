"""31's lives potential: how good a lives situation is, the one source of round-level rewards.

A game of 31 lasts dozens of rounds, and its +1 / -1 result arrives only at the end.  Every
round, though, changes the lives, and ``V(lives)`` - seat ``seat``'s ``2 P(win) - 1`` when
every round one live player, chosen uniformly, loses one life - says how much better or
worse that change left the seat.  It does not depend on the policy being learned, so it gives
a signal even while a learner loses every game; it is +1 once the seat is the last one
standing and -1 once it is out, so the changes summed over a game telescope to the game
result (minus the constant ``V`` of the start).

The network learner and the tabular learners on the batched driver (through the
``potential`` part of the game's observations) and the compiled kernel
(:func:`fsmarena.games.thirtyone.kernel.potential`) all read it from here.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np


class LivesPotential:
    """``V(lives)`` for ``players`` seats of up to ``lives`` lives; see the module docstring."""

    def __init__(self, players: int, lives: int):
        self.S, self.L = players, lives
        self._memo: dict[tuple[int, tuple[int, ...]], float] = {}
        self._table: np.ndarray | None = None

    @classmethod
    def of(cls, game: Any) -> "LivesPotential":
        """The potential of a 31 game (its number of seats and lives)."""
        return cls(game.n_seats, game.config.lives)

    def win_probability(self, own: int, others: tuple[int, ...]) -> float:
        """P(win) of a seat with ``own`` lives against opponents with ``others`` lives."""
        others = tuple(sorted(o for o in others if o > 0))
        if own <= 0:
            return 0.0
        if not others:
            return 1.0
        key = (own, others)
        if key not in self._memo:
            live = 1 + len(others)
            total = self.win_probability(own - 1, others)
            for k in range(len(others)):
                hit = others[:k] + (others[k] - 1,) + others[k + 1 :]
                total += self.win_probability(own, hit)
            self._memo[key] = total / live
        return self._memo[key]

    def exact_value(self, lives: np.ndarray, seat: int) -> np.ndarray:
        """``V`` for each row of a ``(rows, seats)`` lives array, from ``seat``'s side, by the
        recursion (what :func:`potential_table` tabulates)."""
        out = np.empty(len(lives))
        for i, row in enumerate(np.asarray(lives).tolist()):
            others = tuple(row[:seat] + row[seat + 1 :])
            out[i] = 2.0 * self.win_probability(row[seat], others) - 1.0
        return out

    def value(self, lives: np.ndarray, seat: int) -> np.ndarray:
        """``V`` for each row of a ``(rows, seats)`` lives array, from ``seat``'s side (a look-up
        in the table of every lives vector, built on first use)."""
        if self._table is None:
            self._table = potential_table(self.S, self.L, self)
        return self._table[lives_codes(np.asarray(lives).reshape(-1, self.S), self.L), seat]


def lives_codes(lives: np.ndarray, max_lives: int) -> np.ndarray:
    """Row numbers of :func:`potential_table` for a ``(rows, seats)`` lives array: the lives
    in base ``max_lives + 1``, seat 0 the lowest digit."""
    weights = (max_lives + 1) ** np.arange(lives.shape[1], dtype=np.int64)
    return np.asarray(lives, dtype=np.int64) @ weights


def potential_table(players: int, lives: int, potential: LivesPotential | None = None) -> np.ndarray:
    """``V`` of every lives vector (rows, numbered by :func:`lives_codes`) for every seat."""
    potential = potential or LivesPotential(players, lives)
    rows = np.array(list(itertools.product(range(lives + 1), repeat=players)), dtype=np.int64)
    table = np.empty(((lives + 1) ** players, players))
    codes = lives_codes(rows, lives)
    for seat in range(players):
        table[codes, seat] = potential.exact_value(rows, seat)
    return table
