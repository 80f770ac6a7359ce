"""Fingerprints drawn as heat maps side by side, one panel per player, one colour scale.

Each panel is a player's win rate over the unit square of probe parameters
(:mod:`fsmarena.evo.fingerprint`): ``x`` to the right, ``y`` upwards, cells annotated with the rate in
percent when the grid is small enough to read them.  The colour scale is diverging around
50% (better or worse than even at a glance), symmetric, and spans the data: from 50% to the
rate farthest from it, over all panels (shared, so players compare), never the whole 0-100%
that would leave a map of rates near even all one pale colour.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence, cast

import numpy as np
from matplotlib.colors import Normalize

from fsmarena.errors import FsmarenaError
from fsmarena.figures.style import (
    COLUMN_WIDTH,
    DIVERGING_CMAP,
    PAGE_WIDTH,
    Drawn,
    centred_norm,
    plt,
    save,
    style,
    titles_collide,
)

if TYPE_CHECKING:
    from fsmarena.evo.fingerprint import Fingerprint

#: panels per row: two in a column-wide figure, four in a page-wide one
COLUMN_PANELS = 2
PAGE_PANELS = 4
#: grids up to this size get the rate written in each cell
ANNOTATED = 6


def fingerprint_figure(
    prints: Sequence["Fingerprint"], stem: str | Path, title: str = "", columns: int | None = None
) -> Drawn:
    """Draw ``prints`` side by side (column-wide up to two, page-wide beyond; fewer columns when
    long titles would collide) and save them as ``stem.png`` and ``stem.pdf``; returns the files
    with their caption."""
    if not prints:
        raise FsmarenaError("no fingerprint to draw")
    norm = fingerprint_norm(prints)
    n = len(prints)
    width = COLUMN_WIDTH if n <= COLUMN_PANELS else PAGE_WIDTH
    columns = columns or min(n, COLUMN_PANELS if n <= COLUMN_PANELS else PAGE_PANELS)
    rows = -(-n // columns)
    panel = width / columns
    with style():
        fig, axes = plt.subplots(
            rows, columns, figsize=(width, panel * rows * 0.85 + 0.5), squeeze=False, sharex=True, sharey=True
        )
        images = [_panel(ax, print_, norm) for ax, print_ in zip(axes.flat, prints)]
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
        if columns > 1 and titles_collide(fig):
            plt.close(fig)
            return fingerprint_figure(prints, stem, title, columns - 1)
        return Drawn(save(fig, stem), fingerprint_caption(prints, norm))


def fingerprint_norm(prints: Sequence["Fingerprint"]) -> Normalize:
    """The panels' shared colour scale: symmetric around 50%, spanning every panel's rates."""
    values = np.concatenate([np.asarray(p.values, float).ravel() for p in prints])
    return centred_norm(values, 0.5, 0.0, 1.0)


def fingerprint_caption(prints: Sequence["Fingerprint"], norm: Normalize) -> str:
    """What the figure shows, in words."""
    first = prints[0]
    each = f", {first.games:,} games per cell" if first.games else ""
    return (
        f"Fingerprints of {len(prints)} player{'s' if len(prints) > 1 else ''}: each cell is the player's win "
        f"rate against the probe with parameters x ({first.x_label}) and y ({first.y_label}){each}. One colour "
        f"scale for every panel, centred on 50% (an even match) and spanning the rates drawn "
        f"({100 * cast(float, norm.vmin):.0f}% to {100 * cast(float, norm.vmax):.0f}%): purple, the player wins more often; orange, less."
    )


def _panel(ax, print_: "Fingerprint", norm: Normalize):
    """One player's fingerprint; returns the image for the shared colour bar."""
    values = np.asarray(print_.values, dtype=float)
    step_x = (print_.x[1] - print_.x[0]) / 2 if len(print_.x) > 1 else 0.5
    step_y = (print_.y[1] - print_.y[0]) / 2 if len(print_.y) > 1 else 0.5
    extent = (print_.x[0] - step_x, print_.x[-1] + step_x, print_.y[0] - step_y, print_.y[-1] + step_y)
    image = ax.imshow(values, origin="lower", extent=extent, cmap=DIVERGING_CMAP, norm=norm)
    if max(values.shape) <= ANNOTATED:
        for (j, i), value in np.ndenumerate(values):
            ink = "white" if abs(float(norm(value)) - 0.5) > 0.3 else "black"
            ax.text(print_.x[i], print_.y[j], f"{value:.0%}", ha="center", va="center", fontsize=5, color=ink)
    ax.set_title(print_.label, fontsize=7)
    ax.set_xticks([0, 0.5, 1], ["0", ".5", "1"])
    ax.set_yticks([0, 0.5, 1], ["0", ".5", "1"])
    ax.tick_params(labelsize=6, length=2)
    ax.set_xlabel("x", fontsize=6, labelpad=1)
    ax.set_ylabel("y", fontsize=6, labelpad=1)
    return image
