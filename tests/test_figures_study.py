"""Figures of the study layer: the numbers they are drawn from, and that they are written."""

from __future__ import annotations

import numpy as np
import pytest

from fsmarena.figures.curves import band, learning_curves
from fsmarena.figures.outcomes import outcome_boxes
from fsmarena.figures.policy_map import consensus, policy_maps, state_grid
from fsmarena.figures.style import plt
from fsmarena.games import get_game


def test_band_of_identical_curves_is_the_curve():
    x, y = [10, 100, 1000], [0.2, 0.5, 0.8]
    grid, q25, median, q75 = band([(x, y)] * 3, points=5)
    assert grid[0] == 10 and grid[-1] == 1000
    expected = np.interp(grid, x, y)
    assert np.allclose(q25, expected) and np.allclose(median, expected) and np.allclose(q75, expected)


def test_band_quartiles_over_replicates_and_no_extrapolation():
    curves = [([0, 100, 200], [0.1, 0.1, 0.1]), ([0, 100, 300], [0.5, 0.5, 0.5]), ([0, 100, 200], [0.9, 0.9, 0.9])]
    grid, q25, median, q75 = band(curves, points=4)
    assert grid[0] == 100 and grid[-1] == 200  # zero games dropped on a log axis; common range only
    assert np.allclose(median, 0.5) and np.allclose(q25, 0.3) and np.allclose(q75, 0.7)
    linear, *_ = band(curves, points=3, log_x=False)
    assert linear.tolist() == [0.0, 100.0, 200.0]


def test_state_grid_of_divide_the_dollar_is_the_seed_4_by_10():
    game = get_game("dtd")
    labels = [game.state_label(s) for s in range(game.n_states)]
    rows, columns, row_of, col_of = state_grid(labels)
    assert len(rows) == 10 and len(columns) == 4 and "lead" in columns
    assert len(set(zip(row_of.tolist(), col_of.tolist()))) == 40  # every state its own cell
    assert rows[0] == "1/4 1/4 1/4" and rows[-1] == "3/4 3/4 3/4"


def test_consensus_is_modal_action_and_share():
    action, share = consensus([[0, 1, 2], [0, 2, 2], [1, 2, 2], [0, 2, 1]], 3)
    assert action.tolist() == [0, 2, 2] and share.tolist() == [0.75, 0.75, 0.75]
    action, share = consensus([[2, 1]], 3)
    assert action.tolist() == [2, 1] and share.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("draw", ["curves", "boxes", "policy"])
