"""Cross-play heat maps: row player's win rate against the column player, with 95% CIs."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from figures.style import COLUMN_WIDTH, DIVERGING_CMAP, PAGE_WIDTH, plt, save, style


def win_rate_heatmap(
    matrix: np.ndarray,
    labels: Sequence[str],
    stem: str | Path,
    ci_low: np.ndarray | None = None,
    ci_high: np.ndarray | None = None,
    title: str = "",
    value_label: str = "win rate of row vs column",
) -> list[Path]:
    """Draw ``matrix[i, j]`` (in [0, 1], NaN for no match) as an annotated heat map.

    Cells show the rate in percent and, when intervals are given, the 95% CI half-width
    (``±x``) underneath; the colour scale is diverging around 50% so better-than-even and
    worse-than-even cells read at a glance.  Saved as PNG and PDF.
    """
    matrix = np.asarray(matrix, dtype=float)
    n = len(labels)
    size = min(PAGE_WIDTH, max(COLUMN_WIDTH, 0.55 * n + 1.6))
    with style():
        fig, ax = plt.subplots(figsize=(size, size * 0.85))
        image = ax.imshow(np.ma.masked_invalid(matrix), cmap=DIVERGING_CMAP, vmin=0.0, vmax=1.0)
        named = n <= MAX_NAMED
        if named:
            font = min(7.0, TICK_FONT_SCALE / n)
            ax.set_xticks(range(n), labels, rotation=45, ha="right", fontsize=font)
            ax.set_yticks(range(n), labels, fontsize=font)
        ax.set_xlabel("column player (opponent)" if named else "column player (opponent), numbered from 0")
        ax.set_ylabel("row player" if named else "row player, numbered from 0")
        ax.spines[:].set_visible(False)
        ax.set_facecolor("#dddddd")
        if n <= MAX_ANNOTATED:
            _annotate(ax, matrix, ci_low, ci_high)
        bar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        bar.set_label(f"{value_label} (%)")
        bar.set_ticks([0, 0.25, 0.5, 0.75, 1.0], labels=["0", "25", "50", "75", "100"])
        if title:
            ax.set_title(title)
        return save(fig, stem)


#: players up to which every cell shows its rate (from 25 on, a cell is too small for a
#: legible number even on a page-wide figure, and n^2 texts would cost most of the drawing)
MAX_ANNOTATED = 24
#: the rows' and columns' labels are drawn at ``TICK_FONT_SCALE / n`` points, at most 7 (so
#: 7 pt up to 30 players, then smaller to keep one line per row) ...
TICK_FONT_SCALE = 210.0
#: ... and up to this many players (3 pt); beyond, rows and columns are numbered instead
MAX_NAMED = 70


def _annotate(ax, matrix: np.ndarray, ci_low: np.ndarray | None, ci_high: np.ndarray | None) -> None:
    """Each finite cell's rate in percent and, with intervals, its 95% half-width underneath."""
    n = len(matrix)
    font = 7 if n <= 8 else 5 if n <= 14 else 4
    for i in range(n):
        for j in range(n):
            value = matrix[i, j]
            if not np.isfinite(value):
                continue
            text = f"{100 * value:.1f}"
            if ci_low is not None and ci_high is not None and np.isfinite(ci_low[i, j]):
                half = 100 * (ci_high[i, j] - ci_low[i, j]) / 2
                text += f"\n±{half:.1f}"
            shade = "white" if abs(value - 0.5) > 0.3 else "black"
            ax.text(j, i, text, ha="center", va="center", fontsize=font, color=shade)
