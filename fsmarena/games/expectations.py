"""What a game declares that its contract tests must find: the record each game folder fills in.

In the style of Axelrod's ``TestPlayer`` (``expected_classifier`` and scripted plays per
strategy): the contract suite (``tests/contract/``) runs the same checks over every registered
game, and each game says, in ``fsmarena/games/<name>/expectations.py``, what those checks must find for
it.  A game's entry names the record (``GameEntry.expectations``); a game that declares none
fails the suite.

* :class:`Expectations` holds the *classifier* (seats, simultaneous moves, chance, zero-sum
  rewards, exact model, exact solver, single-game kernel, builtin players), each checked
  against what the game observably does, and small configurations every contract check plays;
* :class:`ScriptedDeal` is one deal worked out by hand: the rule parameters, the kernel deal
  (deck order, dice, prize order), every decision in the order the game asks for it, and the
  final scores and rewards.  The hand calculation stands in a comment beside it, so that the
  kernel is held to the rules as written, not to itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class ScriptedDeal:
    """One game played from a fixed deal with fixed decisions, worked out by hand.

    ``actions`` lists ``(seat, action)`` in the order the game asks (simultaneous seats in
    seat order); the test fails if the game asks another seat, asks more or fewer times, or
    the action is not legal there.  ``scores`` and ``rewards`` are the final ones per seat."""

    label: str
    params: Mapping[str, str]
    deal: tuple[int, ...]
    actions: tuple[tuple[int, int], ...]
    scores: tuple[float, ...]
    rewards: tuple[float, ...]


@dataclass(frozen=True)
class Expectations:
    """What the contract suite must find for one game with its default rules.

    * ``seats``: players in one game;
    * ``simultaneous``: the seats bid at once (:class:`fsmarena.games.capabilities.SimultaneousMoves`);
    * ``chance``: the same deterministic players play different games from different deals;
    * ``zero_sum``: the rewards of every game sum to zero;
    * ``exact_model`` / ``solvable``: it declares :class:`fsmarena.games.capabilities.ExactModel` /
      :class:`fsmarena.games.capabilities.ZeroSumSolvable`;
    * ``kernel``: its entry names a single-game kernel;
    * ``builtins``: the names of its builtin players;
    * ``deals``: scripted deals worked out by hand (at least one);
    * ``small_params``: small configurations (``--param`` strings) the contract checks also
      play, so that rules away from the defaults are covered too.
    """

    seats: int
    simultaneous: bool
    chance: bool
    zero_sum: bool
    exact_model: bool
    solvable: bool
    kernel: bool
    builtins: tuple[str, ...]
    deals: tuple[ScriptedDeal, ...]
    small_params: tuple[Mapping[str, str], ...] = field(default_factory=tuple)