def test_figures_are_written_as_png_and_pdf(tmp_path, draw):
    stem = tmp_path / draw
    if draw == "curves":
        paths = learning_curves({"A": [([1, 10, 100], [0.4, 0.5, 0.6])], "B": []}, stem)
    elif draw == "boxes":
        paths = outcome_boxes(
            {"random": {"A": [0.5, 0.6], "B": [0.7]}, "always-small": {"A": [0.2]}}, stem, reference=0.5
        )
    else:
        game = get_game("dtd")
        tables = np.random.default_rng(0).integers(0, 3, size=(3, game.n_states))
        paths = policy_maps(
            {"MC": tables, "Q": tables[:1]}, [game.state_label(s) for s in range(40)], game.action_names, stem
        )
    assert [p.suffix for p in paths] == [".png", ".pdf"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and paths[1].read_bytes()[:4] == b"%PDF"
    assert not list(tmp_path.glob(".*"))  # no temporary files left behind


def capture_curves(monkeypatch) -> list:
    """The figures :func:`learning_curves` draws, not written."""
    import fsmarena.figures.curves as curves_module

    drawn: list = []
    monkeypatch.setattr(curves_module, "save", lambda fig, stem, *a, **k: drawn.append(fig) or [])
    return drawn


def test_learning_curves_are_small_multiples_one_panel_per_family(monkeypatch, tmp_path):
    """Eight families: eight panels on shared axes, each with its own median (the band's) in its
    colour over the other seven medians in grey; a family without curves has no panel and the
    others keep the colours of their place in the study."""
    from fsmarena.figures.curves import FAINT
    from fsmarena.figures.style import family_colors

    drawn = capture_curves(monkeypatch)
    rng = np.random.default_rng(3)
    names = [f"family {k}" for k in range(9)]
    families = {
        name: [] if k == 2 else [(np.geomspace(1e3, 1e5, 12), rng.uniform(0.3, 0.8, 12)) for _ in range(3 + k % 2)]
        for k, name in enumerate(names)
    }
    result = learning_curves(families, tmp_path / "c", opponent="greedy")
    fig = drawn[0]
    panels = [ax for ax in fig.axes if ax.get_visible()]
    shown = [n for n in names if families[n]]
    assert [ax.get_title() for ax in panels] == [f"{n} (n={len(families[n])})" for n in shown]
    palette = family_colors(names)
    for ax, name in zip(panels, shown):
        lines = ax.get_lines()
        faint = [line for line in lines if line.get_color() == FAINT]
        own = [line for line in lines if line.get_color() != FAINT]
        assert len(faint) == len(shown) - 1 and len(own) == 1
        assert own[0].get_color() == palette[name]
        grid, _, median, _ = band(families[name], start=1e3)
        assert np.allclose(own[0].get_xdata(), grid) and np.allclose(own[0].get_ydata(), 100 * median)
        assert ax.get_xscale() == "log" and ax.get_xlim() == panels[0].get_xlim()
        assert ax.get_ylim() == panels[0].get_ylim()  # shared axes: the panels compare
    assert fig.get_supylabel() == "win rate vs greedy (%)"
    assert "3\u20134 replicates" in result.caption and "inter-quartile" in result.caption
    plt.close(fig)


def test_a_panel_above_an_empty_slot_labels_its_games_axis(monkeypatch, tmp_path):
    """Five families in rows of three: the sixth slot is empty, so the third panel is the lowest of
    its column and must show the games axis' tick labels, as the bottom row does; the top row's
    other panels leave them to the panels below."""
    drawn = capture_curves(monkeypatch)
    rng = np.random.default_rng(5)
    families = {f"f{k}": [(np.geomspace(1e3, 1e4, 6), rng.uniform(0.2, 0.9, 6))] for k in range(5)}
    learning_curves(families, tmp_path / "c")
    fig = drawn[0]
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.get_visible()]

    def labelled(ax):
        return any(label.get_visible() and label.get_text() for label in ax.get_xticklabels())

    assert [labelled(ax) for ax in panels] == [False, False, True, True, True]
    plt.close(fig)


@pytest.mark.parametrize("families, columns", [(1, 1), (2, 2), (3, 3), (4, 2), (6, 3), (8, 4), (11, 4)])
def test_panels_fill_rows_of_two_to_four(families, columns):
    from fsmarena.figures.curves import panel_columns

    assert panel_columns(families) == columns


def test_learning_curves_without_any_curve_say_so(monkeypatch, tmp_path):
    drawn = capture_curves(monkeypatch)
    learning_curves({"A": [], "B": []}, tmp_path / "c")
    assert [t.get_text() for t in drawn[0].axes[0].texts] == ["no learning curves recorded"]
    plt.close(drawn[0])


def test_a_panel_whose_replicates_all_ended_alike_keeps_a_win_rate_axis(monkeypatch, tmp_path):
    """Every replicate at 0% against one opponent: matplotlib alone would span -0.05 to 0.05 with
    a tick at -0.05 (a negative win rate); the panel spans 0 to 10 points, within 0-100%."""
    import fsmarena.figures.outcomes as outcomes_module

    drawn: list = []
    monkeypatch.setattr(outcomes_module, "save", lambda fig, stem, *a, **k: drawn.append(fig) or [])
    outcome_boxes({"defector": {"A": [0.0, 0.0], "B": [0.0]}, "random": {"A": [0.4, 0.9], "B": [1.0]}}, tmp_path / "b")
    flat, spread = drawn[0].axes[:2]
    assert flat.get_xlim() == (-2.0, 10.0) and min(flat.get_xticks()[1:-1]) >= 0
    assert spread.get_xlim()[0] < 40 < 100 < spread.get_xlim()[1]  # a spread panel keeps its own limits
    plt.close(drawn[0])
