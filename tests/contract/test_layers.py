"""The layers of the package, checked on the source: which module may import which.

From the bottom up:

* the shared base, the modules of ``fsmarena`` itself (errors, files, parallel, progress);
* the game contract and registry: ``fsmarena.games`` without its game folders;
* the generic layers ``fsmarena.stats`` (replicate statistics), ``fsmarena.evo``, ``fsmarena.rl``,
  ``fsmarena.methods`` (how each family trains a player for a study or a tuning run),
  ``fsmarena.figures``, ``fsmarena.studies``, the evaluations that plug into a study by registry
  lines (``fsmarena.tuning``, ``fsmarena.league``, ``fsmarena.exploitability``) and
  ``fsmarena.publish`` (the pages written from the published stores, above the studies);
* the game plug-ins ``fsmarena/games/<name>/``, which may use everything below;
* the command line, ``fsmarena.cli`` and ``fsmarena.commands``, which nothing below imports;
  with it, the package's face ``fsmarena/__init__.py``, whose one import (``fsmarena.games``)
  registers the Gymnasium ids on ``import fsmarena``, and the Python API ``fsmarena.api`` it
  loads on first use: no module imports the bare package.

Every ``import`` statement counts, including those inside functions (a lazy import is still a
dependency), and so does every registry string naming a project module, ``"package.module"`` or
``"package.module:attribute"`` (the game, learner, protocol and study-method registries, a game's
entry, a study TOML): a registry string is an import made on first use.  No library module
reaches the command line, not even by a registry string.

No import cycle at any level: the graph of every dependency above (module-level imports,
imports inside functions, registry strings) has no cycle.  An import left inside a function
(for an optional dependency or start-up time, each saying why) is still an edge of that graph:
being lazy only postpones a dependency, it does not remove one.  Nor between packages (a game's
folder, a subpackage such as ``fsmarena.rl``, the shared base, the command line): two modules of
``fsmarena.rl`` and ``fsmarena.figures`` that use each other's package make a cycle of packages
though no module imports itself back.

A game's rules (``game``, ``kernel``, ``reference`` and the modules of its folder they use: exact
values, solvers) use only the games layer and the base; evolution, learning, figures and studies
use the rules, never the other way round.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import tomllib

from fsmarena.games.registry import GAME_PACKAGES

ROOT = Path(__file__).resolve().parents[2]
#: the one top-level package the distribution installs
PACKAGES = ("fsmarena",)
CONTRACT = ("fsmarena.games",)
GENERIC = (
    "fsmarena.evo",
    "fsmarena.rl",
    "fsmarena.studies",
    "fsmarena.figures",
    "fsmarena.tuning",
    "fsmarena.deep",
    "fsmarena.stats",
    "fsmarena.methods",
    "fsmarena.publish",
    "fsmarena.league",
    "fsmarena.exploitability",
)
PLUGINS = tuple(GAME_PACKAGES)
CLI = ("fsmarena.cli", "fsmarena.commands", "fsmarena.__main__")
#: the package's face, its ``__init__`` and the Python API it loads on first use: above
#: everything, like the command line
FACE = ("fsmarena", "fsmarena.api")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


MODULES = _modules()


#: a string naming a project module, optionally with an attribute: ``"fsmarena.games.players:TablePolicy"``
_REGISTRY_STRING = re.compile(r"fsmarena(?:\.\w+)+(?::\w+)?")


def _named_module(text: str) -> str | None:
    """The project module a registry string names (``"a.b:c"`` names ``a.b``; ``"a.b"`` names
    ``a.b``, or ``a`` when ``a.b`` is an attribute), None for any other string."""
    if not _REGISTRY_STRING.fullmatch(text):
        return None
    dotted = text.split(":")[0]
    while dotted and dotted not in MODULES:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def _strings(node: ast.AST) -> list[str]:
    """Every string constant under ``node`` but docstrings (prose may name modules freely)."""
    documented = {
        id(n.body[0].value)
        for n in ast.walk(node)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    return [
        n.value
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in documented
    ]


def _type_only(tree: ast.Module) -> set[int]:
    """The ids of the import statements under ``if TYPE_CHECKING:`` (annotations only)."""
    return {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for statement in node.body
        for inner in ast.walk(statement)
    }


def _imports(path: Path, level: str = "all") -> set[str]:
    """Names of the project modules the file depends on (``from a import b`` counts as ``a.b``
    when ``a.b`` is a module, else as ``a``), at one of three levels:

    * ``"module"``: the import statements at module level;
    * ``"run"``: every import statement that runs, at any level (not those under
      ``if TYPE_CHECKING:``, which never run);
    * ``"all"``: every import statement and every registry string.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if level == "module":
        nodes = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    elif level == "run":
        skipped = _type_only(tree)
        nodes = [n for n in ast.walk(tree) if id(n) not in skipped]
    else:
        nodes = list(ast.walk(tree))
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                names.add(full if full in MODULES else node.module)
    if level == "all":
        names.update(n for n in map(_named_module, _strings(tree)) if n is not None)
    return {n for n in names if n.split(".")[0] in PACKAGES}


