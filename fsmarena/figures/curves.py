"""Learning curves: win rate against a fixed opponent vs simulated games consumed.

Evolution and reinforcement learning are put on the same x-axis, the number of simulated
games each method has consumed so far (its budget, counted one way: :mod:`fsmarena.studies.budgets`),
so sample efficiency can be compared directly.  Every figure shares one log axis that starts
at :data:`AXIS_START` (10^3) games, where the log-spaced evaluations of the learners start
(:func:`fsmarena.rl.schedules.log_points`), and ends at the largest budget drawn.  For each method the
replicates' curves are interpolated onto a common grid and drawn as the median with the
inter-quartile band.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
from matplotlib.ticker import NullFormatter

from fsmarena.figures.style import COLUMN_WIDTH, color, plt, save, style
from fsmarena.rl.schedules import FIRST_LOG_POINT

#: where the shared log axis of games consumed starts
AXIS_START = FIRST_LOG_POINT

LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def from_start(x: np.ndarray, y: np.ndarray, start: float) -> tuple[np.ndarray, np.ndarray]:
    """The part of a curve from ``start`` games on: a curve that crosses ``start`` begins with
    its value there (interpolated), points before it are dropped."""
    keep = x >= start
    if keep.any() and not keep.all() and x[0] < start < x[keep][0]:
        return np.concatenate([[start], x[keep]]), np.concatenate([[np.interp(start, x, y)], y[keep]])
    return x[keep], y[keep]


def band(
    curves: Sequence[tuple[Sequence[float], Sequence[float]]],
    points: int = 60,
    log_x: bool = True,
    start: float = 0.0,
):
    """``(grid, q25, median, q75)`` of replicate curves ``(games, rate)`` on a common grid.

    The grid is log-spaced (or linear) over the range every replicate covers (from the
    largest first point to the smallest last point), so no replicate is extrapolated.  On a
    log axis, points at zero games (before any training) cannot be drawn and are dropped;
    with ``start``, every curve begins there (:func:`from_start`).
    """
    usable = []
    for xs, ys in curves:
        x, y = np.asarray(xs, float), np.asarray(ys, float)
        if log_x:
            x, y = x[x > 0], y[x > 0]
        if start > 0:
            x, y = from_start(x, y, start)
        if len(x):
            usable.append((x, y))
    if not usable:
        return (np.array([]),) * 4
    low = max(x[0] for x, _ in usable)
    high = min(x[-1] for x, _ in usable)
    if high <= low:
        grid = np.array([high])
    elif log_x:
        grid = np.unique(np.geomspace(low, high, points))
    else:
        grid = np.linspace(low, high, points)
    values = np.array([np.interp(grid, x, y) for x, y in usable])
    q25, median, q75 = np.percentile(values, [25, 50, 75], axis=0)
    return grid, q25, median, q75


def learning_curves(
    families: Mapping[str, Sequence[tuple[Sequence[float], Sequence[float]]]],
    stem: str | Path,
    opponent: str = "random",
    title: str = "",
    log_x: bool = True,
    width: float = COLUMN_WIDTH,
    start: float = AXIS_START,
) -> list[Path]:
    """One median line with an inter-quartile band per family; families without curves are
    skipped.  On the log axis (the default) every figure starts at ``start`` games
    (:data:`AXIS_START`) and ends at the largest number of games drawn."""
    start = start if log_x else 0.0
    with style():
        fig, ax = plt.subplots(figsize=(width, width * 0.72))
        drawn, right = 0, 0.0
        for number, (name, curves) in enumerate(families.items()):
            grid, q25, median, q75 = band(curves, log_x=log_x, start=start)
            if not len(grid):
                continue
            c = color(number)
            n = sum(1 for x, _ in curves if len(x))  # replicates with a curve
            ax.fill_between(grid, 100 * q25, 100 * q75, color=c, alpha=0.18, linewidth=0)
            ax.plot(
                grid,
                100 * median,
                color=c,
                linestyle=LINESTYLES[number % len(LINESTYLES)],
                linewidth=1.3,
                marker=MARKERS[number % len(MARKERS)],
                markevery=max(1, len(grid) // 6),
                markersize=3,
                label=f"{name} (n={n})",
            )
            drawn += 1
            right = max(right, float(grid[-1]))
        if log_x:
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())  # decade labels only: legible
            if drawn:  # the shared axis: from `start` games to the largest budget drawn
                ax.set_xlim(start, max(right, 10 * start))
        ax.set_xlabel(
            f"simulated games consumed (log scale, from {start:,.0f})" if log_x else "simulated games consumed (games)"
        )
        ax.set_ylabel(f"win rate vs {opponent} (%)")
        ax.grid(True, which="major", linewidth=0.4, alpha=0.5)
        if drawn:  # below the axes: curves often end where a legend inside would sit
            ax.legend(
                frameon=False,
                loc="upper center",
                bbox_to_anchor=(0.5, -0.2),
                ncol=2,
                handlelength=2.6,
                columnspacing=1.2,
            )
        else:
            ax.text(0.5, 0.5, "no learning curves recorded", ha="center", va="center", transform=ax.transAxes)
        if title:
            ax.set_title(title)
        return save(fig, stem)
