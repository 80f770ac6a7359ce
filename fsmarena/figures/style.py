"""One publication style for every fsmarena figure.

Colour-blind-safe Okabe-Ito colours, sizes for a single journal column (3.4 in) or the full
page width (7 in), fonts legible at that size, every figure saved as PNG (300 dpi) and as a
vector PDF.  Plotting never needs a display: the Agg backend is forced here.

Every text is drawn as written (no mathtext: labels come from files), so log axes get tick
labels in plain text, ``10³`` with Unicode superscripts (:class:`PowerFormatter`), instead of
matplotlib's mathtext ``$\\mathdefault{10^{3}}$``.  Every figure is written by :func:`save_as`,
which puts those labels on any log axis still using the default; inside :func:`checking`, it
also runs the figure check (:mod:`fsmarena.figures.check`) on each figure first.
"""

from __future__ import annotations

import contextlib
import math
import warnings
import weakref
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence, cast

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from cycler import cycler  # noqa: E402
from matplotlib.axis import Axis  # noqa: E402
from matplotlib.colors import Normalize, to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.scale import LogTransform  # noqa: E402
from matplotlib.ticker import LogFormatter, LogFormatterMathtext  # noqa: E402

from fsmarena.figures.check import described, figure_defects  # noqa: E402
from fsmarena.fileio import atomic_path  # noqa: E402

#: Okabe & Ito (2008) palette, safe for the common colour-vision deficiencies
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
COLUMN_WIDTH = 3.4
PAGE_WIDTH = 7.0
#: colour maps: sequential and diverging, both perceptually uniform and colour-blind safe
SEQUENTIAL_CMAP = "cividis"
DIVERGING_CMAP = "PuOr"

RC = {
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": cycler(color=OKABE_ITO),
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.02,
    "pdf.fonttype": 42,  # embed TrueType: editable text in vector output
    "svg.fonttype": "none",
    # every text is drawn as written: labels and titles come from files and command lines, and
    # as mathtext a "$" would start a formula ("$$" or "$\nosuchmacro$" fail to parse)
    "text.parse_math": False,
}


@contextlib.contextmanager
def style() -> Iterator[None]:
    """Apply the fsmarena style inside a ``with`` block."""
    with plt.rc_context(cast(Any, RC)):
        yield


def color(i: int) -> str:
    return OKABE_ITO[i % len(OKABE_ITO)]


#: the colours actions take, in the order of the actions on view: Okabe-Ito without black (cells
#: carry black text), then tab20's, so up to 7 actions get the colour-blind-safe ones
ACTION_PALETTE = tuple(
    dict.fromkeys(
        [*(OKABE_ITO[i] for i in (0, 1, 2, 4, 5, 3, 6)), *(to_hex(plt.get_cmap("tab20")(k)) for k in range(20))]
    )
)


def action_colours(on_view: Sequence[int], n_actions: int) -> list[str]:
    """A colour for each of ``n_actions`` actions, distinct among those ``on_view``: they take
    :data:`ACTION_PALETTE` in order, so a machine or a policy that plays 3 of Vautour's 22
    actions gets the 3 clearest colours (the 8-colour cycle would repeat); the others are white."""
    colours = ["#ffffff"] * n_actions
    for rank, action in enumerate(on_view):
        colours[action] = ACTION_PALETTE[rank % len(ACTION_PALETTE)]
    return colours


def family_colors(families: Sequence[str]) -> dict[str, str]:
    """One colour per family, by its place in the study's order: pass the same mapping to
    every figure of a study and a family keeps its colour in all of them, whichever families
    a figure happens to show."""
    return {name: color(i) for i, name in enumerate(dict.fromkeys(families))}


class Drawn(list[Path]):
    """The files a figure function wrote (a list of paths, as before) and the caption to
    print under the figure: what it shows, over how many replicates, what a band or an
    interval is.  Report writers print ``drawn.caption`` below the image."""

    def __init__(self, paths: Iterable[Path] = (), caption: str = "") -> None:
        super().__init__(paths)
        self.caption = caption


