"""No dead function: every function and method of the package is named somewhere else.

A function is alive when its name occurs anywhere but its own ``def``: a call, an import, a
registry string (``"fsmarena.games.thirtyone.methods:train_mlp"``), a kernel function named by
string (``kernel_function("bid_card")``), an override of a method named elsewhere, a test, an
example of the documentation.  Study methods reach their checks and game counts by suffix
(``train_mlp_check``, ``train_mlp_games``: :mod:`fsmarena.methods.base`), so a function named
after a named method with one of those suffixes is alive too.  Dunder methods are Python's.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: where a name may be used: the package (code, study files), the tests, the docs' examples, the site hooks
SOURCES = ("fsmarena/**/*.py", "fsmarena/**/*.toml", "tests/**/*.py", "docs/**/*.py", "mkdocs_hooks.py")
#: the suffixes by which a study method's companions are found (:mod:`fsmarena.methods.base`)
METHOD_SUFFIXES = ("_check", "_games")


def _definitions(source: str) -> list[tuple[str, str]]:
    """``(qualified name, name)`` of every module-level function and method of a class in ``source``."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((node.name, node.name))
        elif isinstance(node, ast.ClassDef):
            found += [
                (f"{node.name}.{f.name}", f.name)
                for f in node.body
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
    return [(qualified, name) for qualified, name in found if not name.startswith("__")]


def _word_counts() -> Counter[str]:
    words: Counter[str] = Counter()
    for pattern in SOURCES:
        for path in ROOT.glob(pattern):
            words.update(re.findall(r"\w+", path.read_text(encoding="utf-8")))
    return words


def _dead(definitions: dict[str, list[tuple[str, str]]], words: Counter[str]) -> list[str]:
    """The definitions whose name occurs only once (its own ``def``), but a study method's companions."""

    def alive(name: str) -> bool:
        if words[name] > 1:
            return True
        return any(name.endswith(s) and words[name.removesuffix(s)] > 1 for s in METHOD_SUFFIXES)

    return sorted(
        f"{module}: {qualified}" for module, defs in definitions.items() for qualified, name in defs if not alive(name)
    )


def test_the_dead_code_finder_finds_a_function_nobody_names():
    source = (
        "def used():\n    pass\n\ndef unused():\n    return used()\n\nclass A:\n    def gone(self):\n        pass\n"
    )
    definitions = {"scratch": _definitions(source)}
    words = Counter(re.findall(r"\w+", source))
    assert _dead(definitions, words) == ["scratch: A.gone", "scratch: unused"]
    words.update(["train_mlp", "train_mlp", "train_mlp_check"])
    assert _dead({"m": [("train_mlp_check", "train_mlp_check")]}, words) == []


def test_no_function_is_dead():
    definitions = {
        str(path.relative_to(ROOT)): _definitions(path.read_text(encoding="utf-8"))
        for path in sorted((ROOT / "fsmarena").rglob("*.py"))
    }
    dead = _dead(definitions, _word_counts())
    assert not dead, f"functions nothing names (remove them): {dead}"
