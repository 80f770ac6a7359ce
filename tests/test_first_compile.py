"""A first compile says so: one stderr line before a build numba's cache does not hold yet, none
when the cache is warm, none with ``--quiet`` or when stderr is no terminal (fsmarena.progress).

Oracles: a real cold cache (empty temporary NUMBA_CACHE_DIR and FSMARENA_CACHE_DIR) against the
same cache warmed by the first run, with stderr a pseudo-terminal; and the rule's cases on a
stand-in dispatcher whose cache index is or is not on disk.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from fsmarena import jit, progress
from fsmarena.rl.sequential_run import shared_updates

ROOT = Path(__file__).resolve().parent.parent


def dispatcher(index: Path, compiled: bool = False) -> SimpleNamespace:
    """A stand-in for a cached numba function whose disk-cache index is ``index``."""
    cache = SimpleNamespace(_cache_file=SimpleNamespace(_index_path=str(index)))
    return SimpleNamespace(signatures=["sig"] if compiled else [], _cache=cache)


@pytest.fixture
def terminal(monkeypatch):
    monkeypatch.setattr(jit, "_ANNOUNCED", set())
    monkeypatch.setattr(progress, "enabled", lambda: True)


def test_a_cold_build_is_announced_once(terminal, tmp_path, capsys):
    cold = dispatcher(tmp_path / "missing.nbi")
    jit.announce_compile(cold, "the dtd kernel's train games", 20)
    jit.announce_compile(cold, "the dtd kernel's train games", 20)
    assert capsys.readouterr().err == "compiling the dtd kernel's train games, about 20 s, once\n"


def test_a_warm_or_loaded_build_is_not_announced(terminal, tmp_path, capsys):
    (tmp_path / "index.nbi").write_bytes(b"")
    jit.announce_compile(dispatcher(tmp_path / "index.nbi"), "warm")
    jit.announce_compile(dispatcher(tmp_path / "missing.nbi", compiled=True), "loaded")
    assert capsys.readouterr().err == ""


def test_quiet_or_no_terminal_says_nothing(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(jit, "_ANNOUNCED", set())
    progress.set_quiet(True)
    try:
        jit.announce_compile(dispatcher(tmp_path / "missing.nbi"), "quiet")
    finally:
        progress.set_quiet(False)
    jit.announce_compile(dispatcher(tmp_path / "missing.nbi"), "a pipe")  # capsys' stderr is no terminal
    assert capsys.readouterr().err == ""


def _train_on_a_terminal(folder: Path, cache: Path) -> str:
    """stderr of a short training run whose stderr is a pseudo-terminal, with caches in ``cache``
    (read by a thread while the run lasts, so progress bars never fill the terminal's buffer)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "NUMBA_CACHE_DIR": str(cache / "numba"),
        "FSMARENA_CACHE_DIR": str(cache),
    }
    leader, follower = pty.openpty()
    chunks: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(leader, chunks))
    reader.start()
    argv = [sys.executable, "-m", "fsmarena", "train", "dtd", "--algo", "q-learning", "--episodes", "2000"]
    try:
        done = subprocess.run([*argv, "--out", str(folder)], stderr=follower, stdout=subprocess.DEVNULL, env=env)
    finally:
        os.close(follower)
        reader.join()
        os.close(leader)
    assert done.returncode == 0
    return b"".join(chunks).decode(errors="replace")


def _read_all(leader: int, chunks: list[bytes]) -> None:
    """Everything written to the pseudo-terminal until its other end closes."""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other end is closed: all read
            return
        if not chunk:
            return
        chunks.append(chunk)


@pytest.mark.slow
def test_a_cold_cache_announces_and_a_warm_one_does_not(tmp_path):
    cold = _train_on_a_terminal(tmp_path / "cold", tmp_path / "cache")
    warm = _train_on_a_terminal(tmp_path / "warm", tmp_path / "cache")
    shared = len(shared_updates())  # a short run: the build every learner of the toolkit shares
    assert f"compiling the dtd kernel's train games ({shared} learner updates), about 20 s, once" in cold
    assert cold.count("compiling") == 1 and "compiling" not in warm
