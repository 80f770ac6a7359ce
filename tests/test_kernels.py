"""Single-game kernels against their batched engines, game by game on identical deals.

Every game whose entry names a kernel is covered: the kernel draws deals, the batched engine
plays the same deals (``kernel.engine_script``), and both are driven by the same scripted
players (a pre-drawn table of picks among the legal actions).  At every decision the kernel's
observation (index, features, mask, encodings) must equal the engine's, and at the end the
rewards and scores must be equal.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import (
    CONFIG_CASES,
    CONFIG_IDS,
    KERNEL_GAMES,
    configs_of,
    game_of,
    kernel_of,
    logging_decide,
    scripted,
)

from games import kernel as contract
from games.registry import entries


def _engine_log(game, module, deals, picks):
    """Play ``deals`` on the batched engine; log every decision's observation per (game, seat)."""
    log: dict[tuple[int, int], list] = {}
    decide = logging_decide(game, module, len(deals), picks, log)
    outcome = game.play_engine(len(deals), np.random.default_rng(0), decide, **module.engine_script(game.config, deals))
    return log, outcome


def _kernel_game(module, p, deal, g, picks, log, game):
    """Play one deal on the kernel with the same picks, checking each observation against the log."""
    s = np.zeros(module.state_size(p), dtype=np.int64)
    module.reset(p, s, deal)
    mask = np.zeros(module.n_actions(p), dtype=np.bool_)
    feats = np.zeros(module.n_features(p))
    seen = {}
    while True:
        seat = module.to_move(p, s)
        if seat < 0:
            break
        t = seen.get(seat, 0)
        seen[seat] = t + 1
        index, e_feats, e_mask, e_codes, e_action = log[(g, seat)][t]
        module.legal(p, s, seat, mask)
        module.features(p, s, seat, feats)
        assert module.observe_index(p, s, seat) == index, (g, seat, t)
        assert np.array_equal(mask, e_mask), (g, seat, t)
        assert np.array_equal(feats, e_feats), (g, seat, t)
        codes = [module.encoding(p, s, seat, w) for w in range(module.n_encodings(p))]
        assert codes == e_codes, (g, seat, t)
        legal = scripted(module, mask)
        action = legal[picks[g, seat, t] % len(legal)]
        assert action == e_action
        module.step(p, s, action)
    assert seen == {seat: len(log[(g, seat)]) for (gg, seat) in log if gg == g}
    rewards = np.zeros(module.n_seats(p))
    scores = np.zeros(module.n_seats(p))
    module.rewards(p, s, rewards)
    module.scores(p, s, scores)
    return rewards, scores


def _compare(game, module, seed, n):
    """``n`` kernel deals played on both sides with the same picks: observations, rewards and
    scores equal."""
    p = contract.params_of(game)
    contract.seed(seed)
    deals = np.zeros((n, module.deal_size(p)), dtype=np.int64)
    for row in deals:
        module.draw_deal(p, row)
    picks = np.random.default_rng(seed).integers(0, 720, size=(n, game.n_seats, 4096))
    log, outcome = _engine_log(game, module, deals, picks)
    for g in range(n):
        rewards, scores = _kernel_game(module, p, deals[g], g, picks, log, game)
        assert np.array_equal(rewards, outcome.rewards[g])
        assert np.allclose(scores, outcome.scores[g], rtol=0, atol=1e-12)


@pytest.mark.parametrize("case", CONFIG_CASES, ids=CONFIG_IDS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_kernel_plays_the_engine_rules(case, seed):
    entry, number = case
    module = kernel_of(entry)
    if not hasattr(module, "engine_script"):
        pytest.skip(f"{entry.kernel} has no engine_script yet")
    config = configs_of(entry)[number]
    game = game_of(entry, config)
    _compare(game, module, seed, 12)


RANDOM_CONFIG_GAMES = [e for e in KERNEL_GAMES if hasattr(kernel_of(e), "random_config")]


@pytest.mark.parametrize("entry", RANDOM_CONFIG_GAMES, ids=[e.name for e in RANDOM_CONFIG_GAMES])
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_kernel_plays_the_engine_rules_for_any_parameters(entry, seed):
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
            action = module.builtin_action(p, s, seat, code)
            assert mask[action], (module.BUILTINS[code], action)
            played.append(action)
            module.step(p, s, action)
        return deal.tolist(), played

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_a_game_without_kernel_is_one_clear_error():
    from fsmarena.errors import FsmarenaError

    missing = [e for e in entries() if not e.kernel]
    if not missing:
        pytest.skip("every game has a kernel")
    with pytest.raises(FsmarenaError, match="no single-game kernel"):
        contract.kernel_of(game_of(missing[0], None))
