"""Figures that read without the text: heat maps centred on the even result with the numbers
they claim, reliability curves that are the replicates' distribution, one colour per family,
a fingerprint scale that spans its data, and a caption with every figure."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_hex, to_rgb

import fsmarena.figures.exact_values as exact_figures
import fsmarena.figures.fingerprint as fingerprint_module
import fsmarena.figures.heatmap as heatmap
import fsmarena.figures.outcomes as outcomes
import fsmarena.figures.policy_map as policy_map
from fsmarena.evo.fingerprint import Fingerprint
from fsmarena.figures.style import MIN_SPAN, family_colors, plt


def capture(monkeypatch, module) -> list:
    """Replace ``module.save`` by a recorder of the figures it is given (nothing is written)."""
    drawn: list = []

    def keep(fig, stem, *args, **kwargs):
        drawn.append(fig)
        return []

    monkeypatch.setattr(module, "save", keep)
    return drawn


def net_matrix(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An antisymmetric net-score matrix with intervals around it (none on the diagonal)."""
    rng = np.random.default_rng(seed)
    upper = rng.uniform(-0.4, 0.4, (n, n))
    net = np.triu(upper, 1) - np.triu(upper, 1).T
    low, high = net - rng.uniform(0.01, 0.1, net.shape), net + rng.uniform(0.01, 0.1, net.shape)
    np.fill_diagonal(low, np.nan)
    np.fill_diagonal(high, np.nan)
    return net, low, high


@pytest.mark.parametrize("n, seed", [(2, 0), (5, 1), (8, 2)])
def test_net_score_map_centres_on_zero_and_spans_the_data(monkeypatch, tmp_path, n, seed):
    drawn = capture(monkeypatch, heatmap)
    net, low, high = net_matrix(n, seed)
    heatmap.net_score_heatmap(net, [f"f{i}" for i in range(n)], tmp_path / "h", low, high, replicates=[10] * n)
    norm = drawn[0].axes[0].images[0].norm
    assert norm(0.0) == pytest.approx(0.5)  # an even record is the middle of the colour map
    assert norm.vmin == pytest.approx(-norm.vmax)
    assert norm.vmax == pytest.approx(max(np.abs(net).max(), MIN_SPAN))  # the strongest cell is full colour
    plt.close(drawn[0])


def test_net_score_cells_say_the_statistic_and_its_interval(monkeypatch, tmp_path):
    drawn = capture(monkeypatch, heatmap)
    net, low, high = net_matrix(6, 3)
    result = heatmap.net_score_heatmap(net, list("abcdef"), tmp_path / "h", low, high, replicates=[7] * 6)
    ax = drawn[0].axes[0]
    cells = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}
    assert len(cells) == 36
    for (i, j), text in cells.items():
        value, *interval = text.split("\n")
        assert float(value) == pytest.approx(100 * net[i, j], abs=0.051)
        if i == j:
            assert interval == []  # a family against itself: no interval
        else:
            lo, hi = (float(x) for x in interval[0].strip("[]").split(", "))
            assert (lo, hi) == (pytest.approx(100 * low[i, j], abs=0.51), pytest.approx(100 * high[i, j], abs=0.51))
            assert value.startswith("+") == (round(100 * net[i, j], 1) > 0)
    assert "7 replicates per family" in result.caption and "95%" in result.caption
    plt.close(drawn[0])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_win_rate_map_centres_on_the_fair_share(monkeypatch, tmp_path, players):
    drawn = capture(monkeypatch, heatmap)
    rates = np.random.default_rng(players).uniform(0.05, 0.7, (4, 4))
    result = heatmap.win_rate_heatmap(rates, list("abcd"), tmp_path / "h", fair_share=1 / players)
    norm = drawn[0].axes[0].images[0].norm
    assert norm(1 / players) == pytest.approx(0.5)
    assert norm.vmax - 1 / players == pytest.approx(np.abs(rates - 1 / players).max())
    assert f"{100 / players:.0f}%" in result.caption
    texts = sorted(float(t.get_text()) for t in drawn[0].axes[0].texts)
    assert texts == pytest.approx(sorted(np.round(100 * rates.ravel(), 1)))
    plt.close(drawn[0])


def test_win_rate_map_keeps_its_old_call(monkeypatch, tmp_path):
    """The positional call of the tournament and the Vautour report still draws a map around 50%."""
    drawn = capture(monkeypatch, heatmap)
    rates = np.array([[np.nan, 0.8], [0.1, np.nan]])
    heatmap.win_rate_heatmap(rates, ["a", "b"], tmp_path / "h", rates - 0.1, rates + 0.1, "t", "rate")
    assert drawn[0].axes[0].images[0].norm(0.5) == pytest.approx(0.5)
    assert sorted(t.get_text() for t in drawn[0].axes[0].texts) == ["10.0\n±10.0", "80.0\n±10.0"]
    plt.close(drawn[0])


