"""A game's builtin strategies as players: each is kernel code, written once.

A game's fixed strategies (Goofspiel's ``match``, Stupide Vautour's ``bonus-craving``, 31's
``greedy``, 421's ``optimal``...) are its kernel's ``builtin_action(p, s, seat, code, args)``
(:mod:`fsmarena.games.kernel`), named by the kernel's ``BUILTINS`` and parametrised by its
``BUILTIN_ARGS``.  :class:`BuiltinPlayer` is the one player class that wraps them all:

* in the driver's compiled loops it is a compiled member (kind ``BUILTIN``: its code, its
  arguments as floats), so a builtin seat costs no Python;
* asked in Python (a mixture of builtins, an environment's opponent), it runs the same kernel
  function over the observation's rows (``obs.source``, the kernel states they were read from),
  drawing from the compiled stream seeded from the player's generator;
* for exact best responses it gives its law (:class:`KnownDistribution`): the kernel's
  ``builtin_law`` where the kernel has one (a builtin that draws at random), else the one action
  of a builtin that draws nothing (checked: two draws with different seeds must agree).

``random`` is the generic :class:`fsmarena.games.players.RandomPlayer` (a uniformly random legal
action; every game has it, and the compiled players know it), unless the kernel declares
``OWN_RANDOM = True``: Stupide Vautour's ``random`` bids a uniformly random card in every action
set, where a uniformly random abstract action would often bid the highest or the lowest.

Saved as JSON with kind ``builtin``: ``{"name": ..., "args": {...}}`` (``args``: the parameters
given, each within the range the kernel declares).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields
from fsmarena.games.kernel import kernel_of, seed
from fsmarena.games.players import Player

if TYPE_CHECKING:
    from fsmarena.games.base import Game, Observation


class KnownDistribution(ABC):
    """A declared capability of a player: the exact probability of each action, given the
    observation alone (no memory); exact best responses (:mod:`fsmarena.games.vautour.exploit`) use it."""

    @abstractmethod
    def action_probabilities(self, game: Any, obs: Any) -> np.ndarray:
        """``(obs.n, game.n_actions)`` probabilities of the actions this player would choose."""


def builtin_names(game: Game) -> tuple[str, ...]:
    """The names of ``game``'s kernel builtins, ``random`` first."""
    return tuple(kernel_of(game).BUILTINS)


def own_random(game: Game) -> bool:
    """Whether ``game``'s ``random`` builtin is its kernel's code, not the generic random player."""
    return bool(getattr(kernel_of(game), "OWN_RANDOM", False))


def declared_args(game: Game, name: str) -> tuple[tuple[str, float, float, float], ...]:
    """``(parameter, default, low, high)`` of each parameter of builtin ``name`` of ``game``."""
    return tuple(getattr(kernel_of(game), "BUILTIN_ARGS", {}).get(name, ()))


class BuiltinPlayer(Player, KnownDistribution):
    """Builtin ``name`` of the game it plays, with parameters ``args`` (module doc)."""

    kind = "builtin"

    def __init__(self, name: str, args: Mapping[str, float] | None = None, label: str | None = None):
        self.name = name
        self.args = {key: float(value) for key, value in (args or {}).items()}
        given = ", ".join(f"{key}={value:g}" for key, value in sorted(self.args.items()))
        super().__init__(label or (f"{name}({given})" if given else name))

    # ---- the game's kernel ------------------------------------------------------------
    def resolve(self, game: Game) -> tuple[int, np.ndarray]:
        """The kernel code of this builtin in ``game`` and its full argument vector (defaults
        filled in); FsmarenaError when the game has no such builtin or an argument is wrong."""
        names = builtin_names(game)
        if self.name not in names or (self.name == "random" and not own_random(game)):
            known = ", ".join(n for n in names if n != "random" or own_random(game))
            raise FsmarenaError(f"{game.name} has no builtin '{self.name}' (its builtins: {known or 'none'})")
        declared = declared_args(game, self.name)
        unknown = sorted(set(self.args) - {arg for arg, *_ in declared})
        if unknown:
            known = ", ".join(arg for arg, *_ in declared) or "none"
            raise FsmarenaError(f"builtin '{self.name}' has no parameter '{unknown[0]}' (its parameters: {known})")
        values = []
        for arg, default, low, high in declared:
            value = self.args.get(arg, default)
            if not (math.isfinite(value) and low <= value <= high):
                raise FsmarenaError(
                    f"builtin '{self.name}': parameter '{arg}' must be in [{low:g}, {high:g}], got {value}"
                )
            values.append(value)
        return names.index(self.name), np.array(values, dtype=np.float64)

    # ---- playing ----------------------------------------------------------------------
    def begin(self, game: Game, n: int, members: np.ndarray | None, rng: np.random.Generator) -> Any:
        return self.resolve(game)

    def act(self, obs: Observation, memory: Any, rows: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
        code, args = memory
        out = np.zeros(obs.n, dtype=np.int64)
        seed(int(rng.integers(2**32)))
        _source(obs, self.name).builtin(code, args, out)
        return out

    def action_probabilities(self, game: Any, obs: Any) -> np.ndarray:
        code, args = self.resolve(game)
        source = _source(obs, self.name)
        if hasattr(kernel_of(game), "builtin_law"):
            law = np.zeros((obs.n, game.n_actions))
            source.builtin_law(code, args, law)
            return law
        first, second = (self.act(obs, (code, args), None, np.random.default_rng(s)) for s in (1, 2))
        if not np.array_equal(first, second):
            raise FsmarenaError(
                f"builtin '{self.name}' draws at random and the kernel of {game.name} gives no law of it "
                "(builtin_law): its exact law is unknown"
            )
        law = np.zeros((obs.n, game.n_actions))
        law[np.arange(obs.n), first] = 1.0
        return law

    # ---- files ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "args": dict(self.args)}

    @classmethod
    def from_fields(cls, fields: Fields, game: Game) -> BuiltinPlayer:
        name = fields.get("name", str)
        raw = Fields(fields.get("args", dict, {}), f"{fields.source}: args")
        args = {key: raw.get(key, (int, float)) for key in raw.data}
        player = cls(name, args, label=fields.get("label", str, None))
        try:
            player.resolve(game)
        except FsmarenaError as error:
            raise fields.fail(str(error)) from None
        return player


def _source(obs: Observation, name: str) -> Any:
    """The kernel readers of ``obs`` (FsmarenaError for an observation not read from a kernel)."""
    if obs.source is None:
        raise FsmarenaError(f"builtin '{name}' plays from the game's kernel states: this observation has none")
    return obs.source
