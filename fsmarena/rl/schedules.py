"""Exploration and step-size settings: epsilon and alpha schedules and the alpha rule.

Epsilon is a function of the number of training games completed when a batch starts (so with
``K`` games per batch it is stale by fewer than ``K`` games; with ``K = 1`` it changes every
game).  Alpha is the sample-average rule ``1 / N(s, a)`` or a step size in ``(0, 1]`` that
follows a schedule of its own, with the same arithmetic: constant, or moving linearly or
geometrically to a final step size over the budget (a constant step keeps the estimates
fluctuating for ever; one that shrinks to 0 lets them settle, see
``docs/sequential-learning.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fsmarena.errors import FsmarenaError

SCHEDULES = ("constant", "linear", "exponential")


@dataclass(frozen=True)
class EpsilonSchedule:
    """``constant``: ``start`` throughout; ``linear``: from ``start`` to ``final`` over the
    budget; ``exponential``: geometric from ``start`` to ``final`` (> 0) over the budget."""

    start: float = 0.1
    final: float = 0.0
    kind: str = "constant"
    name: str = "epsilon"

    def __post_init__(self) -> None:
        if self.kind not in SCHEDULES:
            raise FsmarenaError(f"unknown {self.name} schedule '{self.kind}' (known: {', '.join(SCHEDULES)})")
        check_probability(self.name, self.start)
        check_probability(f"final {self.name}", self.final)
        if self.kind == "exponential" and (self.start <= 0 or self.final <= 0):
            raise FsmarenaError(f"an exponential {self.name} schedule needs {self.name} and final {self.name} > 0")

    def value(self, done: int, total: int) -> float:
        """The value after ``done`` of ``total`` training games."""
        if self.kind == "constant":
            return self.start
        fraction = min(1.0, done / total) if total > 0 else 1.0
        if self.kind == "linear":
            return self.start + (self.final - self.start) * fraction
        return self.start * (self.final / self.start) ** fraction

    def to_dict(self) -> dict:
        return {"start": self.start, "final": self.final, "kind": self.kind}


def alpha_schedule(alpha: float, final: float, kind: str) -> EpsilonSchedule:
    """The step-size schedule from ``alpha`` (in (0, 1]) to ``final`` (in [0, 1]): the same
    kinds and arithmetic as epsilon's; a FsmarenaError for anything else."""
    return EpsilonSchedule(alpha, final, kind, name="alpha")


def check_probability(name: str, value: float) -> float:
    """``value`` if it is a number in [0, 1], else a FsmarenaError naming ``name``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0.0 <= value <= 1.0
    ):
        raise FsmarenaError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


def parse_alpha(text: str | float | None) -> float | None:
    """``"1/n"`` (or None) -> None, the sample average; otherwise a step size in (0, 1]."""
    if text is None or (isinstance(text, str) and text.strip().lower() == "1/n"):
        return None
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise FsmarenaError(f"alpha must be a number in (0, 1] or '1/n', got {text!r}") from None
    if not math.isfinite(value) or not 0.0 < value <= 1.0:
        raise FsmarenaError(f"alpha must be a number in (0, 1] or '1/n', got {text!r}")
    return value


# ---- learning-curve points ------------------------------------------------------------------

#: how evaluation points are spaced over a training budget
CURVE_SCHEDULES = ("linear", "log")
#: where a log-spaced curve starts (the shared axis of every family's learning curves starts there)
FIRST_LOG_POINT = 1000
#: evaluation points of a log-spaced curve unless a run asks for another number
LOG_POINTS = 16


def log_points(budget: int, count: int, first: int = FIRST_LOG_POINT, multiple: int = 1) -> tuple[int, ...]:
    """``count`` evaluation points (games done) spaced geometrically from ``first`` to ``budget``:
    whole multiples of ``multiple`` (the first is the smallest multiple at least ``first``),
    strictly increasing (points that round to the same number are kept once, so there may be
    fewer than ``count``), the last one ``budget`` itself.  A budget below the first point
    gets one point, the budget."""
    for name, value in (("budget", budget), ("count", count), ("first", first), ("multiple", multiple)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise FsmarenaError(f"the curve's {name} must be a positive whole number, got {value!r}")
    start = -(-first // multiple) * multiple
    if budget <= start or count == 1:
        return (budget,)
    ratio = budget / start
    points = {start, budget}
    for k in range(1, count - 1):
        value = start * ratio ** (k / (count - 1))
        points.add(min(budget, max(start, round(value / multiple) * multiple)))
    return tuple(sorted(points))


@dataclass(frozen=True)
class CurvePoints:
    """The games-done counts at which a run measures its learning curve (besides the start):
    every ``every`` games (linear), or the given ``points`` (log); always the end, ``total``."""

    total: int
    every: int = 0
    points: tuple[int, ...] = ()

    def is_point(self, done: int) -> bool:
        """Whether the curve is measured after ``done`` games."""
        if done == self.total:
            return True
        return done % self.every == 0 if self.every else done in self.points

    def next_after(self, done: int) -> int:
        """The first curve point after ``done`` games (``total`` at most): a batch of training
        games never crosses it."""
        if self.every:
            return min(self.total, (done // self.every + 1) * self.every)
        return min([p for p in self.points if p > done] + [self.total])


def curve_points(kind: str, total: int, every: int | None = None, count: int | None = None) -> CurvePoints:
    """The curve points of a run of ``total`` training games: ``linear``, every ``every`` games;
    ``log``, :func:`log_points` with ``count`` points (default :data:`LOG_POINTS`)."""
    if kind not in CURVE_SCHEDULES:
        raise FsmarenaError(f"unknown evaluation schedule '{kind}' (known: {', '.join(CURVE_SCHEDULES)})")
    if kind == "log":
        return CurvePoints(total, points=log_points(total, LOG_POINTS if count is None else count))
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise FsmarenaError(f"--eval-every must be a positive whole number, got {every!r}")
    return CurvePoints(total, every=every)
