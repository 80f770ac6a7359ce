"""Every registered game against what it declares (:mod:`fsmarena.games.expectations`), in the style of
Axelrod's ``TestPlayer``: the checks are written once here, each game folder's
``expectations.py`` says what they must find for it, and a game that declares nothing fails.

* the classifier: seats, simultaneous moves, exact model, exact solver, kernel and builtins
  as the game reports them; chance and zero-sum rewards as the game plays (the same
  deterministic players on many deals);
* every scripted deal worked out by hand: the game asks exactly the declared seats in the
  declared order, every declared action is legal there, and the final scores and rewards are
  the hand-worked ones;
* every small configuration it declares plays legal, well-formed games.
"""

from __future__ import annotations

import numpy as np
import pytest

from fsmarena.games import get_game
from fsmarena.games.capabilities import ExactModel, SimultaneousMoves, ZeroSumSolvable
from fsmarena.games.expectations import Expectations
from fsmarena.games.kernel import has_kernel
from fsmarena.games.registry import entries, resolve

GAMES = [e.name for e in entries()]
DEALS = [
    (e.name, number) for e in entries() if e.expectations for number in range(len(resolve(e.expectations, "").deals))
]
SMALL = [
    (e.name, number)
    for e in entries()
    if e.expectations
    for number in range(len(resolve(e.expectations, "").small_params))
]


def expected(name: str) -> Expectations:
    (item,) = [e for e in entries() if e.name == name]
    assert item.expectations, f"{name} declares no expectations (GameEntry.expectations)"
    found = resolve(item.expectations, f"expectations of {name}")
    assert isinstance(found, Expectations), f"{item.expectations} is not an Expectations"
    return found


def deterministic(seat, obs, rows):
    """Deterministic players that read what they see: seat ``s`` plays the legal action at
    position ``index * (s + 3)`` (modulo the legal count), so that seats differ (two identical
    bidders would tie every bid and hide the chance) and follow the deal."""
    mask = np.ones((obs.n, obs.n_actions), bool) if obs.mask is None else np.asarray(obs.mask)
    position = np.asarray(obs.index) * (seat + 3) % mask.sum(axis=1)
    return (np.cumsum(mask, axis=1) > position[:, None]).argmax(axis=1)


@pytest.mark.parametrize("name", GAMES)
def test_every_game_declares_its_expectations_with_a_scripted_deal(name):
    declared = expected(name)
    assert declared.deals, f"{name} declares no scripted deal"
    assert declared.small_params, f"{name} declares no small configuration"


@pytest.mark.parametrize("name", GAMES)
def test_the_classifier_is_what_the_game_reports(name):
    declared = expected(name)
    game = get_game(name)
    assert game.n_seats == declared.seats
    assert isinstance(game, SimultaneousMoves) == declared.simultaneous
    assert isinstance(game, ExactModel) == declared.exact_model
    assert isinstance(game, ZeroSumSolvable) == declared.solvable
    assert has_kernel(game) == declared.kernel
    assert sorted(game.builtin_players()) == sorted(declared.builtins)


@pytest.mark.parametrize("name", GAMES)
def test_chance_and_zero_sum_are_what_the_game_plays(name):
    declared = expected(name)
    game = get_game(name)
    outcome = game.play(64, np.random.default_rng(5), deterministic)
    varied = not (outcome.scores == outcome.scores[0]).all()
    assert varied == declared.chance, "the same deterministic players on 64 deals: " + (
        "different games" if varied else "one game"
    )
    zero = np.allclose(outcome.rewards.sum(axis=1), 0.0)
    assert zero == declared.zero_sum


@pytest.mark.parametrize(("name", "number"), DEALS, ids=[f"{n}-{i}" for n, i in DEALS])
def test_every_scripted_deal_plays_as_worked_out_by_hand(name, number):
    script = expected(name).deals[number]
    game = get_game(name, dict(script.params))
    asked: list[tuple[int, int]] = []

    def decide(seat, obs, rows):
        assert obs.n == 1
        turn = len(asked)
        assert turn < len(script.actions), f"{script.label}: asked more than the {len(script.actions)} decisions"
        want_seat, action = script.actions[turn]
        assert seat == want_seat, f"{script.label}: decision {turn} asked seat {seat}, expected {want_seat}"
        if obs.mask is not None:
            assert np.asarray(obs.mask)[0, action], f"{script.label}: action {action} is not legal at decision {turn}"
        asked.append((seat, action))
        return np.array([action], dtype=np.int64)

    deal = np.array([script.deal], dtype=np.int64)
    outcome = game.play(1, np.random.default_rng(0), decide, deals=deal)
    assert asked == list(script.actions), f"{script.label}: the game stopped asking early"
    assert outcome.scores[0].tolist() == pytest.approx(list(script.scores))
    assert outcome.rewards[0].tolist() == list(script.rewards)


@pytest.mark.parametrize(("name", "number"), SMALL, ids=[f"{n}-{i}" for n, i in SMALL])
def test_every_small_configuration_plays_well_formed_games(name, number):
    game = get_game(name, dict(expected(name).small_params[number]))
    rng = np.random.default_rng(number)

    def decide(seat, obs, rows):
        mask = np.ones((obs.n, game.n_actions), bool) if obs.mask is None else np.asarray(obs.mask)
        assert mask.shape == (obs.n, game.n_actions) and mask.any(axis=1).all()
        index = np.asarray(obs.index)
        assert index.min() >= 0 and index.max() < game.n_states
        return (rng.random(mask.shape) + mask).argmax(axis=1)

    outcome = game.play(50, rng, decide)
    assert outcome.rewards.shape == outcome.scores.shape == (50, game.n_seats)
    assert np.isfinite(outcome.scores).all()
