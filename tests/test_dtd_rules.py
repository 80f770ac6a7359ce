"""Divide-the-dollar rules: hand-worked deals, the seed's state numbering, two implementations
agreeing, and invariants under hypothesis."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsmarena.errors import FsmarenaError
from fsmarena.games.arena import play_games
from fsmarena.games.driver import Driver
from fsmarena.games.dtd.game import DivideTheDollar, DTDConfig
from fsmarena.games.dtd.reference import play_one, state_numbers
from fsmarena.games.players import FixedActionPlayer, RandomPlayer, TablePolicy
from tests.dtd_helpers import HALF, QUARTER, THREE_QUARTERS, play_scripted, small_game

SMALL, MEDIAN, LARGE = (FixedActionPlayer(a) for a in range(3))


def rounds_of(trace):
    return [(int(r["leader"]), int(r["lead_card"][0]), int(r["follow_card"][0]), bool(r["scored"][0])) for r in trace]


# ---- hand-worked deals (deck of 6, hands of 2, 2 rounds; median of 2 cards = the larger) ----


def test_both_large_max_uses_the_smallest_card_fallback():
    # seat 0: [1/4, 3/4], seat 1: [1/2, 3/4], then 1/4 and 1/2 to draw.
    # r0: seat 0 leads 3/4; seat 1 has nothing that fits under 1/4 of room -> plays its
    #     SMALLEST card 1/2 (the seed played no card here); 5/4 > 1, nobody scores.
    # r1: seat 1 [3/4, 1/2] leads 3/4; seat 0 [1/4, 1/4] fits 1/4: scores 1/4 and 3/4.
    game = small_game()
    outcome, trace = play_scripted(game, [LARGE, LARGE], [THREE_QUARTERS, QUARTER, HALF, THREE_QUARTERS, QUARTER, HALF])
    assert rounds_of(trace) == [(0, THREE_QUARTERS, HALF, False), (1, THREE_QUARTERS, QUARTER, True)]
    assert outcome.scores[0].tolist() == [0.25, 0.75]
    assert outcome.rewards[0].tolist() == [-1.0, 1.0]


def test_both_small_spoil_uses_the_largest_card_fallback():
    # r0: seat 0 leads 1/4; seat 1 [1/2, 3/4] cannot spoil (3/4 + 1/4 = 1 still scores) ->
    #     plays its LARGEST card 3/4; scores 1/4 and 3/4.
    # r1: seat 1 [1/2, 1/2] leads 1/2; seat 0 [1/4, 3/4] spoils with 3/4; nobody scores.
    game = small_game()
    outcome, trace = play_scripted(game, [SMALL, SMALL], [THREE_QUARTERS, QUARTER, HALF, THREE_QUARTERS, QUARTER, HALF])
    assert rounds_of(trace) == [(0, QUARTER, THREE_QUARTERS, True), (1, HALF, THREE_QUARTERS, False)]
    assert outcome.scores[0].tolist() == [0.25, 0.75]
    assert outcome.rewards[0].tolist() == [-1.0, 1.0]


def test_both_median():
    # r0: 3/4 on 3/4, no score; r1: seat 1 [1/2, 1/2] leads 1/2, seat 0 [1/4, 1/4] plays 1/4: scores.
    game = small_game()
    outcome, trace = play_scripted(
        game, [MEDIAN, MEDIAN], [THREE_QUARTERS, QUARTER, HALF, THREE_QUARTERS, QUARTER, HALF]
    )
    assert rounds_of(trace) == [(0, THREE_QUARTERS, THREE_QUARTERS, False), (1, HALF, QUARTER, True)]
    assert outcome.scores[0].tolist() == [0.25, 0.5]


def test_spoil_and_fit_when_possible():
    # seat 0 [1/4, 1/2] always small_spoil, seat 1 [1/2, 3/4] always large_max; then 3/4, 1/4.
    # r0: seat 0 leads 1/4; seat 1's largest fitting card is 3/4: scores 1/4 and 3/4.
    # r1: seat 1 [1/4, 1/2] leads its largest 1/2; seat 0 [1/2, 3/4] spoils with 3/4 (1/2 would fit).
    game = small_game()
    outcome, trace = play_scripted(game, [SMALL, LARGE], [QUARTER, HALF, HALF, THREE_QUARTERS, THREE_QUARTERS, QUARTER])
    assert rounds_of(trace) == [(0, QUARTER, THREE_QUARTERS, True), (1, HALF, THREE_QUARTERS, False)]
    assert outcome.scores[0].tolist() == [0.25, 0.75]


def test_equal_totals_draw():
    # r0: 1/2 on 1/2 scores for both; r1: both hold [1/4, 1/2] and play the median 1/2: scores.
    game = small_game(counts=(2, 4, 0))
    outcome, _ = play_scripted(game, [MEDIAN, MEDIAN], [HALF, HALF, HALF, HALF, QUARTER, QUARTER])
    assert outcome.scores[0].tolist() == [1.0, 1.0]
    assert outcome.rewards[0].tolist() == [0.0, 0.0]


def test_seat_zero_wins_when_seat_one_always_spoils_itself():
    # seat 1 always plays small_spoil as follower and leader; seat 0 fits whenever it can.
    game = small_game(counts=(4, 0, 2))
    # seat 0 [1/4, 1/4], seat 1 [1/4, 3/4], draws 1/4 then 3/4
    outcome, trace = play_scripted(
        game, [LARGE, SMALL], [QUARTER, QUARTER, QUARTER, THREE_QUARTERS, QUARTER, THREE_QUARTERS]
    )
    # r0: seat 0 leads 1/4; seat 1 cannot spoil (3/4 + 1/4 = 1) -> its largest 3/4: both score.
    # r1: seat 1 [1/4, 3/4] leads its smallest 1/4; seat 0 [1/4, 1/4] fits 1/4: both score.
    assert rounds_of(trace) == [(0, QUARTER, THREE_QUARTERS, True), (1, QUARTER, QUARTER, True)]
    assert outcome.scores[0].tolist() == [0.5, 1.0]
    assert outcome.rewards[0].tolist() == [-1.0, 1.0]


def test_default_game_has_26_rounds_and_40_states():
    game = DivideTheDollar()
    assert game.config.rounds == 26
    assert game.n_states == 40


def test_observation_index_matches_the_seeds_numbering():
    # the seed's true_state_index over ravel(showing, small, median, large), dims (4, 3, 3, 3)
    seed_table = [
        0,
        1,
        2,
        -1,
        3,
        4,
        -1,
        -1,
        5,
        -1,
        -1,
        -1,
        -1,
        6,
        7,
        -1,
        -1,
        8,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        9,
        10,
        11,
        12,
        -1,
        13,
        14,
        -1,
        -1,
        15,
        -1,
        -1,
        -1,
        -1,
        16,
        17,
        -1,
        -1,
        18,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        19,
        20,
        21,
        22,
        -1,
        23,
        24,
        -1,
        -1,
        25,
        -1,
        -1,
        -1,
        -1,
        26,
        27,
        -1,
        -1,
        28,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        29,
        30,
        31,
        32,
        -1,
        33,
        34,
        -1,
        -1,
        35,
        -1,
        -1,
        -1,
        -1,
        36,
        37,
        -1,
        -1,
        38,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        -1,
        39,
    ]
    game = DivideTheDollar()
    t = game.tables
    seen = set()
    for hand in np.flatnonzero(t.size == 5):
        s, m, l = int(t.smallest[hand]), int(t.median[hand]), int(t.largest[hand])
        for showing in range(4):
            expected = seed_table[np.ravel_multi_index((showing, s, m, l), (4, 3, 3, 3))]
            assert int(t.state_index(np.array([hand]), showing)[0]) == expected
            seen.add(expected)
    assert seen == set(range(40))


def test_features_follow_the_thesis_definitions():
    game = small_game(counts=(2, 2, 2), hand_size=2)
    features = []

    class Recorder(FixedActionPlayer):
        def act(self, obs, memory, rows, rng):
            features.append(obs.features[0].copy())
            return super().act(obs, memory, rows, rng)

    play_scripted(game, [Recorder(2), Recorder(2)], [THREE_QUARTERS, QUARTER, HALF, THREE_QUARTERS, QUARTER, HALF])
    # r0 leader (seat 0, [1/4, 3/4]): Ttl 0, Sml 1/4, Med 3/4, Lrg 3/4, Coop 0, Idx 0
    assert features[0].tolist() == [0.0, 0.25, 0.75, 0.75, 0.0, 0.0]
    # r0 follower (seat 1, [1/2, 3/4]) sees 3/4
    assert features[1].tolist() == [0.75, 0.5, 0.75, 0.75, 0.0, 1.0]
    # r1 leader (seat 1, [1/2, 3/4]); round 0 did not score -> Coop 0
    assert features[2].tolist() == [0.0, 0.5, 0.75, 0.75, 0.0, 0.0]


def test_bad_configs_are_clear_errors():
    with pytest.raises(FsmarenaError, match="cannot deal"):
        DTDConfig(counts=(1, 1, 1), hand_size=2)
    with pytest.raises(FsmarenaError, match="ascending"):
        DTDConfig(cards=(0.5, 0.25, 0.75))
    with pytest.raises(FsmarenaError, match="equal length"):
        DTDConfig(counts=(1, 2))


# ---- two implementations agree -------------------------------------------------------------


@st.composite
def configs(draw) -> DTDConfig:
    """Random decks of 1-4 card values in eighths, any counts that deal two hands."""
    values = sorted(draw(st.lists(st.integers(1, 8), min_size=1, max_size=4, unique=True)))
    counts = draw(st.lists(st.integers(0, 9), min_size=len(values), max_size=len(values)))
    if sum(counts) < 2:
        counts[0] += 2 - sum(counts)
    hand_size = draw(st.integers(1, min(5, sum(counts) // 2)))
    dollar = draw(st.sampled_from([1.0, 0.75, 1.25]))
    return DTDConfig(
        cards=tuple(float(Fraction(v, 8)) for v in values), counts=tuple(counts), hand_size=hand_size, dollar=dollar
    )


@given(config=configs(), seed=st.integers(0, 2**32 - 1))
def test_kernel_matches_plain_reference(config, seed):
    game = DivideTheDollar(config)
    rng = np.random.default_rng(seed)
    n = 20
    deck = np.repeat(np.arange(len(config.cards)), config.counts)
    orders = np.array([rng.permutation(deck) for _ in range(n)])
    tables = rng.integers(0, 3, size=(2, game.n_states))
    outcome, _ = play_scripted(game, [TablePolicy(tables[0]), TablePolicy(tables[1])], orders)
    numbers = state_numbers(len(config.cards))
    for i in range(n):
        a, b = play_one(config, orders[i].tolist(), tables.tolist(), numbers)
        assert outcome.scores[i].tolist() == [float(a), float(b)]
        assert outcome.rewards[i, 0] == (1.0 if a > b else -1.0 if a < b else 0.0)


# ---- invariants ----------------------------------------------------------------------------


@given(config=configs(), seed=st.integers(0, 2**32 - 1))
def test_invariants_hold_for_random_players(config, seed):
    game = DivideTheDollar(config)
    rng = np.random.default_rng(seed)
    n = 30
    hand_sizes = []

    class Watcher(RandomPlayer):
        def act(self, obs, memory, rows, rng):
            hand_sizes.append(obs.hand.sum(axis=1))
            assert obs.index.min() >= 0 and obs.index.max() < game.n_states
            features = obs.features
            assert np.all((features[:, :4] >= 0) & (features[:, :4] <= max(config.cards)))
            assert np.all((features[:, 4] >= 0) & (features[:, 4] <= 1))
            assert set(np.unique(features[:, 5])) <= {0.0, 1.0}
            return super().act(obs, memory, rows, rng)

    players = [Watcher(), Watcher()]
    deals = Driver(game).deals(n, rng)  # the kernel's random deck orders, played as scripted
    outcome, rounds = play_scripted(game, players, deals)

    # every decision is made with a full hand
    assert all(np.all(h == config.hand_size) for h in hand_sizes)
    # cards conserved: both hands before a round + the deck not yet drawn + the cards played in
    # the earlier rounds = the whole deck, at every round
    played = np.zeros((n, len(config.cards)), dtype=np.int64)
    for record in rounds:
        r = record["round"]
        deck = np.zeros_like(played)
        for position in range(2 * config.hand_size + 2 * r, config.deck_size):
            np.add.at(deck, (np.arange(n), deals[:, position]), 1)
        total = record["hands"][0] + record["hands"][1] + deck + played
        assert np.all(total == np.asarray(config.counts))
        for cards in (record["lead_card"], record["follow_card"]):
            np.add.at(played, (np.arange(n), cards), 1)
    assert len(rounds) == config.rounds
    # (play_scripted checks that the rounds' scoring cards add up to the scores)
    assert np.all(outcome.scores >= 0)
    assert np.all(outcome.scores <= config.rounds * max(config.cards))
    # rewards are antisymmetric and follow the totals
    assert np.all(outcome.rewards.sum(axis=1) == 0)
    assert np.all(np.sign(outcome.scores[:, 0] - outcome.scores[:, 1]) == outcome.rewards[:, 0])


def test_random_player_only_plays_legal_actions_uniformly():
    game = DivideTheDollar()
    counts = np.zeros(3)

    class Counter(RandomPlayer):
        def act(self, obs, memory, rows, rng):
            actions = super().act(obs, memory, rows, rng)
            np.add.at(counts, actions, 1)
            return actions

    play_games(game, [Counter(), RandomPlayer()], 2000, np.random.default_rng(3), check_legal=True)
    shares = counts / counts.sum()
    assert np.all(np.abs(shares - 1 / 3) < 0.01)
