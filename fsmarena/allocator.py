"""The C allocator of fsmarena's processes: freed memory kept for the next batch.

A batch of games allocates and frees tens of megabytes of numpy arrays (the block's states,
a learner's log of decisions, its returns), and the next batch allocates them again.  glibc's
malloc adapts two thresholds as it goes: an array larger than the *mmap threshold* gets a
mapping of its own, returned to the system when freed, and the top of the heap is returned
once more than the *trim threshold* of it is free.  Both start small (128 KiB) and rise as
mappings are freed, up to 32 MiB and 64 MiB.  A batch that frees more than the thresholds
have reached gives its pages back to the system, and the next batch takes every page back
through a page fault that zeroes it: a batched Monte Carlo training of the DTD game spent
0.2 of its 1.7 CPU seconds in those faults (60,000 of them per 500,000 games;
docs/performance.md).

:func:`keep_freed_memory` sets both thresholds where glibc's own rule ends (32 MiB and
64 MiB) from the start: arrays up to 32 MiB come from the heap, and up to 64 MiB of freed heap
is kept for reuse.  Larger arrays still get their own mappings and go back to the system when
freed, so a process keeps at most 64 MiB it does not use.  The command line calls it as it
starts, and so does every worker process it starts (:mod:`fsmarena.parallel`); a program
using the library may call it too.  Settings a user gave glibc (its ``MALLOC_*_``
environment variables or ``GLIBC_TUNABLES``) are left alone, and other C libraries (macOS,
Windows, musl) are not touched.
"""

from __future__ import annotations

import ctypes
import os
import platform

#: glibc's ``mallopt`` parameter numbers (malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

#: arrays up to this size come from the heap (glibc's largest adaptive mmap threshold on 64-bit)
MMAP_THRESHOLD = 32 << 20
#: freed heap kept for reuse (what glibc's adaptive rule sets after freeing a 32 MiB mapping)
TRIM_THRESHOLD = 64 << 20

#: the environment variables through which a user configures glibc's malloc
USER_SETTINGS = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")

_applied = False


def user_settings() -> bool:
    """Whether the environment already configures glibc's malloc thresholds."""
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    return any(name in os.environ for name in USER_SETTINGS) or "glibc.malloc." in tunables


def active() -> bool:
    """Whether :func:`keep_freed_memory` has set the thresholds in this process."""
    return _applied


def keep_freed_memory() -> bool:
    """Set glibc's mmap and trim thresholds to :data:`MMAP_THRESHOLD` and
    :data:`TRIM_THRESHOLD` (module doc), once per process.  True when they are set (now or by
    an earlier call); False on another C library or when the user configured malloc."""
    global _applied
    if _applied:
        return True
    if platform.libc_ver()[0] != "glibc" or user_settings():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # the mmap threshold first: setting either one ends glibc's adaptive rule for both
    _applied = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _applied
