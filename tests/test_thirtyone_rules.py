"""31: hand-worked rounds, scoring, observations, greedy choices, configuration and player files.

Every expected value here is worked out by hand from the rules in fsmarena/games/thirtyone/game.py (card
values, suit sums, who moves when, who loses how many lives), not copied from an implementation.
The games are played on the kernel through the driver; how each round ended (kind, knocker,
lives) is told by the plain-Python reference replaying the game, which must agree with the
kernel at every decision (every observation part it defines) and at the end
(:func:`thirtyone_helpers.play_scripted`).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from thirtyone_helpers import Scripts, card, cards, deck, play_scripted

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.arena import play_games
from fsmarena.games.builtin_player import BuiltinPlayer
from fsmarena.games.players import RandomPlayer, load_player, save_player
from fsmarena.games.thirtyone import kernel as k31
from fsmarena.games.thirtyone.game import DISCARD, DRAW_DECK, DRAW_DISCARD, TURN, ThirtyOne, ThirtyOneConfig
from fsmarena.games.thirtyone.reference import canonical, double_score

# ---- scoring ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand, points",
    [
        ("AS KS QS", 31),
        ("AS KS 10S", 31),
        ("KS QS 2H", 20),
        ("5D 7C 3H", 7),
        ("AH AS AD", 11),
        ("10H JH 2S", 20),
        ("9C 8C 7C", 24),
        ("2S 3H 4D", 4),
        ("AS 2H 3H", 11),
        ("6D 7D AC", 13),
    ],
)
def test_hand_scores(hand, points):
    p = k31.make_params(ThirtyOneConfig())
    ids = cards(hand)
    for order in (ids, ids[::-1], ids[1:] + ids[:1]):
        assert k31.score2(p, *order) == 2 * points
        assert double_score(order, None) == 2 * points


def test_three_of_a_kind_rule():
    off, on = k31.make_params(ThirtyOneConfig()), k31.make_params(ThirtyOneConfig(three_of_a_kind=30.5))
    trips = cards("7S 7H 7D")
    assert k31.score2(off, *trips) == 14 == double_score(trips, None)
    assert k31.score2(on, *trips) == 61 == double_score(trips, 30.5)  # 30.5 doubled
    assert k31.score2(on, *cards("AS KS QS")) == 62 == double_score(cards("AS KS QS"), 30.5)
    assert k31.score2(on, *cards("7S 7H 6D")) == 14 == double_score(cards("7S 7H 6D"), 30.5)


def _dealt_hand(names: str) -> list[int]:
    """Seat 0's hand as the kernel keeps it when dealt these three cards."""
    p = k31.make_params(ThirtyOneConfig())
    s = np.zeros(k31.state_size(p), dtype=np.int64)
    k31.reset(p, s, np.r_[deck(names, "4C 5C 6C"), np.zeros(k31.deal_size(p) - 52, dtype=np.int64)])
    return s[k31.HANDS : k31.HANDS + 3].tolist()


def test_canonical_order_puts_the_strongest_suit_first():
    assert _dealt_hand("2S KH QH") == cards("KH QH 2S") == canonical(cards("2S KH QH"))
    assert _dealt_hand("5D 7C 3H") == cards("7C 5D 3H") == canonical(cards("5D 7C 3H"))
    # equal suit groups: the higher value first, equal values by card number (clubs above spades)
    assert _dealt_hand("KS KC 9H") == cards("KC KS 9H") == canonical(cards("KS KC 9H"))


# ---- hand-worked rounds -------------------------------------------------------------------------


