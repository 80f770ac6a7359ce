"""A game's own chance stream (:mod:`fsmarena.games.draws`) and the deals that lean on it: 31 deals the
first round's deck and shuffles later ones from the game's stream when it reaches them; 421
deals the first throw and throws the re-throws' dice from the game's stream when they happen.

* the stream is xoshiro128**: word for word the generator written out in plain Python from
  its authors' definition (32-bit arithmetic by masking Python integers);
* shuffles and dice drawn from a stream are uniform (chi-square, as ``tests/test_draws.py``);
* a game's chance is a function of its deal alone: the decks 31 deals in play are the list
  :func:`fsmarena.games.thirtyone.kernel.round_decks` gives, and 421's throws the list
  :func:`fsmarena.games.dice421.kernel.round_rolls` gives (a deal's own decks or throws first,
  scripted ones included); every game of a batch plays the same alone, in another order, in
  other batches, compiled or asked in Python, whatever the generator seeding the batch;
* a 421 game that stops at once draws no re-throw; the states stay small: 31's does not grow
  with ``max_rounds``, 421's with ``rethrows``.

(That results do not depend on ``--jobs`` is ``tests/contract/test_game_contract.py``'s, for
every game; deals and their games are both drawn per chunk.)
"""

from __future__ import annotations

import itertools
import re
from typing import Iterator

import numpy as np
import pytest
from scipy.stats import chisquare

from fsmarena.errors import FsmarenaError
from fsmarena.games import draws
from fsmarena.games.arena import play_games
from fsmarena.games.dice421 import kernel as k421
from fsmarena.games.dice421.game import Dice421, Dice421Config
from fsmarena.games.driver import Driver
from fsmarena.games.players import TablePolicy
from fsmarena.games.thirtyone import kernel as k31
from fsmarena.games.thirtyone.game import ThirtyOne, ThirtyOneConfig

P_MIN = 1e-4
M32 = 2**32 - 1


def _plain_xoshiro128starstar(state: list[int]) -> Iterator[int]:
    """xoshiro128** (Blackman and Vigna, 2018) as its authors define it on 32-bit words."""
    s = list(state)

    def rotl(x: int, k: int) -> int:
        return ((x << k) | (x >> (32 - k))) & M32

    while True:
        result = rotl(s[1] * 5 & M32, 7) * 9 & M32
        t = s[1] << 9 & M32
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 11)
        yield result


@pytest.mark.parametrize("state", [[1, 2, 3, 4], [M32, 0, 12345, 2**31], [0xDEADBEEF, 0xCAFEBABE, 7, 0]])
def test_the_stream_is_xoshiro128starstar(state):
    stream = np.array([99, *state], dtype=np.int64)  # the stream may sit anywhere in an array
    plain = _plain_xoshiro128starstar(state)
    words = [draws.stream_word(stream, 1) for _ in range(1000)]
    assert words == [next(plain) for _ in range(1000)]
    assert stream[0] == 99 and max(words) < 2**32 and len(set(words)) > 990


def test_loading_a_seed_keeps_32_bits_and_leaves_no_all_zero_state():
    stream = np.zeros(6, dtype=np.int64)
    draws.load_stream(stream, 1, np.array([5, -1, 2**40 + 3, 0, 7], dtype=np.int64), 1)
    assert stream.tolist() == [0, M32, 3, 0, 7, 0]
    draws.load_stream(stream, 1, np.zeros(4, dtype=np.int64), 0)
    assert stream[1:5].any()  # all zero would give zero words for ever
    assert len({draws.stream_word(stream, 1) for _ in range(50)}) > 45


def _stream_shuffles(n: int, times: int) -> np.ndarray:
    """``times`` shuffles of ``n`` cards drawn one after another from one game stream."""
    stream = np.array([3, 1, 4, 1], dtype=np.int64)
    decks = np.zeros((times, n), dtype=np.int64)
    for row in decks:
        row[:] = np.arange(n)
        draws.shuffle_stream(row, 0, n, stream, 0)
    return decks


def test_every_order_of_five_cards_from_a_stream_is_equally_likely():
    decks = _stream_shuffles(5, 36_000)
    orders = {order: number for number, order in enumerate(itertools.permutations(range(5)))}
    counts = np.bincount([orders[tuple(row)] for row in decks.tolist()], minlength=120)
    assert chisquare(counts).pvalue > P_MIN


def test_each_card_of_a_stream_deck_lands_on_each_position_equally_often():
    decks = _stream_shuffles(52, 5200)
    assert (np.sort(decks, axis=1) == np.arange(52)).all()
    for card in range(52):
        positions = np.flatnonzero(decks.reshape(-1) == card) % 52
        assert chisquare(np.bincount(positions, minlength=52)).pvalue > P_MIN, card