def count_text(counts: Iterable[int], noun: str = "replicate") -> str:
    """How many replicates a figure's groups hold, for a caption: ``"10 replicates"``,
    ``"3-5 replicates"`` (each group), ``"no replicates"``."""
    numbers = sorted(set(int(c) for c in counts))
    if not numbers:
        return f"no {noun}s"
    low, high = numbers[0], numbers[-1]
    plural = "" if high == 1 else "s"
    return f"{low} {noun}{plural}" if low == high else f"{low}–{high} {noun}s"


def titles_collide(fig: Figure) -> bool:
    """Whether two axes' titles overlap once drawn (long family names in narrow columns): a
    figure laid out in columns draws again with fewer."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = [ax.title.get_window_extent(renderer) for ax in fig.axes if ax.get_visible() and ax.get_title()]
    return any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def room_for_suptitle(fig: Figure, bottom: float = 0.0) -> None:
    """Lay ``fig`` out again below its suptitle when the suptitle runs into an axes' title (a tall
    figure of many panels, where the layout leaves it too little room); nothing otherwise."""
    suptitle = fig._suptitle  # type: ignore[attr-defined]
    if suptitle is None or not suptitle.get_text():
        return
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    top = suptitle.get_window_extent(renderer)
    if any(ax.get_visible() and ax.title.get_window_extent(renderer).overlaps(top) for ax in fig.axes):
        fig.tight_layout(rect=(0, bottom, 1, 1 - (top.height + 6) / fig.bbox.height))


def save(fig: "plt.Figure", stem: str | Path, formats: Sequence[str] = ("png", "pdf")) -> list[Path]:
    """Save ``fig`` as ``stem.png`` and ``stem.pdf`` (atomically) and close it."""
    paths = [Path(f"{stem}.{fmt}") for fmt in formats]
    try:
        for path, fmt in zip(paths, formats):
            save_as(fig, path, fmt)
    finally:
        plt.close(fig)
    return paths


def save_as(fig: "plt.Figure", path: str | Path, fmt: str) -> None:
    """Write ``fig`` to ``path`` in format ``fmt`` (atomically), in the fsmarena style: every
    figure file is written here.  Log axes get plain-text labels (:func:`readable_log_ticks`);
    inside :func:`checking`, the figure is checked first (and, checking only, not written)."""
    readable_log_ticks(fig)
    checks = _CHECKS.get()
    if checks is not None:
        checks.inspect(fig, Path(path))
        if not checks.write:
            return
    with atomic_path(path) as tmp, warnings.catch_warnings(), style():  # texts made while saving too
        # a label in a script the font lacks is drawn as boxes; the figure is still right,
        # and stderr is for the command's own lines
        warnings.filterwarnings("ignore", message="Glyph .* missing from font", category=UserWarning)
        fig.savefig(tmp, format=fmt, dpi=300)


# ---- log axes in plain text ---------------------------------------------------------------------

#: the superscript of each character of an exponent
SUPERSCRIPTS = str.maketrans(
    "0123456789-\u2212", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b\u207b"
)


def power_text(value: float, base: float = 10.0) -> str:
    """``value`` as a power of ``base`` in plain text: ``10³``, ``10⁻²``, ``2×10³`` (between decades)."""
    if value == 0:
        return "0"
    sign = "\u2212" if value < 0 else ""
    value = abs(value)
    exponent = math.log(value, base)
    whole = round(exponent)
    if math.isclose(exponent, whole, abs_tol=1e-9):
        return f"{sign}{base:g}{str(whole).translate(SUPERSCRIPTS)}"
    floor = math.floor(exponent + 1e-9)
    coefficient = value / base**floor
    return f"{sign}{coefficient:.3g}\u00d7{base:g}{str(floor).translate(SUPERSCRIPTS)}"


class PowerFormatter(LogFormatter):
    """Log-axis tick labels as plain text (:func:`power_text`), on the ticks matplotlib's own
    log formatter labels (every decade; between decades when the axis spans few)."""

    def __init__(self, base: float = 10.0, **kwargs: Any) -> None:
        super().__init__(base=base, **kwargs)
        self.power_base = base

    def __call__(self, x: float, pos: int | None = None) -> str:
        if not super().__call__(x, pos):  # a tick matplotlib leaves unlabelled
            return ""
        return power_text(x, self.power_base)


def plain_log_ticks(axis: Axis) -> None:
    """Replace a log ``axis``'s mathtext tick labels, major and minor, by :class:`PowerFormatter`
    (others, such as a figure's own formatter or no labels, are kept)."""
    if axis.get_scale() != "log":
        return
    base = float(cast(LogTransform, axis.get_transform()).base)
    for formatter, setter in (
        (axis.get_major_formatter(), axis.set_major_formatter),
        (axis.get_minor_formatter(), axis.set_minor_formatter),
    ):
        if isinstance(formatter, LogFormatterMathtext):
            setter(
                PowerFormatter(
                    base,
                    labelOnlyBase=formatter.labelOnlyBase,
                    minor_thresholds=formatter.minor_thresholds,
                )
            )


def readable_log_ticks(fig: Figure) -> None:
    """Plain-text labels on every log axis of ``fig`` (colour bars included)."""
    for ax in fig.axes:
        plain_log_ticks(ax.xaxis)
        plain_log_ticks(ax.yaxis)


def log_scale(ax: Any, which: str = "x") -> None:
    """Put ``ax``'s ``which`` axis (``"x"`` or ``"y"``) on a log scale with plain-text labels, before
    the figure is laid out (labels of the right width)."""
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    plain_log_ticks(ax.xaxis if which == "x" else ax.yaxis)


# ---- the figure check on every figure saved -------------------------------------------------------


class FigureChecks:
    """The figures saved inside one :func:`checking` block and their defects."""

    def __init__(self, write: bool) -> None:
        self.write = write
        self.checked: list[Path] = []
        self.defects: list[str] = []
        self._seen: weakref.WeakSet[Figure] = weakref.WeakSet()

    def inspect(self, fig: Figure, path: Path) -> None:
        """Check ``fig`` (once, whatever the number of formats it is saved in)."""
        if fig in self._seen:
            return
        self._seen.add(fig)
        self.checked.append(path.with_suffix(""))
        with style():
            tight = plt.rcParams["savefig.bbox"] == "tight"
            found = figure_defects(fig, tight, float(plt.rcParams["savefig.pad_inches"]))
        self.defects += described(found, path.stem)


_CHECKS: ContextVar[FigureChecks | None] = ContextVar("figure_checks", default=None)


@contextlib.contextmanager
def checking(write: bool = True) -> Iterator[FigureChecks]:
    """Check every figure saved inside the block with :func:`fsmarena.figures.check.figure_defects`;
    the block's :class:`FigureChecks` lists the figures and their defects (one line each,
    prefixed with the file's stem).  ``write=False`` checks without writing any file (a
    figure function then returns paths that do not exist)."""
    checks = FigureChecks(write)
    token = _CHECKS.set(checks)
    try:
        yield checks
    finally:
        _CHECKS.reset(token)


#: the colour scale spans at least this far either side of its centre (a map of near-even
#: cells stays pale instead of blowing noise up to full colour)
MIN_SPAN = 0.05


def centred_norm(values: np.ndarray, centre: float, lowest: float, highest: float) -> Normalize:
    """A colour normalisation symmetric around ``centre`` (mapped to the middle of the colour
    map) that spans the data: ``centre +- m``, ``m`` the largest distance of a finite value
    from the centre (at least :data:`MIN_SPAN`, at most what the statistic can reach within
    ``[lowest, highest]``)."""
    array = np.asarray(values, float)
    finite = array[np.isfinite(array)]
    reach = max(centre - lowest, highest - centre)
    span = float(np.max(np.abs(finite - centre))) if len(finite) else reach
    span = min(max(span, MIN_SPAN), reach)
    return Normalize(vmin=centre - span, vmax=centre + span)
