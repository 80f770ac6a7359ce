"""What the fast 31 kernel keeps or computes in place of the engine's tables, held to plain
reference implementations on states of played games (the kernel-vs-engine comparisons in
``test_kernels_dice421_thirtyone.py`` and ``contract/test_driver.py`` hold whole games):

* the numbers kept beside every hand (its key, its kept pairs' suit sums, best sums, totals
  and shared ranks) score every swap as the reference scoring of the three cards does;
* the expected stock draw, summed per suit from a threshold rank, is the brute-force best
  three of four over the unseen cards, in every phase and with three of a kind on or off;
* the deal's decks are the batched Fisher-Yates of :mod:`fsmarena.games.draws`, written out plainly
  over numpy's words from the same seed, and the random builtin picks what a pick over the
  mask picks;
* the bit and table helpers agree with their plain definitions.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from fsmarena.games import kernel as contract
from fsmarena.games.thirtyone import kernel as k31
from fsmarena.games.thirtyone.game import ThirtyOneConfig
from fsmarena.games.thirtyone.reference import card_value, double_score
from fsmarena.jit import njit

#: builtin arguments: none, and greedy-knock's default threshold
NO_ARGS, KNOCK_AT_30 = np.zeros(0), np.array([30.0])
CONFIGS = [
    ThirtyOneConfig(),
    ThirtyOneConfig(players=4, lives=2, three_of_a_kind=30.5, max_turns=30),
    ThirtyOneConfig(players=3, lives=2, three_of_a_kind=20.0, max_turns=12),
]


def _reference_key(cards, tok) -> int:
    """Greedy's key of a hand, from the reference scoring: score, then total value."""
    return double_score(cards, tok) * 64 + sum(card_value(c) for c in cards)


def _played_states(config: ThirtyOneConfig, games: int, seed: int):
    """Every decision state of ``games`` games with mixed builtins (random, greedy,
    greedy-knock), copied."""
    p = k31.make_params(config)
    contract.seed(seed)
    deal = np.zeros(k31.deal_size(p), dtype=np.int64)
    s = np.zeros(k31.state_size(p), dtype=np.int64)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        k31.draw_deal(p, deal)
        k31.reset(p, s, deal)
        while (seat := k31.to_move(p, s)) >= 0:
            yield p, s.copy(), seat
            k31.step(p, s, k31.builtin_action(p, s, seat, int(rng.integers(0, 3)), KNOCK_AT_30))


def _hand(s: np.ndarray, seat: int) -> list[int]:
    return [int(c) for c in s[k31.HANDS + 3 * seat : k31.HANDS + 3 * seat + 3]]


@pytest.mark.parametrize("config", CONFIGS, ids=["default", "tok30.5", "tok20"])
def test_kept_hand_numbers_score_every_swap_as_the_reference(config):
    tok = config.three_of_a_kind
    checked = 0
    for p, s, _ in _played_states(config, 6, 1):
        alive = int(s[k31.ALIVE])
        for seat in range(config.players):
            if not (alive >> seat) & 1:
                continue
            hand = _hand(s, seat)
            assert k31._hand_key(s, seat) == _reference_key(hand, tok)
            for x in range(52):
                if x in hand:
                    continue
                for q in range(3):
                    kept = [hand[(q + 1) % 3], hand[(q + 2) % 3], x]
                    assert k31._swap_key(p, s, seat, q, x) == _reference_key(kept, tok)
            checked += 1
    assert checked > 200


@pytest.mark.parametrize("config", CONFIGS, ids=["default", "tok30.5", "tok20"])
def test_expected_draw_is_the_brute_force_best_three_of_four_along_games(config):
    tok = config.three_of_a_kind
    phases = set()
    for n, (p, s, seat) in enumerate(_played_states(config, 4, 2)):
        if n % 3:
            continue
        hand = _hand(s, seat)
        unseen = k31._unseen(p, s, seat)
        cards = [x for x in range(52) if (unseen >> x) & 1]
        expected = sum(max(double_score(list(three), tok) for three in combinations(hand + [x], 3)) for x in cards)
        assert k31._expected_sum(p, s, seat) == (expected, len(cards))
        phases.add(int(s[k31.PHASE]))
    assert phases == {0, 1}


@njit
def _numba_seed_and_deal(p, deal, value):
    np.random.seed(value)
    k31.draw_deal(p, deal)


