"""The seed's Stupide Vautour strategies: each rule checked turn by turn on played games, the
same cards in every action set, their probabilities, JSON files, the command line, and
bid-the-prize-rank against an exact best response to a random opponent (Goofspiel)."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from fsmarena.cli import main
from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.arena import Seat, play_games
from fsmarena.games.builtin_player import BuiltinPlayer
from fsmarena.games.players import GroupedStack, load_player, player_from_json, resolve_player, save_player
from fsmarena.games.vautour.reference import abstract_bid
from tests.bidding_helpers import play_traced
from tests.vautour_helpers import play_scripted, random_orders, vautour

NAMES = ("random", "max", "min", "bonus-craving", "negative-adverse", "get-rid-of-bad-cards", "prize-rank")


def builtin(name: str) -> BuiltinPlayer:
    return vautour().builtin_players()[name]()


def hands_and_bids(trace, seat):
    """Per turn: (prize, sorted remaining hand before the turn, bid) of ``seat`` in every game."""
    n = len(trace[0]["prize"])
    cards = len(trace)
    hands = [list(range(1, cards + 1)) for _ in range(n)]
    for turn in trace:
        rows = []
        for g in range(n):
            bid = int(turn["bids"][g, seat])
            rows.append((int(turn["prize"][g]), list(hands[g]), bid))
            hands[g].remove(bid)
        yield rows


def test_every_seed_strategy_is_a_builtin_name():
    assert set(NAMES) <= set(vautour().builtin_players())
    for name in NAMES:
        assert resolve_player(name, vautour()).label == name


# every strategy: (player, rule the bid must follow or None where it plays randomly)
RULES = {
    "max": (builtin("max"), lambda prize, hand, deck: hand[-1]),
    "min": (builtin("min"), lambda prize, hand, deck: hand[0]),
    "prize-rank": (builtin("prize-rank"), lambda prize, hand, deck: abstract_bid("bid_rank", hand, prize, deck)),
    "negative-adverse": (
        BuiltinPlayer("negative-adverse", {"p": 1.0}),
        lambda prize, hand, deck: hand[-1] if prize < 0 else hand[0],
    ),
    "bonus-craving": (
        BuiltinPlayer("bonus-craving", {"p_high": 1.0}),
        lambda prize, hand, deck: hand[-1] if prize >= 6 else None,
    ),
    "get-rid-of-bad-cards": (
        BuiltinPlayer("get-rid-of-bad-cards", {"p_low": 1.0}),
        lambda prize, hand, deck: hand[0] if abs(prize) <= 3 else None,
    ),
}


@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("action_set", ["bids", "abstract", "both"])
def test_each_strategy_follows_its_rule_in_every_action_set(name, action_set):
    game = vautour(players=3, action_set=action_set, tie_rule="cancel")
    player, rule = RULES[name]
    orders = random_orders(game, 40, np.random.default_rng(1))
    _outcome, trace = play_scripted(game, [player, builtin("random"), builtin("max")], orders)
    checked = 0
    for rows in hands_and_bids(trace, 0):
        for prize, hand, bid in rows:
            assert bid in hand
            expected = rule(prize, hand, game.config.prizes)
            if expected is not None:
                assert bid == expected, (prize, hand, bid)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", ["max", "min", "prize-rank", "negative-adverse"])
def test_deterministic_strategies_bid_the_same_cards_in_every_action_set(name):
    bids = {}
    for action_set in ("bids", "abstract", "both"):
        game = vautour(players=2, cards=8, action_set=action_set)
        orders = random_orders(game, 30, np.random.default_rng(9))
        _outcome, trace = play_scripted(game, [builtin(name), builtin("min")], orders)
        bids[action_set] = np.stack([t["bids"] for t in trace])
    assert (bids["bids"] == bids["abstract"]).all() and (bids["bids"] == bids["both"]).all()


def _first_bids(game, player, n=30_000, seed=3):
    orders = random_orders(game, n, np.random.default_rng(seed))
    _outcome, trace = play_scripted(game, [player, builtin("min")], orders, rng_seed=seed)
    return trace[0]["prize"], trace[0]["bids"][:, 0]


@pytest.mark.parametrize("action_set", ["bids", "abstract"])
def test_random_bids_are_uniform_over_the_hand(action_set):
    game = vautour(action_set=action_set)
    _prize, bids = _first_bids(game, builtin("random"))
    counts = np.bincount(bids, minlength=16)[1:]
    expected = len(bids) / 15
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 36.1  # 14 degrees of freedom, p = 0.001


@pytest.mark.parametrize(
    "player,condition,card,p",
    [
        (BuiltinPlayer("bonus-craving", {"p_high": 0.9}), lambda v: v >= 6, 15, 0.9),
        (BuiltinPlayer("bonus-craving", {"p_high": 0.9}), lambda v: v < 6, 15, 0.0),
        (BuiltinPlayer("get-rid-of-bad-cards", {"p_low": 0.7}), lambda v: abs(v) <= 3, 1, 0.7),
        (BuiltinPlayer("get-rid-of-bad-cards", {"p_low": 0.7}), lambda v: abs(v) > 3, 1, 0.0),
        (BuiltinPlayer("negative-adverse", {"p": 0.5}), lambda v: v < 0, 15, 0.5),
        (BuiltinPlayer("negative-adverse", {"p": 0.5}), lambda v: v > 0, 1, 0.5),
    ],
)
def test_strategy_probabilities(player, condition, card, p):
    """On the first turn (full hand) the card is played with probability p + (1 - p) / 15."""
    prize, bids = _first_bids(vautour(), player)
    rows = condition(prize)
    rate = (bids[rows] == card).mean()
    expected = p + (1 - p) / 15
    tolerance = 5 * np.sqrt(expected * (1 - expected) / rows.sum())
    assert abs(rate - expected) < tolerance


def test_thresholds_are_relative_to_the_deck():
    # the reduced deck -2, -1, +1..+4: high bonuses are >= 0.6 x 4 (3 and 4), small prizes |v| <= 1.2
    game = vautour(cards=6)
    orders = random_orders(game, 50, np.random.default_rng(4))
    for player, rule in (
        (BuiltinPlayer("bonus-craving", {"p_high": 1.0}), lambda v, h: h[-1] if v >= 3 else None),
        (BuiltinPlayer("get-rid-of-bad-cards", {"p_low": 1.0}), lambda v, h: h[0] if abs(v) <= 1 else None),
    ):
        _outcome, trace = play_scripted(game, [player, builtin("random")], orders)
        for rows in hands_and_bids(trace, 0):
            for prize, hand, bid in rows:
                expected = rule(prize, hand)
                assert expected is None or bid == expected


def test_a_mixed_stack_of_strategies_plays_each_member_on_its_games():
    game = vautour(action_set="both")
    members = np.arange(200) % 2
    stack = GroupedStack([builtin("max"), builtin("min")])
    rng = np.random.default_rng(0)
    memories = [stack.begin(game, 200, members, rng), builtin("random").begin(game, 200, None, rng)]
    seats = [stack, builtin("random")]
    _, trace = play_traced(game, 200, lambda s, o, r: seats[s].act(o, memories[s], r, rng))
    first = trace[0]["bids"][:, 0]
    assert (first[members == 0] == 15).all() and (first[members == 1] == 1).all()
    play_games(game, [Seat(stack, members), builtin("prize-rank")], 200, rng, check_legal=True)


# ---- files and command line ----------------------------------------------------------------


def test_parameterised_strategies_round_trip_through_json(tmp_path):
    game = vautour()
    player = BuiltinPlayer("bonus-craving", {"p_high": 0.75, "high_bonus": 0.5}, label="craver")
    save_player(player, game, tmp_path / "p.json")
    data = json.loads((tmp_path / "p.json").read_text())
    assert data["kind"] == "builtin" and data["name"] == "bonus-craving"
    assert data["args"] == {"p_high": 0.75, "high_bonus": 0.5}
    loaded = load_player(tmp_path / "p.json", game)
    assert (loaded.name, loaded.args, loaded.label) == ("bonus-craving", player.args, "craver")
    orders = random_orders(game, 100, np.random.default_rng(0))
    a = play_scripted(game, [player, builtin("random")], orders)[1]
    b = play_scripted(game, [loaded, builtin("random")], orders)[1]
    assert all((x["bids"] == y["bids"]).all() for x, y in zip(a, b))
    for name in NAMES[1:]:
        again = player_from_json({"format_version": 1, "kind": "builtin", "game": "vautour", "name": name}, game)
        assert (again.name, again.args) == (name, {})


@pytest.mark.parametrize(
    "change,message",
    [
        ({"name": "greedy"}, "no builtin 'greedy'"),
        ({"name": 3}, "must be a string"),
        ({"args": {"p_high": 1.5}}, "must be in \\[0, 1\\]"),
        ({"args": {"p_high": "high"}}, "must be"),
        ({"args": {"p_high": float("nan")}}, "must be in"),
        ({"args": {"temperature": 0.1}}, "no parameter 'temperature'"),
        ({"args": [0.9]}, "must be an object"),
        ({"game": "dtd"}, "not 'vautour'"),
    ],
)
def test_hostile_strategy_files_are_clear_errors(change, message):
    data = {"format_version": 1, "kind": "builtin", "game": "vautour", "name": "bonus-craving", "args": {"p_high": 0.9}}
    data.update(change)
    with pytest.raises(FsmarenaError, match=message):
        player_from_json(data, vautour())


def test_bad_parameters_and_wrong_game_are_errors():
    with pytest.raises(FsmarenaError, match="in \\[0, 1\\]"):
        play_games(
            vautour(), [BuiltinPlayer("negative-adverse", {"p": 2.0}), builtin("min")], 10, np.random.default_rng(0)
        )
    with pytest.raises(FsmarenaError, match="dtd has no builtin 'random'"):  # dtd's random is the generic player
        BuiltinPlayer("random").resolve(get_game("dtd"))
    assert BuiltinPlayer("random").resolve(vautour())[0] == 0  # Stupide Vautour's is its own
    with pytest.raises(FsmarenaError, match="dtd has no builtin 'max'"):
        play_games(get_game("dtd"), [builtin("max"), builtin("min")], 10, np.random.default_rng(0))


@pytest.mark.parametrize("params", [[], ["--param", "action_set=abstract", "--param", "players=3"]])
def test_play_command_with_builtin_names(capsys, params):
    assert (
        main(["play", "vautour", "prize-rank", "get-rid-of-bad-cards", "--games", "2000", "--json", "--quiet", *params])
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 2000 and abs(result["win"] + result["draw"] + result["loss"] - 1) < 1e-9


# ---- bid-the-prize-rank, the reference point ------------------------------------------------


def _goofspiel_values(game):
    """Exact expected (points, point difference) against a uniformly random opponent, seed
    rule: of the best response with full information (both hands known), and of the strategy
    that bids ``game``'s bid_rank card.  Plain dynamic programming over exact fractions."""
    cards = game.config.cards
    position = {v: p for p, v in enumerate(game.tables.values.tolist())}

    def rank_card(mine: frozenset, prize: int) -> int:
        """The card bid_rank bids: the held card nearest the prize's rank, ties to the lower."""
        rank = int(game.tables.rank[position[prize]])
        return min(mine, key=lambda card: (abs(card - rank), card))

    @lru_cache(maxsize=None)
    def value(mine: frozenset, theirs: frozenset, prizes: frozenset, difference: bool):
        if not prizes:
            return Fraction(0), Fraction(0)
        best_total = rank_total = Fraction(0)
        for prize in prizes:
            follow = rank_card(mine, prize)
            best = None
            for bid in mine:
                expected = Fraction(0)
                expected_rank = Fraction(0)
                for other in theirs:
                    gain = prize if bid > other else (-prize if difference and bid < other else 0)
                    later, later_rank = value(mine - {bid}, theirs - {other}, prizes - {prize}, difference)
                    expected += gain + later
                    expected_rank += gain + later_rank
                expected /= len(theirs)
                expected_rank /= len(theirs)
                best = expected if best is None else max(best, expected)
                if bid == follow:
                    rank_value = expected_rank
            best_total += best
            rank_total += rank_value
        return best_total / len(prizes), rank_total / len(prizes)

    full = frozenset(range(1, cards + 1))
    return [value(full, full, frozenset(game.config.prizes), d) for d in (False, True)]


