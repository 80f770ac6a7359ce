"""Reproducible parallel work: chunks, per-chunk random streams, joblib.

Work is cut into chunks *before* anything runs, and every chunk gets its own random stream
from ``numpy.random.SeedSequence(seed).spawn``.  The number of chunks and their seeds depend
only on the work and the seed, never on ``--jobs`` or the backend, so results are
bit-identical whether the chunks run in one process, in loky workers or on a dask cluster.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import os
import signal
import sys
import threading
import uuid
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

import numpy as np
from joblib import Parallel, delayed, parallel_config
from joblib._parallel_backends import LokyBackend

from fsmarena import allocator, limits, progress
from fsmarena.errors import FsmarenaError
from fsmarena.extras import install_hint

T = TypeVar("T")
R = TypeVar("R")

#: joblib backend for ``jobs > 1``: "loky" (local processes) or "dask" (inside use_dask)
_backend: str = "loky"

#: "no shared data" for :func:`run_tasks` (``None`` could be real shared data)
_NOTHING: Any = object()

#: environment variable naming a dask scheduler when ``--dask`` is not given
DASK_ENV = "FSMARENA_DASK"


def backend() -> str:
    return _backend


@contextlib.contextmanager
def use_dask(address: str | None, workers: int = 2, timeout: str = "10s") -> Iterator[Any]:
    """Run every :func:`run_tasks` inside the block on a dask.distributed cluster.

    ``address`` is a scheduler address (``tcp://host:8786``) or ``local`` for a
    ``LocalCluster`` of ``workers`` single-threaded worker processes on this machine; ``None``
    or an empty string leaves the local backend in place.  joblib's own dask backend does the
    work; results are identical to a serial run because chunks and their seeds do not depend
    on where they run.
    """
    global _backend
    if not address:
        yield None
        return
    try:
        from dask.distributed import Client  # optional: the distributed extra
    except ImportError:
        raise FsmarenaError(f"--dask needs the distributed extra: {install_hint('distributed')}") from None
    cluster = None
    try:
        if address == "local":
            cluster = local_cluster(workers)
            client = Client(cluster)
        else:
            client = Client(address, timeout=timeout)
            _warn_about_slow_workers(client)
        _keep_freed_memory_in(client)
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        raise FsmarenaError(f"cannot reach the dask scheduler at {address}: {exc}") from None
    previous = _backend
    _backend = "dask"
    try:
        yield client
    except KeyboardInterrupt:
        # stopping mid-task: the in-process scheduler would log, at ERROR level, the shared
        # data lost with the workers; the interrupt's one line says all there is to say
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
        raise
    finally:
        _backend = previous
        client.close()
        if cluster is not None:
            cluster.close()


#: dask's nanny starts workers with this glibc setting (to return memory to the system sooner).
#: It also switches off glibc's adaptive mmap threshold, so every numpy temporary over 128 KiB
#: gets freshly mapped, zeroed pages: the engines' tasks then spend about half their time in the
#: kernel (a DTD Monte Carlo training measured 1.8x slower in wall time).
MALLOC_TRIM = "MALLOC_TRIM_THRESHOLD_"


def local_cluster(workers: int = 2) -> Any:
    """A ``LocalCluster`` of ``workers`` single-threaded worker processes, started without
    :data:`MALLOC_TRIM` (unless this process's own environment sets it)."""
    import dask  # optional (the distributed extra), as in use_dask
    from dask.distributed import LocalCluster

    with dask.config.set({f"distributed.nanny.pre-spawn-environ.{MALLOC_TRIM}": None}), _children_ignore_ctrl_c():
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")


@contextlib.contextmanager
def _children_ignore_ctrl_c() -> Iterator[None]:
    """Processes started inside the block ignore SIGINT (an ignored signal stays ignored
    across ``exec``, and Python then installs no KeyboardInterrupt handler).  Ctrl-C reaches
    the terminal's whole process group, and a dask or loky worker would otherwise print its
    own traceback (from the imports it runs before an initializer could ignore the signal)
    beside the one line of this process, which stops the workers itself; and this process is
    not interrupted half-way through starting a pool (loky then failed in its own cleanup,
    "cannot join thread before it is started").  The cost: a Ctrl-C during the block is
    ignored (press it again): the seconds a dask cluster takes to start, the fraction of a
    second loky takes to spawn its workers and hand them the first tasks.
    Blocking the signal instead would not hold it either: a thread of a native library
    (OpenBLAS) can receive it and drop it."""

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)


def _malloc_trim_setting() -> str | None:
    return os.environ.get(MALLOC_TRIM)


def _keep_freed_memory_in(client: Any) -> None:
    """Every worker of the cluster keeps freed memory for reuse (:mod:`fsmarena.allocator`;
    those whose environment configures malloc are left as they are).  Advisory: a cluster
    that cannot answer fails later with a real error."""
    with contextlib.suppress(Exception):
        client.run(allocator.keep_freed_memory)


def _warn_about_slow_workers(client: Any) -> None:
    """One line on stderr when the cluster's workers run with :data:`MALLOC_TRIM` set (an
    advisory check: a cluster that cannot answer it fails later with a real error)."""
    try:
        settings = {value for value in client.run(_malloc_trim_setting).values() if value is not None}
    except Exception:  # noqa: BLE001
        return
    if settings:
        print(
            f"fsmarena: warning: the dask workers run with {MALLOC_TRIM}={min(settings)}, which makes "
            "fsmarena's tasks about 2x slower; start them with the setting removed (README: Running on a "
            "cluster)",
            file=sys.stderr,
        )


def dask_address(option: str | None) -> str | None:
    """The scheduler to use: the ``--dask`` option, else the FSMARENA_DASK variable."""
    return option or os.environ.get(DASK_ENV) or None


def chunk_sizes(total: int, chunk: int) -> list[int]:
    """Split ``total`` items into chunks of at most ``chunk`` (the last may be smaller)."""
    if total < 0:
        raise FsmarenaError(f"cannot split a negative amount of work ({total})")
    if chunk <= 0:
        raise FsmarenaError(f"chunk size must be positive, got {chunk}")
    full, rest = divmod(total, chunk)
    return [chunk] * full + ([rest] if rest else [])


def seed_sequence(seed: int | np.random.SeedSequence) -> np.random.SeedSequence:
    """A SeedSequence from a user seed (non-negative integer) or an existing sequence."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise FsmarenaError(f"a seed must be a non-negative integer, got {seed!r}")
    return np.random.SeedSequence(int(seed))


#: the fields of a PCG64 generator's state, as ``bit_generator.state`` gives them
_PCG64_FIELDS = {"bit_generator", "state", "has_uint32", "uinteger"}


def restore_rng(state: Any, source: str) -> np.random.Generator:
    """A PCG64 generator positioned exactly at ``state`` (read from a checkpoint), which must
    be what ``bit_generator.state`` writes and nothing else: exactly its fields, a 128-bit
    state, an odd 128-bit increment (numpy's are always odd), ``has_uint32`` 0 or 1 and a
    32-bit buffered ``uinteger``.  numpy itself accepts extra keys and any ``has_uint32``."""

    def fail(reason: str) -> FsmarenaError:
        return FsmarenaError(f"{source}: invalid random generator state ({reason})")

    def whole(value: Any, bits: int) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**bits

    if not isinstance(state, dict) or state.get("bit_generator") != "PCG64":
        raise fail("not a PCG64 state")
    if set(state) != _PCG64_FIELDS:
        raise fail(f"its fields must be exactly {', '.join(sorted(_PCG64_FIELDS))}")
    inner = state["state"]
    if not isinstance(inner, dict) or set(inner) != {"state", "inc"}:
        raise fail("'state' must be an object with the fields state and inc")
    if not whole(inner["state"], 128) or not whole(inner["inc"], 128) or inner["inc"] % 2 == 0:
        raise fail("'state' must hold a 128-bit state and an odd 128-bit increment")
    if state["has_uint32"] not in (0, 1) or isinstance(state["has_uint32"], bool):
        raise fail("'has_uint32' must be 0 or 1")
    if not whole(state["uinteger"], 32):
        raise fail("'uinteger' must be a 32-bit whole number")
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = state
    return rng


def spawn(seed: int | np.random.SeedSequence, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child seed sequences of ``seed`` (stable for a given seed and n)."""
    return seed_sequence(seed).spawn(n)


def check_jobs(jobs: int) -> int:
    """``jobs`` if it is -1 (every core) or from 1 to :func:`fsmarena.limits.max_jobs`."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0 or jobs < -1:
        raise FsmarenaError(f"--jobs must be a positive number of processes (or -1 for all cores), got {jobs}")
    limits.check(jobs, limits.max_jobs(), "--jobs", "MAX_JOBS: 4 per core, at most 64")
    return jobs


def run_tasks(
    fn: Callable[..., R],
    tasks: Sequence[T],
    jobs: int = 1,
    desc: str | None = None,
    weights: Iterable[float] | None = None,
    unit: str = "it",
    shared: Any = _NOTHING,
) -> list[R]:
    """Run ``fn`` on every task and return the results in task order.

    ``jobs == 1`` runs in this process (no pickling, easy to debug); otherwise joblib runs
    the tasks in ``jobs`` loky processes.  Inside :func:`use_dask` every task goes to the
    dask cluster whatever ``jobs`` says.  ``weights`` (e.g. games per task) drive the
    progress bar when ``desc`` is given.  ``shared`` is data every task needs (a game and
    its champions, a population): given, ``fn(shared, task)`` is called, and on dask the data
    is scattered to every worker once instead of travelling with each task.
    """
    return [result for _, result in iter_tasks(fn, tasks, jobs, desc, weights, unit, shared=shared)]


def iter_tasks(
    fn: Callable[..., R],
    tasks: Sequence[T],
    jobs: int = 1,
    desc: str | None = None,
    weights: Iterable[float] | None = None,
    unit: str = "it",
    ordered: bool = True,
    shared: Any = _NOTHING,
) -> Iterator[tuple[int, R]]:
    """Like :func:`run_tasks`, but yield ``(task index, result)`` as results arrive, so the
    caller can save each one at once.  ``ordered=False`` yields them in the order they finish
    (a kill then loses only the tasks still running); the results themselves never depend on
    that order."""
    check_jobs(jobs)
    weights = list(weights) if weights is not None else [1.0] * len(tasks)
    on_dask = _backend == "dask" and len(tasks) > 1
    extra = () if shared is _NOTHING else (ScatteredOnce(shared) if on_dask else shared,)
    calls = [(functools.partial(_indexed_call, fn, index), task, *extra) for index, task in enumerate(tasks)]
    with (
        progress.bar(sum(weights), desc or "", unit=unit) as pbar,
        parallel_config(backend="dask", scatter=list(extra)) if on_dask else contextlib.nullcontext(),
    ):
        if on_dask:
            stream: Iterable[tuple[int, R]] = _joblib_stream(calls, -1, ordered)
        elif jobs == 1 or len(tasks) <= 1:
            stream = (call(*args) for call, *args in calls)
        else:
            with _children_ignore_ctrl_c():  # joblib starts the first tasks, and so the workers, here
                stream = _joblib_stream(
                    calls, jobs, ordered, backend=LokyBackend(initializer=worker_start, initargs=(os.getpid(),))
                )
        for index, result in stream:
            pbar.update(weights[index])
            yield index, result


@contextlib.contextmanager
def protected_workers() -> Iterator[None]:
    """Inside the block, worker processes start safe from the working directory: with
    ``PYTHONSAFEPATH=1`` (inherited by loky and dask workers) Python does not put the current
    folder first on ``sys.path``, so a ``numpy.py`` lying there is not imported; and this
    process leaves the current folder off its own ``sys.path`` (loky sends it to its workers)
    unless fsmarena itself is imported from there.  The environment and ``sys.path`` are put
    back afterwards (the command line may run inside a bigger program, e.g. the tests)."""
    saved_env = {name: os.environ.get(name) for name in ("PYTHONSAFEPATH", "PYTHONWARNINGS")}
    saved_path = list(sys.path)
    os.environ["PYTHONSAFEPATH"] = "1"
    # loky's resource tracker outlives a SIGKILLed parent to clean its shared-memory folders;
    # it does so without a multi-line warning on the terminal
    os.environ.setdefault("PYTHONWARNINGS", "ignore:resource_tracker:UserWarning")
    here = os.getcwd()
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if package_root != here:
        sys.path[:] = [p for p in sys.path if p not in ("", ".") and os.path.abspath(p) != here]
    try:
        yield
    finally:
        sys.path[:] = saved_path
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def worker_start(parent: int) -> None:
    """Run in every loky worker as it starts: die with the parent process (Linux
    ``PR_SET_PDEATHSIG``: a killed parent cannot leave workers blocked forever), ignore
    Ctrl-C, which the parent handles (it stops the workers and prints one line), and keep
    freed memory for the next task (:mod:`fsmarena.allocator`)."""

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    allocator.keep_freed_memory()


def _die_with_parent(parent: int) -> None:
    if not sys.platform.startswith("linux"):
        return

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


class ScatteredOnce:
    """Shared data sent to a dask cluster under a key of this call's own.

    dask names scattered data by its content, so two calls in a row with equal shared data
    (the same game and players) would share one key, and the first call releasing it can race
    the second call using it: the second call's tasks then fail with "lost dependencies".  A
    fresh token per wrapper gives every call its own copy on the workers."""

    def __init__(self, value: Any):
        self.value = value
        self.token = uuid.uuid4().hex

    def __dask_tokenize__(self) -> str:
        return self.token


def _indexed_call(fn: Callable[..., R], index: int, task: Any, *shared: Any) -> tuple[int, R]:
    values = [s.value if isinstance(s, ScatteredOnce) else s for s in shared]
    return index, fn(*values, task)


def _joblib_stream(calls: list[tuple], n_jobs: int, ordered: bool, **backend: Any) -> Iterable:
    """joblib's Parallel over ``calls`` as a generator (in order, or as tasks finish)."""
    return Parallel(n_jobs=n_jobs, return_as="generator" if ordered else "generator_unordered", **backend)(
        delayed(call)(*args) for call, *args in calls
    )