def test_knock_then_the_lowest_other_player_loses_a_life():
    # seat 0: K Q of spades = 20; seat 1: 7 (clubs); 9C face up; stock 4D 2C ...
    scripts = Scripts(
        ["deck", "dd", "knock"],  # draws 4D, throws it; knocks on 20
        ["discard", "d2", "deck", "dd"],
    )  # takes 4D for 3H (7C 5D 4D = 9); last turn
    _, log = play_scripted([deck("KS QS 2H", "5D 7C 3H", "9C", "4D 2C")], scripts)
    assert log[0] == (0, "knock", 0, (3, 2))
    # the last turn was played, then the round ended: seat 1's four actions were all used
    assert scripts.calls[:7] == [
        (0, TURN, 0),
        (0, DISCARD, 0),
        (1, TURN, 1),
        (1, DISCARD, 1),
        (0, TURN, 2),
        (1, TURN, 3),
        (1, DISCARD, 3),
    ]
    assert scripts.calls[7][2] == 0  # next decision is the first turn of round 1


def test_knocker_who_ends_lowest_loses_two_lives():
    # seat 0 knocks on 20; seat 1 (AD 8D = 19) takes 2D from the discard on its last turn: 21
    scripts = Scripts(["deck", "dd", "knock"], ["deck", "dd", "discard", "d2"])
    _, log = play_scripted([deck("KS QS 2H", "AD 8D 3H", "9C", "4D 2D")], scripts)
    assert log[0] == (0, "knock", 0, (1, 3))


def test_under_the_gun_shows_hands_at_once():
    scripts = Scripts(["knock"], [])
    _, log = play_scripted([deck("KS QS 2H", "5D 7C 3H", "9C")], scripts)
    assert log[0] == (0, "gun", 0, (3, 2))
    assert scripts.calls[0] == (0, TURN, 0) and scripts.calls[1][2] == 0  # seat 1 never moved in round 0
    # knocking under the gun with the lower hand costs two lives
    _, log = play_scripted([deck("5D 7C 3H", "KS QS 2H", "9C")], Scripts(["knock"], []))
    assert log[0] == (0, "gun", 0, (1, 3))


def test_without_the_under_the_gun_rule_a_first_turn_knock_is_ordinary():
    # seat 1 (AD 8D 3H = 19) gets a last turn, takes 2D from the discard: 21 beats the knocker's 20
    scripts = Scripts(["knock"], ["discard", "d2"])
    _, log = play_scripted([deck("KS QS 2H", "AD 8D 3H", "2D")], scripts, under_the_gun=False)
    assert log[0] == (0, "knock", 0, (1, 3))


def test_thirty_one_ends_the_round_at_once():
    # seat 1 (AD KD) takes QD from the discard and throws what greedy throws (3H): 31;
    # seat 0 is out of its only life
    scripts = Scripts(["deck", "dd", "knock"], ["discard", "dg"])
    outcome, log = play_scripted([deck("KS QS 2H", "AD KD 3H", "9C", "QD")], scripts, lives=1)
    assert log == [(0, "blitz", -1, (0, 1))]
    assert scripts.scripts[0] == ["knock"]  # seat 0 was never asked again
    assert list(outcome.rewards[0]) == [-1.0, 1.0] and list(outcome.scores[0]) == [0.0, 1.0]


def test_thirty_one_on_a_last_turn_costs_the_knocker_one_life():
    scripts = Scripts(["deck", "dd", "knock"], ["deck", "dd", "deck", "d2"])
    _, log = play_scripted([deck("KS QS 2H", "AD KD 3H", "9C", "5C 4H QD")], scripts)
    assert log[0] == (0, "blitz", 0, (2, 3))


def test_a_dealt_thirty_one_ends_the_round_before_anyone_moves():
    scripts = Scripts([], [])
    outcome, log = play_scripted([deck("5D 7C 3H", "AS KS QS", "9C")], scripts, lives=1)
    assert log == [(0, "deal31", -1, (0, 1))] and scripts.calls == []
    assert list(outcome.rewards[0]) == [-1.0, 1.0]


def test_ties():
    # everybody tied: nobody loses a life
    _, log = play_scripted([deck("KS QS 2H", "KD QD 3H", "9C")], Scripts(["knock"], []))
    assert log[0] == (0, "gun", 0, (3, 3))
    # two of three tied for lowest: both lose
    _, log = play_scripted([deck("KS QS 2H", "10D 5D 4H", "10H 5H 3D", "9C")], Scripts(["knock"], [], []), players=3)
    assert log[0] == (0, "gun", 0, (3, 2, 2))


