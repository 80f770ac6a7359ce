"""Single-game kernels against the plain-Python references, game by game on identical deals.

Every game whose entry names a kernel is covered: the kernel draws deals and plays them with
scripted players (a pre-drawn table of picks among the legal actions), logging what each seat
saw; the game's reference (``reference.py``, the rules in words) replays the same deals with
the same actions (:mod:`reference_replay`).  At every decision the kernel's legal actions, and
its index, encodings and features where the reference defines them, must equal the
reference's, each seat must be asked as often, and at the end the rewards and scores must be
equal.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import CONFIG_CASES, CONFIG_IDS, KERNEL_GAMES, configs_of, game_of, kernel_of
from reference_replay import has_reference, kernel_game, reference_agrees

from fsmarena.games import kernel as contract
from fsmarena.games.registry import entries


def _compare(game, module, seed, n):
    """``n`` kernel deals played on the kernel and replayed by the reference with the same
    actions: decisions, rewards and scores equal."""
    if not has_reference(game):
        pytest.skip(f"{game.name}: no reference replay in tests/reference_replay.py")
    p = contract.params_of(game)
    contract.seed(seed)
    deals = np.zeros((n, module.deal_size(p)), dtype=np.int64)
    for row in deals:
        module.draw_deal(p, row)
    picks = np.random.default_rng(seed).integers(0, 720, size=(n, game.n_seats, 4096))
    for g in range(n):
        log, rewards, scores = kernel_game(module, p, deals[g], g, picks)
        reference_agrees(game, deals[g], log, rewards, scores, g)


@pytest.mark.parametrize("case", CONFIG_CASES, ids=CONFIG_IDS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_kernel_plays_the_reference_rules(case, seed):
    entry, number = case
    module = kernel_of(entry)
    config = configs_of(entry)[number]
    game = game_of(entry, config)
    _compare(game, module, seed, 12)


RANDOM_CONFIG_GAMES = [e for e in KERNEL_GAMES if hasattr(kernel_of(e), "random_config")]


@pytest.mark.parametrize("entry", RANDOM_CONFIG_GAMES, ids=[e.name for e in RANDOM_CONFIG_GAMES])
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_kernel_plays_the_reference_rules_for_any_parameters(entry, seed):
    """The same comparison over random rule parameters (``kernel.random_config``)."""
    module = kernel_of(entry)
    _compare(game_of(entry, module.random_config(seed)), module, seed, 4)


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=[e.name for e in KERNEL_GAMES])
def test_sizes_match_the_game(entry):
    for config in configs_of(entry):
        game = game_of(entry, config)
        module = kernel_of(entry)
        p = contract.params_of(game)
        assert module.n_seats(p) == game.n_seats
        assert module.n_actions(p) == game.n_actions
        assert module.n_states(p) == game.n_states
        assert module.n_features(p) == len(game.feature_names)
        assert module.n_encodings(p) == len(game.encodings)
        assert [module.encoding_size(p, w) for w in range(len(game.encodings))] == list(game.encodings.values())
        assert set(module.BUILTINS) <= set(game.builtin_players())


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=[e.name for e in KERNEL_GAMES])
def test_same_seed_same_deals_and_builtins_legal(entry):
    module = kernel_of(entry)
    game = game_of(entry, configs_of(entry)[0])
    p = contract.params_of(game)

    def run(value):
        contract.seed(value)
        deal = np.zeros(module.deal_size(p), dtype=np.int64)
        module.draw_deal(p, deal)
        s = np.zeros(module.state_size(p), dtype=np.int64)
        module.reset(p, s, deal)
        mask = np.zeros(module.n_actions(p), dtype=np.bool_)
        played = []
        while (seat := module.to_move(p, s)) >= 0:
            module.legal(p, s, seat, mask)
            code = len(played) % len(module.BUILTINS)
            action = module.builtin_action(p, s, seat, code, contract.default_args(module, code))
            assert mask[action], (module.BUILTINS[code], action)
            played.append(action)
            module.step(p, s, action)
        return deal.tolist(), played

    assert run(3) == run(3)
    assert run(3) != run(4)


@pytest.mark.parametrize("entry", KERNEL_GAMES, ids=[e.name for e in KERNEL_GAMES])
def test_is_legal_is_the_mask_for_every_action(entry):
    """``is_legal`` (the kernel's own rule, or the stand-in reading ``legal``'s mask) answers for
    every action as the mask does, at every decision of random games of each test configuration."""
    from fsmarena.games.kernel_calls import make_is_legal

    module = kernel_of(entry)
    is_legal = make_is_legal(module)
    rng = np.random.default_rng(5)
    checked = 0
    for config in configs_of(entry):
        p = contract.params_of(game_of(entry, config))
        n_actions = module.n_actions(p)
        mask, work = np.zeros(n_actions, dtype=np.bool_), np.zeros(n_actions, dtype=np.bool_)
        contract.seed(5)
        for _ in range(20):
            deal = np.zeros(module.deal_size(p), dtype=np.int64)
            module.draw_deal(p, deal)
            s = np.zeros(module.state_size(p), dtype=np.int64)
            module.reset(p, s, deal)
            while (seat := module.to_move(p, s)) >= 0:
                module.legal(p, s, seat, mask)
                answers = [bool(is_legal(p, s, seat, np.int64(a), work)) for a in range(n_actions)]
                assert answers == mask.tolist(), (config, seat, s.tolist())
                checked += 1
                module.step(p, s, int(rng.choice(np.flatnonzero(mask))))
    assert checked >= 100


def test_a_game_without_kernel_is_one_clear_error():
    from fsmarena.errors import FsmarenaError

    missing = [e for e in entries() if not e.kernel]
    if not missing:
        pytest.skip("every game has a kernel")
    with pytest.raises(FsmarenaError, match="no single-game kernel"):
        contract.kernel_of(game_of(missing[0], None))
