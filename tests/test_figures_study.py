"""Figures of the study layer: the numbers they are drawn from, and that they are written."""

from __future__ import annotations

import numpy as np
import pytest

from fsmarena.figures.curves import band, learning_curves
from fsmarena.figures.outcomes import outcome_boxes
from fsmarena.figures.policy_map import consensus, policy_maps, state_grid
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