@pytest.mark.parametrize("cards", [3, 4, 5])
def test_prize_rank_is_the_best_response_to_random_in_goofspiel(cards):
    """With positive prizes only the rank is the value; bidding it is an exact best response
    to a uniformly random opponent (expected points and expected point difference)."""
    game = vautour(cards=cards, prizes=tuple(range(1, cards + 1)))
    for best, by_rank in _goofspiel_values(game):
        assert best == by_rank


def test_kernel_scores_of_prize_rank_against_random_match_the_exact_values():
    game = vautour(cards=5, prizes=(1, 2, 3, 4, 5))
    (points, _best), (difference, _d) = _goofspiel_values(game)
    outcome = play_games(game, [builtin("prize-rank"), builtin("random")], 40_000, np.random.default_rng(8))
    mine = outcome.scores[:, 0]
    diff = outcome.scores[:, 0] - outcome.scores[:, 1]
    assert abs(mine.mean() - float(points)) < 5 * mine.std() / np.sqrt(len(mine))
    assert abs(diff.mean() - float(difference)) < 5 * diff.std() / np.sqrt(len(diff))


def test_a_hand_derived_best_response_beats_prize_rank_every_time():
    """Reduced deck -2, -1, +1..+4 (ranks 3, 1, 2, 4, 5, 6): prize-rank always bids exactly the
    prize's rank (each rank card is used on its own prize).  Bidding rank + 1, and card 1 on the
    +4, wins +1, +2, +3 and leaves -1 and -2 to the opponent, who takes +4: 6 against 1."""
    game = vautour(cards=6, action_set="both")
    t = game.tables
    table = np.zeros(game.n_states, dtype=np.int64)
    for state in range(game.n_states):
        position, bits = divmod(state, t.H - 1)
        hand = [c for c in range(1, 7) if (bits + 1) >> (c - 1) & 1]
        rank = int(t.rank[position])
        target = rank + 1 if rank < 6 else 1
        table[state] = game.bid_action(min(hand, key=lambda c: (abs(c - target), -c)))
    from fsmarena.games.players import TablePolicy

    outcome = play_games(game, [TablePolicy(table), builtin("prize-rank")], 2_000, np.random.default_rng(0))
    assert (outcome.scores == [6, 1]).all() and (outcome.rewards[:, 0] == 1).all()


