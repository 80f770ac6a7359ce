"""The figure check (:mod:`fsmarena.figures.check`) on figures made to fail it: mathtext drawn
literally, tick labels that overlap (straight and rotated), texts off the canvas or cut by their
clipping box; and log axes whose labels read 10³ in plain text."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.ticker import LogFormatterSciNotation

import fsmarena.figures.style as style_module
from fsmarena.figures.check import figure_defects, outline
from fsmarena.figures.curves import learning_curves
from fsmarena.figures.style import PowerFormatter, checking, plt, power_text, readable_log_ticks, style


def log_figure():
    """A figure with a log x axis over three decades, in the fsmarena style."""
    with style():
        fig, ax = plt.subplots(figsize=(3.4, 2.4))
        ax.plot([1e3, 1e6], [0.2, 0.8])
        ax.set_xscale("log")
        ax.set_xlabel("games")
    return fig


def test_the_default_log_labels_are_mathtext_drawn_literally_and_fail_the_check():
    """The bug: matplotlib's log labels are mathtext, and the style draws every text as written."""
    fig = log_figure()
    with style():
        defects = figure_defects(fig)
    assert any("formula markup" in d and "mathdefault" in d for d in defects), defects
    plt.close(fig)


def test_plain_log_labels_read_powers_of_ten_and_pass():
    fig = log_figure()
    readable_log_ticks(fig)
    with style():
        assert figure_defects(fig) == []
        labels = [t.get_text() for t in fig.axes[0].get_xticklabels() if t.get_text()]
    assert {"10\u00b3", "10\u2074", "10\u2075", "10\u2076"} <= set(labels)
    assert isinstance(fig.axes[0].xaxis.get_major_formatter(), PowerFormatter)
    plt.close(fig)


@pytest.mark.parametrize(
    "value, text",
    [(1000, "10³"), (1e6, "10⁶"), (1, "10⁰"), (0.001, "10⁻³"), (0.1, "10⁻¹"), (2000, "2×10³"), (5e-2, "5×10⁻²")],
)
def test_powers_of_ten_in_plain_text(value, text):
    assert power_text(value) == text
    assert power_text(-value) == "\u2212" + text


def test_a_log_axis_spanning_less_than_a_decade_labels_its_minor_ticks_in_plain_text():
    with style():
        fig, ax = plt.subplots()
        ax.plot([200, 900], [0, 1])
        ax.set_xscale("log")
        readable_log_ticks(fig)
        defects = figure_defects(fig)
    labels = [t.get_text() for t in ax.get_xticklabels(minor=True) if t.get_text()]
    assert defects == [] and labels and all("×10²" in t for t in labels), labels
    plt.close(fig)


def test_every_figure_saved_through_the_style_gets_plain_log_labels(tmp_path):
    """The one save function fixes any log axis (here one of the learning curves), so no figure
    is written with mathtext labels; put the bug back (no ``readable_log_ticks`` in ``save_as``)
    and this fails."""
    curve = (np.array([1e3, 1e4, 1e5]), np.array([0.4, 0.5, 0.6]))
    with checking(write=False) as checks:
        learning_curves({"BDA": [curve] * 3, "Q-learning": [curve] * 2}, tmp_path / "curves")
    assert [p.name for p in checks.checked] == ["curves"]
    assert checks.defects == []
    assert not list(tmp_path.iterdir())  # checking only: nothing written


def test_the_bug_put_back_is_found(tmp_path, monkeypatch):
    """The same figure with the default mathtext formatter kept: the check reports it, prefixed
    with the figure's name."""
    monkeypatch.setattr(style_module, "plain_log_ticks", lambda axis: None)
    curve = (np.array([1e3, 1e4, 1e5]), np.array([0.4, 0.5, 0.6]))
    with checking(write=False) as checks:
        learning_curves({"BDA": [curve] * 3}, tmp_path / "curves")
    assert any(d.startswith("curves: formula markup") for d in checks.defects)
    assert all(d.startswith("curves: ") for d in checks.defects)


def test_formulas_and_commands_in_any_text_are_found():
    with style():
        fig, ax = plt.subplots()
        ax.set_title("cost in $")
        ax.set_ylabel(r"\alpha rate")
        ax.text(0.5, 0.5, "plain text, 50% of games")
        defects = figure_defects(fig)
    assert sorted(d.split(" in text ")[1] for d in defects) == ["'\\\\alpha rate'", "'cost in $'"]
    plt.close(fig)


