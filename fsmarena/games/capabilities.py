"""Optional abilities a game declares by inheriting them, checked with ``isinstance``.

Every game has the :class:`fsmarena.games.base.Game` contract.  A few have more, and the generic layers
ask for it in one way only, ``isinstance(game, Capability)``, never by looking for an
attribute by name:

* :class:`ExactModel`: the transition model is known (421), so the optimum and the exact
  value of any table policy come from dynamic programming; ``fsmarena solve``, evolution's
  ``score`` protocol and the learners' exact learning curves use it.
* :class:`SimultaneousMoves`: every turn the engine asks every seat, in seat order, with
  observations built before any answer of the turn is revealed (Stupide Vautour); the
  environments offer PettingZoo's parallel API for such games.
* :class:`ZeroSumSolvable`: a two-player zero-sum game small enough to solve exactly (Stupide
  Vautour with a small deck): its value, an equilibrium as a player, and the exploitability
  of any player (its exact best response); ``fsmarena solve`` and ``fsmarena exploit``; a
  study of such a game, when :meth:`ZeroSumSolvable.solvable` says this configuration is
  within reach, records the exploitability of each competitor's player along its learning curve.
* :class:`SegmentRewards`: the game is cut into segments (31: rounds) whose observations
  carry a segment number and the deciding seat's potential, so learners may be rewarded
  segment by segment (:mod:`fsmarena.rl.segments`, training option ``reward = "segment"``).

Other optional parts are plain fields with defaults: ``Game.train_defaults`` (per-algorithm
training settings), ``Game.encoding_label`` (readable FSM inputs), and in the game's
:class:`fsmarena.games.registry.GameEntry` its network heads, study methods and the chart of an exact policy.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from fractions import Fraction
from typing import Any, ClassVar, Mapping

import numpy as np


class ExactModel(ABC):
    """A game whose model is known: exact optimum and exact values of policies.

    What a study's exact-values report (:mod:`fsmarena.studies.exact_report`) shows of the optimum
    comes from here: the value and table of :meth:`exact_optimum`, the table as rows and as text,
    how to read them (:attr:`policy_intro`) and the caption of the game's chart of it, which its
    registry entry names (``GameEntry.policy_figure``; drawing is not the rules' business)."""

    #: how to read :meth:`policy_rows` (one sentence, in a report)
    policy_intro: ClassVar[str] = ""
    #: the caption of the chart ``GameEntry.policy_figure`` draws of an optimal table
    policy_caption: ClassVar[str] = ""

    @abstractmethod
    def model(self) -> Any:
        """The game as an :class:`fsmarena.games.mdp.TabularMDP` in the observation numbering."""

    @abstractmethod
    def exact_optimum(self) -> tuple[Fraction, np.ndarray]:
        """The optimal expected score (exact) and an optimal action table."""

    @abstractmethod
    def exact_value(self, policy: Any) -> Fraction:
        """The exact expected score of a table policy or action table."""

    @abstractmethod
    def exact_player_values(self, player: Any) -> np.ndarray:
        """Exact expected score of every member of a table policy or table FSM (float64)."""

    @abstractmethod
    def policy_rows(self, table: np.ndarray) -> list[dict]:
        """An action table as readable rows (for ``fsmarena solve``)."""

    @abstractmethod
    def policy_text(self, table: np.ndarray) -> str:
        """An action table as readable text (for ``fsmarena solve``)."""


class SegmentRewards:
    """A game cut into segments, each observation carrying ``segment`` (the segment's number,
    non-decreasing within a game) and ``potential`` (the deciding seat's potential, constant
    within a segment): the contract of segment rewards (:mod:`fsmarena.rl.segments`)."""

    #: what a segment is called in messages and reports (31: "round")
    segment_name: str = "segment"


class SimultaneousMoves:
    """A game whose seats move simultaneously: each turn ``decide`` is called for seats
    0, 1, ... in order, and no observation of the turn depends on another seat's answer."""


class ZeroSumSolvable(ABC):
    """A two-player zero-sum game solved exactly by backward induction over public states.

    The game names its solver, a module with the functions ``solve_equilibrium(game, reward)``
    and ``exploitability(game, player, reward)``, imported on first use: the solver may import
    the game (its rules, its players), and the game need not import it."""

    #: the module that solves the game (``"fsmarena.games.vautour.exploit"``)
    solver: ClassVar[str]
    #: the rewards the solution can be computed for (the first is the engine's own)
    solve_rewards: tuple[str, ...] = ("wdl",)
    #: rule parameters (``--param`` strings) of a configuration solved in seconds, for
    #: examples and for the tests every game gets (the default rules may be too large)
    example_params: ClassVar[Mapping[str, str]] = {}

    def solve_equilibrium(self, reward: str = "wdl") -> tuple[float, Any]:
        """The game's value for the first seat and an equilibrium as a player."""
        return importlib.import_module(self.solver).solve_equilibrium(self, reward)

    def solvable(self) -> bool:
        """Whether this configuration is small enough to solve (a game may be solvable only
        for some parameters, e.g. two players and a small deck)."""
        return True

    def exploitability(self, player: Any, reward: str = "wdl") -> dict[str, Any]:
        """The exact best-response value against ``player``, the equilibrium's value against
        it and the exploitability (best response minus the game's value), JSON-ready."""
        return importlib.import_module(self.solver).exploitability(self, player, reward)
