"""Reproducible parallel work: chunks, per-chunk random streams, joblib.

Work is cut into chunks *before* anything runs, and every chunk gets its own random stream
from ``numpy.random.SeedSequence(seed).spawn``.  The number of chunks and their seeds depend
only on the work and the seed, never on ``--jobs`` or the backend, so results are
bit-identical whether the chunks run in one process, in loky workers or on a dask cluster.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

import numpy as np
from joblib import Parallel, delayed, parallel_config

from fsmarena import progress
from fsmarena.errors import FsmarenaError

T = TypeVar("T")
R = TypeVar("R")

#: joblib backend for ``jobs > 1``: "loky" (local processes) or "dask" (inside use_dask)
_backend: str = "loky"

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
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise FsmarenaError("--dask needs the distributed extra: pip install 'fsmarena[distributed]'") from None
    cluster = None
    try:
        if address == "local":
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=":0")
            client = Client(cluster)
        else:
            client = Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        raise FsmarenaError(f"cannot reach the dask scheduler at {address}: {exc}") from None
    previous = _backend
    _backend = "dask"
    try:
        yield client
    finally:
        _backend = previous
        client.close()
        if cluster is not None:
            cluster.close()


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


def spawn(seed: int | np.random.SeedSequence, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child seed sequences of ``seed`` (stable for a given seed and n)."""
    return seed_sequence(seed).spawn(n)


def check_jobs(jobs: int) -> int:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0 or jobs < -1:
        raise FsmarenaError(f"--jobs must be a positive number of processes (or -1 for all cores), got {jobs}")
    return jobs


def run_tasks(
    fn: Callable[[T], R],
    tasks: Sequence[T],
    jobs: int = 1,
    desc: str | None = None,
    weights: Iterable[float] | None = None,
    unit: str = "it",
) -> list[R]:
    """Run ``fn`` on every task and return the results in task order.

    ``jobs == 1`` runs in this process (no pickling, easy to debug); otherwise joblib runs
    the tasks in ``jobs`` loky processes.  Inside :func:`use_dask` every task goes to the
    dask cluster whatever ``jobs`` says.  ``weights`` (e.g. games per task) drive the
    progress bar when ``desc`` is given.
    """
    check_jobs(jobs)
    weights = list(weights) if weights is not None else [1.0] * len(tasks)
    results: list[Any] = []
    with progress.bar(sum(weights), desc or "", unit=unit) as pbar:
        if _backend == "dask" and len(tasks) > 1:
            stream: Iterable[R] = _dask_stream(fn, tasks)
        elif jobs == 1 or len(tasks) <= 1:
            stream = (fn(task) for task in tasks)
        else:
            stream = Parallel(n_jobs=jobs, backend="loky", return_as="generator")(
                delayed(fn)(task) for task in tasks
            )
        for result, weight in zip(stream, weights):
            results.append(result)
            pbar.update(weight)
    return results


def _dask_stream(fn: Callable[[T], R], tasks: Sequence[T]) -> Iterable[R]:
    """Results of ``fn`` over ``tasks`` from joblib's dask backend, in task order."""
    with parallel_config(backend="dask"):
        yield from Parallel(n_jobs=-1, return_as="generator")(delayed(fn)(task) for task in tasks)
