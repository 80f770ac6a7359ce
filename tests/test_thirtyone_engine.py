"""31: the batched engine against the independent plain-Python reference, and invariants.

* Same deck orders + the same deterministic players (greedy, greedy-knock, and a "hash"
  player that picks legal actions from the cards it sees, so it knocks, takes discards and
  throws every position) => the same rounds (kind, knocker, lives) and final lives, for 2-6
  players and the rule options.  The reference has its own scoring, canonical order and greedy.
* Hypothesis: at every decision the 52 cards are each in exactly one place (live hands,
  stock, discard pile, the card in the air), the pile's bit set matches the pile, lives are
  never negative, actions are legal; every game has exactly one winner, who has lives left.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsmarena.games.players import RandomPlayer
from fsmarena.games.thirtyone.game import BIT, DISCARD, TURN, ThirtyOne, ThirtyOneConfig
from fsmarena.games.thirtyone.players import GreedyPlayer
from fsmarena.games.thirtyone.reference import View, greedy, play_game


def hash_code(hand_sum, top, drawn, turn, seat):
    return (hand_sum * 31 + top * 7 + drawn * 3 + turn * 11 + seat) % 97


def reference_hash(view: View) -> int:
    h = hash_code(sum(view.hand), view.top, view.drawn, view.round_turn, view.seat)
    if view.phase == 0:
        return 2 if h < 4 and 2 in view.legal else h % 2
    return view.legal[h % len(view.legal)]


def engine_hash(seat, obs):
    h = hash_code(obs.hand.sum(axis=1), obs.top, obs.drawn, obs.round_turn, seat)
    if obs.phase == TURN:
        return np.where((h < 4) & obs.mask[:, 2], 2, h % 2)
    pick = h % obs.mask.sum(axis=1)
    return np.argmax(np.cumsum(obs.mask, axis=1) > pick[:, None], axis=1)


KINDS = ("hash", "greedy", "knock")


@pytest.mark.parametrize(
    "players, options",
    [
        (2, {}),
        (2, {"three_of_a_kind": 30.5, "max_turns": 30}),
        (2, {"under_the_gun": False}),
        (3, {}),
        (4, {"three_of_a_kind": 30.5}),
        (5, {"max_turns": 40}),
        (6, {"lives": 2}),
    ],
)
def test_engine_matches_the_reference(players, options):
    config = ThirtyOneConfig(players=players, **options)
    game = ThirtyOne(config)
    n, rounds = 25, 40
    rng = np.random.default_rng(players * 100 + len(options))
    decks = rng.permuted(np.tile(np.arange(52), (n, rounds, 1)), axis=2)
    kinds = [KINDS[(s + len(options)) % 3] for s in range(players)]
    tok = config.three_of_a_kind
    greedy_player, knocker = GreedyPlayer(), GreedyPlayer(24)

    def decide(seat, obs, rows):
        if kinds[seat] == "hash":
            return engine_hash(seat, obs)
        return (greedy_player if kinds[seat] == "greedy" else knocker).act(obs, None, rows, rng)

    log: list = []
    outcome = game.play_engine(n, rng, decide, deck_order=decks, log=log)
    policies = [
        reference_hash
        if k == "hash"
        else (lambda v: greedy(v, tok))
        if k == "greedy"
        else (lambda v: greedy(v, tok, 24))
        for k in kinds
    ]
    kinds_seen = set()
    for g in range(n):
        records: list = []
        lives = play_game(config, policies, lambda r, g=g: list(decks[g, r]), records)
        engine_rounds = [
            (kind, knocker_seat, lives_after) for row, _, kind, knocker_seat, lives_after in log if row == g
        ]
        assert engine_rounds == [(r.kind, r.knocker, tuple(r.lives)) for r in records], f"game {g}"
        assert list(outcome.scores[g]) == lives
        kinds_seen.update(r.kind for r in records)
    assert {"knock", "blitz"} <= kinds_seen


def check_state(state, seat, phase, rows):
    """The invariants of every decision point, checked for all acting games at once."""
    t = GAME_TABLES[0]
    m = len(rows)
    counts = np.zeros((m, 52), dtype=np.int64)
    ar = np.arange(m)
    alive = state.alive[rows]
    for s in range(state.S):
        live = (alive >> s) & 1 == 1
        hand = t.cards[state.hand[s, rows]]
        for p in range(3):
            np.add.at(counts, (ar[live], hand[live, p]), 1)
    position = np.arange(52)
    in_stock = position[None, :] >= state.ptr[rows][:, None]
    in_pile = position[None, :] < state.plen[rows][:, None]
    for j in range(52):
        np.add.at(counts, (ar[in_stock[:, j]], state.stock[rows[in_stock[:, j]], j].astype(np.int64)), 1)
        np.add.at(counts, (ar[in_pile[:, j]], state.pile[rows[in_pile[:, j]], j].astype(np.int64)), 1)
    drawn = state.drawn[rows]
    assert np.all((drawn >= 0) == (phase == DISCARD))
    np.add.at(counts, (ar[drawn >= 0], drawn[drawn >= 0]), 1)
    assert np.all(counts == 1), "52 cards, each in exactly one place"
    pile_bits = np.zeros(m, dtype=np.uint64)
    for j in range(52):
        pile_bits |= np.where(in_pile[:, j], BIT[state.pile[rows, j].astype(np.int64)], np.uint64(0))
    assert np.array_equal(pile_bits, state.pile_bits[rows])
    assert np.all(state.lives[rows] >= 0) and np.all((alive >> seat) & 1 == 1)
    assert np.all(state.mover[rows] == seat) and np.all(state.in_round[rows])


GAME_TABLES: list = []


@settings(max_examples=25)
@given(
    players=st.integers(2, 6),
    seed=st.integers(0, 2**32 - 1),
    lives=st.integers(1, 3),
    tok=st.sampled_from([None, 30.5]),
    max_turns=st.sampled_from([12, 40, 100]),
    gun=st.booleans(),
    mix=st.lists(st.integers(0, 3), min_size=6, max_size=6),
)
def test_invariants_at_every_decision(players, seed, lives, tok, max_turns, gun, mix):
    config = ThirtyOneConfig(players=players, lives=lives, three_of_a_kind=tok, max_turns=max_turns, under_the_gun=gun)
    game = ThirtyOne(config)
    GAME_TABLES[:] = [game.tables]
    pool = [RandomPlayer(), GreedyPlayer(), GreedyPlayer(22), GreedyPlayer(29)]
    seats = [pool[k] for k in mix[:players]]
    rng = np.random.default_rng(seed)

    def decide(seat, obs, rows):
        actions = np.asarray(seats[seat].act(obs, None, rows, rng))
        assert obs.mask[np.arange(obs.n), actions].all(), "illegal action"
        index = obs.index
        assert np.all((index >= 0) & (index < game.n_states))
        if obs.phase == TURN:
            assert np.all(index < game.n_turn_states)
        else:
            assert np.all(index >= game.n_turn_states)
        features = obs.features
        assert features.shape == (obs.n, len(game.feature_names))
        assert np.all((features >= 0) & (features <= 1))
        for name, size in game.encodings.items():
            value = np.asarray(getattr(obs, name))
            assert np.all((value >= 0) & (value < size)), name
        return actions

    n = 12
    outcome = game.play_engine(n, rng, decide, watch=check_state)
    assert np.all((outcome.rewards == 1).sum(axis=1) == 1), "exactly one winner"
    assert np.all((outcome.rewards == -1).sum(axis=1) == players - 1)
    winner_lives = outcome.scores[outcome.rewards == 1]
    assert np.all(winner_lives > 0) and np.all(outcome.scores[outcome.rewards == -1] == 0)


def test_same_seed_same_games():
    game = ThirtyOne(ThirtyOneConfig(players=3))
    seats = [GreedyPlayer(), RandomPlayer(), GreedyPlayer(27)]
    from fsmarena.games.arena import play_games

    a = play_games(game, seats, 200, np.random.default_rng(5))
    b = play_games(game, seats, 200, np.random.default_rng(5))
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.rewards, b.rewards)


def test_seats_are_symmetric_for_identical_players():
    """Greedy against greedy: seat 0 moves first in odd-numbered... every other round, so over
    many games neither seat may win significantly more (a check on turn order and rotation)."""
    from fsmarena.games.arena import play_games
    from fsmarena.games.stats import wilson_interval

    outcome = play_games(ThirtyOne(), [GreedyPlayer(), GreedyPlayer()], 6000, np.random.default_rng(11))
    low, high = wilson_interval(int((outcome.rewards[:, 0] == 1).sum()), 6000, z=3.3)
    assert low < 0.5 < high


def test_every_encoding_value_has_its_own_label():
    game = ThirtyOne()
    for name, size in game.encodings.items():
        labels = [game.encoding_label(name, v) for v in range(size)]
        assert len(set(labels)) == size and not any(label.startswith(f"{name}=") for label in labels), name
    assert game.encoding_label("greedy_turn", 1) == "greedy: pile"
    assert game.encoding_label("score_bucket", 7) == "score 30+"