def _toml_strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _toml_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _toml_strings(v)]
    return []


def _toml_imports(path: Path) -> set[str]:
    """The project modules a study TOML names as registry strings."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {n for n in map(_named_module, _toml_strings(data)) if n is not None}


#: study definitions: data of the package they sit in
TOMLS = {
    f"{_module_name(path.parent) if path.parent != ROOT else ''}/{path.name}": path
    for package in PACKAGES
    for path in sorted((ROOT / package).rglob("*.toml"))
}


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _layer(module: str) -> str:
    if module in FACE or _within(module, CLI):
        return "cli"
    if _within(module, PLUGINS):
        return "plugin"
    if _within(module, CONTRACT):
        return "contract"
    if _within(module, GENERIC):
        return "generic"
    return "base"


#: which layers each layer may import
ALLOWED = {
    "base": {"base"},
    "contract": {"base", "contract"},
    "generic": {"base", "contract", "generic"},
    "plugin": {"base", "contract", "generic", "plugin"},
    "cli": {"base", "contract", "generic", "plugin", "cli"},
}


def test_the_project_has_the_expected_packages():
    assert {
        "fsmarena.cli",
        "fsmarena.errors",
        "fsmarena.games.base",
        "fsmarena.games.registry",
        "fsmarena.evo.run",
        "fsmarena.rl.train",
        "fsmarena.studies.runner",
    } <= set(MODULES)
    assert [_layer(m) for m in ("fsmarena.errors", "fsmarena.games.base", "fsmarena.rl.train", "fsmarena.cli")] == [
        "base",
        "contract",
        "generic",
        "cli",
    ]
    assert all(plugin in MODULES for plugin in PLUGINS)


#: the registry strings that name a layer above their own, each for a stated reason; by string
#: only (an import statement of one of these is still refused)
PLUG_IN_POINTS: dict[str, dict[str, str]] = {
    "fsmarena.games.registry": {
        **{plugin: "the one registry line of each game (GAME_PACKAGES)" for plugin in PLUGINS},
        "fsmarena.evo.table_fsm": "player file kind 'table-fsm' (GENERIC_PLAYER_KINDS)",
        "fsmarena.evo.bda": "player file kind 'bda' (GENERIC_PLAYER_KINDS)",
        "fsmarena.rl.network_agent": "player file kind 'network' (GENERIC_PLAYER_KINDS)",
        "fsmarena.deep.player": "player file kind 'policy-network' (GENERIC_PLAYER_KINDS)",
    },
    "fsmarena.methods.base": {
        "fsmarena.deep.method": "study method 'deep' (GENERIC_METHODS), the optional [deep] extra's families",
    },
    "fsmarena.studies.registry": {
        "fsmarena.tuning.stage": "stage 'tuning' (STAGES): tuning searches a study family's settings",
        "fsmarena.tuning.report": "section 'tuning' (SECTIONS)",
        "fsmarena.league.stage": "stage 'league' (STAGES): the multi-seat league, its own package",
        "fsmarena.league.layout": "report 'player-counts' (REPORTS) and its sections: a league per part",
        "fsmarena.exploitability.stage": "stage 'exploitability' (STAGES): exact exploitability, its own package",
    },
}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_its_own_layer_and_those_below(module):
    layer = _layer(module)
    by_statement = _imports(MODULES[module], "run") | _imports(MODULES[module], "module")
    named = PLUG_IN_POINTS.get(module, {})
    wrong = sorted(
        name
        for name in _imports(MODULES[module])
        if _layer(name) not in ALLOWED[layer] and (name not in named or name in by_statement)
    )
    assert not wrong, f"{module} ({layer}) imports {wrong}"


def test_every_plug_in_point_is_still_a_registry_string():
    """The list above only shrinks: an entry whose string is gone goes too."""
    for module, names in PLUG_IN_POINTS.items():
        assert set(names) <= _imports(MODULES[module]), module


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _layer(m) == "generic"))
def test_generic_layers_name_no_specific_game(module):
    """Not even in a string: the games reach the generic layers through the registry."""
    text = MODULES[module].read_text(encoding="utf-8")
    named = [plugin for plugin in PLUGINS if plugin + "." in text or f"{plugin}:" in text]
    assert not named, f"{module} names {named}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_module_level_imports_form_no_cycle():
    graph = {m: {n for n in _imports(p, "module") if n in MODULES and n != m} for m, p in MODULES.items()}
    # a package's __init__ importing its own submodules is not a cycle of the package itself
    assert _cycles(graph) == []


def _graph() -> dict[str, set[str]]:
    """Every import between project modules that runs, at any level."""
    return {m: {n for n in _imports(p, "run") if n in MODULES and n != m} for m, p in MODULES.items()}


def test_registry_strings_count_as_imports(tmp_path):
    source = tmp_path / "scratch.py"
    source.write_text(
        '"""Names games.players:RandomPlayer in prose only."""\n'
        'KINDS = {"a": "fsmarena.games.players:TablePolicy", "b": "fsmarena.games.registry", "c": "not.a.module"}\n'
        'def f():\n    from fsmarena.evo.bda import MAX_TESTS\n    return "fsmarena.rl.registry:LEARNERS", "x y"\n',
        encoding="utf-8",
    )
    assert _imports(source) == {
        "fsmarena.games.players",
        "fsmarena.games.registry",
        "fsmarena.evo.bda",
        "fsmarena.rl.registry",
    }
    assert _imports(source, "module") == set()
    assert _imports(source, "run") == {"fsmarena.evo.bda"}
    assert _named_module("fsmarena.commands.bench:run") == "fsmarena.commands.bench"
    assert _named_module("fsmarena.games.registry.GAME_PACKAGES") == "fsmarena.games.registry"
    assert _named_module("games players") is None
    table = tmp_path / "study.toml"
    table.write_text(
        'method = "fsmarena.games.dtd.comparison:run"\nnote = "fsmarena.games.dtd is a game"\n', encoding="utf-8"
    )
    assert _toml_imports(table) == {"fsmarena.games.dtd.comparison"}


@pytest.mark.parametrize("name", sorted(TOMLS))
def test_a_study_definition_names_only_its_layer_and_those_below(name):
    layer = _layer(name.split("/")[0])
    wrong = sorted(n for n in _toml_imports(TOMLS[name]) if _layer(n) not in ALLOWED[layer])
    assert not wrong, f"{name} ({layer}) names {wrong}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _layer(m) != "cli"))
def test_no_library_module_reaches_the_command_line(module):
    """Not by an import inside a function, not by a registry string either."""
    reached = sorted(n for n in _imports(MODULES[module]) if _layer(n) == "cli")
    assert not reached, f"{module} reaches the command line through {reached}"


def test_no_import_cycle_at_any_level():
    """Imports inside functions included: a lazy import is still an edge.  Imports under ``if
    TYPE_CHECKING:`` never run and registry strings are resolved by name on first use (a
    registry names its entries, which may read the registry), so neither is an edge here."""
    assert _cycles(_graph()) == []


# ---- packages -----------------------------------------------------------------------------------


def _package(module: str) -> str:
    """The package a module belongs to: a game's folder, a subpackage (``fsmarena.rl``), or, for
    the top-level package's own modules, the shared base or the command line (``fsmarena.cli``,
    ``fsmarena.__main__`` and the package's face), which sit at the two ends of the layers."""
    for plugin in PLUGINS:
        if _within(module, (plugin,)):
            return plugin
    parts = module.split(".")
    if len(parts) > 2 or (len(parts) == 2 and MODULES.get(module, Path()).name == "__init__.py"):
        return ".".join(parts[:2])
    return "fsmarena (command line)" if _layer(module) == "cli" else "fsmarena (base)"


