"""The output guard: what every command does when its standard output or error cannot be written.

A command's results reach the user on standard output, its messages on standard error; either
may be closed (``>&-``, ``2>&-``), full (``> /dev/full``), a pipe whose reader left (``| head``)
or a failing device.  :func:`guarded` puts both streams behind one guard for the length of a run:

* **standard output** that cannot be written — closed, full, a broken pipe or any other error —
  is an error like any other: the write raises :class:`OutputError`, which the command line
  turns into one line on standard error and exit status 2 (the results did not reach the user);
* **standard error** that cannot be written loses its messages, nothing else: the command still
  does its work and ends with the status it would have had (a valid ``play`` with ``2>&-``
  prints its results and exits 0; an invalid one still exits 2, its line lost), never with a
  traceback or the interpreter's own complaint;
* a stream found closed when the run starts (its descriptor unused) gets ``/dev/null`` on its
  descriptor, so no file the run opens can take descriptor 1 or 2 and receive what was meant
  for the terminal; once a stream has failed, its descriptor too is pointed at ``/dev/null``, so
  the interpreter's last flush at exit adds no second message (nor exit status 120).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, Iterator

from fsmarena.errors import FsmarenaError


class OutputError(FsmarenaError):
    """Standard output cannot be written: the run's results cannot reach the user, an error
    like any other (one line on standard error, exit status 2)."""


def problem(exc: BaseException | None) -> str:
    """What went wrong with a stream, for the one error line."""
    if exc is None:
        return "it is closed"
    if isinstance(exc, BrokenPipeError):
        return "the reader closed the pipe (Broken pipe)"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return "it is closed"


class GuardedStream:
    """``sys.stdout`` or ``sys.stderr`` while a command runs (module docstring).

    ``stream`` is the wrapped text stream (``None`` for a closed one); ``strict`` streams
    (standard output) raise :class:`OutputError` when a write or flush fails, the others
    (standard error) drop what cannot be written and remember that they failed.
    """

    def __init__(self, stream: Any, name: str, descriptor: int, strict: bool):
        self._stream = stream
        self.name = name
        self.descriptor = descriptor
        self.strict = strict
        self.failed: str | None = None if stream is not None else problem(None)

    def write(self, text: str) -> int:
        return self._attempt("write", text) or 0

    def flush(self) -> None:
        if self._stream is not None or self.failed != problem(None):  # a closed stream holds nothing
            self._attempt("flush")

    def isatty(self) -> bool:
        try:
            return self.failed is None and bool(self._stream.isatty())
        except (AttributeError, OSError, ValueError):
            return False

    def _attempt(self, action: str, *args: Any) -> Any:
        if self.failed is None:
            try:
                return getattr(self._stream, action)(*args)
            except (OSError, ValueError, AttributeError) as exc:  # ValueError: a closed file object
                self.failed = problem(exc)
                discard(self.descriptor, self._stream)
        if self.strict:
            raise OutputError(f"cannot write to {self.name}: {self.failed}")
        return None

    def __getattr__(self, name: str) -> Any:
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


def reserve_closed_descriptors() -> None:
    """Open ``/dev/null`` on descriptors 0, 1 and 2 if they are closed (module docstring)."""
    for descriptor in (0, 1, 2):
        try:
            os.fstat(descriptor)
        except OSError:
            with contextlib.suppress(OSError):
                null = os.open(os.devnull, os.O_RDWR)
                if null != descriptor:
                    os.dup2(null, descriptor)
                    os.close(null)


def discard(descriptor: int, stream: Any) -> None:
    """Point ``descriptor`` at ``/dev/null`` if ``stream`` is the process's own stream on it
    (a stream the tests put in place has no descriptor of its own and is left alone), so that
    what is still buffered for it can be flushed without a second failure."""
    try:
        if stream is None or stream.fileno() != descriptor:
            return
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, descriptor)
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


@contextlib.contextmanager
def guarded() -> Iterator[tuple[GuardedStream, GuardedStream]]:
    """Standard output and error behind the guard for the ``with`` block (module docstring);
    the streams as they were are put back afterwards."""
    if sys.__stdout__ is None or sys.__stderr__ is None:
        reserve_closed_descriptors()
    out, err = sys.stdout, sys.stderr
    sys.stdout = guarded_out = GuardedStream(out, "standard output", 1, strict=True)
    sys.stderr = guarded_err = GuardedStream(err, "standard error", 2, strict=False)
    try:
        yield guarded_out, guarded_err
    finally:
        sys.stdout, sys.stderr = out, err
