"""The one registry of fsmarena: which games exist and which player kinds files may name.

A game is a plug-in: one folder ``games/<name>/`` whose ``__init__.py`` declares a
:class:`GameEntry` named ``ENTRY``.  Adding a game is adding its folder and one line to
:data:`GAME_PACKAGES`; everything a game adds to the rest of the toolkit (player file kinds,
named studies, study methods, report writers, benchmark cases) is a field of its entry, so
no other module needs an edit.

Everything is named as ``"module:attribute"`` and imported on first use, so that listing the
games imports no engine, and a game's optional extras (scikit-learn for 31's agent) stay
optional.  This module is the one place that names the plug-ins and the generic player kinds
of ``evo``; no other module of ``games`` refers to ``evo``, ``rl`` or ``studies``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping

from fsmarena.errors import FsmarenaError

#: one line per game: the package that declares its ``ENTRY``
GAME_PACKAGES: tuple[str, ...] = (
    "games.dtd",
    "games.dice421",
    "games.thirtyone",
    "games.vautour",
    "games.goofspiel",
)

#: player kinds that serve every game: kind -> "module:Class"
GENERIC_PLAYER_KINDS: dict[str, str] = {
    "random": "games.players:RandomPlayer",
    "fixed-action": "games.players:FixedActionPlayer",
    "table-policy": "games.players:TablePolicy",
    "table-fsm": "evo.table_fsm:TableFSM",
    "bda": "evo.bda:BinaryDecisionAutomaton",
    "network": "rl.network_agent:NetworkAgent",
}

#: how the batched driver (:mod:`games.driver`) plays players inside its compiled loops:
#: ``compile_player(player, game)`` packs a player as arrays (a FsmarenaError when it cannot),
#: ``compile_stack(player, game)`` packs a stack's members as a pool (member ``i`` at ``i``),
#: ``make_opponent_act(kernel)`` is the compiled interpreter of those arrays for a kernel
PLAYER_COMPILER = "rl.compiled_players:compile_player"
STACK_COMPILER = "rl.compiled_players:compile_stack"
PLAYER_INTERPRETER = "rl.compiled_players:make_opponent_act"


@dataclass(frozen=True)
class GameEntry:
    """What one game declares to the toolkit.

    ``game`` is the ``"module:Class"`` of its :class:`games.base.Game`.  The mappings name
    what the game adds, each as ``name -> "module:attribute"``:

    * ``player_kinds``: player file kinds of its own (builtins with parameters, agents);
    * ``studies``: named studies, ``name -> "file.toml"`` (a definition in ``studies/``) or
      ``"module:function"`` returning a Study;
    * ``study_methods``: training methods a study TOML may name;
    * ``reports``: report writers a study may name in its ``report`` field;
    * ``bench_cases``: ``"module:function(game) -> [BenchCase]"`` added to ``fsmarena bench``;
    * ``kernel``: the module of its compiled single-game kernel (``"games.<name>.kernel"``,
      the contract of :mod:`games.kernel`), empty when it has none;
    * ``probes``: three builtin player names whose mixtures are the probe opponents of
      fingerprints (:mod:`evo.fingerprint`), empty when the game has none (one-player games);
    * ``network``: the ``"module:attribute"`` of its :class:`rl.network_agent.NetworkSpec`
      (the network learner's heads and recommended settings), empty for one head over all
      actions.
    """

    name: str
    game: str
    player_kinds: Mapping[str, str] = field(default_factory=dict)
    studies: Mapping[str, str] = field(default_factory=dict)
    study_methods: Mapping[str, str] = field(default_factory=dict)
    reports: Mapping[str, str] = field(default_factory=dict)
    bench_cases: tuple[str, ...] = ()
    kernel: str = ""
    probes: tuple[str, ...] = ()
    network: str = ""


def resolve(target: str, what: str) -> Any:
    """The object named by ``"module:attribute"``; a module absent from this installation is
    a FsmarenaError naming ``what``, an import error *inside* an existing module propagates."""
    module_name, attribute = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise FsmarenaError(f"the {what} is not available in this version of fsmarena") from None
    return getattr(module, attribute)


def lookup(table: Mapping[str, str], name: str, what: str) -> Any:
    """``table[name]`` resolved; an unknown name is one FsmarenaError listing the known ones."""
    if name not in table:
        raise FsmarenaError(f"unknown {what} '{name}' (known: {', '.join(sorted(table))})")
    return resolve(table[name], f"{what} '{name}'")


@lru_cache(maxsize=None)
def entries() -> tuple[GameEntry, ...]:
    """Every registered game's entry, in registration order."""
    found = []
    for package in GAME_PACKAGES:
        entry = importlib.import_module(package).ENTRY
        if not isinstance(entry, GameEntry):
            raise TypeError(f"{package}.ENTRY is not a GameEntry")
        found.append(entry)
    names = [e.name for e in found]
    if len(set(names)) != len(names):
        raise TypeError(f"two games share a name: {names}")
    return tuple(found)


def entry(name: str) -> GameEntry:
    """The entry of the game called ``name`` on the command line."""
    for item in entries():
        if item.name == name:
            return item
    raise FsmarenaError(f"unknown game '{name}' (known: {', '.join(game_names())})")


def game_names() -> list[str]:
    return [e.name for e in entries()]


def _merged(field_name: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for item in entries():
        for key, target in getattr(item, field_name).items():
            if key in merged:
                raise TypeError(f"{field_name} '{key}' is declared by two games")
            merged[key] = target
    return merged


def player_kinds() -> dict[str, str]:
    """Every player file kind: the generic ones and those the games add."""
    kinds = dict(GENERIC_PLAYER_KINDS)
    for key, target in _merged("player_kinds").items():
        if key in kinds:
            raise TypeError(f"player kind '{key}' is declared twice")
        kinds[key] = target
    return kinds


def game_studies() -> dict[str, str]:
    """Named studies the games add."""
    return _merged("studies")


def game_study_methods() -> dict[str, str]:
    """Study methods the games add."""
    return _merged("study_methods")


def game_reports() -> dict[str, str]:
    """Report writers the games add."""
    return _merged("reports")
