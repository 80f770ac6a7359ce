"""The one registry of fsmarena: which games exist and which player kinds files may name.

A game is a plug-in: one folder ``fsmarena/games/<name>/`` whose ``__init__.py`` declares a
:class:`GameEntry` named ``ENTRY``.  Adding a game is adding its folder and one line to
:data:`GAME_PACKAGES` (a game kept outside fsmarena: :func:`register` or the environment
variable :data:`GAMES_VARIABLE`); the folder holds its study TOMLs and its rules page too
(docs/add-a-game.md).  Everything a game adds to the rest of the toolkit (player file kinds,
named studies, study methods, report writers, benchmark cases) is a field of its entry, so
no other module needs an edit.

Everything is named as ``"module:attribute"`` and imported on first use, so that listing the
games imports no engine, and a game's optional extras (scikit-learn for 31's agent) stay
optional.  This module is the one place that names the plug-ins and the generic player kinds
of ``evo``; no other module of ``games`` refers to ``evo``, ``rl`` or ``studies``.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from fsmarena.errors import FsmarenaError

#: one line per game: the package that declares its ``ENTRY``
GAME_PACKAGES: tuple[str, ...] = (
    "fsmarena.games.dtd",
    "fsmarena.games.dice421",
    "fsmarena.games.thirtyone",
    "fsmarena.games.vautour",
    "fsmarena.games.goofspiel",
    "fsmarena.games.ipd",
)

#: player kinds that serve every game: kind -> "module:Class"
GENERIC_PLAYER_KINDS: dict[str, str] = {
    "random": "fsmarena.games.players:RandomPlayer",
    "fixed-action": "fsmarena.games.players:FixedActionPlayer",
    "table-policy": "fsmarena.games.players:TablePolicy",
    "builtin": "fsmarena.games.builtin_player:BuiltinPlayer",
    "table-fsm": "fsmarena.evo.table_fsm:TableFSM",
    "bda": "fsmarena.evo.bda:BinaryDecisionAutomaton",
    "network": "fsmarena.rl.network_agent:NetworkAgent",
    "policy-network": "fsmarena.deep.player:PolicyNetworkPlayer",
    "outside": "fsmarena.games.outside_player:OutsidePlayer",
}


@dataclass(frozen=True)
class GameEntry:
    """What one game declares to the toolkit.

    ``game`` is the ``"module:Class"`` of its :class:`fsmarena.games.base.Game`.  The mappings name
    what the game adds, each as ``name -> "module:attribute"``:

    * ``player_kinds``: player file kinds of its own (builtins with parameters, agents);
    * ``studies``: named studies, ``name -> "file.toml"`` (a definition in the game's own
      folder, next to its ``__init__.py``) or ``"module:function"`` returning a Study;
    * ``study_methods``: training methods a study TOML may name;
    * ``study_stages``: stages a study may list that only this game can run, each the
      ``"module:ENTRY"`` of its :class:`fsmarena.studies.registry.Entry` (the iterated prisoner's
      dilemma's ``axelrod``: its champions in Axelrod's own tournament);
    * ``report_sections``: sections every report writes (empty where they do not apply), each
      the ``"module:ENTRY"`` of its :class:`fsmarena.studies.registry.Entry`;
    * ``bench_cases``: ``"module:function(game) -> [BenchCase]"``, the game's cases of
      ``fsmarena bench`` (:mod:`fsmarena.games.bench`);
    * ``kernel``: the module of its compiled single-game kernel (``"games.<name>.kernel"``,
      the contract of :mod:`fsmarena.games.kernel`), empty when it has none;
    * ``probes``: three builtin player names whose mixtures are the probe opponents of
      fingerprints (:mod:`fsmarena.evo.fingerprint`), empty when the game has none (one-player games);
    * ``network``: the ``"module:attribute"`` of its :class:`fsmarena.rl.network_agent.NetworkSpec`
      (the network learner's heads and recommended settings), empty for one head over all
      actions;
    * ``policy_figure``: an exact model's chart of a policy table (421's dice kept),
      ``"module:function(game, table, stem) -> paths"``, drawn in its study's report; empty for none;
    * ``exports``: ``format -> "module:function(game, player) -> dict"``, the JSON-ready forms a
      player file of the game exports to (``fsmarena export PLAYER.json --to FORMAT``; the
      iterated prisoner's dilemma's ``axelrod``: its table FSMs as the arguments of an Axelrod ``FSMPlayer``);
    * ``expectations``: the ``"module:attribute"`` of its :class:`fsmarena.games.expectations.Expectations`
      (``"games.<name>.expectations:EXPECTED"``): what the contract tests every game inherits
      must find for it; a game without one fails them.
    """

    name: str
    game: str
    player_kinds: Mapping[str, str] = field(default_factory=dict)
    studies: Mapping[str, str] = field(default_factory=dict)
    study_methods: Mapping[str, str] = field(default_factory=dict)
    study_stages: Mapping[str, str] = field(default_factory=dict)
    report_sections: Mapping[str, str] = field(default_factory=dict)
    bench_cases: tuple[str, ...] = ()
    kernel: str = ""
    probes: tuple[str, ...] = ()
    network: str = ""
    policy_figure: str = ""
    exports: Mapping[str, str] = field(default_factory=dict)
    expectations: str = ""


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


#: the environment variable naming game packages from outside fsmarena (comma-separated, each
#: importable: on ``PYTHONPATH`` or installed); it reaches the worker processes of ``--jobs``
GAMES_VARIABLE = "FSMARENA_GAMES"
_registered: list[str] = []


def register(package: str) -> None:
    """Register a game package from outside fsmarena (the package's ``__init__.py`` declares its
    ``ENTRY``, as the folders of :data:`GAME_PACKAGES` do): the one line a game kept elsewhere
    needs.  It holds in this process only; :data:`GAMES_VARIABLE` also reaches ``--jobs``
    workers."""
    if package not in _registered:
        _registered.append(package)
    _loaded.cache_clear()


def game_packages() -> tuple[str, ...]:
    """Every game package: :data:`GAME_PACKAGES`, then those named by :data:`GAMES_VARIABLE`,
    then those given to :func:`register`."""
    outside = [name.strip() for name in os.environ.get(GAMES_VARIABLE, "").split(",") if name.strip()]
    found: list[str] = []
    for package in (*GAME_PACKAGES, *outside, *_registered):
        if package not in found:
            found.append(package)
    return tuple(found)


@lru_cache(maxsize=None)
def _loaded(packages: tuple[str, ...]) -> tuple[tuple[GameEntry, Path], ...]:
    """Every game's entry and folder, in registration order."""
    found = []
    for package in packages:
        module = _imported_package(package)
        entry = getattr(module, "ENTRY", None)
        if not isinstance(entry, GameEntry):
            raise FsmarenaError(f"game package '{package}' declares no ENTRY = GameEntry(...)")
        found.append((entry, Path(module.__file__ or "").parent))
    names = [e.name for e, _ in found]
    if len(set(names)) != len(names):
        raise FsmarenaError(f"two game packages declare the same game name: {', '.join(names)}")
    return tuple(found)


