"""Compilation of the single-game kernels and sequential learners with numba.

Kernels are plain Python over numpy arrays, decorated with :func:`njit`.  Setting the
environment variable ``NUMBA_DISABLE_JIT=1`` (numba's own switch) runs them as ordinary
Python, for debugging with a debugger or print statements; results are the same.  Loops written
once over any game kernel's functions are compiled per kernel, with the same cache on disk, by
:mod:`fsmarena.specialise`.
"""

from __future__ import annotations

from typing import Any, Callable

import numba


def njit(function: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit`` with the project's defaults: no Python objects, cached on disk.

    Usable bare (``@njit``) or with numba options (``@njit(inline="always")``).
    """
    settings = {"cache": True, "nogil": True, **options}
    if function is None:
        return lambda f: numba.njit(**settings)(f)
    return numba.njit(**settings)(function)
