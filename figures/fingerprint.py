"""Fingerprints drawn as heat maps side by side, one panel per player, one colour scale.

Each panel is a player's win rate over the unit square of probe parameters
(:mod:`evo.fingerprint`): ``x`` to the right, ``y`` upwards, cells annotated with the rate in
percent when the grid is small enough to read them.  The colour scale is diverging around
50% (better or worse than even at a glance) and shared by all panels, so players compare.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from figures.style import COLUMN_WIDTH, DIVERGING_CMAP, PAGE_WIDTH, plt, save, style
from fsmarena.errors import FsmarenaError

if TYPE_CHECKING:
    from evo.fingerprint import Fingerprint

#: panels per row: two in a column-wide figure, four in a page-wide one
COLUMN_PANELS = 2
PAGE_PANELS = 4
#: grids up to this size get the rate written in each cell
ANNOTATED = 6


def fingerprint_figure(prints: Sequence["Fingerprint"], stem: str | Path, title: str = "") -> list[Path]:
    """Draw ``prints`` side by side (column-wide up to two, page-wide beyond) and save them
    as ``stem.png`` and ``stem.pdf``."""
    if not prints:
        raise FsmarenaError("no fingerprint to draw")
    n = len(prints)
    width = COLUMN_WIDTH if n <= COLUMN_PANELS else PAGE_WIDTH
    columns = min(n, COLUMN_PANELS if n <= COLUMN_PANELS else PAGE_PANELS)
    rows = -(-n // columns)
    panel = width / columns
    with style():
        fig, axes = plt.subplots(
            rows, columns, figsize=(width, panel * rows * 0.85 + 0.5), squeeze=False, sharex=True, sharey=True
        )
        images = [_panel(ax, print_) for ax, print_ in zip(axes.flat, prints)]
        for ax in list(axes.flat)[n:]:
            ax.set_axis_off()
        bar = fig.colorbar(images[0], ax=axes.ravel().tolist(), shrink=0.8)
        bar.set_label("win rate vs probe", fontsize=6)
        bar.ax.tick_params(labelsize=6)
        for ax in axes[:, 1:].flat:
            ax.set_ylabel("")
            ax.tick_params(labelleft=False)
        first = prints[0]
        fig.text(0.01, 0.005, f"x: {first.x_label}\ny: {first.y_label}", fontsize=6, va="bottom")
        if title:
            fig.suptitle(title, fontsize=8)
        return save(fig, stem)


def _panel(ax, print_: "Fingerprint"):
    """One player's fingerprint; returns the image for the shared colour bar."""
    values = np.asarray(print_.values, dtype=float)
    step_x = (print_.x[1] - print_.x[0]) / 2 if len(print_.x) > 1 else 0.5
    step_y = (print_.y[1] - print_.y[0]) / 2 if len(print_.y) > 1 else 0.5
    extent = (print_.x[0] - step_x, print_.x[-1] + step_x, print_.y[0] - step_y, print_.y[-1] + step_y)
    image = ax.imshow(values, origin="lower", extent=extent, cmap=DIVERGING_CMAP, vmin=0.0, vmax=1.0)
    if max(values.shape) <= ANNOTATED:
        for (j, i), value in np.ndenumerate(values):
            ink = "white" if abs(value - 0.5) > 0.3 else "black"
            ax.text(print_.x[i], print_.y[j], f"{value:.0%}", ha="center", va="center", fontsize=5, color=ink)
    ax.set_title(print_.label, fontsize=7)
    ax.set_xticks([0, 0.5, 1], ["0", ".5", "1"])
    ax.set_yticks([0, 0.5, 1], ["0", ".5", "1"])
    ax.tick_params(labelsize=6, length=2)
    ax.set_xlabel("x", fontsize=6, labelpad=1)
    ax.set_ylabel("y", fontsize=6, labelpad=1)
    return image
