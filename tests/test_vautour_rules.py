"""Stupide Vautour rules: hand-worked turns for both tie rules, the kernel against the plain
reference loop, card and prize conservation and legality under hypothesis, seat symmetry,
observations and configuration checks."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.arena import play_games
from fsmarena.games.players import RandomPlayer, TablePolicy
from fsmarena.games.vautour.game import (
    ABSTRACT_NAMES,
    FEATURE_NAMES,
    N_ABSTRACT,
    RANDOM,
    StupideVautour,
    default_prizes,
)
from fsmarena.games.vautour.reference import play_one, random_legal_tables, state_number, table_chooser
from tests.bidding_helpers import TAKEN, play_traced
from tests.vautour_helpers import (
    ScriptedBids,
    play_scripted,
    prize_positions,
    random_orders,
    raw_table_decide,
    vautour,
)


def turns(trace, game=0):
    """(prize, stake, bids, winner) of every turn of one game."""
    return [
        (int(t["prize"][game]), int(t["stake"][game]), t["bids"][game].tolist(), int(t["winner"][game])) for t in trace
    ]


def scripted(game, bids, order):
    outcome, trace = play_scripted(game, [ScriptedBids(b) for b in bids], [order])
    return outcome.scores[0].tolist(), outcome.rewards[0].tolist(), turns(trace)


# ---- hand-worked turns ------------------------------------------------------------------


def test_default_decks():
    assert default_prizes(15) == (-5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
    assert default_prizes(6) == (-2, -1, 1, 2, 3, 4)
    assert vautour(cards=6).config.prizes == (-2, -1, 1, 2, 3, 4)


@pytest.mark.parametrize("rule", ["seed", "cancel"])
def test_unique_highest_and_lowest_take_the_prize(rule):
    # deck -1, +1, +2.  +2: 3 beats 1; -1: the lowest bid 1 takes it; +1: 3 beats 2.
    game = vautour(cards=3, tie_rule=rule)
    scores, rewards, played = scripted(game, [[3, 1, 2], [1, 2, 3]], [2, -1, 1])
    assert played == [(2, 2, [3, 1], 0), (-1, -1, [1, 2], 0), (1, 1, [2, 3], 1)]
    assert scores == [1, 1] and rewards == [0, 0]


@pytest.mark.parametrize("rule", ["seed", "cancel"])
def test_a_tie_passes_the_prize_down_to_the_next_lone_bid(rule):
    # three players, deck -1, +1, +2.
    # +2: bids 3, 3, 1 -> the two 3s cancel, the lone 1 takes +2 (passing down);
    # -1: bids 1, 2, 3 -> the lowest, 1, takes -1;
    # +1: bids 2, 1, 2 -> the 2s cancel, the 1 takes +1.
    game = vautour(players=3, cards=3, tie_rule=rule)
    scores, rewards, played = scripted(game, [[3, 1, 2], [3, 2, 1], [1, 3, 2]], [2, -1, 1])
    assert [p[3] for p in played] == [2, 0, 1]
    assert scores == [-1, 1, 2] and rewards == [-1, -1, 1]


def test_ties_pass_down_several_levels_with_five_players():
    # deck -1, +1, +2, +3, +4 (seed rule)
    # +4: 5 5 4 4 2 -> 5s and 4s cancel, the 2 (seat 4) takes +4
    # -1: 1 1 2 3 3 -> the lowest lone bid is 2 (seat 2)
    # +1: 2 2 1 1 1 -> every bid matched: discarded
    # +2: 3 3 3 2 4 -> lone bids 2 and 4: the 4 (seat 4) takes +2
    # +3: 4 4 5 5 5 -> every bid matched: discarded
    game = vautour(players=5, cards=5)
    bids = [[5, 1, 2, 3, 4], [5, 1, 2, 3, 4], [4, 2, 1, 3, 5], [4, 3, 1, 2, 5], [2, 3, 1, 4, 5]]
    scores, rewards, played = scripted(game, bids, [4, -1, 1, 2, 3])
    assert [p[3] for p in played] == [4, 2, -1, 4, -1]
    assert scores == [0, 0, -1, 0, 6] and rewards == [-1, -1, -1, -1, 1]


def test_all_tied_seed_rule_discards_the_prize():
    # +1: 1 vs 1, discarded; +2: 3 beats 2; -1: 2 is the lowest.
    game = vautour(cards=3, tie_rule="seed")
    scores, _rewards, played = scripted(game, [[1, 2, 3], [1, 3, 2]], [1, 2, -1])
    assert played == [(1, 1, [1, 1], -1), (2, 2, [2, 3], 1), (-1, -1, [3, 2], 1)]
    assert scores == [0, 1]


def test_all_tied_cancel_rule_carries_the_prize_to_the_next_turn():
    # same bids: +1 carries over, the +2 turn is played for 3.
    game = vautour(cards=3, tie_rule="cancel")
    scores, _rewards, played = scripted(game, [[1, 2, 3], [1, 3, 2]], [1, 2, -1])
    assert played == [(1, 1, [1, 1], -1), (2, 3, [2, 3], 1), (-1, -1, [3, 2], 1)]
    assert scores == [0, 2]


def test_carry_over_accumulates_over_several_turns():
    # deck -1, +1, +2, +3.  +3: 4 vs 4 carried; -1: 1 vs 1, the pot is now 3 - 1 = 2;
    # +2: the pot is 4 and positive, 3 beats 2; +1: 3 beats 2.
    bids, order = [[4, 1, 2, 3], [4, 1, 3, 2]], [3, -1, 2, 1]
    scores, _r, played = scripted(vautour(cards=4, tie_rule="cancel"), bids, order)
    assert played == [(3, 3, [4, 4], -1), (-1, 2, [1, 1], -1), (2, 4, [2, 3], 1), (1, 1, [3, 2], 0)]
    assert scores == [1, 4]
    # under the seed's rule the two tied prizes are simply lost
    scores, _r, played = scripted(vautour(cards=4, tie_rule="seed"), bids, order)
    assert [p[1] for p in played] == [3, -1, 2, 1] and scores == [1, 2]


def test_the_sign_of_the_pot_decides_highest_or_lowest():
    # deck -3, +1, +2, +4 (cancel).  -3 tied and carried; then +1 is played for a pot of -2:
    # negative, so the LOWEST bid (2, seat 0) takes -2 although the new prize is a bonus.
    # +2: 3 vs 3 carried; +4 played for 6: 4 beats 2.
    game = vautour(cards=4, prizes=(-3, 1, 2, 4), tie_rule="cancel")
    scores, _r, played = scripted(game, [[1, 2, 3, 4], [1, 4, 3, 2]], [-3, 1, 2, 4])
    assert played == [(-3, -3, [1, 1], -1), (1, -2, [2, 4], 0), (2, 2, [3, 3], -1), (4, 6, [4, 2], 0)]
    assert scores == [4, 0]


def test_a_pot_summing_to_zero_follows_the_newest_prize():
    # deck -2, +1, +2 (cancel).  -2 carried; +2 makes the pot 0: the newest prize is a bonus,
    # so the highest bid (3, seat 0) takes it (worth nothing); +1: 3 beats 2.
    game = vautour(cards=3, prizes=(-2, 1, 2), tie_rule="cancel")
    scores, _r, played = scripted(game, [[1, 3, 2], [1, 2, 3]], [-2, 2, 1])
    # (a pot worth nothing moves no points: the trace shows it was TAKEN, no pot carried on,
    # but not by whom)
    assert played == [(-2, -2, [1, 1], -1), (2, 0, [3, 2], TAKEN), (1, 1, [2, 3], 1)]
    assert scores == [0, 1]
    # the other way round: +2 carried, then -2 makes the pot 0 and the LOWEST bid (2) takes it
    scores, _r, played = scripted(game, [[1, 3, 2], [1, 2, 3]], [2, -2, 1])
    assert played == [(2, 2, [1, 1], -1), (-2, 0, [3, 2], TAKEN), (1, 1, [2, 3], 1)]


def test_a_pot_still_open_after_the_last_turn_is_lost():
    game = vautour(cards=2, prizes=(1, 2), tie_rule="cancel")
    scores, rewards, played = scripted(game, [[1, 2], [1, 2]], [2, 1])
    assert [p[1] for p in played] == [2, 3] and [p[3] for p in played] == [-1, -1]
    assert scores == [0, 0] and rewards == [0, 0]


# ---- the kernel against the plain reference loop ---------------------------------------------


@pytest.mark.parametrize(
    "players,cards,rule",
    [
        (2, 6, "seed"),
        (2, 6, "cancel"),
        (3, 5, "cancel"),
        (4, 4, "seed"),
        (5, 6, "cancel"),
        (2, 15, "seed"),
        (3, 15, "cancel"),
    ],
)
def test_kernel_matches_the_reference_loop(players, cards, rule):
    """Random deterministic tables mixing abstract actions and concrete bids (illegal ones
    too, which the reference and the test's decide replace by the nearest remaining card)."""
    game = vautour(players=players, cards=cards, tie_rule=rule, action_set="both")
    rng = np.random.default_rng(cards * 10 + players)
    n = 40
    deterministic = [a for a in range(game.n_actions) if a != RANDOM]
    tables = rng.choice(deterministic, size=(players, game.n_states))
    orders = random_orders(game, n, rng)
    outcome, _ = play_traced(game, n, raw_table_decide(game, tables), deals=prize_positions(game, orders))
    choosers = [table_chooser(t.tolist(), game.config.prizes) for t in tables]
    for g in range(n):
        expected = play_one(orders[g].tolist(), players, rule, choosers)
        assert outcome.scores[g].tolist() == expected


def test_reference_state_numbers_match_the_observation_index():
    game = vautour(cards=5, action_set="both")
    rng = np.random.default_rng(3)
    seen = []

    class Recorder(RandomPlayer):
        def act(self, obs, memory, rows, rng):
            seen.append((obs.index.copy(), obs.prize_value.copy(), obs.hand.copy()))
            return super().act(obs, memory, rows, rng)

    play_games(game, [Recorder(), Recorder()], 30, rng)
    for index, value, hand in seen:
        for i, v, h in zip(index, value, hand):
            cards = [c for c in range(1, 6) if h >> (c - 1) & 1]
            assert i == state_number(int(v), cards, game.config.prizes)


def test_state_space_sizes_are_the_seeds():
    assert vautour().n_states == 491_505
    assert vautour(cards=6).n_states == 378
    assert vautour(cards=6).state_label(0) == "prize -2, hand 1"
    assert vautour(cards=6).state_label(377) == "prize +4, hand 1 2 3 4 5 6"


# ---- invariants under hypothesis ----------------------------------------------------------


def _check_conservation(game, outcome, trace):
    players, cards = game.config.players, game.config.cards
    bids = np.stack([t["bids"] for t in trace], axis=2)  # (n, players, turns)
    assert (np.sort(bids, axis=2) == np.arange(1, cards + 1)).all(), "each card bid exactly once"
    winners = np.stack([t["winner"] for t in trace], axis=1)  # (n, turns)
    stakes = np.stack([t["stake"] for t in trace], axis=1)
    prizes = np.stack([t["prize"] for t in trace], axis=1)
    assert (np.sort(prizes, axis=1) == sorted(game.config.prizes)).all(), "every prize turned up once"
    won = np.where(winners >= 0, stakes, 0).sum(axis=1)
    assert (outcome.scores.sum(axis=1) == won).all()
    if game.config.tie_rule == "seed":
        lost = np.where(winners < 0, prizes, 0).sum(axis=1)
        assert (stakes == prizes).all()
    else:
        lost = np.where(winners[:, -1] < 0, stakes[:, -1], 0)  # only a pot left open at the end
    assert (won + lost == sum(game.config.prizes)).all(), "prizes won + discarded + carried = deck"
    for seat in range(players):
        gained = np.where(winners == seat, stakes, 0).sum(axis=1)
        assert (outcome.scores[:, seat] == gained).all()


@given(
    players=st.integers(2, 5),
    cards=st.integers(1, 8),
    rule=st.sampled_from(["seed", "cancel"]),
    action_set=st.sampled_from(["bids", "abstract", "both"]),
    seed=st.integers(0, 2**32 - 1),
    names=st.lists(
        st.sampled_from(sorted(StupideVautour().builtin_players()) + ["generic-random"]), min_size=5, max_size=5
    ),
)
def test_cards_and_prizes_are_conserved_and_every_action_is_legal(players, cards, rule, action_set, seed, names):
    game = vautour(players=players, cards=cards, tie_rule=rule, action_set=action_set)
    factories = StupideVautour().builtin_players()
    seats = [RandomPlayer() if name == "generic-random" else factories[name]() for name in names[:players]]
    rng = np.random.default_rng(seed)
    outcome, trace = play_traced(game, 60, _legal_decide(game, seats, 60, rng), seed=seed)
    _check_conservation(game, outcome, trace)


def _legal_decide(game, seats, n, rng):
    """play_games(check_legal=True) with a trace: the arena's check around every decision."""
    from fsmarena.games.arena import _check_actions

    memories = [p.begin(game, n, None, rng) for p in seats]

    def decide(seat, obs, rows):
        actions = np.asarray(seats[seat].act(obs, memories[seat], rows, rng))
        _check_actions(game, seat, obs, actions)
        return actions

    return decide


@given(players=st.integers(2, 5), rule=st.sampled_from(["seed", "cancel"]), seed=st.integers(0, 2**32 - 1))
def test_illegal_bids_are_one_clear_error(players, rule, seed):
    """Players that ignore the mask: the first illegal bid (an abstract action in the ``bids``
    set, or a card already played) is refused with one clear error (the numpy engine used to
    bid the nearest remaining card instead)."""
    game = vautour(players=players, cards=5, tie_rule=rule, action_set="bids")
    rng = np.random.default_rng(seed)

    def careless(seat, obs, rows):
        return rng.integers(0, game.n_actions, size=obs.n)

    with pytest.raises(FsmarenaError, match="not legal"):
        game.play(50, rng, careless)


@given(
    players=st.integers(2, 5), rule=st.sampled_from(["seed", "cancel"]), seed=st.integers(0, 2**32 - 1), data=st.data()
)
def test_permuting_the_seats_permutes_the_scores(players, rule, seed, data):
    """Deterministic players on the same prize orders: the kernel favours no seat."""
    permutation = data.draw(st.permutations(range(players)))
    game = vautour(players=players, cards=5, tie_rule=rule, action_set="both")
    rng = np.random.default_rng(seed)
    deterministic = [a for a in range(game.n_actions) if a != RANDOM]
    tables = rng.choice(deterministic, size=(players, game.n_states))
    orders = random_orders(game, 30, rng)
    deals = prize_positions(game, orders)
    first = game.play(30, rng, raw_table_decide(game, tables), deals=deals)
    second = game.play(30, rng, raw_table_decide(game, tables[list(permutation)]), deals=deals)
    assert (second.scores == first.scores[:, list(permutation)]).all()
    assert (second.rewards == first.rewards[:, list(permutation)]).all()


def test_identical_random_players_win_equally_often_in_every_seat():
    game = vautour(players=3)
    outcome = play_games(
        game, [StupideVautour().builtin_players()["random"]() for _ in range(3)], 30_000, np.random.default_rng(11)
    )
    wins = (outcome.rewards > 0).mean(axis=0)
    # three seats, each near 1/3 minus the draws; 5 standard errors of a proportion at n=30,000
    assert np.ptp(wins) < 5 * np.sqrt(0.25 / 30_000) * 2


def test_same_seed_same_games():
    game = vautour(players=3, tie_rule="cancel")
    seats = [StupideVautour().builtin_players()[name]() for name in ("random", "bonus-craving", "get-rid-of-bad-cards")]
    a = play_games(game, seats, 500, np.random.default_rng(5))
    b = play_games(game, seats, 500, np.random.default_rng(5))
    assert (a.scores == b.scores).all()


# ---- observations -------------------------------------------------------------------------


def _observations(game, n=200, seed=0):
    seen = []

    class Recorder(RandomPlayer):
        def act(self, obs, memory, rows, rng):
            seen.append(_snapshot(obs))
            return super().act(obs, memory, rows, rng)

    seats = [Recorder() for _ in range(game.n_seats)]
    rng = np.random.default_rng(seed)
    memories = [p.begin(game, n, None, rng) for p in seats]
    _, trace = play_traced(game, n, lambda s, o, r: seats[s].act(o, memories[s], r, rng), seed=seed)
    return seen, trace


ENCODINGS = ("prize", "opp_last", "carry", "phase", "lead")


def _snapshot(obs):
    """The parts these tests read, read when the seat decides (the driver's observations read
    the games' states on first use, and the states move on)."""
    parts = ("hand", "features", "prize_value", "stake", "step", *ENCODINGS)
    mask = None if obs.mask is None else np.array(obs.mask)
    return SimpleNamespace(n=obs.n, n_actions=obs.n_actions, mask=mask, **{p: np.array(getattr(obs, p)) for p in parts})


@pytest.mark.parametrize("action_set", ["bids", "abstract", "both"])
def test_masks_follow_the_action_set(action_set):
    game = vautour(cards=6, action_set=action_set)
    seen, _trace = _observations(game)
    for obs in seen:
        if action_set == "abstract":
            assert obs.mask is None and obs.n_actions == N_ABSTRACT
            continue
        hand_bits = (obs.hand[:, None] >> np.arange(6)) & 1
        assert (obs.mask[:, N_ABSTRACT:] == hand_bits.astype(bool)).all()
        assert (obs.mask[:, :N_ABSTRACT] == (action_set == "both")).all()


def test_features_are_in_the_unit_interval_and_mean_what_they_say():
    game = vautour(players=3, tie_rule="cancel")
    seen, _trace = _observations(game, n=300)
    for obs in seen:
        f = obs.features
        assert f.shape == (obs.n, len(FEATURE_NAMES))
        assert (f >= 0).all() and (f <= 1).all()
    first = seen[0]  # seat 0, turn 0: the full hand, no score yet
    f = first.features
    assert np.allclose(f[:, FEATURE_NAMES.index("low")], 1 / 15)
    assert np.allclose(f[:, FEATURE_NAMES.index("high")], 1.0)
    assert np.allclose(f[:, FEATURE_NAMES.index("mean")], 8 / 15)
    assert np.allclose(f[:, FEATURE_NAMES.index("lead")], 0.5)
    assert np.allclose(f[:, FEATURE_NAMES.index("turn")], 0.0)
    assert np.allclose(f[:, FEATURE_NAMES.index("prize")], (first.prize_value + 5) / 15)
    # stake scaled between the deck's total malus (-15) and total bonus (+55)
    assert np.allclose(f[:, FEATURE_NAMES.index("stake")], (first.stake + 15) / 70)


def test_opp_last_shows_the_previous_turn_only():
    """Bids are simultaneous: at turn t a seat sees the next seat's bid of turn t - 1."""
    game = vautour(players=3, cards=6)
    seen, trace = _observations(game, n=100)
    for position, obs in enumerate(seen):
        turn, seat = divmod(position, 3)
        if turn == 0:
            assert (obs.opp_last == 0).all()
            continue
        previous = trace[turn - 1]["bids"][:, (seat + 1) % 3]
        assert (obs.opp_last == 1 + np.minimum(2, 3 * (previous - 1) // 6)).all()
        assert (obs.step == turn).all()


def test_carry_encoding_marks_a_carried_pot():
    game = vautour(cards=3, tie_rule="cancel")
    seen = []

    class Copy(ScriptedBids):
        def act(self, obs, memory, rows, rng):
            seen.append(obs.carry.tolist())
            return super().act(obs, memory, rows, rng)

    play_scripted(game, [Copy([1, 2, 3]), Copy([1, 3, 2])], [[1, 2, -1]])
    assert seen == [[0], [0], [1], [1], [0], [0]]


# ---- configuration ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params,message",
    [
        ({"players": "1"}, "players must be 2 to 5"),
        ({"players": "6"}, "players must be 2 to 5"),
        ({"cards": "0"}, "cards must be"),
        ({"cards": "17"}, "cards must be"),
        ({"cards": "6", "prizes": "1,2,3"}, "must be equal"),
        ({"prizes": "-5,-4,-3,-2,-1,1,2,3,4,5,6,7,8,9,9"}, "distinct and non-zero"),
        ({"cards": "3", "prizes": "0,1,2"}, "distinct and non-zero"),
        ({"tie_rule": "coin"}, "unknown tie_rule"),
        ({"action_set": "cards"}, "unknown action_set"),
        ({"colour": "red"}, "unknown parameter"),
        ({"cards": "six"}, "cannot read"),
    ],
)
def test_bad_configurations_are_clear_errors(params, message):
    with pytest.raises(FsmarenaError, match=message):
        get_game("vautour", params)


def test_parameters_from_the_command_line_strings():
    game = get_game(
        "vautour",
        {"players": "3", "cards": "6", "prizes": "-1,1,2,3,4,5", "tie_rule": "cancel", "action_set": "abstract"},
    )
    assert game.n_seats == 3 and game.config.prizes == (-1, 1, 2, 3, 4, 5)
    assert game.action_names == ABSTRACT_NAMES and game.n_actions == 7
    assert game.describe()["parameters"]["prizes"] == [-1, 1, 2, 3, 4, 5]
    assert get_game("vautour", {"cards": "6"}).config.prizes == (-2, -1, 1, 2, 3, 4)


def test_scripted_prize_orders_are_checked():
    game = vautour(cards=3)
    seats = [ScriptedBids([1, 2, 3]), ScriptedBids([1, 2, 3])]
    with pytest.raises(FsmarenaError, match="scripted deals must be"):
        play_scripted(game, seats, [[1, 2]])


def test_out_of_range_actions_are_rejected():
    game = vautour(cards=4, action_set="abstract")
    with pytest.raises(FsmarenaError, match="out of range"):
        game.play(3, np.random.default_rng(0), lambda s, o, r: np.full(o.n, 7))


def test_bid_action_numbers():
    game = vautour(cards=6)
    assert [game.bid_action(c) for c in (1, 6)] == [7, 12]
    assert game.action_names[game.bid_action(4)] == "bid_4"
    with pytest.raises(FsmarenaError):
        vautour(action_set="abstract").bid_action(1)


def test_a_bids_table_policy_plays_unchanged_with_automata_and_builtins_in_both():
    """The action numbering is shared: a table trained on ``bids`` and an abstract-action
    player meet in one ``both`` game, and play the same cards as in their own action sets."""
    bids_game, both_game = vautour(cards=6, players=3), vautour(cards=6, players=3, action_set="both")
    abstract_game = vautour(cards=6, players=3, action_set="abstract")
    rng = np.random.default_rng(2)
    table = random_legal_tables(bids_game, 1, 4)[0]  # a trained policy bids cards it holds
    automaton = TablePolicy(rng.integers(0, RANDOM, size=abstract_game.n_states))  # deterministic abstract
    orders = random_orders(bids_game, 50, rng)
    mixed = [TablePolicy(table), automaton, StupideVautour().builtin_players()["prize-rank"]()]
    _outcome, together = play_scripted(both_game, mixed, orders)
    _outcome, alone_bids = play_scripted(
        bids_game, [TablePolicy(table)] + [StupideVautour().builtin_players()["prize-rank"]()] * 2, orders
    )
    _outcome, alone_abstract = play_scripted(abstract_game, [automaton] * 3, orders)
    for t_together, t_bids, t_abstract in zip(together, alone_bids, alone_abstract):
        assert (t_together["bids"][:, 0] == t_bids["bids"][:, 0]).all()
        assert (t_together["bids"][:, 1] == t_abstract["bids"][:, 1]).all()
        assert (t_together["bids"][:, 2] == t_bids["bids"][:, 2]).all()


def test_games_pickle_without_their_tables_and_parallel_matches_agree():
    import pickle

    from fsmarena.games.match import play_match

    game = vautour(players=3, tie_rule="cancel", action_set="both")
    again = pickle.loads(pickle.dumps(game))
    assert len(pickle.dumps(game)) < 10_000 and again.config == game.config
    assert again.tables is game.tables  # rebuilt from the per-process cache
    a, b = StupideVautour().builtin_players()["prize-rank"](), StupideVautour().builtin_players()["random"]()
    one = play_match(game, a, b, 3_000, seed=4, jobs=1, chunk=500)
    two = play_match(game, a, b, 3_000, seed=4, jobs=2, chunk=500)
    assert (one.wins, one.draws, one.score) == (two.wins, two.draws, two.score)


@pytest.mark.parametrize("action_set", ["bids", "abstract", "both"])
def test_a_table_of_action_zero_bids_the_lowest_card_in_every_action_set(action_set):
    """What a learner's never-visited states hold (action 0) means the same card everywhere:
    in ``bids`` it is masked and the table falls back to its first legal action, the lowest card."""
    game = vautour(cards=6, action_set=action_set)
    zeros = TablePolicy(np.zeros(game.n_states, dtype=np.int64))
    orders = random_orders(game, 20, np.random.default_rng(0))
    _outcome, trace = play_scripted(game, [zeros, StupideVautour().builtin_players()["max"]()], orders)
    assert all((t["bids"][:, 0] == turn + 1).all() for turn, t in enumerate(trace))


def test_phase_and_lead_encodings_on_a_worked_game():
    # deck -1, +1, +2: +2 to seat 0 (3 beats 1), -1 to seat 0 (1 is lowest), +1 to seat 1.
    game = vautour(cards=3)
    seen = []

    class Copy(ScriptedBids):
        def act(self, obs, memory, rows, rng):
            seen.append((obs.phase.item(), obs.lead.tolist()))  # one game: one value
            return super().act(obs, memory, rows, rng)

    play_scripted(game, [Copy([3, 1, 2]), Copy([1, 2, 3])], [[2, -1, 1]])
    # turn 0 level; turn 1 seat 0 leads 2-0; turn 2 seat 0 leads 1-0
    assert seen == [(0, [1]), (0, [1]), (1, [2]), (1, [0]), (2, [2]), (2, [0])]
    assert game.encoding_label("prize", 0) == "prize -1" and game.encoding_label("lead", 0) == "behind"


@pytest.mark.parametrize("players", [2, 4])
def test_encodings_stay_in_their_declared_ranges(players):
    game = vautour(players=players, cards=7, tie_rule="cancel")
    seen, _trace = _observations(game, n=100)
    for obs in seen:
        for part, size in game.encodings.items():
            values = np.broadcast_to(getattr(obs, part), (obs.n,))
            assert values.min() >= 0 and values.max() < size, part
            assert game.encoding_label(part, int(values[0]))


def test_prizes_given_as_a_list_of_numpy_integers_are_normalised():
    config = vautour(cards=3, prizes=[np.int64(2), -1, 1]).config
    assert config.prizes == (2, -1, 1) and all(type(p) is int for p in config.prizes)
    with pytest.raises(FsmarenaError, match="whole numbers"):
        vautour(cards=3, prizes=(1.5, 2, 3))
