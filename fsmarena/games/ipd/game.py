"""The iterated prisoner's dilemma: the configuration, labels and builtins of the game (its rules
are the kernel, :mod:`.kernel`; rules.md says them in words).

Two players choose C (cooperate) or D (defect) at once, turn after turn; each turn pays
``(R, S, T, P)`` = ``(reward, sucker, temptation, punishment)``, (3, 0, 5, 1) by default:
R each for C/C, P each for D/D, and T to the defector, S to the cooperator for C/D.  A match
lasts ``turns`` turns (200) or, with ``prob_end`` > 0, ends after each turn with that probability
(at most ``turns``); with ``noise`` > 0 each action is flipped with that probability and both
players see the flipped action, as in Axelrod's library.  Scores are the score per turn;
rewards rank them (win / draw / loss), but the study objective is the score per turn
(``objective = "score"``): evolution's fitness and the learners' return are it.

Observations: ``index`` is the last ``memory`` joint moves (own, opponent's), base 5 with the
latest lowest, 0 for "before the first turn": ``5 ** memory`` states; the encoding
``opp_last`` (0 before the first turn, 1 C, 2 D) is what Axelrod's finite-state players read,
and the FSMs' default input.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game
from fsmarena.games.capabilities import SimultaneousMoves
from fsmarena.games.ipd.machines import MACHINES, machine_player

MAX_TURNS = 100_000
MAX_MEMORY = 5
MOVES = ("C", "D")


def _whole(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise FsmarenaError(f"ipd: {name} must be a whole number from {low} to {high}, got {value!r}")


@dataclass(frozen=True)
class IpdConfig:
    """The payoffs, the match's length and noise, and the memory the tabular state shows."""

    reward: int = 3
    sucker: int = 0
    temptation: int = 5
    punishment: int = 1
    turns: int = 200
    prob_end: float = 0.0
    noise: float = 0.0
    memory: int = 1

    def __post_init__(self) -> None:
        for name in ("reward", "sucker", "temptation", "punishment"):
            _whole(name, getattr(self, name), -1000, 1000)
        _whole("turns", self.turns, 1, MAX_TURNS)
        _whole("memory", self.memory, 1, MAX_MEMORY)
        for name in ("prob_end", "noise"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise FsmarenaError(f"ipd: {name} must be a probability in [0, 1], got {value!r}")

    @property
    def generosity(self) -> float:
        """The generous tit for tat's forgiveness by default, Nowak and Sigmund's
        min(1 - (T - R) / (R - S), (R - P) / (T - P)) as Axelrod's ``GTFT`` computes it (1/3 for
        the default payoffs), clipped to [0, 1]; 0 where the payoffs leave it undefined."""
        r, s, t, p = self.reward, self.sucker, self.temptation, self.punishment
        if r == s or t == p:
            return 0.0
        return min(max(min(1 - (t - r) / (r - s), (r - p) / (t - p)), 0.0), 1.0)


class IteratedPrisonersDilemma(Game, SimultaneousMoves):
    """The iterated prisoner's dilemma; see the module docstring."""

    name = "ipd"
    title = "Iterated prisoner's dilemma (2 players, C/D, Axelrod's payoffs and classics)"
    Config = IpdConfig
    feature_names = ("opp_last_c", "own_last_c", "opp_cooperation", "turn")
    fsm_inputs = "opp_last"
    objective = "score"

    @property
    def n_seats(self) -> int:
        return 2

    @property
    def action_names(self) -> tuple[str, ...]:
        return MOVES

    @property
    def n_states(self) -> int:
        return 5**self.config.memory

    @property
    def encodings(self) -> Mapping[str, int]:
        return {"opp_last": 3}

    def encoding_label(self, name: str, value: int) -> str:
        return ("start", "opp C", "opp D")[int(value)] if name == "opp_last" else super().encoding_label(name, value)

    def state_label(self, index: int) -> str:
        """The joint moves (own, opponent's), the latest last: ``CD DD``; ``start`` before any."""
        index = int(index)
        if not 0 <= index < self.n_states:
            raise FsmarenaError(f"ipd: no state {index} (states are 0..{self.n_states - 1})")
        moves = []
        for _ in range(self.config.memory):
            index, code = divmod(index, 5)
            if code:
                moves.append(MOVES[(code - 1) >> 1] + MOVES[(code - 1) & 1])
        return " ".join(reversed(moves)) or "start"

    def builtin_players(self) -> dict[str, Callable[[], Any]]:
        """The kernel's classics and the published finite-state machines (:mod:`.machines`)."""
        players = super().builtin_players()
        for name in MACHINES:
            players[name] = functools.partial(machine_player, name)
        return players
