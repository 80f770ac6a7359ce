"""The contract every fsmarena game follows.

A game is a frozen configuration dataclass (rules and their parameters, the seed's values as
defaults), its labels and metadata, and a single-game compiled kernel (:mod:`fsmarena.games.kernel`):
the kernel is the game.  :meth:`Game.play`, written once here, plays ``n`` independent games at
once on the generic batched driver (:mod:`fsmarena.games.driver`) and asks the players for moves
through a ``decide`` callback::

    actions = decide(seat, observation, rows)

``rows`` says which games the decision is for (``None`` = all ``n`` games, the fast path of
lock-step games such as divide-the-dollar).  This one shape covers every game in the project:

* one-player games (421) call ``decide(0, ...)`` for the games still running;
* turn-based games with 2-6 players (divide-the-dollar, 31) call it for the seat to move,
  on the rows where that seat is to move;
* simultaneous-move games (Stupide Vautour) call it for every seat *before* revealing
  anything, so no seat can see another's choice.

An :class:`Observation` carries what the deciding seat may see, computed lazily so that a
player pays only for what it reads: ``index`` (a small integer state for tabular learners
and table FSMs), ``features`` (a float vector for binary decision automata), ``mask`` (legal
abstract actions, ``None`` when every action is legal) and game-specific small-integer
*encodings* (e.g. divide-the-dollar's ``opp_last``, the opponent's last card) that finite-state
machines can use as inputs.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from abc import ABC, abstractmethod
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.observation import Decide, Observation, Outcome, rewards_from_ranking

if TYPE_CHECKING:
    from fsmarena.games.driver import Trace

#: the records of :mod:`fsmarena.games.observation`, re-exported: games and players import them from here
__all__ = ["Decide", "Game", "Observation", "Outcome", "config_to_dict", "parse_params", "rewards_from_ranking"]


class Game(ABC):
    """Rules + parameters + labels; its kernel is its rules.  Subclasses set the class
    attributes and the abstract properties; everything else (players, matches, learners, automata) works
    through this interface only."""

    #: name on the command line (``dtd``, ``421``, ``thirtyone``, ``vautour``)
    name: ClassVar[str]
    #: one-line description for ``fsmarena games``
    title: ClassVar[str] = ""
    #: the frozen configuration dataclass
    Config: ClassVar[type]
    #: what a study maximises (:data:`fsmarena.games.observation.OBJECTIVES`): ``"rank"``, the
    #: ranking reward (win / draw / loss), or ``"score"``, the game's own score (the score per turn
    #: of a non-zero-sum game such as the prisoner's dilemma, where a player who never wins a match
    #: can be the best); its kernel declares the same as ``OBJECTIVE``
    objective: ClassVar[str] = "rank"

    def __init__(self, config: Any = None):
        self.config = config if config is not None else self.Config()
        if not isinstance(self.config, self.Config):
            raise FsmarenaError(f"{self.name}: expected a {self.Config.__name__}, got {type(self.config).__name__}")

    # ---- description of the interface ------------------------------------------------
    @property
    @abstractmethod
    def n_seats(self) -> int:
        """Number of players in one game."""

    @property
    @abstractmethod
    def action_names(self) -> tuple[str, ...]:
        """Names of the abstract actions, in action-number order."""

    @property
    def n_actions(self) -> int:
        return len(self.action_names)

    @property
    @abstractmethod
    def n_states(self) -> int:
        """Size of the ``index`` observation (tabular state space)."""

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Names of the ``features`` observation columns (empty if the game has none)."""
        return ()

    @property
    def encodings(self) -> Mapping[str, int]:
        """Extra small-integer observation parts and their sizes, usable as FSM inputs."""
        return {}

    #: an encoding that holds one value in every ``decide`` call, given as one number (31's
    #: ``phase``: its players read ``obs.phase`` as the kind of decision they make); the
    #: driver asks a seat's rows value by value, in increasing order.  None: any rows together
    decide_by: ClassVar[str | None] = None

    #: the FSM inputs ``fsmarena evolve --genome fsm`` uses by default (:mod:`fsmarena.evo.inputs`):
    #: a name that fits a table of :data:`fsmarena.evo.inputs.MAX_INPUTS` inputs with the default rules
    fsm_inputs: ClassVar[str] = "index"

    #: per-algorithm training settings the game recommends (``fsmarena train`` and studies
    #: apply them unless told otherwise): algorithm -> {option: value}
    train_defaults: ClassVar[Mapping[str, Mapping[str, Any]]] = {}

    #: ``"module:attribute"`` of the game's :class:`fsmarena.games.phrases.Phrases` (its inputs,
    #: features and actions in words, for strategy summaries and transcripts), usually in its
    #: folder's ``phrases.py``; empty: the generic words (:func:`fsmarena.games.phrases.phrases_of`)
    phrases: ClassVar[str] = ""

    def encoding_label(self, name: str, value: int) -> str:
        """Readable description of value ``value`` of encoding ``name`` (FSM inputs in figures)."""
        return f"{name}={value}"

    def state_label(self, index: int) -> str:
        """Human-readable description of observation index ``index`` (for figures)."""
        return str(index)

    def builtin_players(self) -> dict[str, Callable[[], Any]]:
        """Builtin player names and factories: ``random`` and the game's fixed strategies, each
        its kernel's code (:class:`fsmarena.games.builtin_player.BuiltinPlayer`, default parameters)."""
        # inside: games.players loads the file readers and writers (json, tempfile, zipfile),
        # which `import fsmarena` (this module's importer) does not otherwise pay for
        from fsmarena.games.builtin_player import BuiltinPlayer, builtin_names, own_random
        from fsmarena.games.players import RandomPlayer

        players: dict[str, Callable[[], Any]] = {"random": RandomPlayer}
        for name in builtin_names(self)[1:]:
            players[name] = functools.partial(BuiltinPlayer, name)
        if own_random(self):
            players["random"] = functools.partial(BuiltinPlayer, "random")
        return players

    def describe(self) -> dict[str, Any]:
        """JSON-ready description used by ``fsmarena games``."""
        return {
            "name": self.name,
            "title": self.title,
            "players": self.n_seats,
            "parameters": config_to_dict(self.config),
            "actions": list(self.action_names),
            "states": self.n_states,
            "features": list(self.feature_names),
            "encodings": dict(self.encodings),
            "builtin_players": sorted(self.builtin_players()),
        }

    # ---- playing ----------------------------------------------------------------------
    def play(
        self,
        n: int,
        rng: np.random.Generator,
        decide: Decide,
        deals: np.ndarray | None = None,
        trace: Trace | None = None,
    ) -> Outcome:
        """Play ``n`` independent games on the generic driver over the game's kernel, asking
        ``decide`` for every move.  ``deals`` (one kernel deal per row, the kernel's
        ``deal_size`` integers: deck orders, dice, prize orders) scripts the chance instead of
        drawing it from ``rng``; ``trace(seat, rows, observation, actions)`` sees every
        decision (:func:`fsmarena.games.driver.traced`)."""
        # Imported on first play, not at module level: the driver loads numba and LLVM (about
        # half a second and hundreds of MB of address space), which `import fsmarena`, the CLI's
        # start-up and the bounded-memory file readers must not pay.
        from fsmarena.games.driver import driver_for

        return driver_for(self).play(n, rng, decide, deals, trace)


