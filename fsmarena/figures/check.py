"""The figure check: what a journal's production editor would send back, found on the figure itself.

:func:`figure_defects` lays a matplotlib figure out (a draw without rendering) and reads every
text it would print:

* **formula markup**: a text with ``$``, ``\\mathdefault`` or another ``\\command`` is mathtext
  drawn literally (fsmarena draws every text as written, :mod:`fsmarena.figures.style`), the
  raw ``$\\mathdefault{10^{3}}$`` a log axis's default labels print;
* **texts that overlap**: two texts whose outlines (rotated rectangles: a label at 45 degrees is
  not its axis-aligned box) cross, tick labels first;
* **texts off the canvas**: a text that reaches past the area the file will hold (the figure,
  or with ``tight`` the tight box ``savefig`` cuts) or past its own clipping box.

The check reads only matplotlib's artists, so it serves any figure; :func:`fsmarena.figures.style.checking`
runs it on every figure fsmarena saves inside a block (the tests; a publishing step).
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence, cast

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox, BboxBase

#: a text that is (or holds) mathtext: a dollar sign or a backslash command
FORMULA = re.compile(r"\$|\\[A-Za-z]+")
#: display pixels (at the figure's dpi) two outlines may share, or a text may reach past its
#: canvas, before it counts: anti-aliasing, not a defect
TOLERANCE = 1.0
#: characters of a text quoted in a defect
QUOTED = 40


def figure_defects(fig: Figure, tight: bool = True, pad_inches: float = 0.02) -> list[str]:
    """Every defect of ``fig`` as it would be saved, one line each (empty: the figure passes).
    ``tight``: saved with ``bbox_inches="tight"`` (fsmarena's style) and ``pad_inches``."""
    fig.draw_without_rendering()
    texts = drawn_texts(fig)
    defects = [f"formula markup in text {quote(t)}" for t in texts if FORMULA.search(t.get_text())]
    outlines = {id(t): outline(t) for t in texts}
    ticks = {id(t) for t in tick_labels_of(fig)}
    for a, b in overlapping([outlines[id(t)] for t in texts]):
        first, second = texts[a], texts[b]
        kind = "tick labels" if id(first) in ticks and id(second) in ticks else "texts"
        defects.append(f"{kind} overlap: {quote(first)} and {quote(second)}")
    canvas = saved_area(fig, tight, pad_inches)
    for t in texts:
        box, clip = t.get_window_extent(), t.get_clip_box() if t.get_clip_on() else None
        if clip is not None and not inside(box, clip):
            defects.append(f"text cut by its clipping box: {quote(t)}")
        elif not inside(box, canvas):
            defects.append(f"text off the canvas: {quote(t)}")
    return defects


def quote(text: Text) -> str:
    """A text's string for a defect line, cut to :data:`QUOTED` characters."""
    words = text.get_text()
    return repr(words if len(words) <= QUOTED else words[: QUOTED - 3] + "...")


# ---- which texts are printed ------------------------------------------------------------------


def drawn_texts(fig: Figure) -> list[Text]:
    """Every visible, non-empty text of ``fig``: titles, labels, legends, annotations and the
    tick labels each axis draws (an axis keeps more ticks than it shows: only those in view)."""
    found: list[Text] = []

    def walk(artist: Artist) -> None:
        if not artist.get_visible():
            return
        if isinstance(artist, Axis):
            found.extend(t for t in (artist.label, artist.offsetText, *drawn_tick_labels(artist)) if printed(t))
            return
        if isinstance(artist, Text) and printed(artist):
            found.append(artist)
        for child in artist.get_children():
            walk(child)

    walk(fig)
    return list({id(t): t for t in found}.values())


def printed(text: Text) -> bool:
    return text.get_visible() and bool(text.get_text().strip())


def drawn_tick_labels(axis: Axis) -> list[Text]:
    """The tick labels ``axis`` draws: its major and minor ticks within the view interval."""
    transform = axis.get_transform()
    ends = np.sort(transform.transform(np.asarray(axis.get_view_interval(), float)))
    slack = 1e-9 * max(1.0, float(np.abs(ends).max())) if np.all(np.isfinite(ends)) else 0.0
    labels = []
    for ticks, locations in (
        (axis.get_major_ticks(), axis.get_majorticklocs()),
        (axis.get_minor_ticks(), axis.get_minorticklocs()),
    ):
        for tick, location in zip(ticks, locations):
            at = transform.transform(np.array([float(location)]))[0]
            if tick.get_visible() and np.isfinite(at) and ends[0] - slack <= at <= ends[1] + slack:
                labels += [label for label in (tick.label1, tick.label2) if printed(label)]
    return labels


def tick_labels_of(fig: Figure) -> list[Text]:
    """Every drawn tick label of every visible axes of ``fig``."""
    return [t for ax in fig.axes if ax.get_visible() for axis in (ax.xaxis, ax.yaxis) for t in drawn_tick_labels(axis)]


# ---- geometry ---------------------------------------------------------------------------------


def outline(text: Text) -> np.ndarray:
    """The four corners (display pixels) of ``text``'s rectangle as drawn, rotated with it: the
    window extent of a rotated text is the axis-aligned box around this rectangle, centred on
    it, and the rectangle's sides are the text's unrotated width and height."""
    box = text.get_window_extent()
    angle = np.deg2rad(text.get_rotation())
    if np.isclose(np.sin(2 * angle), 0.0):  # 0, 90, 180, 270 degrees: the box is the outline
        return corners(box)
    probe = Text(
        0,
        0,
        text.get_text(),
        fontproperties=text.get_fontproperties(),
        linespacing=text.get_linespacing(),
    )
    probe.set_figure(cast(Figure, text.get_figure(root=True)))
    flat = probe.get_window_extent()
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [flat.width / 2, flat.height / 2]
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    centre = np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])
    return centre + half @ rotation.T


