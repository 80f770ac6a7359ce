"""Compilation of the single-game kernels and sequential learners with numba.

Kernels are plain Python over numpy arrays, decorated with :func:`njit`.  Setting the
environment variable ``NUMBA_DISABLE_JIT=1`` (numba's own switch) runs them as ordinary
Python, for debugging with a debugger or print statements; results are the same.  Loops written
once over any game kernel's functions are compiled per kernel, with the same cache on disk, by
:mod:`fsmarena.specialise`; the loops that play games read their arrays through
:func:`borrowed` views.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import numba
from numba.core import cgutils
from numba.core import config as numba_config
from numba.extending import intrinsic

from fsmarena import progress

#: what has been announced in this process (each first compile is announced once)
_ANNOUNCED: set[str] = set()


def njit(function: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit`` with the project's defaults: no Python objects, cached on disk.

    Usable bare (``@njit``) or with numba options (``@njit(inline="always")``).
    """
    settings = {"cache": True, "nogil": True, **options}
    if function is None:
        return lambda f: numba.njit(**settings)(f)
    return numba.njit(**settings)(function)


def _borrowed_view(typingctx: Any, array: Any) -> Any:
    """numba's typing and code of :func:`borrowed`: the same array structure (data, shape,
    strides) with no owner (a null ``meminfo``, which every reference count skips)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        source = context.make_array(array)(context, builder, value=args[0])
        view = context.make_array(array)(context, builder)
        for field in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return array(array), codegen


def _the_array(array: Any) -> Any:
    """:func:`borrowed` without numba (``NUMBA_DISABLE_JIT=1``): the array itself."""
    return array


def intrinsic_or_python(typing: Callable[..., Any], python: Callable[..., Any]) -> Any:
    """The numba intrinsic of ``typing`` (its typing and code) for compiled callers, or the plain
    function ``python`` with ``NUMBA_DISABLE_JIT=1``, when the callers run as Python and an
    intrinsic cannot run at all."""
    return python if numba_config.DISABLE_JIT else intrinsic(typing)  # type: ignore[attr-defined]


#: a view of an array that compiled code does not reference-count (its docstring below)
borrowed: Any = intrinsic_or_python(_borrowed_view, _the_array)
borrowed.__doc__ = """A view of ``array`` that numba does not reference-count, for the compiled loops
    that play games: numba counts the references to an array atomically every time compiled
    code passes it on (each inlined kernel call is such a pass), and those atomic counts were
    two fifths of a Stupide Vautour game's time in the driver's loop.  A borrowed view skips them
    (its owner field is null).  Without numba it is the array itself.

    The rule that keeps it safe: borrow only what a caller holds for the whole call (the
    compiled function's own arguments and views of them), and never return or store a
    borrowed view.  A local array may be freed right after its last use, borrowed view or not."""


def cache_is_cold(dispatcher: Any) -> bool:
    """True when ``dispatcher`` (a cached numba function) has nothing compiled in this process and
    no index in numba's disk cache, so its first call compiles it from scratch."""
    if numba_config.DISABLE_JIT or getattr(dispatcher, "signatures", None):  # type: ignore[attr-defined]
        return False
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    index = getattr(cache_file, "_index_path", None)
    return index is None or not Path(index).is_file()


def announce_compile(dispatcher: Any, what: str, seconds: int | None = None) -> None:
    """Say on stderr, once, that ``what`` is about to compile for the first time on this machine
    ("compiling the divide-the-dollar kernel, about 20 s, once"), so a first run's long silence is
    explained.  Quiet with ``--quiet`` or when stderr is no terminal (:mod:`fsmarena.progress`), and
    when numba's cache already holds the function (a warm cache loads in well under a second)."""
    if what in _ANNOUNCED or not progress.enabled() or not cache_is_cold(dispatcher):
        return
    _ANNOUNCED.add(what)
    about = f", about {seconds} s" if seconds else ""
    print(f"compiling {what}{about}, once", file=sys.stderr, flush=True)
