"""Progress bars for long work: shown on a terminal, silent in pipes, CI and with ``--quiet``."""

from __future__ import annotations

import sys

from tqdm.auto import tqdm

_quiet = False


def set_quiet(quiet: bool) -> None:
    """Silence (or re-enable) every progress bar in this process."""
    global _quiet
    _quiet = bool(quiet)


def enabled() -> bool:
    """True when bars should be drawn: a terminal on stderr and no ``--quiet``.  A missing or
    closed stderr (``2>&-``: ``sys.stderr`` is None) is no terminal."""
    if _quiet or sys.stderr is None:
        return False
    try:
        return bool(sys.stderr.isatty())
    except (OSError, ValueError, AttributeError):  # a closed or replaced stream
        return False


def bar(total: float | None, desc: str, unit: str = "it") -> tqdm:
    """A tqdm bar on stderr that disables itself when progress is not wanted."""
    return tqdm(
        total=total, desc=desc, unit=unit, disable=not enabled(), leave=False, dynamic_ncols=True, unit_scale=True
    )