def test_dice_from_a_stream_are_uniform_and_independent():
    stream = np.array([9, 8, 7, 6], dtype=np.int64)
    rows = np.zeros((12_000, 9), dtype=np.int64)
    for row in rows:
        draws.fill_uniform_stream(row, 0, 9, 1, 7, stream, 0)
    assert rows.min() == 1 and rows.max() == 6
    for position in range(9):
        assert chisquare(np.bincount(rows[:, position], minlength=7)[1:]).pvalue > P_MIN, position
    for first in (0, 3, 6, 7):
        pairs = (rows[:, first] - 1) * 6 + rows[:, first + 1] - 1
        assert chisquare(np.bincount(pairs, minlength=36)).pvalue > P_MIN, first


# ---- 31: the decks of a game are a function of its deal ----------------------------------------


def _dealt_decks(p: np.ndarray, deal: np.ndarray) -> dict[int, list[int]]:
    """Play ``deal`` with the greedy builtin in every seat; the deck of every round played, read
    from the stock as the round is dealt (before the pile can be turned over into it)."""
    s = np.zeros(k31.state_size(p), dtype=np.int64)
    k31.reset(p, s, deal)
    decks = {int(s[k31.ROUNDS]): s[k31.STOCK : k31.STOCK + 52].tolist()}
    while (seat := k31.to_move(p, s)) >= 0:
        rounds = s[k31.ROUNDS]
        k31.step(p, s, k31.builtin_action(p, s, seat, k31.GREEDY, np.zeros(0)))
        if s[k31.ROUNDS] != rounds and not s[k31.DONE]:
            decks[int(s[k31.ROUNDS])] = s[k31.STOCK : k31.STOCK + 52].tolist()
    return decks


@pytest.mark.parametrize("scripted", [1, 3])
def test_31_deals_the_decks_round_decks_lists(scripted):
    """With the default deal (one deck) and with three scripted decks: rounds below ``K`` get
    the deal's decks, later ones the game's stream's, exactly as :func:`round_decks` lists."""
    config = ThirtyOneConfig(players=3, lives=5)
    p = k31.make_params(config, deal_rounds=scripted)
    rng = np.random.default_rng(scripted)
    longest = 0
    for _ in range(8):
        deal = rng.integers(0, 2**32, size=k31.deal_size(p))
        deal[: 52 * scripted] = np.argsort(rng.random((scripted, 52)), axis=1).ravel()
        dealt = _dealt_decks(p, deal)
        listed = np.zeros((max(dealt) + 1, 52), dtype=np.int64)
        k31.round_decks(p, deal, listed)
        assert dealt == {r: listed[r].tolist() for r in dealt}
        assert (np.sort(listed, axis=1) == np.arange(52)).all()
        for r in range(min(scripted, len(listed))):
            assert listed[r].tolist() == deal[52 * r : 52 * r + 52].tolist()
        longest = max(longest, len(dealt))
    assert longest > scripted + 2  # games long enough to play stream decks


def _rounds_played(p: np.ndarray, deal: np.ndarray) -> int:
    return len(_dealt_decks(p, deal))


def test_31_games_play_the_same_in_any_batch_order_path_and_generator():
    """Deterministic players on fixed deals: the whole batch, the batch reversed, in pieces of
    7 games cut into compiled calls of 3, asked in Python, and one game alone give every game the
    same outcome, whatever generator seeds each batch (chance drawn during play comes from
    the game's own stream, not from the stream the batch shares)."""
    game = ThirtyOne(ThirtyOneConfig(players=3, lives=4))
    rng = np.random.default_rng(5)
    seats = [
        game.builtin_players()["greedy"](),
        game.builtin_players()["greedy-knock"](),
        TablePolicy(rng.integers(0, game.n_actions, game.n_states)),
    ]
    n = 60
    deals = Driver(game).deals(n, np.random.default_rng(6))
    p = k31.make_params(game.config)
    assert max(_rounds_played(p, deal) for deal in deals) >= 4  # later decks matter

    whole = play_games(game, seats, n, np.random.default_rng(1), deals=deals)
    backwards = play_games(game, seats, n, np.random.default_rng(2), deals=deals[::-1])
    python = play_games(game, seats, n, np.random.default_rng(3), deals=deals, compiled=False)
    pieces = [
        play_games(game, seats, len(deals[i : i + 7]), np.random.default_rng(4 + i), deals=deals[i : i + 7], chunk=3)
        for i in range(0, n, 7)
    ]
    alone = play_games(game, seats, 1, np.random.default_rng(99), deals=deals[17:18])
    for outcome, order in ((backwards, slice(None, None, -1)), (python, slice(None))):
        assert np.array_equal(outcome.rewards[order], whole.rewards)
        assert np.array_equal(outcome.scores[order], whole.scores)
    assert np.array_equal(np.concatenate([o.scores for o in pieces]), whole.scores)
    assert np.array_equal(alone.scores[0], whole.scores[17])


