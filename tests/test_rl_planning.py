"""Value iteration and policy iteration: hand-computed toy answers, a brute-force oracle over
every deterministic policy of random small MDPs, and 421 (value and policy iteration agree
exactly, and match the game's integer-arithmetic optimum)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsmarena.errors import FsmarenaError
from fsmarena.games.mdp import TabularMDP, policy_value
from fsmarena.rl.planning import action_values, policy_iteration, value_iteration
from fsmarena.rl.toy import ToyConfig, ToyGame


@pytest.mark.parametrize("planner", [value_iteration, policy_iteration])
@pytest.mark.parametrize("gamma, values", [(1.0, [0.5, 0.6, 0.6, 0.7]), (0.9, [0.5, 0.6, 0.54, 0.7])])
def test_chain_by_hand(planner, gamma, values):
    """Worked by hand in fsmarena/rl/toy.py: left at 0 (0.5), stop at 1 (0.6), left at 2 (back to 1),
    right at 3 (0.7 chance of 1)."""
    plan = planner(ToyGame(ToyConfig("chain", gamma)).model())
    assert plan.policy[:4].tolist() == [0, 2, 0, 1]
    assert np.allclose(plan.values[:4], values, atol=1e-12)
    assert plan.value == pytest.approx(np.mean(values))


def test_bandit_action_values_by_hand():
    plan = value_iteration(ToyGame(ToyConfig("bandit")).model())
    assert np.allclose(plan.q[0], [0.0, 0.4, 0.2])
    assert plan.policy[0] == 1


def test_masked_actions_are_never_chosen_and_have_no_value():
    plan = policy_iteration(ToyGame(ToyConfig("masked-chain")).model())
    assert np.isnan(plan.q[[0, 3], 2]).all()
    assert plan.policy[:4].tolist() == [0, 2, 0, 1]


@st.composite
def small_mdps(draw):
    """2-4 live states, 2-3 actions, random legality, every move ends the game with
    probability >= 0.1 (so every policy terminates, even undiscounted)."""
    S = draw(st.integers(2, 4))
    A = draw(st.integers(2, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    gamma = draw(st.sampled_from([1.0, 0.9, 0.5]))
    rng = np.random.default_rng(seed)
    total = S + 1
    legal = np.zeros((total, A), bool)
    legal[:S] = rng.random((S, A)) < 0.7
    legal[np.arange(S), rng.integers(0, A, S)] = True
    transitions = np.zeros((total, A, total))
    live_mass = rng.dirichlet(np.ones(S), size=(S, A)) * rng.uniform(0, 0.9, size=(S, A, 1))
    transitions[:S, :, :S] = live_mass
    transitions[:S, :, S] = 1.0 - live_mass.sum(axis=2)
    transitions[S, 0, S] = 1.0
    legal[S, 0] = True
    rewards = np.zeros((total, A))
    rewards[:S] = np.round(rng.uniform(-1, 1, size=(S, A)), 3)
    terminal = np.r_[np.zeros(S, bool), True]
    start = np.r_[np.full(S, 1 / S), 0.0]
    return TabularMDP(transitions, rewards, terminal, legal, start, gamma).validate()


@settings(max_examples=60, deadline=None)
@given(small_mdps())
def test_planners_match_a_brute_force_search_over_every_policy(mdp):
    S = int((~mdp.terminal).sum())
    choices = [np.flatnonzero(mdp.legal[s]) for s in range(S)]
    all_values = np.array([policy_value(mdp, np.r_[policy, 0]) for policy in itertools.product(*choices)])
    best = all_values.max(axis=0)  # one policy is optimal in every state at once
    vi, pi = value_iteration(mdp), policy_iteration(mdp)
    assert np.allclose(vi.values, best, atol=1e-9)
    assert np.allclose(pi.values, best, atol=1e-12)
    assert np.array_equal(vi.policy, pi.policy)
    assert np.allclose(policy_value(mdp, pi.policy), best, atol=1e-12)
    # the greedy choice is optimal and the lowest-numbered optimal action
    q = action_values(mdp, pi.values)
    for s in range(S):
        optimal = np.flatnonzero(np.nan_to_num(q[s], nan=-np.inf) >= q[s][pi.policy[s]] - 1e-9)
        assert pi.policy[s] == optimal[0]


@settings(max_examples=30, deadline=None)
@given(small_mdps())
def test_policy_iteration_improves_monotonically_and_stops_stable(mdp):
    plan = policy_iteration(mdp)
    values = [row["value"] for row in plan.history]
    assert all(b >= a - 1e-12 for a, b in zip(values, values[1:]))
    assert plan.history[-1]["changes"] == 0


def test_value_iteration_that_cannot_converge_says_so():
    with pytest.raises(FsmarenaError, match="did not converge"):
        value_iteration(ToyGame(ToyConfig("chain", 0.99)).model(), max_iterations=1)


def test_policy_iteration_rejects_a_wrong_initial_policy():
    with pytest.raises(FsmarenaError, match="entries"):
        policy_iteration(ToyGame(ToyConfig("chain")).model(), policy=np.zeros(3, int))


def test_421_value_and_policy_iteration_agree_exactly():
    games = pytest.importorskip("fsmarena.games")
    game = games.get_game("421")
    mdp = game.model()
    vi, pi = value_iteration(mdp), policy_iteration(mdp)
    assert np.array_equal(vi.policy, pi.policy)
    assert np.allclose(vi.values, pi.values, rtol=0, atol=1e-12)
    optimum, table = game.exact_optimum()
    assert np.array_equal(vi.policy, table)  # the game's own integer-arithmetic optimum
    assert vi.value == pytest.approx(float(optimum), abs=1e-12)