def test_three_of_a_kind_option_changes_the_showdown():
    hands = deck("7S 7H 7D", "KD QD JD", "2C")
    _, log = play_scripted([hands], Scripts(["knock"], []), three_of_a_kind=30.5)
    assert log[0] == (0, "gun", 0, (3, 2))  # 30.5 beats 30
    _, log = play_scripted([hands], Scripts(["knock"], []))
    assert log[0] == (0, "gun", 0, (1, 3))  # 7 loses to 30, knocker loses two


def test_elimination_dealing_and_turn_order_skip_the_player_who_is_out():
    # round 0: seat 0 knocks under the gun; seat 1 (7 points) is out of its only life.
    # round 1 starts with seat 2 (the next live seat after seat 0), dealt the first 3 cards.
    round0 = deck("KS QS 2H", "5D 7C 3H", "KD QD 4C", "9C")
    round1 = deck("2C 5H 9D", "2D 4H 7S", "6C")  # seat 2: 9; seat 0: 7
    scripts = Scripts(["knock"], [], ["knock"])
    outcome, log = play_scripted([round0, round1], scripts, players=3, lives=1)
    assert log == [(0, "gun", 0, (1, 0, 1)), (1, "gun", 2, (0, 0, 1))]
    assert [seat for seat, _, _ in scripts.calls] == [0, 2]
    assert list(outcome.rewards[0]) == [-1.0, -1.0, 1.0]


def test_empty_stock_turns_the_discard_pile_over_oldest_first():
    order = deck("KS QS 2H", "5D 7C 3H", "9C")
    scripts = Scripts(["deck", "dd"] * 30, ["deck", "dd"] * 30)
    play_scripted([order], scripts, max_turns=60)
    seen = scripts.drawn
    stock = order[7:]
    assert len(stock) == 45 and seen[:45] == stock
    # turn 45: the pile (9C, then the 45 discards) minus its top becomes the stock
    assert seen[45:48] == [order[6], stock[0], stock[1]]


# ---- observations -------------------------------------------------------------------------------

PARTS = ("index", "mask", "features", "greedy_turn", "greedy_discard", "hand", "top", "drawn")


class Seen:
    """The parts of an observation, read at decision time (parts are computed lazily from the
    live game state, so they must be read while the player decides)."""

    def __init__(self, obs):
        for name in PARTS:
            setattr(self, name, getattr(obs, name))


def first_observation(order, **config):
    game = ThirtyOne(ThirtyOneConfig(**config))
    seen = {}

    def decide(seat, obs, rows):
        if len(seen) == 2:  # both seen: knock when allowed, else draw and throw the drawn card
            later = (2 if obs.mask[0, 2] else 0) if obs.phase == TURN else (7 if obs.mask[0, 7] else 6)
            return np.array([later])
        seen[obs.phase] = Seen(obs)
        return np.array([DRAW_DISCARD if obs.phase == TURN else 6])  # take it, throw position 2

    play_scripted([order], decide, **config)
    return game, seen[TURN], seen[DISCARD]


def test_tabular_index_by_hand():
    # seat 0 holds KS QS 2H (20 -> bucket 2: 20-22), 9S face up: K Q 9 of spades = 29 (+9 -> bucket 2)
    game, turn, discard = first_observation(deck("KS QS 2H", "5D 7C 3H", "9S"))
    lives = (3 - 1) * 3 + (3 - 1)  # own 3, opponent 3
    assert int(turn.index[0]) == (((2 * 4 + 2) * 4 + 0) * 9 + lives) * 2 + 0
    # after taking 9S: greedy throws 2H (position 2) -> 29 (bucket 6), gain 9 (bucket 2)
    assert int(discard.greedy_discard[0]) == 2
    assert int(discard.index[0]) == game.n_turn_states + (((1 * 4 + 2) * 8 + 6) * 4 + 2) * 2 + 0
    assert game.state_label(int(turn.index[0])).startswith("turn: score 20-22, discard +5-9, first turn")
    assert "greedy pos2 -> 29" in game.state_label(int(discard.index[0]))
    assert game.n_states == 8 * 4 * 4 * 9 * 2 + 2 * 4 * 8 * 4 * 2 == 2816


