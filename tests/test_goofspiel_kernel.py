"""Goofspiel's compiled kernel beyond the registry-driven comparison of tests/test_kernels.py:
its builtins play exactly the strategies of the plain reference (two independent
implementations of each), and the sequential learners train on it, reproducibly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fsmarena.games import bidding
from fsmarena.games import kernel as contract
from fsmarena.games.goofspiel import kernel, reference
from fsmarena.games.goofspiel.game import Goofspiel, GoofspielConfig
from tests.bidding_helpers import play_traced
from tests.cli_helpers import run_cli

REFERENCE = {"match": reference.match, "upbid": reference.upbid, "max": reference.highest}


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("names", [("match", "upbid"), ("upbid", "max"), ("max", "match")])
def test_builtin_players_bid_as_the_reference_strategies(players, names):
    """Same prize orders, deterministic builtins: the bids of the builtin players, asked in
    Python through the driver (each runs the kernel's code on its rows), equal those of the
    reference's strategies, written from the rules in words."""
    config = GoofspielConfig(players=players, cards=7)
    game = Goofspiel(config)
    p = contract.params_of(game)
    contract.seed(11)
    deals = np.zeros((40, kernel.deal_size(p)), dtype=np.int64)
    for row in deals:
        kernel.draw_deal(p, row)
    seats = [names[seat % 2] for seat in range(players)]
    players_ = [game.builtin_players()[name]() for name in seats]
    rng = np.random.default_rng(0)
    memories = [pl.begin(game, 40, None, rng) for pl in players_]
    _, trace = play_traced(game, 40, lambda s, o, r: players_[s].act(o, memories[s], r, rng), deals=deals)
    for g in range(40):
        python_bids = [[int(b) for b in step["bids"][g]] for step in trace]
        played = reference.play_one(players, 7, [int(v) for v in deals[g]], [REFERENCE[name] for name in seats])
        assert python_bids == [turn["bids"] for turn in played["turns"]]


def test_builtin_law_is_one_card_or_the_hand_spread_evenly():
    game = Goofspiel(GoofspielConfig(cards=4))
    p = contract.params_of(game)
    s = np.zeros(kernel.state_size(p), dtype=np.int64)
    kernel.reset(p, s, np.array([2, 1, 4, 3]))
    s[bidding.hand_at(p, 0)] = 0b1011  # seat 0 holds 1, 2 and 4; the prize is 2
    law, none = np.zeros(4), np.zeros(0)
    for code, expected in ((0, [1 / 3, 1 / 3, 0, 1 / 3]), (1, [0, 1, 0, 0]), (2, [0, 0, 0, 1]), (3, [0, 0, 0, 1])):
        kernel.builtin_law(p, s, 0, code, none, law)
        assert np.allclose(law, expected), kernel.BUILTINS[code]


def test_kernel_random_builtin_is_uniform_over_the_hand():
    game = Goofspiel(GoofspielConfig(cards=4))
    p = contract.params_of(game)
    contract.seed(5)
    s = np.zeros(kernel.state_size(p), dtype=np.int64)
    kernel.reset(p, s, np.array([2, 1, 4, 3]))
    s[bidding.hand_at(p, 0)] = 0b1011  # seat 0 holds 1, 2 and 4
    counts = np.bincount([kernel.builtin_action(p, s, 0, 0, np.zeros(0)) + 1 for _ in range(30_000)], minlength=5)
    assert counts[3] == 0 and counts[0] == 0
    assert np.allclose(counts[[1, 2, 4]] / 30_000, 1 / 3, atol=0.015)


def train(capsys, out, algo, episodes, *params):
    code, _, err = run_cli(
        capsys, "train", "goofspiel", "--param", "cards=4", *params, "--algo", algo, "--episodes", episodes,
        "--opponent", "match", "--eval-games", 100, "--seed", 7, "--quiet", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    return json.loads((out / "policy.json").read_text())


@pytest.mark.slow
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
