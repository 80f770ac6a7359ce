"""Shared test settings: hypothesis profile sized for a 2-core CI machine; the test-scale study
runs several test files read, built once per test session however many xdist workers need them;
the files holding slow tests handed out first; each numba function compiled by one worker while
the others wait and load it from numba's disk cache; numba's compiler left out of coverage's
tracing (CI measures coverage)."""

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from cli_helpers import cli
from hypothesis import HealthCheck, settings
from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher

settings.register_profile(
    "fsmarena",
    deadline=None,
    max_examples=int(os.environ.get("FSMARENA_HYPOTHESIS_EXAMPLES", "40")),
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("fsmarena")


def _untraced(compile_: Callable[..., Any]) -> Callable[..., Any]:
    """numba's ``Dispatcher.compile`` with this thread's trace function off while it runs.

    Under coverage (CI: ``pytest --cov``) every Python call is reported to coverage's tracer,
    including the millions numba's compiler makes, which is not fsmarena's code: compiling ran
    2.4 times slower traced (measured on ``tests/test_kernels_dice421_thirtyone.py`` with empty
    caches).  The compiled functions' own lines never run in Python, so no line of fsmarena is
    lost.  The tracer is put back as it was: handed back through ``sys.settrace``, coverage's
    C tracer reinstalls itself at the next call (its source handles ``sys.settrace(sys.gettrace())``
    that way on purpose)."""

    @functools.wraps(compile_)
    def compile(self: Dispatcher, sig: Any) -> Any:
        tracer = sys.gettrace()
        if tracer is None:
            return compile_(self, sig)
        sys.settrace(None)
        try:
            return compile_(self, sig)
        finally:
            sys.settrace(tracer)

    return compile


#: the compile locks this process holds (a nested compile of the same function must not wait on itself)
_HELD: set[Path] = set()


def _once_per_machine(compile_: Callable[..., Any], locks: Callable[[], Path]) -> Callable[..., Any]:
    """numba's ``Dispatcher.compile`` under a lock shared by the xdist workers, one per cached function.

    A fresh clone has an empty disk cache, and the workers start on files that use the same kernels:
    each would compile them (over half the suite's time on a fresh clone was compiling).  Under the
    lock, the first worker compiles and saves to numba's disk cache; ``compile`` looks in that cache
    before compiling, so the next worker loads what the first saved.  A function compiled inside
    another's compile (a callee) takes its own lock; the call graph has no cycle, so neither do the
    waits.  Within a process, numba's compiler lock (reentrant, which ``compile`` takes anyway) is
    taken before the file lock, so two threads never wait on each other's file lock.  Functions
    numba does not cache compile as before."""

    @functools.wraps(compile_)
    def compile(self: Dispatcher, sig: Any) -> Any:
        index = getattr(getattr(getattr(self, "_cache", None), "_cache_file", None), "_index_path", None)
        if index is None:
            return compile_(self, sig)
        lock = locks() / (hashlib.sha256(str(index).encode()).hexdigest()[:32] + ".lock")
        with global_compiler_lock:  # numba's own, taken first: one thread of a process at a time
            if lock in _HELD:
                return compile_(self, sig)
            with exclusive(lock):
                _HELD.add(lock)
                try:
                    return compile_(self, sig)
                finally:
                    _HELD.discard(lock)

    return compile


def pytest_configure(config: pytest.Config) -> None:
    compile_ = _untraced(Dispatcher.compile)  # a no-op unless a tracer is on (coverage)
    if "PYTEST_XDIST_WORKER" in os.environ:  # a worker of this run: share each compile with the others

        @functools.cache
        def locks() -> Path:
            """The run's folder of compile locks, beside the workers' temporary folders (pytest
            removes it with them)."""
            folder = config._tmp_path_factory.getbasetemp().parent / "compile-locks"  # type: ignore[attr-defined]
            folder.mkdir(exist_ok=True)
            return folder

        compile_ = _once_per_machine(compile_, locks)
    Dispatcher.compile = compile_


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files that hold a slow test first, the others after, each file's tests kept together
    and in order (a stable sort by file).

    pytest-xdist hands out whole files (``--dist loadfile``) in this order
    (``--no-loadscope-reorder``; its own order is by number of tests).  Files of long tests
    started last leave one worker running them alone at the end: in CI's run, which includes
    the slow tests, a one-test file of 55 s was among the last five handed out.  Started first,
    the long files leave the many short ones to fill the end."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)


@contextlib.contextmanager
def exclusive(lock: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file ``lock`` (created if missing) across processes."""
    with open(lock, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def study_once(tmp_path_factory: pytest.TempPathFactory, study: str) -> tuple[Path, dict]:
    """``fsmarena study STUDY --scale test`` without figures, run once per test session: its
    folder and the summary it printed.

    Under pytest-xdist every worker is a process of its own with its own session fixtures, and a
    test-scale study costs tens of CPU-seconds: the first worker to ask builds it in the session's
    shared temporary folder under a file lock and writes the summary last (the sign of a finished
    build); the others wait for the lock and read it.  The folder is shared, so tests must not
    change it: a test that reruns or damages a run copies it first.
    """
    if "PYTEST_XDIST_WORKER" not in os.environ:  # one process: nobody to share with
        return _run_study(study, tmp_path_factory.mktemp(study) / "study")
    shared = tmp_path_factory.getbasetemp().parent / "studies"
    shared.mkdir(exist_ok=True)
    summary_file = shared / f"{study}.json"
    with exclusive(shared / f"{study}.lock"):
        if summary_file.exists():
            return shared / study / "study", json.loads(summary_file.read_text(encoding="utf-8"))
        shutil.rmtree(shared / study, ignore_errors=True)  # what a failed build left
        out, summary = _run_study(study, shared / study / "study")
        partial = summary_file.with_suffix(".partial")
        partial.write_text(json.dumps(summary), encoding="utf-8")
        partial.replace(summary_file)
        return out, summary


#: why a test of a named study whose families need the optional ``[deep]`` extra is skipped
DEEP_MISSING = "needs the [deep] extra (PyTorch, Stable-Baselines3)"


def deep_extra_missing() -> bool:
    """Whether the ``[deep]`` extra is absent (CI installs the project without it)."""
    from importlib.util import find_spec

    return any(find_spec(name) is None for name in ("torch", "stable_baselines3", "sb3_contrib"))


def needs_deep(study: str) -> bool:
    """Whether a named study has a family of the ``deep`` method."""
    from fsmarena.studies.catalogue import get_study

    return any(c.method == "deep" for c in get_study(study).competitors)


def runnable_studies() -> list[Any]:
    """Every named study as a test parameter, skipped when its families need the ``[deep]``
    extra and it is not installed."""
    from fsmarena.studies.catalogue import study_names

    missing = deep_extra_missing()
    return [
        pytest.param(name, marks=pytest.mark.skipif(missing and needs_deep(name), reason=DEEP_MISSING))
        for name in study_names()
    ]


def _run_study(study: str, out: Path) -> tuple[Path, dict]:
    code, text = cli("study", study, "--scale", "test", "--out", str(out), "--json", "--quiet", "--no-figures")
    assert code == 0
    return out, json.loads(text)


@pytest.fixture(scope="session")
def vautour_run(tmp_path_factory):
    """The ``vautour`` test-scale run (both player counts) and its summary, built once per
    session (tests/test_study_vautour.py and tests/test_publish_vautour.py read it; neither
    changes it)."""
    return study_once(tmp_path_factory, "vautour")


@pytest.fixture(scope="session")
def vautour_small_run(tmp_path_factory):
    """The ``vautour-small`` test-scale run (two players, solvable: exact exploitability) and its
    summary, built once per session (tests/test_publish_vautour.py stores it; the slow
    tests/test_vautour_solver.py check reruns a copy with figures)."""
    return study_once(tmp_path_factory, "vautour-small")


@pytest.fixture(scope="session")
def thirtyone_run(tmp_path_factory):
    """The ``thirtyone`` test-scale run and its summary, built once per session
    (tests/test_study_thirtyone.py and tests/test_publish_thirtyone.py read it; neither changes
    it)."""
    pytest.importorskip("sklearn")
    return study_once(tmp_path_factory, "thirtyone")
