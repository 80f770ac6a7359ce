"""Figures of a game's exact model: learning curves and final policies scored by their exact value.

* :func:`exact_value_curves` — the exact value of each method's policy against the simulated
  games consumed: median line and inter-quartile band over replicates (the grid of
  :func:`fsmarena.figures.curves.band`), with the optimum and a target share of it as reference lines,
  and beside it the gap to the optimum on a log scale.
* :func:`final_gaps` — every final policy's gap to the optimum, one dot per replicate.

Any game with an exact model can use them (the exact-values report, :mod:`fsmarena.studies.exact_report`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
from matplotlib.ticker import NullFormatter

from fsmarena.figures.curves import LINESTYLES, MARKERS, band
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


def _gap_pct(values, optimum: float) -> np.ndarray:
    """The gap to the optimum in % of it, floored at :data:`GAP_FLOOR` for a log axis."""
    return np.maximum(100 * (optimum - np.asarray(values, float)) / optimum, GAP_FLOOR)


#: gaps below this (% of the optimum; planners: rounding only) are drawn at it on log axes
GAP_FLOOR = 1e-3


def exact_value_curves(
    families: Mapping[str, Sequence[tuple[Sequence[float], Sequence[float]]]],
    optimum: float,
    stem: str | Path,
    target: float | None = 0.99,
    title: str = "",
    width: float = PAGE_WIDTH,
    colors: Mapping[str, str] | None = None,
) -> Drawn:
    """Median and inter-quartile band over replicates against simulated games (log scale), one
    line per family: the exact value (left) and its gap to the optimum in % (right, log scale,
    where the last percent is readable).  ``colors``: the study's family colours
    (:func:`fsmarena.figures.style.family_colors`; default: by the order given)."""
    colour = {**family_colors(list(families)), **(colors or {})}
    with style():
        fig, (left, right) = plt.subplots(1, 2, figsize=(width, width * 0.42))
        drawn = 0
        for number, (name, curves) in enumerate(families.items()):
            grid, q25, median, q75 = band(curves, log_x=True)
            if not len(grid):
                continue
            c = colour[name]
            n = sum(1 for x, _ in curves if len(x))
            style_kw = dict(
                color=c,
                linestyle=LINESTYLES[number % len(LINESTYLES)],
                linewidth=1.3,
                marker=MARKERS[number % len(MARKERS)],
                markevery=max(1, len(grid) // 6),
                markersize=3,
            )
            left.fill_between(grid, q25, q75, color=c, alpha=0.18, linewidth=0)
            left.plot(grid, median, label=f"{name} (n={n})", **style_kw)
            right.fill_between(grid, _gap_pct(q75, optimum), _gap_pct(q25, optimum), color=c, alpha=0.18, linewidth=0)
            right.plot(grid, _gap_pct(median, optimum), **style_kw)
            drawn += 1
        left.axhline(optimum, color="black", linestyle="--", linewidth=0.8, label=f"optimum {optimum:.4f}")
        if target is not None:
            left.axhline(
                target * optimum, color="0.4", linestyle=":", linewidth=0.8, label=f"{100 * target:.0f}% of the optimum"
            )
            right.axhline(100 * (1 - target), color="0.4", linestyle=":", linewidth=0.8)
        left.set_ylabel("exact expected score of the policy")
        right.set_ylabel("gap to the optimum (% of it, log scale)")
        log_scale(right, "y")
        for ax in (left, right):
            log_scale(ax, "x")
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("simulated games consumed (log scale)")
            ax.grid(True, which="major", linewidth=0.4, alpha=0.5)
        if not drawn:
            left.text(0.5, 0.5, "no learning curves recorded", ha="center", va="center", transform=left.transAxes)
        fig.legend(
            *left.get_legend_handles_labels(),
            frameon=False,
            loc="lower center",
            ncol=4,
            handlelength=2.6,
            bbox_to_anchor=(0.5, -0.02),
        )
        if title:
            fig.suptitle(title)
        fig.tight_layout(rect=(0, 0.14, 1, 1))
        counts = [sum(1 for x, _ in curves if len(x)) for curves in families.values()]
        caption = (
            "Exact expected score of each method's policy (left) and its gap to the optimum in % (right, log "
            "scale) against the simulated games consumed (log scale): the line is the median over replicates "
            f"({count_text(counts)} per method, n in the legend), the band the inter-quartile range; dashed: "
            "the optimum" + ("; dotted: the target share of it." if target is not None else ".")
        )
        return Drawn(save(fig, stem), caption)


def final_gaps(
    values: Mapping[str, Sequence[float]],
    optimum: float,
    stem: str | Path,
    target: float | None = 0.99,
    title: str = "",
    colors: Mapping[str, str] | None = None,
) -> Drawn:
    """Every final policy's gap to the optimum (% of it, log scale): one row per method, one
    dot per replicate, a bar at the median; gaps below 0.001% (rounding) sit at that floor.
    ``colors`` as for :func:`exact_value_curves`."""
    names = list(values)
    colour = {**family_colors(names), **(colors or {})}
    jitter = np.random.default_rng(0)
    with style():
        fig, ax = plt.subplots(figsize=(COLUMN_WIDTH * 1.5, 0.5 + 0.28 * len(names)))
        for row, name in enumerate(names):
            gaps = _gap_pct(values[name], optimum)
            if not len(gaps):
                continue
            ax.scatter(
                gaps,
                row + jitter.uniform(-0.15, 0.15, len(gaps)),
                s=9,
                color=colour[name],
                edgecolor="black",
                linewidth=0.25,
                zorder=3,
            )
            ax.plot([np.median(gaps)] * 2, [row - 0.3, row + 0.3], color="black", linewidth=1.2)
        if target is not None:
            ax.axvline(100 * (1 - target), color="0.4", linestyle=":", linewidth=0.8)
            ax.text(
                100 * (1 - target), -0.75, f" {100 * target:.0f}% of the optimum", fontsize=6, color="0.3", va="center"
            )
        log_scale(ax, "x")
        ax.set_xlim(GAP_FLOOR / 2, 100)
        ax.set_yticks(range(len(names)), names)
        ax.set_ylim(len(names) - 0.5, -1.0)
        ax.set_xlabel("gap of the final policy to the optimum (% of it, log scale)")
        ax.grid(True, axis="x", which="major", linewidth=0.4, alpha=0.5)
        if title:
            ax.set_title(title)
        fig.tight_layout()
        caption = (
            "Gap of every final policy to the optimum (% of it, log scale): one row per method, one dot per "
            f"replicate ({count_text(len(values[n]) for n in names)} per method), a bar at the median; gaps "
            f"below {GAP_FLOOR}% (rounding) sit at that floor"
            + ("; dotted: the target." if target is not None else ".")
        )
        return Drawn(save(fig, stem), caption)
