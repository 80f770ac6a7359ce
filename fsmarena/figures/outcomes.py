"""Box-and-strip plots of replicate outcomes: one panel per opponent, one box per method.

Methods are listed down the vertical axis (their names stay horizontal and legible however
many there are) and the outcome runs along the horizontal axis.  Every replicate is a dot,
jittered vertically with a fixed generator so the figure is reproducible, on top of a box
showing the quartiles; the whiskers span the data (no outlier rule), so nothing is hidden.

A family keeps its colour in every figure of a study: pass the study's
:func:`fsmarena.figures.style.family_colors` as ``colors`` (default: by the order the methods appear).
Both functions return the files with a caption (:class:`fsmarena.figures.style.Drawn`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from fsmarena.figures.style import PAGE_WIDTH, Drawn, count_text, family_colors, plt, save, style, titles_collide


def outcome_boxes(
    panels: Mapping[str, Mapping[str, Sequence[float]]],
    stem: str | Path,
    xlabel: str = "win rate (%)",
    title: str = "",
    columns: int = 4,
    reference: float | None = None,
    title_prefix: str = "vs ",
    colors: Mapping[str, str] | None = None,
) -> Drawn:
    """``panels[opponent][method]`` = replicate values in [0, 1], drawn in percent.

    ``reference`` draws a dotted vertical line (e.g. 0.5 for an even match).
    """
    names = list(panels)
    columns = max(1, min(columns, len(names)))
    rows = math.ceil(len(names) / columns)
    methods = list(dict.fromkeys(m for panel in panels.values() for m in panel))
    colour = {**family_colors(methods), **(colors or {})}
    height = rows * (0.55 + 0.2 * len(methods)) + (0.3 if title else 0.1)
    jitter = np.random.default_rng(0)
    with style():
        fig, axes = plt.subplots(rows, columns, figsize=(PAGE_WIDTH, height), squeeze=False)
        for k, name in enumerate(names):
            ax = axes[k // columns, k % columns]
            panel = panels[name]
            present = [m for m in methods if m in panel and len(panel[m])]
            data = [100 * np.asarray(panel[m], float) for m in present]
            positions = [methods.index(m) for m in present]
            if data:
                boxes = ax.boxplot(
                    data,
                    positions=positions,
                    widths=0.6,
                    whis=(0, 100),
                    patch_artist=True,
                    orientation="horizontal",
                    medianprops={"color": "black", "linewidth": 1.0},
                    boxprops={"linewidth": 0.6},
                    whiskerprops={"linewidth": 0.6},
                    capprops={"linewidth": 0.6},
                )
                for patch, m in zip(boxes["boxes"], present):
                    patch.set_facecolor(colour[m])
                    patch.set_alpha(0.35)
                for values, pos, m in zip(data, positions, present):
                    y = pos + jitter.uniform(-0.2, 0.2, len(values))
                    ax.scatter(values, y, s=5, color=colour[m], edgecolor="black", linewidth=0.2, zorder=3)
            if data:
                _widen_a_flat_axis(ax, np.concatenate(data))
            if reference is not None:
                ax.axvline(100 * reference, color="0.4", linestyle=":", linewidth=0.8)
            ax.set_yticks(range(len(methods)), methods if k % columns == 0 else [""] * len(methods))
            ax.set_ylim(len(methods) - 0.4, -0.6)
            ax.set_title(f"{title_prefix}{name}")
            ax.set_xlabel(xlabel)
            ax.grid(True, axis="x", linewidth=0.4, alpha=0.5)
        for k in range(len(names), rows * columns):
            axes[k // columns, k % columns].set_visible(False)
        if title:
            fig.suptitle(title)
        fig.tight_layout()
        if columns > 1 and titles_collide(fig):  # long names side by side: fewer, wider columns
            plt.close(fig)
            return outcome_boxes(panels, stem, xlabel, title, columns - 1, reference, title_prefix, colors)
        return Drawn(save(fig, stem), boxes_caption(panels, xlabel, reference))


#: percentage points a panel whose every replicate has the same outcome spans on each side
FLAT_SPAN = 10.0


def _widen_a_flat_axis(ax: Any, values: np.ndarray) -> None:
    """A panel whose replicates all ended alike would get matplotlib's ±0.05 window: ticks such
    as -0.05 and 0.00 on a win-rate axis.  Give it :data:`FLAT_SPAN` points on each side, kept
    within 0-100% (a few points of margin)."""
    low, high = float(values.min()), float(values.max())
    if high - low < 1.0:
        ax.set_xlim(max(-2.0, low - FLAT_SPAN), min(102.0, high + FLAT_SPAN))


def _sizes(panels: Mapping[str, Mapping[str, Sequence[float]]]) -> list[int]:
    """The number of replicates of every non-empty group of every panel."""
    return [len(values) for panel in panels.values() for values in panel.values() if len(values)]


def boxes_caption(
    panels: Mapping[str, Mapping[str, Sequence[float]]], xlabel: str, reference: float | None = None
) -> str:
    """What :func:`outcome_boxes` shows, in words."""
    line = f" The dotted line marks {100 * reference:g}." if reference is not None else ""
    return (
        f"Replicate outcomes ({xlabel}), one panel per opponent, one row per method: each dot is one replicate "
        f"({count_text(_sizes(panels))} per method); the box spans the quartiles with the median inside, the "
        f"whiskers the whole range.{line}"
    )


def ecdf_caption(panels: Mapping[str, Mapping[str, Sequence[float]]], xlabel: str) -> str:
    """What :func:`outcome_ecdfs` shows, in words."""
    return (
        f"How reliable one run is: the empirical distribution of the replicates' outcomes ({xlabel}) per "
        f"method, one panel per measure ({count_text(_sizes(panels))} per method). A curve at x is the share of "
        "runs that ended at or below x: the further right and the steeper, the better and the more reliable; "
        "a long left tail is runs that failed."
    )


def outcome_ecdfs(
    panels: Mapping[str, Mapping[str, Sequence[float]]],
    stem: str | Path,
    xlabel: str = "win rate (%)",
    columns: int = 2,
    colors: Mapping[str, str] | None = None,
) -> Drawn:
    """``panels[measure][method]`` = replicate values in [0, 1]: one panel per measure, one
    empirical distribution function per method, drawn in percent.  How reliable one run is:
    the curve at x is the share of runs that reach at most x."""
    names = list(panels)
    columns = max(1, min(columns, len(names)))
    rows = math.ceil(len(names) / columns)
    methods = list(dict.fromkeys(m for panel in panels.values() for m in panel))
    colour = {**family_colors(methods), **(colors or {})}
    with style():
        fig, axes = plt.subplots(rows, columns, figsize=(PAGE_WIDTH, 2.4 * rows + 0.4), squeeze=False)
        for k, name in enumerate(names):
            ax = axes[k // columns, k % columns]
            for m in methods:
                values = np.sort(100 * np.asarray(panels[name].get(m, []), float))
                if len(values):
                    share = np.arange(1, len(values) + 1) / len(values)
                    ax.step(
                        np.r_[values[0], values],
                        np.r_[0.0, share],
                        where="post",
                        color=colour[m],
                        label=m,
                    )
            ax.set_title(name)
            ax.set_xlabel(xlabel)
            ax.set_ylabel("share of runs at or below")
            ax.set_ylim(0, 1.02)
            ax.grid(True, linewidth=0.4, alpha=0.5)
        for k in range(len(names), rows * columns):
            axes[k // columns, k % columns].set_visible(False)
        axes[0, -1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=6)
        fig.tight_layout()
        return Drawn(save(fig, stem), ecdf_caption(panels, xlabel))
