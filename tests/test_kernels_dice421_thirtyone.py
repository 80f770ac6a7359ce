"""The compiled single-game kernels of 421 and 31 against their batched engines.

Each kernel is tied to its engine game by game: both get the same randomness (the engine's
scripted dice / deck orders are the kernel's deal), the same deterministic policy, and must
show the same observations at every decision (index, features, legal mask, encodings) and end
with the same scores and rewards.  421 is also tied to its exact solver: an exact enumeration
over the dice driven by the kernel alone reproduces the optimum of ``games/dice421/exact.py``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import kernel as contract
from games.dice421 import kernel as k421
from games.dice421.game import N_TRIPLES, Dice421, Dice421Config

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---- 421 --------------------------------------------------------------------------------------

def _engine_decisions_421(game: Dice421, rolls: np.ndarray, table: np.ndarray):
    """Play the engine with scripted dice and a table policy; per game, the list of
    (index, features, throws_left, triple) it observed, and the final scores."""
    n = len(rolls)
    seen: list[list] = [[] for _ in range(n)]

    def decide(seat, obs, rows):
        rows = np.arange(n) if rows is None else rows
        feats = obs.features
        for j, row in enumerate(rows):
            seen[row].append((int(obs.index[j]), feats[j].tolist(), int(obs.throws_left[j]), int(obs.triple[j])))
        return table[obs.index]

    outcome = game.play(n, np.random.default_rng(0), decide, rolls=rolls)
    return seen, outcome


def _kernel_decisions_421(p: np.ndarray, deal: np.ndarray, table: np.ndarray):
    """The same game in the kernel: observations per decision, then scores and rewards."""
    s = np.zeros(k421.state_size(p), dtype=np.int64)
    k421.reset(p, s, deal)
    feats = np.zeros(k421.n_features(p))
    mask = np.zeros(k421.n_actions(p), dtype=np.bool_)
    seen = []
    while k421.to_move(p, s) >= 0:
        assert k421.to_move(p, s) == 0
        index = k421.observe_index(p, s, 0)
        k421.features(p, s, 0, feats)
        seen.append((index, feats.tolist(), k421.encoding(p, s, 0, 0), k421.encoding(p, s, 0, 1)))
        k421.legal(p, s, 0, mask)
        action = table[index] if mask[table[index]] else 0
        assert mask[action]
        k421.step(p, s, action)
    out_scores, out_rewards = np.zeros(1), np.zeros(1)
    k421.scores(p, s, out_scores)
    k421.rewards(p, s, out_rewards)
    return seen, out_scores, out_rewards


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), rethrows=st.integers(0, 4), scores=st.sampled_from(["seed", "sum"]))
def test_421_kernel_plays_the_engine_game_by_game(seed, rethrows, scores):
    game = Dice421(Dice421Config(rethrows=rethrows, scores=scores))
    p = k421.make_params(game.config)
    rng = np.random.default_rng(seed)
    n = 40
    rolls = rng.integers(1, 7, size=(n, rethrows + 1, 3))
    table = rng.integers(0, 8, size=game.n_states)
    table[rng.random(game.n_states) < 0.3] = 0  # some games stop early
    seen, outcome = _engine_decisions_421(game, rolls, table)
    for i in range(n):
        k_seen, k_scores, k_rewards = _kernel_decisions_421(p, rolls[i].ravel(), table)
        assert k_seen == seen[i]
        assert k_scores.tolist() == outcome.scores[i].tolist()
        assert k_rewards.tolist() == outcome.rewards[i].tolist()


def test_421_kernel_sizes_match_the_game():
    for rethrows in (0, 2, 5):
        game = Dice421(Dice421Config(rethrows=rethrows))
        p = k421.make_params(game.config)
        assert k421.n_states(p) == game.n_states
        assert k421.n_actions(p) == game.n_actions
        assert k421.n_features(p) == len(game.feature_names)
        assert k421.n_seats(p) == game.n_seats
        sizes = [k421.encoding_size(p, w) for w in range(k421.n_encodings(p))]
        assert sizes == list(game.encodings.values())
        assert set(k421.BUILTINS) <= set(game.builtin_players())
    assert contract.kernel_of(Dice421()) is k421


def _transition_421(p1: np.ndarray, dice: tuple[int, int, int], action: int, roll: tuple[int, int, int]) -> int:
    """The triple the kernel reaches from ``dice`` after re-throwing with ``roll`` (R = 1)."""
    s = np.zeros(k421.state_size(p1), dtype=np.int64)
    k421.reset(p1, s, np.array(dice + roll, dtype=np.int64))
    k421.step(p1, s, action)
    return k421.encoding(p1, s, 0, 1)


@pytest.mark.parametrize("scores", ["seed", "sum"])
def test_421_kernel_exact_enumeration_equals_the_solver(scores):
    """Backward induction whose every transition, score and start state comes from the
    kernel (all 216 ordered rolls per re-throw) gives exactly the solver's optimum."""
    game = Dice421(Dice421Config(rethrows=2, scores=scores))
    p1 = k421.make_params(Dice421Config(rethrows=1, scores=scores))
    rolls = list(itertools.product(range(1, 7), repeat=3))
    dice_of = [None] * N_TRIPLES
    for roll in rolls:
        s = np.zeros(k421.state_size(p1), dtype=np.int64)
        k421.reset(p1, s, np.array(roll + roll, dtype=np.int64))
        dice_of[k421.encoding(p1, s, 0, 1)] = tuple(int(d) for d in sorted(roll, reverse=True))
    stop_score = []
    for dice in dice_of:
        s = np.zeros(k421.state_size(p1), dtype=np.int64)
        k421.reset(p1, s, np.array(dice + dice, dtype=np.int64))
        k421.step(p1, s, 0)
        out = np.zeros(1)
        k421.scores(p1, s, out)
        stop_score.append(Fraction(int(out[0])))
    moves = [[[_transition_421(p1, dice, a, roll) for roll in rolls] for a in range(8)] for dice in dice_of]
    value = stop_score
    for _ in range(game.config.rethrows):
        value = [max([stop_score[k]] + [sum(value[j] for j in moves[k][a]) / 216 for a in range(1, 8)])
                 for k in range(N_TRIPLES)]
    start = sum(value[_transition_421(p1, (1, 1, 1), 7, roll)] for roll in rolls) / 216
    assert start == game.exact_optimum()[0]