def test_overlapping_tick_labels_are_found():
    with style():
        fig, ax = plt.subplots(figsize=(3.4, 2.4))
        ax.set_xlim(0, 1)
        ax.set_xticks([0.0, 0.02, 0.5, 1.0], ["a long tick label", "another long label", "c", "d"])
        defects = figure_defects(fig)
    assert defects == ["tick labels overlap: 'a long tick label' and 'another long label'"]
    plt.close(fig)


def test_ticks_out_of_view_are_not_drawn_and_not_checked():
    """An axis keeps ticks beyond its view; only those drawn count."""
    with style():
        fig, ax = plt.subplots(figsize=(3.4, 2.4))
        ax.set_xticks([0.0, 0.5, 1.0, 5.0, 5.01], ["a", "b", "c", "hidden label", "hidden label too"])
        ax.set_xlim(0, 1)
        assert figure_defects(fig) == []
    plt.close(fig)


@pytest.mark.parametrize("spacing, overlap", [(0.02, True), (0.12, False)])
def test_rotated_labels_are_compared_as_drawn_not_by_their_boxes(spacing, overlap):
    """Labels at 45 degrees, their boxes overlapping in both cases: only the close ones cross."""
    with style():
        fig, ax = plt.subplots(figsize=(3.4, 2.4))
        ax.set_xlim(0, 1)
        ax.set_xticks([0.4, 0.4 + spacing], ["a long rotated label", "another rotated label"], rotation=45, ha="right")
        fig.draw_without_rendering()
        first, second = (t.get_window_extent() for t in ax.get_xticklabels())
        assert first.overlaps(second)  # the axis-aligned boxes meet either way
        defects = figure_defects(fig)
    assert (defects == ["tick labels overlap: 'a long rotated label' and 'another rotated label'"]) == overlap
    plt.close(fig)


def test_a_rotated_outline_has_the_texts_own_width_and_height():
    with style():
        fig, ax = plt.subplots()
        flat = ax.text(0.1, 0.1, "some text")
        turned = ax.text(0.5, 0.5, "some text", rotation=30)
        fig.draw_without_rendering()
        box, corners = flat.get_window_extent(), outline(turned)
    sides = np.hypot(*np.diff(np.vstack([corners, corners[:1]]), axis=0).T)
    assert sides == pytest.approx([box.width, box.height, box.width, box.height], rel=1e-6)
    plt.close(fig)


def test_text_off_the_canvas_is_found():
    """Off the figure, saved at its size; cut off the tight box (kept out of the layout); cut by
    its clipping box; a text past the figure but inside the tight box is saved whole."""
    with style():
        fig, ax = plt.subplots(figsize=(3.4, 2.4))
        fig.text(1.05, 0.5, "beyond the right edge")
        assert figure_defects(fig, tight=False) == ["text off the canvas: 'beyond the right edge'"]
        assert figure_defects(fig, tight=True) == []  # the tight box grows to hold it
        fig.texts[0].set_in_layout(False)
        assert figure_defects(fig, tight=True) == ["text off the canvas: 'beyond the right edge'"]
        fig.texts[0].remove()
        ax.text(0.95, 0.5, "half outside the axes", transform=ax.transAxes, clip_on=True)
        assert figure_defects(fig) == ["text cut by its clipping box: 'half outside the axes'"]
    plt.close(fig)


def test_a_clean_figure_passes_and_keeps_its_default_formatter_elsewhere():
    """Linear axes keep their formatter; only mathtext log formatters are replaced."""
    with style():
        fig, (left, right) = plt.subplots(1, 2, figsize=(7, 2.4))
        left.plot([0, 1], [0, 1])
        right.plot([1, 100], [1, 100])
        right.set_yscale("log")
        right.yaxis.set_major_formatter(LogFormatterSciNotation())
        readable_log_ticks(fig)
        assert figure_defects(fig) == []
    assert not isinstance(left.xaxis.get_major_formatter(), PowerFormatter)
    assert isinstance(right.yaxis.get_major_formatter(), PowerFormatter)
    plt.close(fig)


def test_checking_writes_the_files_when_asked(tmp_path):
    curve = (np.array([1e3, 1e4]), np.array([0.4, 0.6]))
    with checking() as checks:
        paths = learning_curves({"BDA": [curve]}, tmp_path / "c")
    assert checks.defects == [] and all(p.exists() for p in paths)
    with checking(write=False) as again:  # a new block: the figure function's new figure is checked
        learning_curves({"BDA": [curve]}, tmp_path / "d")
    assert [p.name for p in again.checked] == ["d"]