def test_masks_and_greedy_choices_by_hand():
    game, turn, discard = first_observation(deck("KS QS 2H", "5D 7C 3H", "9S"))
    assert list(turn.mask[0]) == [True, True, True, False, False, False, False, False]
    assert int(turn.greedy_turn[0]) == DRAW_DISCARD  # 29 for sure beats any stock draw
    assert list(discard.mask[0]) == [False, False, False, True, True, True, True, False]
    assert list(turn.hand[0]) == cards("KS QS 2H") and int(turn.top[0]) == card("9S")
    assert int(discard.drawn[0]) == card("9S")
    # a face-up card that adds nothing: greedy draws from the stock
    _, turn, _ = first_observation(deck("KS QS 2H", "5D 7C 3H", "3C"))
    assert int(turn.greedy_turn[0]) == DRAW_DECK


def test_features_by_hand():
    game, turn, discard = first_observation(deck("KS QS 2H", "5D 7C 3H", "9S"))
    names = game.feature_names
    f = dict(zip(names, turn.features[0]))
    assert len(turn.features[0]) == len(names)
    assert f["hand0_S"] == pytest.approx(10 / 11) and f["hand2_H"] == pytest.approx(2 / 11)
    assert f["top_S"] == pytest.approx(9 / 11) and f["drawn_S"] == 0.0
    assert f["score"] == pytest.approx(20 / 31) and f["option_score"] == pytest.approx(29 / 31)
    assert f["pile_seen_S"] == pytest.approx(1 / 13) and f["first_turn"] == 1.0
    # unseen spades: all but K, Q (own) and 9 (pile); a suit is worth 54 + 30 + 11 = 95
    assert f["unseen_value_S"] == pytest.approx((95 - 29) / 95)
    # the 9S replacing position 2 (the 2H): K Q 9 of spades = 29; replacing the K: Q 9 = 19
    assert f["swap_score_2"] == pytest.approx(29 / 31) and f["swap_score_0"] == pytest.approx(19 / 31)
    assert (f["greedy_0"], f["greedy_1"]) == (0.0, 1.0)  # greedy takes the discard
    g = dict(zip(names, discard.features[0]))
    assert [g[f"greedy_{k}"] for k in range(4)] == [0.0, 0.0, 1.0, 0.0]
    assert g["drawn_S"] == pytest.approx(9 / 11) and g["from_discard"] == 1.0
    assert g["pile_seen_S"] == 0.0  # the 9 is in the air, not in the pile
    assert np.all((turn.features >= 0) & (turn.features <= 1))


def test_known_cards_of_neighbours_appear_in_features():
    # seat 0 throws 4D, seat 1 picks it up: seat 0 then sees 4D in its neighbour's hand
    seen = []

    def decide(seat, obs, rows):
        if seat == 0 and obs.phase == TURN and int(obs.round_turn[0]) == 2:
            seen.append(dict(zip(game.feature_names, obs.features[0])))
        script = {(0, TURN, 0): 0, (0, DISCARD, 0): 7, (1, TURN, 1): 1, (1, DISCARD, 1): 6}
        mask = obs.mask[0]  # then knock when allowed (else draw), throw the drawn card when allowed
        later = (2 if mask[2] else 0) if obs.phase == TURN else (7 if mask[7] else 6)
        return np.array([script.get((seat, obs.phase, int(obs.round_turn[0])), later)])

    game = ThirtyOne()
    order = deck("KS QS 2H", "5D 7C 3H", "9C", "4D")
    play_scripted([order], decide)
    assert seen[0]["left_known_D"] == pytest.approx(4 / 31) and seen[0]["right_known_D"] == pytest.approx(4 / 31)
    assert seen[0]["left_known_S"] == 0.0
    # seat 1 threw the 3H (position 2) for the 4D; seat 0's own throw is not a neighbour's
    assert seen[0]["left_thrown_H"] == pytest.approx(3 / 95) and seen[0]["left_thrown_D"] == 0.0