def test_31_state_and_deal_do_not_grow_with_the_rounds_a_game_may_last():
    sizes = set()
    for max_rounds in (1, 32, 200, 100_000):
        p = k31.make_params(ThirtyOneConfig(players=6, max_rounds=max_rounds))
        sizes.add((k31.state_size(p), k31.deal_size(p)))
    assert sizes == {(k31.DECKS, 52 + draws.SEED_WORDS)}
    assert k31.DECKS * 8 < 2048  # bytes of state per game
    three = k31.make_params(ThirtyOneConfig(), deal_rounds=3)
    assert (k31.state_size(three), k31.deal_size(three)) == (k31.DECKS + 104, 156 + draws.SEED_WORDS)


def test_31_driver_deals_are_reproducible_and_seed_the_game_streams():
    """The same generator gives the same deals; each deal is a deck then the four words of a
    stream's seed, and different games get different streams."""
    game = ThirtyOne()
    one = Driver(game).deals(50, np.random.default_rng(8))
    two = Driver(game).deals(50, np.random.default_rng(8))
    assert np.array_equal(one, two)
    assert (np.sort(one[:, :52], axis=1) == np.arange(52)).all()
    words = one[:, 52:]
    assert words.min() >= 0 and words.max() < 2**32 and len({tuple(w) for w in words.tolist()}) == 50


def test_make_params_refuses_impossible_deal_lengths():
    """31's deal holds at least the first deck; 421's any whole number of throws."""
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError):
            k31.make_params(ThirtyOneConfig(), deal_rounds=bad)
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError):
            k421.make_params(Dice421Config(), deal_throws=bad)


# ---- scripted deals of any length (Game.play(deals=...)) ----------------------------------------


def _scores(game, deals: np.ndarray, player) -> np.ndarray:
    return play_games(game, [player] * game.n_seats, len(deals), np.random.default_rng(0), deals=deals).scores


def test_a_script_plays_its_chance_then_its_seed_and_a_seedless_script_a_fixed_stream():
    """A 421 script of one throw (3 dice) plays as that throw followed by an all-zero seed,
    and a seed of its own changes the re-throws; two scripted decks of 31 likewise."""
    rng = np.random.default_rng(4)
    game = Dice421(Dice421Config(rethrows=2))
    always_reroll = TablePolicy(np.full(game.n_states, 7))
    dice = rng.integers(1, 7, size=(300, 3))
    zeros = np.zeros((300, draws.SEED_WORDS), dtype=np.int64)
    seeds = rng.integers(1, 2**32, size=(300, draws.SEED_WORDS))
    seedless = _scores(game, dice, always_reroll)
    assert (seedless == _scores(game, np.concatenate([dice, zeros], axis=1), always_reroll)).all()
    assert (seedless != _scores(game, np.concatenate([dice, seeds], axis=1), always_reroll)).any()
    game31 = ThirtyOne(ThirtyOneConfig(players=3, lives=2))
    greedy = game31.builtin_players()["greedy"]()
    decks = np.argsort(rng.random((200, 104)).reshape(200, 2, 52), axis=2).reshape(200, 104)
    seedless = _scores(game31, decks, greedy)
    assert (seedless == _scores(game31, np.concatenate([decks, zeros[:200]], axis=1), greedy)).all()
    assert (seedless != _scores(game31, np.concatenate([decks, seeds[:200]], axis=1), greedy)).any()


@pytest.mark.parametrize(
    "game, deals, says",
    [
        (Dice421(), np.ones((2, 5), dtype=np.int64), "3 numbers per unit"),
        (Dice421(), np.full((2, 3), 7), "dice must be 1 to 6"),
        (Dice421(), np.zeros((2, 3), dtype=np.int64), "dice must be 1 to 6"),
        (ThirtyOne(), np.zeros((2, 4), dtype=np.int64), "at least 1 units"),
        (ThirtyOne(), np.tile(np.arange(53), (2, 1)), "52 numbers per unit"),
        (ThirtyOne(), np.zeros((2, 52), dtype=np.int64), "order of the 52 cards"),
        (Dice421(), np.ones((3, 3), dtype=np.int64), "one row per game (2)"),
        (Dice421(), np.ones((2, 3)), "must be integers"),
    ],
)
def test_impossible_scripts_are_one_clear_error(game, deals, says):
    player = TablePolicy(np.zeros(game.n_states, dtype=np.int64)) if game.n_seats == 1 else None
    seats = [player] if player else [game.builtin_players()["random"]()] * game.n_seats
    with pytest.raises(FsmarenaError, match=re.escape(says)):
        play_games(game, seats, 2, np.random.default_rng(0), deals=deals)


