"""Learning curves: win rate against a fixed opponent vs simulated games consumed.

Evolution and reinforcement learning are put on the same x-axis, the number of simulated
games each method has consumed so far (its budget, counted one way: :mod:`fsmarena.studies.budgets`),
so sample efficiency can be compared directly.  Every figure shares one log axis that starts
at :data:`AXIS_START` (10^3) games, where the log-spaced evaluations of the learners start
(:func:`fsmarena.rl.schedules.log_points`), and ends at the largest budget drawn.  For each method the
replicates' curves are interpolated onto a common grid and drawn as the median with the
inter-quartile band.

Eight families' bands in one panel hide one another, so :func:`learning_curves` draws small
multiples: one panel per family, the others' medians faint behind it, every panel on the same
axes (a family is read on its own and against the field at once).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
from matplotlib.ticker import NullFormatter

from fsmarena.figures.style import (
    COLUMN_WIDTH,
    PAGE_WIDTH,
    Drawn,
    count_text,
    family_colors,
    log_scale,
    plt,
    save,
    style,
)
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
    width: float | None = None,
    start: float = AXIS_START,
    colors: Mapping[str, str] | None = None,
) -> Drawn:
    """Small multiples: one panel per family with a curve (median line, inter-quartile band),
    every other family's median faint behind it, all panels on shared axes; families without
    curves get no panel but keep their colour (their place in ``families``, or ``colors``).
    On the log axis (the default) every panel starts at ``start`` games (:data:`AXIS_START`) and
    ends at the largest number of games drawn.  ``width``: the figure's (default: a column for
    up to two panels across, the page beyond).  Returns the files with their caption."""
    start = start if log_x else 0.0
    colour = {**family_colors(list(families)), **(colors or {})}
    bands = {name: band(curves, log_x=log_x, start=start) for name, curves in families.items()}
    shown = [name for name in families if len(bands[name][0])]
    counts = {name: sum(1 for x, _ in families[name] if len(x)) for name in shown}  # replicates with a curve
    columns = panel_columns(len(shown))
    rows = max(1, math.ceil(len(shown) / columns))
    width = width or (COLUMN_WIDTH if columns <= 2 else PAGE_WIDTH)
    with style():
        fig, axes = plt.subplots(
            rows,
            columns,
            figsize=(width, rows * PANEL_HEIGHT + 0.6),
            sharex=True,
            sharey=True,
            squeeze=False,
            layout="constrained",
        )
        for ax, name in zip(axes.flat, shown):
            _panel(ax, name, bands, colour, counts[name])
        for k in range(len(shown), rows * columns):  # an empty slot: the panel above it shows the axis
            axes[k // columns, k % columns].set_visible(False)
            if k >= columns:
                axes[k // columns - 1, k % columns].xaxis.set_tick_params(labelbottom=True)
        first = axes[0, 0]
        if log_x:
            log_scale(first, "x")  # shared: every panel
            first.xaxis.set_minor_formatter(NullFormatter())  # decade labels only: legible
            if shown:  # the shared axis: from `start` games to the largest budget drawn
                right = max(float(bands[name][0][-1]) for name in shown)
                first.set_xlim(start, max(right, 10 * start))
        else:
            first.set_xlim(left=0.0)
        if not shown:
            first.text(0.5, 0.5, "no learning curves recorded", ha="center", va="center", transform=first.transAxes)
        fig.supxlabel(
            f"simulated games consumed (log scale, from {start:,.0f})" if log_x else "simulated games consumed",
            fontsize=8,
        )
        fig.supylabel(f"win rate vs {opponent} (%)", fontsize=8)
        if title:
            fig.suptitle(title, fontsize=9)
        return Drawn(save(fig, stem), curves_caption(opponent, counts, log_x, start))


#: each row of panels is this high (inches)
PANEL_HEIGHT = 1.45
#: panels side by side, by number of panels (beyond: four)
COLUMNS = {0: 1, 1: 1, 2: 2, 3: 3, 4: 2, 5: 3, 6: 3}


def panel_columns(panels: int) -> int:
    """How many panels side by side: rows of two to four, as square a grid as the page allows."""
    return COLUMNS.get(panels, 4)


def _panel(ax: Any, name: str, bands: Mapping[str, tuple], colour: Mapping[str, str], replicates: int) -> None:
    """One family's panel: the others' medians faint, then its band and median in its colour."""
    for other, (grid, _, median, _) in bands.items():
        if other != name and len(grid):
            ax.plot(grid, 100 * median, color=FAINT, linewidth=0.8, zorder=1)
    grid, q25, median, q75 = bands[name]
    ax.fill_between(grid, 100 * q25, 100 * q75, color=colour[name], alpha=0.25, linewidth=0, zorder=2)
    ax.plot(grid, 100 * median, color=colour[name], linewidth=1.5, zorder=3)
    ax.set_title(f"{name} (n={replicates})", fontsize=8, pad=3)
    ax.grid(True, which="major", linewidth=0.4, alpha=0.5)


#: the other families' medians behind each panel's own
FAINT = "0.78"


def curves_caption(opponent: str, counts: Mapping[str, int], log_x: bool, start: float) -> str:
    """What :func:`learning_curves` shows, in words."""
    axis = f"log scale, from {start:,.0f} games" if log_x else "linear scale"
    return (
        f"Learning curves: win rate against {opponent} (%) against the simulated games consumed ({axis}), "
        f"one panel per family on shared axes. The coloured line is the median over the family's replicates "
        f"({count_text(counts.values())}, n in each panel's title), the band their inter-quartile range "
        "(25th to 75th percentile, replicates interpolated onto a common grid); the grey lines are the other "
        "families' medians."
    )
