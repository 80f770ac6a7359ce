"""``mc-seed``: the seed notebook's Monte Carlo, against a transcription of the seed's own loop.

The transcription below is the notebook's ``MC`` class and its training loop (seed 001: the
policy table ``policy_pi`` overwritten by a random action in the first two rounds, played from
the table, and after the game every state seen credited with ``policy_pi``'s action, the table
set to ``argmax Q`` after each update), with the two differences ``mc-seed`` documents: the
policy starts greedy in the initial Q (action 0) instead of random, and the game, the opponent's
random moves and the exploring draws come from the divide-the-dollar kernel and the compiled
random stream, so that both sides play the same games.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from fsmarena.games.dtd.game import DivideTheDollar, DTDConfig
from fsmarena.games.kernel import kernel_of, params_of, seed
from fsmarena.jit import njit
from fsmarena.rl.algorithms.contract import DECIDE, GAME_OVER, GREEDY
from fsmarena.rl.algorithms.seed_monte_carlo import seed_monte_carlo
from fsmarena.rl.sequential_run import chunk_seed
from fsmarena.rl.train import TrainConfig, train

GAME = DivideTheDollar(DTDConfig(counts=(6, 8, 6), hand_size=3))


@njit(cache=False)
def _uniform() -> float:
    return np.random.random()


class SeedMC:
    """The seed's ``MC`` class, transcribed (``policy_pi`` starts at action 0, not at random)."""

    def __init__(self, num_states, num_actions):
        self.Q = np.zeros((num_states, num_actions))
        self.policy_pi = np.zeros(num_states, dtype=np.int64)
        self.action_reward_sum = np.zeros((num_states, num_actions))
        self.action_reward_count = np.zeros((num_states, num_actions))
        self.state_seen = []

    def update(self, sta_ind, act_ind, reward):
        self.action_reward_count[sta_ind, act_ind] += 1
        self.action_reward_sum[sta_ind, act_ind] += reward
        self.Q[sta_ind, act_ind] = self.action_reward_sum[sta_ind, act_ind] / self.action_reward_count[sta_ind, act_ind]
        self.policy_pi[sta_ind] = np.argmax(self.Q[sta_ind])


def seed_loop(game, num_games, seed_value):
    """The seed's training loop against ``random``, the Monte Carlo agent in seat 0."""
    k, p = kernel_of(game), params_of(game)
    monte = SeedMC(game.n_states, game.n_actions)
    mask = np.zeros(game.n_actions, dtype=bool)
    seed(seed_value)

    def random_choice():
        legal = np.flatnonzero(mask)
        return int(legal[int(_uniform() * len(legal))])

    for _game_index in range(num_games):
        deal = np.zeros(k.deal_size(p), dtype=np.int64)
        k.draw_deal(p, deal)
        s = np.zeros(k.state_size(p), dtype=np.int64)
        k.reset(p, s, deal)
        monte.state_seen = []
        while (who := k.to_move(p, s)) >= 0:
            k.legal(p, s, who, mask)
            if who != 0:
                k.step(p, s, random_choice())  # opponent strategy is to select random action
                continue
            state = k.observe_index(p, s, who)
            monte.state_seen.append(state)
            if len(monte.state_seen) <= 2:  # round_index <= 1: exploring starts
                monte.policy_pi[state] = random_choice()
            k.step(p, s, monte.policy_pi[state])
        rewards = np.zeros(2)
        k.rewards(p, s, rewards)
        for sta_ind in monte.state_seen:
            monte.update(sta_ind, monte.policy_pi[sta_ind], rewards[0])
    return monte


def test_mc_seed_is_the_seed_notebooks_loop_bit_for_bit():
    config = TrainConfig("mc-seed", episodes=2000, eval_every=2000, eval_games=50, learner_seat=0)
    result = train(GAME, config, seed=4)
    monte = seed_loop(GAME, 2000, chunk_seed(4, 0))
    assert result.counts.sum() == 2000 * 8  # every decision credited (8 a game: 20 cards, hands of 3)
    assert np.array_equal(result.counts, monte.action_reward_count.astype(np.int64))
    assert np.array_equal(result.q, monte.Q)
    textbook = train(GAME, replace(config, algo="mc"), seed=4)
    assert not np.array_equal(textbook.q, result.q)  # crediting the policy's action changes the values


def _credit(states, actions, explored, returns, q=None):
    """One scripted game's end through the compiled update: (Q, N) after it."""
    q = np.zeros((8, 3)) if q is None else q
    n, extra, seen = np.zeros((8, 3), dtype=np.int64), np.zeros((1, 8, 3)), np.ones((8, 3), dtype=bool)
    states, actions = np.array(states, dtype=np.int64), np.array(actions, dtype=np.int64)
    explored, returns = np.array(explored, dtype=bool), np.array(returns, dtype=float)
    mask = np.ones(3, dtype=bool)
    args = (mask, 0, -1, 0, False, 0.0, 1.0, -1.0, 0.0, states, actions, explored, returns)
    seed_monte_carlo(GAME_OVER, q, n, extra, seen, 0, *args, len(states))
    return q, n


def test_a_scripted_game_credits_the_policys_action_not_the_one_taken():
    """State 5 explored with action 2 (and played again from the policy), then state 7 greedy;
    the game lost.  The first credit of 5 goes to 2 (its policy's action, the one played), which
    makes Q(5, 2) = -1, so the second goes to action 0, greedy after it, though 2 was played."""
    q, n = _credit([5, 5, 7], [2, 2, 0], [True, False, False], [-1.0, -1.0, -1.0])
    assert n[5, 2] == 1 and n[5, 0] == 1 and n[7, 0] == 1 and n.sum() == 3
    assert q[5, 2] == -1.0 and q[5, 0] == -1.0 and q[7, 0] == -1.0
    won, n_won = _credit([5, 5, 7], [2, 2, 0], [True, False, False], [1.0, 1.0, 1.0])
    assert n_won[5, 2] == 2 and won[5, 2] == 1.0  # a win keeps 2 greedy: both credits go to it
    # with no exploring decision the policy is the greedy table of Q at the game's start
    start = np.zeros((8, 3))
    start[3, 1] = 0.5
    _q, n_greedy = _credit([3], [2], [False], [1.0], start)
    assert n_greedy[3, 1] == 1 and n_greedy.sum() == 1


def test_the_policy_plays_a_states_explored_action_again_in_the_same_game():
    q, n, extra, seen = np.zeros((8, 3)), np.zeros((8, 3), dtype=np.int64), np.zeros((1, 8, 3)), np.ones((8, 3), bool)
    states, actions = np.array([5, 6, 0, 0], dtype=np.int64), np.array([2, 1, 0, 0], dtype=np.int64)
    explored, returns, mask = np.array([True, True, False, False]), np.zeros(4), np.ones(3, dtype=bool)

    def decide(x, length):
        tail = (-1, 0, False, 0.0, 1.0, -1.0, 0.0, states, actions, explored, returns, length)
        return seed_monte_carlo(DECIDE, q, n, extra, seen, x, mask, 0, *tail)

    assert decide(5, 2) == 2 and decide(6, 2) == 1  # pi(s) <- the random action, played again
    assert decide(5, 0) == GREEDY and decide(7, 2) == GREEDY  # not explored in this game: argmax Q