# ---- 421: re-throws are thrown when they happen ------------------------------------------------


def _thrown(p: np.ndarray, deal: np.ndarray, rethrows: int) -> list[list[int]]:
    """Play ``deal`` re-throwing all three dice every time: the dice of every throw (sorted)."""
    s = np.zeros(k421.state_size(p), dtype=np.int64)
    k421.reset(p, s, deal)
    thrown = [s[k421.D0 : k421.D2 + 1].tolist()]
    for _ in range(rethrows):
        k421.step(p, s, 7)
        thrown.append(s[k421.D0 : k421.D2 + 1].tolist())
    k421.step(p, s, 0)
    assert k421.to_move(p, s) < 0
    return thrown


@pytest.mark.parametrize("scripted", [0, 2])
def test_421_throws_the_dice_round_rolls_lists(scripted):
    config = Dice421Config(rethrows=4)
    p = k421.make_params(config, deal_throws=scripted)
    rng = np.random.default_rng(scripted)
    for _ in range(30):
        deal = rng.integers(0, 2**32, size=k421.deal_size(p))
        deal[: 3 * scripted] = rng.integers(1, 7, size=3 * scripted)
        listed = np.zeros((5, 3), dtype=np.int64)
        k421.round_rolls(p, deal, listed)
        assert listed[:scripted].ravel().tolist() == deal[: 3 * scripted].tolist()
        assert _thrown(p, deal, 4) == [sorted(roll, reverse=True) for roll in listed.tolist()]


def test_421_a_game_that_stops_at_once_draws_no_more_dice():
    """Keeping the first throw leaves the game's stream where the first throw left it; one
    re-throw moves it."""
    p = k421.make_params(Dice421Config(rethrows=2))
    deal = np.array([11, 22, 33, 44], dtype=np.int64)
    for actions, moved in (([0], False), ([5, 0], True)):
        s = np.zeros(k421.state_size(p), dtype=np.int64)
        k421.reset(p, s, deal)
        first = s[k421.STREAM : k421.STREAM + draws.STREAM_WORDS].tolist()
        for action in actions:
            k421.step(p, s, action)
        assert (s[k421.STREAM : k421.STREAM + draws.STREAM_WORDS].tolist() != first) == moved


def test_421_games_play_the_same_in_any_batch_order_path_and_generator():
    game = Dice421(Dice421Config(rethrows=3))
    rng = np.random.default_rng(2)
    table = rng.integers(0, game.n_actions, game.n_states)
    table[rng.random(game.n_states) < 0.2] = 0
    seats = [TablePolicy(table)]
    n = 500
    deals = Driver(game).deals(n, np.random.default_rng(3))
    whole = play_games(game, seats, n, np.random.default_rng(1), deals=deals)
    backwards = play_games(game, seats, n, np.random.default_rng(2), deals=deals[::-1])
    python = play_games(game, seats, n, np.random.default_rng(3), deals=deals, compiled=False)
    pieces = [
        play_games(game, seats, len(deals[i : i + 70]), np.random.default_rng(i), deals=deals[i : i + 70], chunk=9)
        for i in range(0, n, 70)
    ]
    assert np.array_equal(backwards.scores[::-1], whole.scores)
    assert np.array_equal(python.scores, whole.scores)
    assert np.array_equal(np.concatenate([o.scores for o in pieces]), whole.scores)
    p = k421.make_params(game.config)
    assert sum(_rethrows_played(p, table, deal) for deal in deals) > n  # dice drawn during play matter


def _rethrows_played(p: np.ndarray, table: np.ndarray, deal: np.ndarray) -> int:
    """How many times the table policy re-throws in the game of ``deal``."""
    s = np.zeros(k421.state_size(p), dtype=np.int64)
    k421.reset(p, s, deal)
    mask = np.zeros(k421.N_ACTIONS, dtype=np.bool_)
    played = 0
    while k421.to_move(p, s) >= 0:
        k421.legal(p, s, 0, mask)
        action = table[k421.observe_index(p, s, 0)]
        action = action if mask[action] else 0
        played += action != 0
        k421.step(p, s, action)
    return played


def test_421_state_and_deal_do_not_grow_with_the_rethrows():
    for rethrows in (0, 2, 5):
        p = k421.make_params(Dice421Config(rethrows=rethrows))
        assert (k421.state_size(p), k421.deal_size(p)) == (k421.THROWS, draws.SEED_WORDS)
    p = k421.make_params(Dice421Config(rethrows=2), deal_throws=3)
    assert (k421.state_size(p), k421.deal_size(p)) == (k421.THROWS + 6, 9 + draws.SEED_WORDS)
