"""The layers of the package, checked on the source: which module may import which.

From the bottom up:

* the shared base, ``fsmarena`` without its command line (errors, files, parallel, progress);
* the game contract and registry: ``games`` without its game folders;
* the generic layers ``evo``, ``rl``, ``figures`` and ``studies``;
* the game plug-ins ``games/<name>/``, which may use everything below;
* the command line, ``fsmarena.cli`` and ``fsmarena.commands``, which nothing below imports;
  with it, the package's face ``fsmarena/__init__.py``, whose one import (``games``) registers
  the Gymnasium ids on ``import fsmarena``: no module imports the bare package.

Every ``import`` statement counts, including those inside functions (a lazy import is still a
dependency).  Module-level imports must also form no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from games.registry import GAME_PACKAGES

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("fsmarena", "games", "evo", "rl", "studies", "figures")
PLUGINS = tuple(GAME_PACKAGES)
CLI = ("fsmarena.cli", "fsmarena.commands", "fsmarena.__main__")
#: the package's ``__init__``: above everything, like the command line
FACE = "fsmarena"


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


def _imports(path: Path, module_level_only: bool = False) -> set[str]:
    """Names of the project modules imported by the file (``from a import b`` counts as ``a.b``
    when ``a.b`` is a module, else as ``a``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if module_level_only else list(ast.walk(tree))
    if module_level_only:  # module level, including `if TYPE_CHECKING:`-free plain statements only
        nodes = [n for n in nodes if isinstance(n, (ast.Import, ast.ImportFrom))]
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                names.add(full if full in MODULES else node.module)
    return {n for n in names if n.split(".")[0] in PACKAGES}


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _layer(module: str) -> str:
    if module == FACE or _within(module, CLI):
        return "cli"
    if _within(module, PLUGINS):
        return "plugin"
    top = module.split(".")[0]
    if top == "fsmarena":
        return "base"
    if top == "games":
        return "contract"
    return "generic"


#: which layers each layer may import
ALLOWED = {
    "base": {"base"},
    "contract": {"base", "contract"},
    "generic": {"base", "contract", "generic"},
    "plugin": {"base", "contract", "generic", "plugin"},
    "cli": {"base", "contract", "generic", "plugin", "cli"},
}


def test_the_project_has_the_expected_packages():
    assert {"fsmarena.cli", "games.base", "games.registry", "evo.run", "rl.train", "studies.runner"} <= set(MODULES)
    assert all(plugin in MODULES for plugin in PLUGINS)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_its_own_layer_and_those_below(module):
    layer = _layer(module)
    wrong = sorted(name for name in _imports(MODULES[module]) if _layer(name) not in ALLOWED[layer])
    assert not wrong, f"{module} ({layer}) imports {wrong}"


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
    graph = {m: {n for n in _imports(p, module_level_only=True) if n in MODULES and n != m} for m, p in MODULES.items()}
    # a package's __init__ importing its own submodules is not a cycle of the package itself
    assert _cycles(graph) == []