# ---- configuration and players ------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"players": "1"},
        {"players": "7"},
        {"lives": "0"},
        {"three_of_a_kind": "31"},
        {"three_of_a_kind": "30.3"},
        {"max_turns": "0"},
        {"max_rounds": "-1"},
        {"colour": "red"},
        {"under_the_gun": "maybe"},
    ],
)
def test_bad_parameters_are_clear_errors(params):
    with pytest.raises(FsmarenaError):
        get_game("thirtyone", params)


def test_parameters_from_the_command_line():
    game = get_game("thirtyone", {"players": "4", "three_of_a_kind": "30.5", "under_the_gun": "false"})
    assert game.n_seats == 4 and game.config.three_of_a_kind2 == 61 and not game.config.under_the_gun
    assert get_game("thirtyone", {"three_of_a_kind": "none"}).config.three_of_a_kind is None
    described = game.describe()
    assert set(described["builtin_players"]) == {"random", "greedy", "greedy-knock"}
    assert described["actions"][2] == "knock"


def test_bad_deck_orders_are_rejected():
    game = ThirtyOne()
    with pytest.raises(FsmarenaError, match="order of the 52 cards"):
        game.play(1, np.random.default_rng(0), lambda s, o, r: None, deals=np.zeros((1, 52), dtype=np.int64))
    with pytest.raises(FsmarenaError, match="one row per game"):
        game.play(2, np.random.default_rng(0), lambda s, o, r: None, deals=np.arange(52)[None])


def test_greedy_players_round_trip_through_json(tmp_path):
    game = ThirtyOne()
    builtins = game.builtin_players()
    assert builtins["greedy-knock"]().resolve(game)[1].tolist() == [30.0]
    assert builtins["greedy"]().resolve(game)[1].tolist() == []
    for player in (BuiltinPlayer("greedy"), BuiltinPlayer("greedy-knock", {"threshold": 26.5})):
        path = tmp_path / f"{player.label}.json"
        save_player(player, game, path)
        loaded = load_player(path, game)
        assert isinstance(loaded, BuiltinPlayer) and (loaded.name, loaded.args) == (player.name, player.args)
    hostile = tmp_path / "bad.json"
    for args in ({"threshold": 40}, {"threshold": -1}, {"threshold": "high"}, {"threshold": True}, {"knock": 3}):
        hostile.write_text(
            json.dumps(
                {"format_version": 1, "kind": "builtin", "game": "thirtyone", "name": "greedy-knock", "args": args}
            )
        )
        with pytest.raises(FsmarenaError):
            load_player(hostile, game)


def test_greedy_knock_knocks_exactly_at_its_threshold():
    # KS QS 2H = 20: a threshold of 20 knocks under the gun, 20.5 does not
    for threshold, expected in ((20, "gun"), (20.5, None)):
        player = BuiltinPlayer("greedy-knock", {"threshold": threshold})
        other = RandomPlayer()
        memory = player.begin(ThirtyOne(ThirtyOneConfig(lives=1)), 1, None, np.random.default_rng(1))

        def decide(seat, obs, rows, player=player, other=other, memory=memory):
            return (player if seat == 0 else other).act(obs, memory, rows, np.random.default_rng(1))

        _, log = play_scripted([deck("KS QS 2H", "5D 7C 3H", "3C")], decide, lives=1)
        assert (log[0][1] == "gun") == (expected == "gun")


def test_random_and_greedy_play_legal_moves_for_every_seat_count():
    for players in (2, 3, 6):
        game = ThirtyOne(ThirtyOneConfig(players=players))
        seats = [RandomPlayer(), BuiltinPlayer("greedy"), BuiltinPlayer("greedy-knock", {"threshold": 28})] * 2
        outcome = play_games(game, seats[:players], 60, np.random.default_rng(players), check_legal=True)
        assert np.all((outcome.rewards == 1).sum(axis=1) == 1)
