"""The test session's compile lock (tests/conftest.py): each cached numba function compiled by one
xdist worker at a time, so the others load it from numba's disk cache instead of compiling it too."""

from __future__ import annotations

import fcntl
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import _once_per_machine


def _dispatcher(index: Path | None) -> SimpleNamespace:
    """What the lock reads of a numba dispatcher: its disk cache's index file (None: not cached)."""
    cache_file = SimpleNamespace(_index_path=str(index)) if index is not None else None
    return SimpleNamespace(_cache=SimpleNamespace(_cache_file=cache_file))


def _held_elsewhere(folder: Path) -> list[str]:
    """The lock files of ``folder`` another open file cannot lock now (another process's view)."""
    held = []
    for lock in sorted(folder.glob("*.lock")):
        with open(lock, "a", encoding="utf-8") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(handle, fcntl.LOCK_UN)
            except BlockingIOError:
                held.append(lock.name)
    return held


def test_a_cached_function_compiles_under_its_own_lock_and_a_nested_compile_does_not_wait_on_itself(tmp_path):
    seen: list[tuple[str, list[str]]] = []

    def compile_(dispatcher, sig):
        seen.append((sig, _held_elsewhere(tmp_path)))
        if sig == "outer":  # a callee compiled inside, then the same function with another signature
            wrapped(callee, "inner")
            wrapped(dispatcher, "again")
        return sig

    wrapped = _once_per_machine(compile_, lambda: tmp_path)
    function, callee = _dispatcher(tmp_path / "f.nbi"), _dispatcher(tmp_path / "g.nbi")
    assert wrapped(function, "outer") == "outer"
    (outer, inner, again) = seen
    assert len(outer[1]) == 1 and len(inner[1]) == 2 and again[1] == outer[1]  # each function its own lock
    assert _held_elsewhere(tmp_path) == []  # all released


def test_a_function_numba_does_not_cache_compiles_without_a_lock(tmp_path):
    wrapped = _once_per_machine(lambda dispatcher, sig: _held_elsewhere(tmp_path), lambda: tmp_path)
    assert wrapped(_dispatcher(None), "sig") == [] and list(tmp_path.iterdir()) == []


def test_a_failed_compile_releases_its_lock(tmp_path):
    def compile_(dispatcher, sig):
        raise TypeError("no such signature")

    wrapped = _once_per_machine(compile_, lambda: tmp_path)
    with pytest.raises(TypeError, match="no such signature"):
        wrapped(_dispatcher(tmp_path / "f.nbi"), "sig")
    assert _held_elsewhere(tmp_path) == []