def _imported_package(package: str) -> Any:
    """The game package ``package``, imported; a name that is no importable package (absent,
    under an absent parent, relative or malformed: ``FSMARENA_GAMES=.mygame``) is one
    FsmarenaError; an import error inside an existing package propagates (a bug in the game)."""
    unusable = FsmarenaError(f"game package '{package}' is not importable (registered by {GAMES_VARIABLE} or register)")
    if not all(part.isidentifier() for part in package.split(".")):
        raise unusable
    try:
        return importlib.import_module(package)
    except ModuleNotFoundError as exc:
        parents = {".".join(package.split(".")[: k + 1]) for k in range(package.count(".") + 1)}
        if exc.name not in parents:
            raise
        raise unusable from None


def entries() -> tuple[GameEntry, ...]:
    """Every registered game's entry, in registration order."""
    return tuple(item for item, _ in _loaded(game_packages()))


def game_folder(name: str) -> Path:
    """The folder of the game called ``name``: the package that declares its entry (its study
    TOMLs and rules page live there)."""
    for item, folder in _loaded(game_packages()):
        if item.name == name:
            return folder
    raise FsmarenaError(f"unknown game '{name}' (known: {', '.join(game_names())})")


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


def study_target(game: GameEntry, target: str) -> str:
    """A study target of ``game`` as the studies layer reads it: a ``"file.toml"`` becomes the
    path of that file in the game's folder, a ``"module:function"`` stays as it is."""
    if target.endswith(".toml"):
        return str(game_folder(game.name) / target)
    return target


def game_studies() -> dict[str, str]:
    """Named studies the games add: name -> the path of a TOML definition in the game's folder,
    or ``"module:function"`` returning a Study."""
    studies = _merged("studies")
    owners = {key: item for item in entries() for key in item.studies}
    return {key: study_target(owners[key], target) for key, target in studies.items()}


def game_study_methods() -> dict[str, str]:
    """Study methods the games add."""
    return _merged("study_methods")


def game_study_stages() -> dict[str, str]:
    """Stages the games add: name -> ``"module:ENTRY"``."""
    return _merged("study_stages")


def game_report_sections() -> dict[str, str]:
    """Report sections the games add: name -> ``"module:ENTRY"``."""
    return _merged("report_sections")