def corners(box: Bbox) -> np.ndarray:
    return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])


def overlapping(outlines: Sequence[np.ndarray]) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, of convex outlines that share more than :data:`TOLERANCE`
    pixels across (separating-axis test), found among the pairs whose boxes meet."""
    if len(outlines) < 2:
        return []
    points = np.stack(outlines)
    low, high = points.min(axis=1), points.max(axis=1)
    meet = np.all(
        (np.minimum(high[:, None], high[None, :]) - np.maximum(low[:, None], low[None, :])) > TOLERANCE, axis=2
    )
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(meet, 1))) if cross(points[i], points[j])]


def cross(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two convex polygons overlap by more than :data:`TOLERANCE` along every axis
    normal to one of their sides (no separating axis)."""
    for polygon in (a, b):
        for edge in np.diff(np.vstack([polygon, polygon[:1]]), axis=0):
            length = float(np.hypot(*edge))
            if length == 0:
                continue
            normal = np.array([-edge[1], edge[0]]) / length
            pa, pb = a @ normal, b @ normal
            if min(pa.max(), pb.max()) - max(pa.min(), pb.min()) <= TOLERANCE:
                return False
    return True


def saved_area(fig: Figure, tight: bool, pad_inches: float) -> BboxBase:
    """The part of the figure the file holds, in display pixels."""
    if not tight:
        return fig.bbox
    box = fig.get_tightbbox().padded(pad_inches)  # inches
    return box.transformed(fig.dpi_scale_trans)


def inside(box: BboxBase, area: BboxBase) -> bool:
    return (
        box.x0 >= area.x0 - TOLERANCE
        and box.y0 >= area.y0 - TOLERANCE
        and box.x1 <= area.x1 + TOLERANCE
        and box.y1 <= area.y1 + TOLERANCE
    )


def described(defects: Iterable[str], name: str) -> list[str]:
    """``defects`` prefixed with the figure's ``name`` (a file stem), for one report of many figures."""
    return [f"{name}: {d}" for d in defects]
