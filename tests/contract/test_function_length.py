"""Functions a reader can hold at once: no function or method of the package is over 80 lines
(from its first decorator to its last line, docstring included), but in a game's compiled kernel
(``fsmarena/games/<name>/kernel.py``: one game's rules written out as one scalar unit, as
``tests/contract/test_module_size.py`` exempts it).  A longer function is split along its steps.

Two lists name the functions still over the limit, each to be emptied by whoever owns the file:
the studies layer's, and the others'.  Both only shrink: an entry that is no longer too long (or
no longer exists) fails the test until it is struck off.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 80

#: the studies layer's functions over the limit: none left (it only shrinks, so it stays empty)
STUDIES_TOO_LONG: set[str] = set()
#: the others' functions over the limit: none left (it only shrinks, so it stays empty)
OTHERS_TOO_LONG: set[str] = set()


def _is_kernel(path: Path) -> bool:
    """A game folder's compiled kernel: ``fsmarena/games/<name>/kernel.py``."""
    parts = path.relative_to(ROOT).parts
    return len(parts) == 4 and parts[:2] == ("fsmarena", "games") and parts[3] == "kernel.py"


def _lengths(source: str) -> dict[str, int]:
    """The length of every function and method of ``source`` by qualified name (``Class.method``,
    ``outer.inner``), from its first decorator to its last line."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                found[prefix + child.name] = (child.end_lineno or child.lineno) - first + 1
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(ast.parse(source), "")
    return found


def _all_lengths() -> dict[str, int]:
    return {
        f"{path.relative_to(ROOT).as_posix()}:{name}": length
        for path in sorted((ROOT / "fsmarena").rglob("*.py"))
        if not _is_kernel(path)
        for name, length in _lengths(path.read_text(encoding="utf-8")).items()
    }


LENGTHS = _all_lengths()


def test_lengths_count_decorators_docstrings_and_nested_functions():
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    source = f"@decorated\ndef long():\n    '''doc'''\n{body}\n\nclass A:\n    def short(self):\n        def inner():\n            pass\n"
    assert _lengths(source) == {"long": 82, "A.short": 3, "A.short.inner": 2}
    assert "fsmarena/games/thirtyone/kernel.py" not in {name.split(":")[0] for name in LENGTHS}
    assert "fsmarena/games/kernel.py:kernel_of" in LENGTHS  # the kernel contract is an ordinary module


def test_no_function_is_over_80_lines():
    too_long = {
        name: n for name, n in LENGTHS.items() if n > MAX_LINES and name not in STUDIES_TOO_LONG | OTHERS_TOO_LONG
    }
    assert not too_long, f"split these along their steps: {too_long}"


@pytest.mark.parametrize("name", sorted(STUDIES_TOO_LONG | OTHERS_TOO_LONG))
def test_the_lists_of_long_functions_only_shrink(name):
    assert LENGTHS.get(name, 0) > MAX_LINES, f"{name} is no longer over {MAX_LINES} lines: strike it off the list"