# ---- configuration parameters ------------------------------------------------------------


def config_to_dict(config: Any) -> dict[str, Any]:
    """A JSON-ready dict of a config dataclass (tuples become lists)."""
    return {f.name: _jsonable(getattr(config, f.name)) for f in dataclasses.fields(config)}


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


def parse_params(config_cls: type, params: Mapping[str, str]) -> Any:
    """Build a config from ``key=value`` strings (``--param``), converting by field type.

    Tuple fields take comma-separated values (``counts=16,28,16``); booleans take
    true/false/1/0; unknown keys and unparsable values raise FsmarenaError.
    """
    fields = {f.name: f for f in dataclasses.fields(config_cls)}
    hints = typing.get_type_hints(config_cls)
    values: dict[str, Any] = {}
    for key, raw in params.items():
        if key not in fields:
            known = ", ".join(sorted(fields)) or "none"
            raise FsmarenaError(f"unknown parameter '{key}' (known: {known})")
        values[key] = _convert(key, raw, hints[key])
    try:
        return config_cls(**values)
    except (TypeError, ValueError) as exc:
        raise FsmarenaError(str(exc)) from None


def _convert(key: str, raw: str, hint: Any) -> Any:
    origin = typing.get_origin(hint)
    try:
        if origin is tuple:
            (item, *_rest) = typing.get_args(hint)
            return tuple(_convert(key, part.strip(), item) for part in raw.split(",") if part.strip())
        if origin is typing.Union or origin is getattr(__import__("types"), "UnionType", None):
            args = [a for a in typing.get_args(hint) if a is not type(None)]
            if raw.lower() in ("none", "null", ""):
                return None
            return _convert(key, raw, args[0])
        if hint is bool:
            lowered = raw.lower()
            if lowered in ("true", "1", "yes"):
                return True
            if lowered in ("false", "0", "no"):
                return False
            raise ValueError(raw)
        if hint is int:
            return int(raw)
        if hint is float:
            return float(Fraction(raw))
        if hint is str:
            return raw
    except (ValueError, ZeroDivisionError):
        raise FsmarenaError(f"parameter '{key}': cannot read '{raw}' as {getattr(hint, '__name__', hint)}") from None
    raise FsmarenaError(f"parameter '{key}' cannot be set from the command line")
