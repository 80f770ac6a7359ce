"""Policy-agreement maps show signal only: a cell the replicates met too seldom in play is
masked, and the caption gives the threshold."""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle

import fsmarena.figures.policy_map as policy_map
from fsmarena.games.dtd.game import DivideTheDollar
from fsmarena.games.players import RandomPlayer

GAME = DivideTheDollar()
LABELS = [GAME.state_label(s) for s in range(GAME.n_states)]


def _captured(monkeypatch) -> list:
    drawn: list = []
    monkeypatch.setattr(policy_map, "save", lambda fig, stem, *a, **k: drawn.append(fig) or [])
    return drawn


def test_visits_count_every_decision_of_every_replicate():
    tables = np.random.default_rng(0).integers(0, 3, size=(2, GAME.n_states))
    visits = policy_map.policy_visits(GAME, tables, RandomPlayer(), games=5, seed=1)
    assert [sum(v) for v in visits] == [2 * 5 * 26] * 2  # every seat, 26 decisions a game
    again = policy_map.policy_visits(GAME, tables, RandomPlayer(), games=5, seed=1)
    assert visits == again


def test_cells_met_too_seldom_are_masked_and_the_caption_says_below_what(monkeypatch, tmp_path):
    tables = np.random.default_rng(0).integers(0, 3, size=(3, GAME.n_states))
    visits = np.zeros((3, GAME.n_states), dtype=int)
    visits[:, :10] = 10  # 30 in all over the replicates: shown
    visits[0, 10:15] = 29  # 29: masked
    drawn = _captured(monkeypatch)
    out = policy_map.policy_maps({"MC": tables}, LABELS, GAME.action_names, tmp_path / "p", visits={"MC": visits})
    ax = drawn[0].axes[0]
    hatched = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch()]
    assert len(hatched) == GAME.n_states - 10
    assert len([t for t in ax.texts if t.get_text().isdigit()]) == 10  # agreement shown where met enough
    assert "fewer than 30 times" in out.caption
    drawn.clear()
    plain = policy_map.policy_maps({"MC": tables}, LABELS, GAME.action_names, tmp_path / "q")
    assert not [p for p in drawn[0].axes[0].patches if isinstance(p, Rectangle) and p.get_hatch()]
    assert "Hatched" not in plain.caption