def test_421_optimal_builtin_over_every_deal_scores_the_exact_optimum():
    """With one re-throw, the kernel's ``optimal`` builtin played on all 216**2 deals averages
    exactly the solver's optimal value."""
    game = Dice421(Dice421Config(rethrows=1))
    p = k421.make_params(game.config)
    code = k421.BUILTINS.index("optimal")
    s = np.zeros(k421.state_size(p), dtype=np.int64)
    mask = np.zeros(8, dtype=np.bool_)
    out = np.zeros(1)
    total = 0
    for deal in itertools.product(range(1, 7), repeat=6):
        k421.reset(p, s, np.array(deal, dtype=np.int64))
        while k421.to_move(p, s) == 0:
            action = k421.builtin_action(p, s, 0, code)
            k421.legal(p, s, 0, mask)
            assert mask[action]
            k421.step(p, s, action)
        k421.scores(p, s, out)
        total += int(out[0])
    assert Fraction(total, 216 ** 2) == game.exact_optimum()[0]


def test_421_random_deals_and_builtins_are_legal_and_reproducible():
    p = k421.make_params(Dice421Config(rethrows=3))
    deals = []
    for _ in range(2):
        contract.seed(7)
        deal = np.zeros(k421.deal_size(p), dtype=np.int64)
        played = []
        for _game in range(200):
            k421.draw_deal(p, deal)
            assert deal.min() >= 1 and deal.max() <= 6
            s = np.zeros(k421.state_size(p), dtype=np.int64)
            k421.reset(p, s, deal)
            mask = np.zeros(8, dtype=np.bool_)
            while k421.to_move(p, s) == 0:
                k421.legal(p, s, 0, mask)
                action = k421.builtin_action(p, s, 0, k421.BUILTINS.index("random"))
                assert mask[action]
                played.append(action)
                k421.step(p, s, action)
            played.append(deal.tolist())
        deals.append(played)
    assert deals[0] == deals[1]
    assert any(a == 7 for a in deals[0] if isinstance(a, int))
