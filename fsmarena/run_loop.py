"""The one run loop: evolution, tabular training and a game's neural agent all run through it.

A long run is counted in units (training games, generations) up to a total.  Its task does the
work in steps that never cross a curve point, and the loop does everything else the same way
for every kind of run:

* a progress bar, advanced by each step;
* learning-curve points where the task says (``is_point(done)``) and optionally one before
  the first step;
* checkpoints by count (every ``every`` units), by time (when ``seconds`` have passed since the
  last), at every curve point if asked, and always at the end;
* a hook after every step (evolution's per-generation callback).

Resuming is the task's (it reads its own checkpoint), with the help of :func:`differences`:
a checkpoint made with other settings is refused in one line listing the settings that
changed.  Every table a run writes goes through :func:`fsmarena.csvfile.write_csv` (atomic).

Nothing here knows a game, a learner or a protocol, and nothing depends on timing but when a
checkpoint is written (a resumed run continues exactly from whichever checkpoint it finds).
"""

from __future__ import annotations

import itertools
import reprlib
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol

from fsmarena import limits, progress
from fsmarena.text import clean_text


class Task(Protocol):
    """What the loop drives: ``done`` units so far, and three actions."""

    @property
    def done(self) -> int:
        """Units of work done so far (a resumed run starts where its checkpoint stopped)."""

    def step(self, size: int) -> None:
        """Do ``size`` more units of work and count them in ``done``."""

    def curve_point(self) -> None:
        """Measure a learning-curve point at ``done`` units."""

    def save(self) -> None:
        """Write a checkpoint from which the run continues exactly (a no-op without a folder)."""


@dataclass(frozen=True)
class Checkpoints:
    """When the loop saves, besides the end: after the step that reaches or passes each multiple
    of ``every`` units (count), when ``seconds``
    have passed since the last save (time), and at every curve point (``at_points``);
    ``first``: also before the first step when the run starts with a curve point."""

    every: int | None = None
    seconds: float | None = None
    at_points: bool = False
    first: bool = False


def run(
    task: Task,
    total: int,
    label: str,
    unit: str,
    next_size: Callable[[int], int],
    is_point: Callable[[int], bool],
    checkpoints: Checkpoints,
    first_point: bool = False,
    after_step: Callable[[], None] | None = None,
) -> None:
    """Drive ``task`` from ``task.done`` to ``total`` units (see the module docstring).

    ``next_size(done)`` is the size of the next step; ``first_point`` measures a curve point
    before the first step (a fresh run's point at 0, saved too with ``checkpoints.first``)."""
    if first_point:
        task.curve_point()
        if checkpoints.first:
            task.save()
    last_save = time.perf_counter()
    with progress.bar(total, label, unit=unit) as bar:
        bar.update(task.done)
        while task.done < total:
            size = next_size(task.done)
            task.step(size)
            bar.update(size)
            point = is_point(task.done)
            if point:
                task.curve_point()
            if _save_due(task.done - size, task.done, total, point, checkpoints, last_save):
                task.save()
                last_save = time.perf_counter()
            if after_step is not None:
                after_step()


def _save_due(before: int, done: int, total: int, point: bool, checkpoints: Checkpoints, last_save: float) -> bool:
    """Whether a checkpoint is due after a step from ``before`` to ``done`` units: at the end,
    at a curve point if asked, when the step reached or passed a multiple of ``every``, or
    when ``seconds`` have passed since ``last_save``."""
    if done == total or (point and checkpoints.at_points):
        return True
    if checkpoints.every is not None and done // checkpoints.every > before // checkpoints.every:
        return True
    return checkpoints.seconds is not None and time.perf_counter() - last_save >= checkpoints.seconds


def step_size(done: int, total: int, batch: int, *periods: int | None) -> int:
    """Up to ``batch`` units, never across the end nor a multiple of any of ``periods`` (curve
    points, self-play refreshes); a period of None is ignored."""
    stop = total
    for period in periods:
        if period is not None:
            stop = min(stop, (done // period + 1) * period)
    return min(batch, stop - done)


# ---- resuming: what changed -----------------------------------------------------------------


def echoed(value: Any) -> str:
    """A value read from a file, for an error message: a bounded repr (:mod:`reprlib`, so a
    huge value costs nothing), control characters replaced, at most
    :data:`fsmarena.limits.MAX_SHOWN_CHARS` characters."""
    return clean_text(reprlib.repr(value), limits.MAX_SHOWN_CHARS)


def differences(
    saved: Any,
    current: Any,
    template: str = "{name} was {old}, now {new}",
    name: Callable[[str], str] = str,
) -> str:
    """The settings where a checkpoint's record ``saved`` differs from this run's ``current``,
    one ``template`` each (``config.episodes was 1000, now 2000``; ``name`` turns a field path
    into what the user typed): at most :data:`~fsmarena.limits.MAX_SHOWN_DIFFERENCES` of them,
    each value cut to :data:`~fsmarena.limits.MAX_SHOWN_CHARS` (a tampered record cannot make
    the one-line error long)."""
    found = list(itertools.islice(_differing(saved, current, ""), limits.MAX_SHOWN_DIFFERENCES + 1))
    shown = ", ".join(
        template.format(name=clean_text(name(path), limits.MAX_SHOWN_CHARS), old=echoed(old), new=echoed(new))
        for path, old, new in found[: limits.MAX_SHOWN_DIFFERENCES]
    )
    return shown + (" (and more)" if len(found) > limits.MAX_SHOWN_DIFFERENCES else "")


def _differing(saved: Any, current: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    """``(field path, saved value, current value)`` of each differing leaf, depth first; the
    whole record is called ``fingerprint`` when it is not even an object."""
    if isinstance(saved, dict) and isinstance(current, dict):
        for key in sorted(set(saved) | set(current), key=str):
            if saved.get(key) != current.get(key):
                yield from _differing(saved.get(key), current.get(key), f"{path}.{key}" if path else str(key))
    elif isinstance(saved, list) and isinstance(current, list) and len(saved) == len(current):
        for index, (old, new) in enumerate(zip(saved, current)):
            if old != new:
                yield from _differing(old, new, f"{path}[{index}]")
    else:
        yield path or "fingerprint", saved, current