@pytest.mark.parametrize("action_set", ["bids", "abstract", "both"])
def test_each_builtin_law_is_the_law_its_actions_are_drawn_from(action_set):
    """The kernel's two forms of a builtin agree: at states of played games, the frequencies of
    20,000 draws of builtin_action are within 5 standard errors of builtin_law, for every
    builtin, default and given parameters."""
    from fsmarena.games import kernel as contract
    from fsmarena.games.vautour import kernel

    game = vautour(players=2, cards=6, action_set=action_set, tie_rule="cancel")
    p = contract.params_of(game)
    contract.seed(3)
    deal = np.zeros(kernel.deal_size(p), dtype=np.int64)
    kernel.draw_deal(p, deal)
    s = np.zeros(kernel.state_size(p), dtype=np.int64)
    kernel.reset(p, s, deal)
    players = [builtin(name) for name in NAMES] + [BuiltinPlayer("bonus-craving", {"p_high": 0.4, "high_bonus": 0.2})]
    draws = 20_000
    while (seat := kernel.to_move(p, s)) >= 0:
        for player in players:
            code, args = player.resolve(game)
            law = np.zeros(game.n_actions)
            kernel.builtin_law(p, s, seat, code, args, law)
            assert abs(law.sum() - 1) < 1e-12 and (law >= 0).all()
            counts = np.bincount(
                [kernel.builtin_action(p, s, seat, code, args) for _ in range(draws)], minlength=len(law)
            )
            error = 5 * np.sqrt(law * (1 - law) / draws) + 1e-12
            assert (np.abs(counts / draws - law) <= error).all(), (player.label, seat)
        kernel.step(p, s, kernel.builtin_action(p, s, seat, 0, np.zeros(0)))
