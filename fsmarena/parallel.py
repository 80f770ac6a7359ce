"""Reproducible parallel work: chunks, per-chunk random streams, joblib.

Work is cut into chunks *before* anything runs, and every chunk gets its own random stream
from ``numpy.random.SeedSequence(seed).spawn``.  The number of chunks and their seeds depend
only on the work and the seed, never on ``--jobs`` or the backend, so results are
bit-identical whether the chunks run in one process, in loky workers or on a dask cluster.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence, TypeVar

import numpy as np
from joblib import Parallel, delayed

from fsmarena import progress
from fsmarena.errors import FsmarenaError

T = TypeVar("T")
R = TypeVar("R")

#: joblib backend used for ``jobs > 1`` ("loky" here; the dask integration swaps it).
_backend: str = "loky"


def set_backend(name: str) -> None:
    """Choose the joblib backend for parallel chunks (``loky`` or ``dask``)."""
    global _backend
    _backend = name


def backend() -> str:
    return _backend


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
    the tasks on the configured backend.  ``weights`` (e.g. games per task) drive the
    progress bar when ``desc`` is given.
    """
    check_jobs(jobs)
    weights = list(weights) if weights is not None else [1.0] * len(tasks)
    results: list[Any] = []
    with progress.bar(sum(weights), desc or "", unit=unit) as pbar:
        if jobs == 1 or len(tasks) <= 1:
            stream: Iterable[R] = (fn(task) for task in tasks)
        else:
            stream = Parallel(n_jobs=jobs, backend=_backend, return_as="generator")(
                delayed(fn)(task) for task in tasks
            )
        for result, weight in zip(stream, weights):
            results.append(result)
            pbar.update(weight)
    return results