def _dependencies(module: str) -> set[str]:
    """What a module depends on: every import that runs, at any level, and every registry string
    (a registry string is an import made on first use), but the declared plug-in points of the
    registry (:data:`PLUG_IN_POINTS`, the one way a game joins) and imports for annotations only."""
    path = MODULES[module]
    named = {n for n in map(_named_module, _strings(ast.parse(path.read_text(encoding="utf-8")))) if n is not None}
    return (_imports(path, "run") | named) - set(PLUG_IN_POINTS.get(module, {}))


def _package_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The package of every module to the packages it depends on (``edges``: module to modules)."""
    graph: dict[str, set[str]] = {}
    for module, names in edges.items():
        graph.setdefault(_package(module), set()).update(_package(n) for n in names if _package(n) != _package(module))
    return graph


def _module_edges() -> dict[str, set[str]]:
    edges = {m: {n for n in _dependencies(m) if n in MODULES and n != m} for m in MODULES}
    for name, path in TOMLS.items():  # a study definition is data of its package
        edges.setdefault(name.split("/")[0], set()).update(n for n in _toml_imports(path) if n in MODULES)
    return edges


def test_a_package_cycle_is_found_where_no_module_cycle_is():
    """Two modules of one package may each depend on the other package (the network figure of
    ``fsmarena.rl`` drawing with ``fsmarena.figures``, whose curves read ``fsmarena.rl.schedules``):
    no module cycle, a package cycle."""
    edges = {
        "fsmarena.rl.network_training": {"fsmarena.figures.network"},
        "fsmarena.figures.curves": {"fsmarena.rl.schedules"},
        "fsmarena.figures.network": set(),
        "fsmarena.rl.schedules": set(),
    }
    assert _cycles(edges) == []
    assert _cycles(_package_graph(edges)) == [["fsmarena.figures", "fsmarena.rl"]]
    assert _package("fsmarena.errors") == "fsmarena (base)" and _package("fsmarena.cli") == "fsmarena (command line)"
    assert _package("fsmarena.games.dice421.exact") == "fsmarena.games.dice421"
    assert _package("fsmarena.games.mdp") == _package("fsmarena.games") == "fsmarena.games"


def test_packages_form_no_cycle():
    """At the level of packages too: every import that runs (module level or inside a function)
    and every registry string is an edge; only imports for annotations and the registry's
    declared plug-in points are not."""
    edges = _module_edges()
    cycles = _cycles(_package_graph(edges))
    found = [
        f"{m} -> {n}"
        for cycle in cycles
        for m, names in sorted(edges.items())
        for n in sorted(names)
        if _package(m) in cycle and _package(n) in cycle and _package(m) != _package(n)
    ]
    assert cycles == [], f"package cycles {cycles} through {found}"


#: the rules of a game that name another game, each for a stated reason (registry strings only)
RULES_NAMING_ANOTHER_GAME: dict[str, dict[str, str]] = {
    "fsmarena.games.goofspiel.game": {
        "fsmarena.games.vautour.exploit": "two-player Goofspiel is solved as two-player Stupide Vautour (its solver)",
    },
}


def _rules(plugin: str) -> set[str]:
    """A game's rules: its ``game``, ``kernel`` and ``reference`` modules and the modules of its
    own folder they depend on."""
    todo = [f"{plugin}.{name}" for name in ("game", "kernel", "reference") if f"{plugin}.{name}" in MODULES]
    seen: set[str] = set()
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += [n for n in _dependencies(module) if n in MODULES and _within(n, (plugin,)) and n != plugin]
    return seen


#: rules that still use a generic layer, each for a stated reason (this list only shrinks)
RULES_USING_A_GENERIC_LAYER = {
    "fsmarena.games.ipd.machines -> fsmarena.evo.table_fsm": "the published IPD machines are built as table FSM players",
}


@pytest.mark.parametrize("plugin", PLUGINS)
def test_the_rules_of_a_game_use_only_the_games_layer_and_the_base(plugin):
    """A game's rules (its exact values and solvers included) import nothing of evolution,
    learning, figures or studies, and nothing of another game: those use the rules, not the
    other way round (421's known model is :mod:`fsmarena.games.mdp`; its exact values read a table
    FSM in its compiled form)."""
    rules = _rules(plugin)
    assert f"{plugin}.game" in rules
    wrong = sorted(
        f"{module} -> {name}"
        for module in rules
        for name in _dependencies(module)
        if name in MODULES
        and not _within(name, (plugin,))
        and _layer(name) not in ("base", "contract")
        and name not in RULES_NAMING_ANOTHER_GAME.get(module, {})
    )
    assert not [w for w in wrong if w not in RULES_USING_A_GENERIC_LAYER], wrong


def test_every_rules_exception_is_still_needed():
    """The list above only shrinks."""
    for module, names in RULES_NAMING_ANOTHER_GAME.items():
        assert set(names) <= _dependencies(module), module
