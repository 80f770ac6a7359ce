"""Value iteration and policy iteration (rl.planning, on the float model) against the exact
optimum of 421 computed in integer arithmetic: same policy, action for action, and that
policy's exact value is the optimum."""

from __future__ import annotations

import numpy as np
import pytest

from fsmarena.games import get_game
from fsmarena.games.dice421.exact import exact_optimum, exact_state_values, exact_value

planning = pytest.importorskip("fsmarena.rl.planning")


@pytest.mark.parametrize("params", [{}, {"rethrows": "0"}, {"rethrows": "3"}, {"scores": "sum"}])
def test_value_and_policy_iteration_agree_exactly_with_the_optimum(params):
    game = get_game("421", params)
    mdp = game.model()
    optimum, table = exact_optimum(game)
    vi = planning.value_iteration(mdp)
    pi = planning.policy_iteration(mdp)
    np.testing.assert_array_equal(vi.policy, pi.policy)
    np.testing.assert_array_equal(vi.policy, table)
    assert exact_value(game, vi.policy) == optimum
    assert exact_value(game, pi.policy) == optimum
    exact = np.array([float(v) for v in exact_state_values(game)])
    np.testing.assert_allclose(vi.values, exact, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pi.values, exact, rtol=0, atol=1e-12)
    assert vi.value == pytest.approx(float(optimum), abs=1e-12)
