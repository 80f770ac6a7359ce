"""Cross-play heat maps: the row's net score (or win rate) against the column, with intervals.

Between families, a cell is the mean net score, wins minus losses per game (draws are not
losses), over every pair of their champions, with its champion-level 95% interval
(:func:`fsmarena.stats.inference.crossplay_inference`: both families' champions resampled).  The
colour scale is diverging and symmetric around the even result: 0 for a net score, the fair
share (1/2 with two players, 1/3 with three) for a win rate, so "ahead" and "behind" read
at a glance and equally strongly.  Every function returns the files with a caption
(:class:`fsmarena.figures.style.Drawn`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence, cast

import numpy as np
from matplotlib.colors import Normalize
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

from fsmarena.figures.style import (
    COLUMN_WIDTH,
    DIVERGING_CMAP,
    PAGE_WIDTH,
    Drawn,
    centred_norm,
    count_text,
    plt,
    save,
    style,
)

#: players up to which every cell shows its rate (from 25 on, a cell is too small for a
#: legible number even on a page-wide figure, and n^2 texts would cost most of the drawing)
MAX_ANNOTATED = 24
#: the rows' and columns' labels are drawn at ``TICK_FONT_SCALE / n`` points, at most 7 (so
#: 7 pt up to 30 players, then smaller to keep one line per row) ...
TICK_FONT_SCALE = 210.0
#: ... and up to this many players (3 pt); beyond, rows and columns are numbered instead
MAX_NAMED = 70
#: a cell's text: at most this size (points), its widest line and its lines (each this many
#: font sizes high, line spacing included) filling at most this share of the cell
CELL_FONT = 7.0
CELL_FILL = 0.85
LINE_HEIGHT = 1.4
#: measures a line of text in the figures' font
_MEASURE = TextToPath()


def line_width(line: str) -> float:
    """The width of ``line`` drawn one point high, in points (the font's own metrics)."""
    width, _, _ = _MEASURE.get_text_width_height_descent(line, FontProperties(size=10), ismath=False)
    return width / 10


def net_score_heatmap(
    net: np.ndarray,
    labels: Sequence[str],
    stem: str | Path,
    net_low: np.ndarray | None = None,
    net_high: np.ndarray | None = None,
    title: str = "",
    replicates: Sequence[int] = (),
) -> Drawn:
    """Draw ``net[i, j]`` (row's wins minus losses per game against the column, in [-1, 1],
    NaN for no games) in percentage points, each annotated cell with its 95% interval
    ``[low, high]`` underneath when given; the colours centre on 0.  ``replicates``: the
    champions per family (for the caption)."""
    caption = (
        "Cross-play: each cell is the row's mean net score against the column, wins minus losses per 100 "
        f"games (draws count zero), over every pair of their champions ({count_text(replicates)} per family). "
        "Under it, its 95% champion-level interval (two-way cluster bootstrap over both families' champions; "
        "none on the diagonal, a family against itself). Colours centre on 0, an even record: purple, the row "
        "is ahead; orange, behind."
    )
    return _heatmap(
        net,
        labels,
        stem,
        net_low,
        net_high,
        centre=0.0,
        lowest=-1.0,
        title=title,
        value_label="row's net score vs column (wins \u2212 losses per 100 games)",
        caption=caption,
        interval="bracket",
    )


def win_rate_heatmap(
    matrix: np.ndarray,
    labels: Sequence[str],
    stem: str | Path,
    ci_low: np.ndarray | None = None,
    ci_high: np.ndarray | None = None,
    title: str = "",
    value_label: str = "win rate of row vs column",
    fair_share: float = 0.5,
    replicates: Sequence[int] = (),
) -> Drawn:
    """Draw ``matrix[i, j]`` (in [0, 1], NaN for no match) as an annotated heat map.

    Cells show the rate in percent and, when intervals are given, the 95% half-width
    (``±x``) underneath; the colour scale is diverging around ``fair_share`` (1/2 with two
    players, 1/3 with three: the rate of an even seat).  Saved as PNG and PDF."""
    groups = f" ({count_text(replicates)} per row)" if len(replicates) else ""
    caption = (
        f"Win rate of the row against the column in percent{groups}; under it, the 95% interval's half-width "
        f"when one is given. Colours centre on the fair share {100 * fair_share:.0f}%: purple, the row wins more "
        "often than an even seat; orange, less often."
    )
    return _heatmap(
        matrix,
        labels,
        stem,
        ci_low,
        ci_high,
        centre=fair_share,
        lowest=0.0,
        title=title,
        value_label=value_label,
        caption=caption,
        interval="half-width",
    )


def _heatmap(
    matrix: np.ndarray,
    labels: Sequence[str],
    stem: str | Path,
    low: np.ndarray | None,
    high: np.ndarray | None,
    centre: float,
    lowest: float,
    title: str,
    value_label: str,
    caption: str,
    interval: str,
) -> Drawn:
    """The one drawing behind both maps: a diverging scale symmetric around ``centre``."""
    matrix = np.asarray(matrix, dtype=float)
    n = len(labels)
    per_cell = 0.75 if interval == "bracket" and n <= MAX_ANNOTATED else 0.55  # room for "[-12.3, 4.5]"
    size = min(PAGE_WIDTH, max(COLUMN_WIDTH, per_cell * n + 1.6))
    norm = centred_norm(matrix, centre, lowest, 1.0)
    with style():
        fig, ax = plt.subplots(figsize=(size, size * 0.85))
        image = ax.imshow(np.ma.masked_invalid(matrix), cmap=DIVERGING_CMAP, norm=norm)
        named = n <= MAX_NAMED
        if named:
            font = min(7.0, TICK_FONT_SCALE / n)
            ax.set_xticks(range(n), labels, rotation=45, ha="right", fontsize=font)
            ax.set_yticks(range(n), labels, fontsize=font)
        ax.set_xlabel("column player (opponent)" if named else "column player (opponent), numbered from 0")
        ax.set_ylabel("row player" if named else "row player, numbered from 0")
        ax.spines[:].set_visible(False)
        ax.set_facecolor("#dddddd")
        bar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        bar.set_label(f"{value_label} (%)" if interval == "half-width" else value_label)
        signed = interval == "bracket"
        ticks = np.linspace(cast(float, norm.vmin), cast(float, norm.vmax), 5).tolist()  # the centre and both ends
        bar.set_ticks(ticks, labels=[_number(t, signed, digits=0) for t in ticks])
        if n <= MAX_ANNOTATED:
            ax.apply_aspect()  # the cells' size once the colour bar has taken its share
            _annotate(ax, matrix, low, high, norm, interval, ax.get_position().width * size / n)
        if title:
            ax.set_title(title)
        return Drawn(save(fig, stem), caption)


def _number(value: float, signed: bool, digits: int = 1) -> str:
    """A cell's or a tick's value in percent (points), signed for a net score (0 unsigned)."""
    text = f"{100 * value:.{digits}f}"
    if float(text) == 0:
        return text.lstrip("-")
    return f"+{text}" if signed and value > 0 else text


def cell_text(value: float, low: float, high: float, interval: str) -> str:
    """What a cell says: its value and, with a finite interval, ``[low, high]`` (net score)
    or ``±half-width`` (win rate) underneath, all in percent."""
    signed = interval == "bracket"
    text = _number(value, signed)
    if np.isfinite(low) and np.isfinite(high):
        if signed:
            text += f"\n[{_number(low, False, digits=0)}, {_number(high, False, digits=0)}]"
        else:
            text += f"\n±{100 * (high - low) / 2:.1f}"
    return text


def _annotate(
    ax,
    matrix: np.ndarray,
    low: np.ndarray | None,
    high: np.ndarray | None,
    norm: Normalize,
    interval: str,
    cell_inches: float,
) -> None:
    """Each finite cell's value and, with intervals, its interval underneath, in a font that
    fits the longest line and every line in a cell ``cell_inches`` wide (at most :data:`CELL_FONT` points)."""
    n = len(matrix)
    nan = np.full(matrix.shape, np.nan)
    low = nan if low is None else np.asarray(low, float)
    high = nan if high is None else np.asarray(high, float)
    cells = [
        (i, j, cell_text(matrix[i, j], low[i, j], high[i, j], interval))
        for i in range(n)
        for j in range(n)
        if np.isfinite(matrix[i, j])
    ]
    widest = max((line_width(line) for line in {line for *_, text in cells for line in text.split("\n")}), default=1)
    lines = max((text.count("\n") + 1 for *_, text in cells), default=1)
    room = CELL_FILL * 72 * cell_inches  # points
    font = min(CELL_FONT, room / widest, room / (LINE_HEIGHT * lines))
    for i, j, text in cells:
        shade = "white" if abs(float(norm(matrix[i, j])) - 0.5) > 0.3 else "black"
        ax.text(j, i, text, ha="center", va="center", fontsize=font, color=shade)
