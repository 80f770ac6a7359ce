"""Learning curves: win rate against a fixed opponent vs simulated games consumed.

Evolution and reinforcement learning are put on the same x-axis, the number of simulated
games each method has played so far, so sample efficiency can be compared directly.  For
each method the replicates' curves are interpolated onto a common grid and drawn as the
median with the inter-quartile band.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
from matplotlib.ticker import NullFormatter

from figures.style import COLUMN_WIDTH, color, plt, save, style

LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def band(curves: Sequence[tuple[Sequence[float], Sequence[float]]], points: int = 60, log_x: bool = True):
    """``(grid, q25, median, q75)`` of replicate curves ``(games, rate)`` on a common grid.

    The grid is log-spaced (or linear) over the range every replicate covers (from the
    largest first point to the smallest last point), so no replicate is extrapolated.  On a
    log axis, points at zero games (before any training) cannot be drawn and are dropped.
    """
    usable = []
    for xs, ys in curves:
        x, y = np.asarray(xs, float), np.asarray(ys, float)
        if log_x:
            x, y = x[x > 0], y[x > 0]
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
) -> list[Path]:
    """One median line with an inter-quartile band per family; families without curves are skipped."""
    with style():
        fig, ax = plt.subplots(figsize=(width, width * 0.72))
        drawn = 0
        for number, (name, curves) in enumerate(families.items()):
            grid, q25, median, q75 = band(curves, log_x=log_x)
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
        if log_x:
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())  # decade labels only: legible
        ax.set_xlabel("simulated games consumed (games, log scale)" if log_x else "simulated games consumed (games)")
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