def _plain_batched_fisher_yates(word, n: int) -> list[int]:
    """The shuffle of :mod:`fsmarena.games.draws` as its module doc states it, in plain Python: position
    ``i`` (last first) swaps with the next mixed-radix digit of an accepted 32-bit word, as
    many positions per word as keep the product of their ranges within 2**20."""
    deck = list(range(n))
    i = n - 1
    while i > 0:
        ranges = [i + 1]
        while len(ranges) < i and np.prod(ranges) * (i + 1 - len(ranges)) <= 1 << 20:
            ranges.append(i + 1 - len(ranges))
        bound = int(np.prod(ranges))
        while True:
            x = word()
            if (x * bound) % 2**32 >= 2**32 % bound:
                break
        for r in ranges:
            j, x = divmod(x * r, 2**32)
            deck[i], deck[j] = deck[j], deck[i]
            i -= 1
    return deck


@pytest.mark.parametrize("seed", [0, 7, 2026])
def test_the_deal_is_batched_fisher_yates_decks_then_the_stream_seed(seed):
    """numba's and numpy's legacy generators are the same Mersenne Twister: the kernel's deal
    (three decks scripted here) equals the documented shuffle written out over numpy's words
    from the same seed, deck by deck, then four more words, the seed of the game's stream."""
    p = k31.make_params(ThirtyOneConfig(max_rounds=5), deal_rounds=3)
    deal = np.zeros(k31.deal_size(p), dtype=np.int64)
    _numba_seed_and_deal(p, deal, seed)
    np.random.seed(seed)

    def word() -> int:
        return int(np.random.randint(0, 2**32))

    reference = [card for _ in range(3) for card in _plain_batched_fisher_yates(word, 52)]
    assert deal.tolist() == reference + [word() for _ in range(4)]


@njit
def _random_picks(p, states, seats, how, value):
    """The random builtin on every state (``how`` 0), or a uniform pick over the legal mask
    as the engine's random player picks (``how`` 1), from the same seed."""
    np.random.seed(value)
    out = np.zeros(len(seats), dtype=np.int64)
    mask = np.zeros(k31.N_ACTIONS, dtype=np.bool_)
    for i in range(len(seats)):
        if how == 0:
            out[i] = k31.builtin_action(p, states[i], seats[i], k31.RANDOM, NO_ARGS)
            continue
        k31.legal(p, states[i], seats[i], mask)
        pick = np.random.randint(0, mask.sum())
        for a in range(k31.N_ACTIONS):
            if mask[a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1
    return out


def test_the_random_builtin_picks_what_a_pick_over_the_mask_picks():
    config = CONFIGS[1]
    played = list(_played_states(config, 3, 3))
    states = np.stack([s for _, s, _ in played])
    seats = np.array([seat for _, _, seat in played], dtype=np.int64)
    p = played[0][0]
    builtin = _random_picks(p, states, seats, 0, 5)
    assert builtin.tolist() == _random_picks(p, states, seats, 1, 5).tolist()
    assert len(set(builtin.tolist())) == k31.N_ACTIONS


def test_bit_and_table_helpers_are_their_plain_definitions():
    rng = np.random.default_rng(9)
    for bits in rng.integers(0, 1 << 52, size=300).tolist() + [0, (1 << 52) - 1]:
        assert k31.popcount(bits) == bin(bits).count("1")  # fsmarena.games.bits, as 31 reads it
        for suit in range(4):
            ranks = k31._suit_ranks(bits, suit)
            assert k31._rank_value_sum(ranks) == sum(card_value(13 * suit + r) for r in range(13) if (ranks >> r) & 1)
    for card in range(52):
        assert k31.value(card) == card_value(card)
    for score in range(63):
        assert k31._score_bucket(score) == sum(score >= e for e in (34, 40, 46, 52, 56, 58, 60))
    for gain2 in range(-70, 70):
        assert k31._gain_bucket(np.int64(gain2)) == sum(
            gain2 // 2 >= e for e in (1, 5, 10)
        )  # state values are numpy ints
    s = np.zeros(k31.state_size(k31.make_params(ThirtyOneConfig())), dtype=np.int64)
    s[k31.PILE : k31.PILE + 3] = [4, 9, 17]
    for size, top in ((3, 17), (1, 4), (0, -1)):
        s[k31.PLEN] = size
        assert k31._top(s) == top
