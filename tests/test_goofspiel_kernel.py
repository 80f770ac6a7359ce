"""Goofspiel's compiled kernel beyond the registry-driven comparison of tests/test_kernels.py:
its builtins play exactly the Python builtins (two independent implementations of each
strategy), and the sequential learners train on it, reproducibly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fsmarena.games import bidding
from fsmarena.games import kernel as contract
from fsmarena.games.goofspiel import kernel
from fsmarena.games.goofspiel.game import Goofspiel, GoofspielConfig
from tests.bidding_helpers import play_traced
from tests.cli_helpers import run_cli


def kernel_game(p, deal, codes):
    """One game on the kernel with builtin ``codes[seat]`` at every seat: the bids per turn."""
    s = np.zeros(kernel.state_size(p), dtype=np.int64)
    kernel.reset(p, s, deal)
    bids = []
    while (seat := kernel.to_move(p, s)) >= 0:
        action = kernel.builtin_action(p, s, seat, codes[seat])
        bids.append(action + 1)
        kernel.step(p, s, action)
    return bids


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("names", [("match", "upbid"), ("upbid", "max"), ("max", "match")])
def test_kernel_builtins_are_the_batched_builtins(players, names):
    """Same deals, same deterministic builtins: the kernel's builtin bids equal the Python
    builtins' (games.goofspiel.players) asked by the driver, read through its trace hook."""
    config = GoofspielConfig(players=players, cards=7)
    game = Goofspiel(config)
    p = contract.params_of(game)
    contract.seed(11)
    deals = np.zeros((40, kernel.deal_size(p)), dtype=np.int64)
    for row in deals:
        kernel.draw_deal(p, row)
    seats = [names[seat % 2] for seat in range(players)]
    codes = [kernel.BUILTINS.index(name) for name in seats]
    players_ = [game.builtin_players()[name]() for name in seats]
    rng = np.random.default_rng(0)
    memories = [pl.begin(game, 40, None, rng) for pl in players_]
    _, trace = play_traced(game, 40, lambda s, o, r: players_[s].act(o, memories[s], r, rng), deals=deals)
    for g in range(40):
        python_bids = [int(b) for step in trace for b in step["bids"][g]]
        assert kernel_game(p, deals[g], codes) == python_bids


def test_kernel_random_builtin_is_uniform_over_the_hand():
    game = Goofspiel(GoofspielConfig(cards=4))
    p = contract.params_of(game)
    contract.seed(5)
    s = np.zeros(kernel.state_size(p), dtype=np.int64)
    kernel.reset(p, s, np.array([2, 1, 4, 3]))
    s[bidding.hand_at(p, 0)] = 0b1011  # seat 0 holds 1, 2 and 4
    counts = np.bincount([kernel.builtin_action(p, s, 0, 0) + 1 for _ in range(30_000)], minlength=5)
    assert counts[3] == 0 and counts[0] == 0
    assert np.allclose(counts[[1, 2, 4]] / 30_000, 1 / 3, atol=0.015)


def train(capsys, out, algo, episodes, *params):
    code, _, err = run_cli(
        capsys, "train", "goofspiel", "--param", "cards=4", *params, "--algo", algo, "--episodes", episodes,
        "--opponent", "match", "--eval-games", 100, "--seed", 7, "--quiet", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    return json.loads((out / "policy.json").read_text())


def test_sequential_training_is_reproducible(capsys, tmp_path):
    """``fsmarena train`` runs the textbook learner on the kernel: same seed, same policy."""
    assert train(capsys, tmp_path / "a", "sarsa", 2000) == train(capsys, tmp_path / "b", "sarsa", 2000)


@pytest.mark.slow
def test_q_learning_on_the_kernel_learns_to_beat_match(capsys, tmp_path):
    """Q-learning with the score in its state learns to beat ``match`` (upbid, representable on
    the state, wins every game with 4 cards: 6 points to 4)."""
    train(capsys, tmp_path / "q", "q-learning", 50_000, "--param", "state=with-score")
    code, out, err = run_cli(
        capsys, "play", "goofspiel", tmp_path / "q" / "policy.json", "match", "--param", "cards=4",
        "--param", "state=with-score", "--games", 1000, "--quiet", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["win"] > 0.9