def test_ecdf_is_the_replicates_distribution_in_the_family_colours(monkeypatch, tmp_path):
    drawn = capture(monkeypatch, outcomes)
    rng = np.random.default_rng(5)
    values = {"FSM": rng.uniform(0.7, 0.8, 9), "Q": rng.uniform(0.4, 0.8, 12)}
    palette = family_colors(["BDA", "FSM", "MC", "Q"])  # the study's four families
    result = outcomes.outcome_ecdfs({"vs random": values}, tmp_path / "e", colors=palette)
    lines = {line.get_label(): line for line in drawn[0].axes[0].get_lines()}
    assert set(lines) == {"FSM", "Q"}
    for name, line in lines.items():
        x, y = line.get_xdata(), line.get_ydata()
        n = len(values[name])
        assert np.allclose(x[1:], np.sort(100 * values[name]))
        assert np.allclose(y, np.r_[0.0, np.arange(1, n + 1) / n])
        assert line.get_color() == palette[name]  # not the first two colours of the cycle
    assert "9\u201312 replicates per method" in result.caption
    plt.close(drawn[0])


def test_box_plots_keep_the_family_colours(monkeypatch, tmp_path):
    drawn = capture(monkeypatch, outcomes)
    palette = family_colors(["BDA", "FSM", "MC"])
    result = outcomes.outcome_boxes({"random": {"MC": [0.4, 0.5], "FSM": [0.7, 0.8]}}, tmp_path / "b", colors=palette)
    ax = drawn[0].axes[0]
    faces = [patch.get_facecolor()[:3] for patch in ax.patches]
    assert faces == [pytest.approx(to_rgb(palette["MC"])), pytest.approx(to_rgb(palette["FSM"]))]
    assert "2 replicates per method" in result.caption
    plt.close(drawn[0])


def fingerprint(label: str, values: np.ndarray) -> Fingerprint:
    grid = np.linspace(0, 1, values.shape[0])
    return Fingerprint(label, grid, grid, values, "share of A", "share of B", 50)


def test_fingerprint_scale_spans_the_data_around_even(monkeypatch, tmp_path):
    drawn = capture(monkeypatch, fingerprint_module)
    prints = [fingerprint("a", np.full((3, 3), 0.55)), fingerprint("b", np.linspace(0.58, 0.72, 9).reshape(3, 3))]
    result = fingerprint_module.fingerprint_figure(prints, tmp_path / "f")
    norms = {id(image.norm) for ax in drawn[0].axes for image in ax.images}
    assert len(norms) == 1  # one scale for every panel
    norm = drawn[0].axes[0].images[0].norm
    assert (norm.vmin, norm.vmax) == (pytest.approx(0.28), pytest.approx(0.72))
    assert norm(0.5) == pytest.approx(0.5)
    assert "28% to 72%" in result.caption and "50 games per cell" in result.caption
    plt.close(drawn[0])


def test_family_colours_follow_the_study_order():
    palette = family_colors(["BDA", "FSM", "BDA", "Q"])
    assert list(palette) == ["BDA", "FSM", "Q"] and len(set(palette.values())) == 3
    assert family_colors(["BDA", "FSM", "Q"])["Q"] == palette["Q"]


def test_421_figures_keep_the_family_colours_when_a_family_has_no_curve(monkeypatch, tmp_path):
    """A planner simulates no game and has no learning curve: the other families keep the
    colours they have in the final-gaps figure."""
    drawn = capture(monkeypatch, exact_figures)
    palette = family_colors(["value iteration", "Q-learning", "MC"])
    curve = (np.array([1e3, 1e4, 1e5]), np.array([0.5, 0.6, 0.65]))
    exact_figures.exact_value_curves(
        {"Q-learning": [curve] * 3, "MC": [curve] * 3}, 0.7, tmp_path / "c", colors=palette
    )
    finals = {"value iteration": [0.7] * 2, "Q-learning": [0.65] * 3, "MC": [0.6] * 3}
    exact_figures.final_gaps(finals, 0.7, tmp_path / "g", colors=palette)
    lines = {line.get_label().split(" (")[0]: line.get_color() for line in drawn[0].axes[0].get_lines()}
    assert lines["Q-learning"] == palette["Q-learning"] and lines["MC"] == palette["MC"]
    dots = [to_hex(c.get_facecolor()[0]) for c in drawn[1].axes[0].collections]
    assert [d.lower() for d in dots] == [palette[name].lower() for name in finals]
    for fig in drawn:
        plt.close(fig)


def test_policy_map_legend_lists_the_actions_on_view_each_in_its_own_colour(monkeypatch, tmp_path):
    """13 actions (Goofspiel's bids), 3 of them played: three legend entries, three distinct
    colours, and each cell drawn in its action's legend colour (a 6-colour map shared colours)."""
    drawn = capture(monkeypatch, policy_map)
    names = [f"bid_{k}" for k in range(1, 14)]
    table = np.array([2, 7, 12, 7, 2, 12])
    labels = [f"c{s % 2}: r{s // 2}" for s in range(6)]
    policy_map.policy_maps({"MC": [table]}, labels, names, tmp_path / "p")
    legend = drawn[0].legends[0]
    entries = {t.get_text(): to_hex(h.get_facecolor()) for t, h in zip(legend.get_texts(), legend.legend_handles)}
    assert list(entries) == ["bid_3", "bid_8", "bid_13"] and len(set(entries.values())) == 3
    image = drawn[0].axes[0].images[0]
    for state, action in enumerate(table):
        row, column = state // 2, state % 2
        rgba = image.cmap(image.norm(image.get_array()[row, column]))
        assert to_hex(rgba) == entries[names[action]]
    plt.close(drawn[0])
