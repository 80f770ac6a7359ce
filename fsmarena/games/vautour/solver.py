"""Exact equilibria of two-player Stupide Vautour by backward induction over the public state.

Why it works.  Every bid is revealed at the end of its turn, so both players know everything
but the order of the prizes still face down: the *public state* (both hands, the prizes left,
the prize on the table, the carried pot, the score difference) is all a decision can depend
on.  Each turn is a simultaneous move, i.e. a zero-sum matrix game whose entries are the values
of the states it leads to, and the turn before it a chance node (the next prize, uniform over
those left).  Backward induction solves every matrix game with a linear program
(``scipy.optimize.linprog``, method ``"highs"``); the value at the start is the game's value
and the per-state mixed strategies are an equilibrium (a subgame-perfect one).

Rewards (``reward``): ``"wdl"`` (the engine's +1 win / 0 draw / -1 loss for the first seat) or
``"points"`` (its point difference).  The game is symmetric, so the value from the start is 0
in both; the solver serves every other public state too (uneven hands, a lead), and the
equilibrium strategy is what players are measured against (:mod:`fsmarena.games.vautour.exploit`).

Memoised on a canonical state, so that equal subgames are solved once:

* hands keep only the order of the cards: the union of both hands is renumbered 1, 2, ... (a
  card both players hold stays shared), which keeps every comparison of two bids;
* ``wdl``: a lead larger than everything still at stake decides the game (no strategy is
  stored there); ``points``: the lead only adds to the value, so it is left out of the key;
* the seats are swapped when that gives the smaller key (the value changes sign).

Cost.  The number of solved decisions grows 7 to 9-fold per card, each an LP of up to
``k x k`` bids; see ``docs/ground-truth.md`` for the measured times.
:data:`MAX_SOLVE_CARDS` bounds what ``fsmarena solve`` accepts.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np
from scipy.optimize import linprog

from fsmarena import progress
from fsmarena.errors import FsmarenaError
from fsmarena.games.bidding_zero_sum import MAX_SOLVE_CARDS, BiddingRules

REWARDS = ("wdl", "points")
#: a strategy's probabilities below this are treated as zero (LP noise)
TOLERANCE = 1e-12

#: (own hand, opponent's hand, prizes left, prize on the table, pot, lead) in canonical form
Key = tuple[int, int, int, int, int, int]


@dataclass
class Node:
    """One solved decision: its value for the row seat and both seats' strategies, each a
    probability per card of the hand in increasing order."""

    value: float
    row: np.ndarray
    column: np.ndarray


def bits(hand: int) -> list[int]:
    """The cards (1-based) of a hand bitmask, in increasing order."""
    return [c + 1 for c in range(hand.bit_length()) if hand >> c & 1]


def relabel(own: int, other: int) -> tuple[int, int]:
    """Both hands renumbered by their places in the union (order and shared cards kept)."""
    union = own | other
    a = b = 0
    place = 0
    while union:
        low = union & -union
        if own & low:
            a |= 1 << place
        if other & low:
            b |= 1 << place
        union ^= low
        place += 1
    return a, b


def solve_matrix(matrix: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Value and optimal mixed strategies of a zero-sum matrix game (row maximises).

    A pure saddle point is taken directly; otherwise an LP (HiGHS) finds the row strategy and
    its dual the column strategy, and both are polished by solving the equalities on their
    supports exactly, so values are accurate to rounding rather than to LP tolerances.
    """
    m, n = matrix.shape
    low = matrix.min(axis=1)
    high = matrix.max(axis=0)
    i, j = int(low.argmax()), int(high.argmin())
    if low[i] >= high[j]:
        x, y = np.zeros(m), np.zeros(n)
        x[i] = y[j] = 1.0
        return float(matrix[i, j]), x, y
    cost = np.zeros(m + 1)
    cost[-1] = -1.0
    result = linprog(
        cost,
        A_ub=np.hstack([-matrix.T, np.ones((n, 1))]),
        b_ub=np.zeros(n),
        A_eq=np.hstack([np.ones((1, m)), np.zeros((1, 1))]),
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    if result.status != 0:  # pragma: no cover - a bounded feasible LP always solves
        raise FsmarenaError(f"vautour solver: the linear program failed ({result.message})")
    x = np.clip(result.x[:m], 0, None)
    y = np.clip(-result.ineqlin.marginals, 0, None)
    x, y = x / x.sum(), y / y.sum()
    return _polish(matrix, x, y)


def _polish(matrix: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Exact equilibrium on the supports of ``x`` and ``y`` when they are square and the
    solution stays optimal; else the LP's own answer."""
    rows, cols = np.flatnonzero(x > 1e-9), np.flatnonzero(y > 1e-9)
    if len(rows) == len(cols):
        sub = matrix[np.ix_(rows, cols)]
        k = len(rows)
        system = np.zeros((k + 1, k + 1))
        system[:k, :k], system[:k, k], system[k, :k] = sub.T, -1.0, 1.0
        rhs = np.zeros(k + 1)
        rhs[k] = 1.0
        try:
            px = np.linalg.solve(system, rhs)
            system[:k, :k] = sub
            py = np.linalg.solve(system, rhs)
            solved = True
        except np.linalg.LinAlgError:
            solved = False
        if solved and px[:k].min() >= 0 and py[:k].min() >= 0:
            nx, ny = np.zeros(len(x)), np.zeros(len(y))
            nx[rows], ny[cols] = px[:k], py[:k]
            value = float(px[k])
            if (nx @ matrix).min() >= value - 1e-11 and (matrix @ ny).max() <= value + 1e-11:
                return value, nx, ny
    value = float(x @ matrix @ y)
    return value, x, y


@dataclass
class VautourSolver:
    """Backward induction for two-player Stupide Vautour (see the module docstring).

    ``value_at`` and ``decision`` accept any public state, so tests and the best response can
    ask about positions other than the start.
    """

    config: BiddingRules
    reward: str = "wdl"
    max_cards: int = MAX_SOLVE_CARDS
    nodes: dict[Key, Node] = field(default_factory=dict, repr=False)
    _chance: dict[tuple[int, int, int, int, int], float] = field(default_factory=dict, repr=False)
    #: the equilibrium's card probabilities by decision (asked again by every best response)
    _strategies: dict[tuple[int, ...], dict[int, float]] = field(default_factory=dict, repr=False)
    _solved: Callable[[int], object] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        cfg = self.config
        if cfg.players != 2:
            raise FsmarenaError(f"vautour: the exact solution is for two players (zero-sum); got players={cfg.players}")
        if cfg.cards > self.max_cards:
            raise FsmarenaError(
                f"vautour: {cfg.cards} cards are too many to solve exactly (at most {self.max_cards}; "
                "the work grows about 8-fold per card)"
            )
        if self.reward not in REWARDS:
            raise FsmarenaError(f"vautour: unknown reward '{self.reward}' (known: {', '.join(REWARDS)})")
        self.values = tuple(sorted(int(p) for p in cfg.prizes or ()))
        self.sizes = [abs(v) for v in self.values]
        self.cancel = cfg.tie_rule == "cancel"
        self.full = (1 << cfg.cards) - 1
        self.wdl = self.reward == "wdl"

    # ---- values -------------------------------------------------------------------------
    def value(self) -> float:
        """The game's value for the first seat from the start (0 by symmetry)."""
        return self.value_at(self.full, self.full, self.full, 0, 0)

    def value_at(self, own: int, other: int, left: int, pot: int, lead: int) -> float:
        """Value for the seat holding ``own`` before the next prize of ``left`` is turned up."""
        if self.wdl:
            decided = self._decided(left, pot, lead)
            if decided is not None:
                return decided
        elif lead:
            return lead + self.value_at(own, other, left, pot, 0)
        if not left:
            return float(np.sign(lead)) if self.wdl else 0.0
        a, b = relabel(own, other)
        sign = 1.0
        if (b, a, -lead) < (a, b, lead):
            a, b, lead, sign = b, a, -lead, -1.0
        key = (a, b, left, pot, lead)
        found = self._chance.get(key)
        if found is None:
            prizes = [p for p in range(len(self.values)) if left >> p & 1]
            found = sum(self.decision(a, b, left ^ (1 << p), p, pot, lead).value for p in prizes) / len(prizes)
            self._chance[key] = found
        return sign * found

    def _decided(self, left: int, pot: int, lead: int) -> float | None:
        """The result when the lead exceeds everything still at stake, else None."""
        at_stake = abs(pot) + sum(self.sizes[p] for p in range(len(self.values)) if left >> p & 1)
        return float(np.sign(lead)) if abs(lead) > at_stake else None

    def decision(self, own: int, other: int, left: int, prize: int, pot: int, lead: int) -> Node:
        """The solved matrix game with ``prize`` (a deck position) on the table and ``left``
        still face down; strategies per card of each hand in increasing order."""
        if not self.wdl:
            lead = 0
        a, b = relabel(own, other)
        if (b, a, -lead) < (a, b, lead):
            node = self._solve(b, a, left, prize, pot, -lead)
            return Node(-node.value, node.column, node.row)
        return self._solve(a, b, left, prize, pot, lead)

    def _solve(self, own: int, other: int, left: int, prize: int, pot: int, lead: int) -> Node:
        key = (own, other, left, prize, pot, lead)
        node = self.nodes.get(key)
        if node is None:
            node = Node(*solve_matrix(self.payoffs(*key)))
            self.nodes[key] = node
            if self._solved is not None:
                self._solved(1)
        return node

    def payoffs(self, own: int, other: int, left: int, prize: int, pot: int, lead: int) -> np.ndarray:
        """The matrix game: entry (i, j) is the value after own's i-th and other's j-th card."""
        value = self.values[prize]
        stake = pot + value if self.cancel else value
        positive = stake > 0 or (stake == 0 and value > 0)
        mine, theirs = bits(own), bits(other)
        matrix = np.empty((len(mine), len(theirs)))
        for i, x in enumerate(mine):
            for j, y in enumerate(theirs):
                rest_a, rest_b = own ^ (1 << (x - 1)), other ^ (1 << (y - 1))
                if x == y:
                    matrix[i, j] = self.value_at(rest_a, rest_b, left, stake if self.cancel else 0, lead)
                else:
                    gain = stake if (x > y) == positive else -stake
                    matrix[i, j] = self.value_at(rest_a, rest_b, left, 0, lead + gain)
        return matrix

    def strategy(self, own: int, other: int, left: int, prize: int, pot: int, lead: int) -> dict[int, float]:
        """The equilibrium's probability of each card of ``own`` in this state (a decided
        ``wdl`` state: uniform, every card is as good)."""
        key = (own, other, left, prize, pot, lead)
        found = self._strategies.get(key)
        if found is None:
            found = self._strategies[key] = self._strategy(*key)
        return found

    def _strategy(self, own: int, other: int, left: int, prize: int, pot: int, lead: int) -> dict[int, float]:
        cards = bits(own)
        if self.wdl and self._decided(left | (1 << prize), pot, lead) is not None:
            return {c: 1.0 / len(cards) for c in cards}
        node = self.decision(own, other, left, prize, pot, lead)
        return {c: float(p) for c, p in zip(cards, node.row) if p > TOLERANCE}

    def solve_all(self) -> float:
        """Solve every state reachable from the start; the value (for progress and timing)."""
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 10_000))
        try:
            with progress.bar(None, f"solving {self.config.cards} cards", "decision") as bar:
                self._solved = bar.update
                return self.value()
        finally:
            self._solved = None
            sys.setrecursionlimit(limit)

    def table(self) -> Iterator[tuple[Key, np.ndarray]]:
        """Every solved decision: canonical key and the row seat's strategy."""
        for key, node in self.nodes.items():
            yield key, node.row
