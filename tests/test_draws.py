"""The kernels' deal draws (:mod:`fsmarena.games.draws`) are uniform: chi-square tests over many draws
that a biased shuffle or die (a missing rejection, a range off by one, digits that depend
on each other) fails, and the kernels' ``draw_deal`` built on them.

Each test fixes its seed and asks for a p-value above 1e-4, so a correct draw fails with
probability 1e-4 per test at most (never, for these seeds), while the biases above give
p-values far below it."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chisquare

from fsmarena.games import draws
from fsmarena.games.dice421 import kernel as k421
from fsmarena.games.dice421.game import Dice421, Dice421Config
from fsmarena.games.dtd import kernel as kdtd
from fsmarena.games.dtd.game import DivideTheDollar, DTDConfig
from fsmarena.games.goofspiel import kernel as kgoof
from fsmarena.games.goofspiel.game import Goofspiel, GoofspielConfig
from fsmarena.games.kernel import params_of, seed
from fsmarena.games.vautour import kernel as kvautour
from fsmarena.games.vautour.game import StupideVautour, VautourConfig
from fsmarena.jit import njit

P_MIN = 1e-4


def _shuffles(n: int, times: int, start: int = 0) -> np.ndarray:
    deals = np.zeros((times, n), dtype=np.int64)
    for row in deals:
        row[:] = np.arange(start, start + n)
        draws.shuffle(row, n)
    return deals


def test_every_permutation_of_a_small_deck_is_equally_likely():
    """All 120 orders of 5 cards (one word draws the whole shuffle): the joint distribution,
    which also catches positions that depend on each other."""
    seed(1)
    deals = _shuffles(5, 36_000)
    orders = {order: number for number, order in enumerate(itertools.permutations(range(5)))}
    counts = np.bincount([orders[tuple(row)] for row in deals.tolist()], minlength=120)
    assert chisquare(counts).pvalue > P_MIN


@pytest.mark.parametrize("n", [2, 3, 9, 40])
def test_each_card_lands_on_each_position_equally_often(n):
    """Card by card, its position over many shuffles (decks needing one word, and several:
    40 cards take pairs and triples of positions per word)."""
    seed(n)
    times = 400 * n
    deals = _shuffles(n, times)
    for card in range(n):
        positions = np.flatnonzero(deals.reshape(-1) == card) % n
        assert chisquare(np.bincount(positions, minlength=n)).pvalue > P_MIN, card


def test_a_shuffle_keeps_the_cards_and_the_tail():
    """A permutation of ``deal[:n]``; entries after ``n`` untouched."""
    seed(3)
    for n in range(8):
        row = np.arange(10, dtype=np.int64)
        draws.shuffle(row, n)
        assert sorted(row[:n]) == list(range(n)) and row[n:].tolist() == list(range(n, 10))


def test_dice_and_pairs_of_dice_are_uniform():
    """Nine dice per row (seven from one word, two from the next): each die's faces, and
    the 36 pairs of neighbours inside a word and across two words."""
    seed(4)
    rows = np.zeros((12_000, 9), dtype=np.int64)
    for row in rows:
        draws.fill_uniform(row, 0, 9, 1, 7)
    assert rows.min() == 1 and rows.max() == 6
    for position in range(9):
        assert chisquare(np.bincount(rows[:, position], minlength=7)[1:]).pvalue > P_MIN, position
    for first in (0, 3, 6, 7):
        pairs = (rows[:, first] - 1) * 6 + rows[:, first + 1] - 1
        assert chisquare(np.bincount(pairs, minlength=36)).pvalue > P_MIN, first


def test_fill_uniform_with_one_value_and_ranges_away_from_zero():
    seed(5)
    out = np.full(6, -1, dtype=np.int64)
    draws.fill_uniform(out, 1, 4, 9, 10)
    assert out.tolist() == [-1, 9, 9, 9, 9, -1]
    out = np.zeros(3000, dtype=np.int64)
    draws.fill_uniform(out, 0, 3000, -2, 3)
    assert chisquare(np.bincount(out + 2, minlength=5)).pvalue > P_MIN


def test_rejection_makes_a_large_range_uniform():
    """With a range of ``3 * 2**29`` a quarter of the words must be drawn again: without the
    rejection, ``(x * bound) >> 32`` would fall on multiples of 3 with probability 3/8,
    not 1/3."""
    seed(6)
    bound = 3 * 2**29
    values = np.array([(draws.accepted_word(bound) * bound) >> 32 for _ in range(30_000)])
    assert values.max() < bound
    assert chisquare(np.bincount(values % 3, minlength=3)).pvalue > P_MIN


def _deal_counts(kernel, game, times: int) -> np.ndarray:
    """How often each deal value sits at each position: ``counts[position, value]``."""
    p = params_of(game)
    deals = np.zeros((times, kernel.deal_size(p)), dtype=np.int64)
    seed(7)
    for row in deals:
        kernel.draw_deal(p, row)
    values = deals.max() + 1
    return np.stack([np.bincount(column, minlength=values) for column in deals.T])


def test_dtd_deck_orders_are_uniform():
    """Two cards of each of three types: each position holds each type a third of the time."""
    counts = _deal_counts(kdtd, DivideTheDollar(DTDConfig(counts=(2, 2, 2), hand_size=2)), 9000)
    assert (counts.sum(axis=1) == 9000).all()
    for position in counts:
        assert chisquare(position).pvalue > P_MIN


@pytest.mark.parametrize(
    "kernel, game",
    [
        (kvautour, StupideVautour(VautourConfig(cards=5, prizes=(-2, -1, 1, 2, 3)))),
        (kgoof, Goofspiel(GoofspielConfig(cards=5))),
    ],
    ids=["vautour", "goofspiel"],
)
def test_prize_orders_are_uniform(kernel, game):
    counts = _deal_counts(kernel, game, 10_000)
    for position in counts:
        observed = position[position > 0]
        assert len(observed) == 5 and chisquare(observed).pvalue > P_MIN


def test_421_throws_are_uniform_dice():
    """Every die of every throw a game may make, all from the game's stream
    (:func:`fsmarena.games.dice421.kernel.round_rolls`), and pairs of consecutive throws (a stream
    seeded with two random words and two derived from them by xor gave correlated first
    throws)."""
    game = Dice421(Dice421Config())
    p = params_of(game)
    deals = np.zeros((24_000, k421.deal_size(p)), dtype=np.int64)
    seed(7)
    for row in deals:
        k421.draw_deal(p, row)
    rolls = np.zeros((24_000, game.config.rethrows + 1, 3), dtype=np.int64)
    for deal, out in zip(deals, rolls):
        k421.round_rolls(p, deal, out)
    for position in rolls.reshape(24_000, -1).T:
        assert chisquare(np.bincount(position, minlength=7)[1:]).pvalue > P_MIN and position.min() >= 1
    for throw in range(game.config.rethrows):  # a die and the same die of the next throw
        pairs = (rolls[:, throw, 0] - 1) * 6 + rolls[:, throw + 1, 0] - 1
        assert chisquare(np.bincount(pairs, minlength=36)).pvalue > P_MIN, throw


@njit(cache=False)
def _floats_both_ways(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` floats of :func:`draws.uniform_float`, and ``n`` of ``np.random.random()`` from the same seed."""
    ours, numbas = np.zeros(n), np.zeros(n)
    np.random.seed(11)
    for i in range(n):
        ours[i] = draws.uniform_float()
    np.random.seed(11)
    for i in range(n):
        numbas[i] = np.random.random()
    return ours, numbas


def test_a_uniform_float_is_exactly_the_compiled_random_float():
    """The kernels draw their floats with :func:`draws.uniform_float` (cheaper than numba's
    ``random()``): it must be the same float from the same two words, so that no stream and no
    result changed with it; and numpy's legacy generator gives the same floats."""
    ours, numbas = _floats_both_ways(10_000)
    assert np.array_equal(ours, numbas)
    assert np.array_equal(ours, np.random.RandomState(11).random_sample(10_000))
    assert 0.0 <= ours.min() and ours.max() < 1.0


@pytest.mark.slow
def test_uncompiled_draws_are_the_same():
    """``NUMBA_DISABLE_JIT=1`` draws the same words (numpy's legacy generator is numba's), so
    the same deals: compiled and plain Python runs print the same shuffles and dice."""
    script = (
        "import numpy as np\n"
        "from fsmarena.games import draws\n"
        "from fsmarena.games.kernel import seed\n"
        "seed(9)\n"
        "deck = np.arange(60)\n"
        "draws.shuffle(deck, 60)\n"
        "dice = np.zeros(9, dtype=np.int64)\n"
        "draws.fill_uniform(dice, 0, 9, 1, 7)\n"
        "print(deck.tolist(), dice.tolist(), draws.uniform_float())\n"
    )
    root = Path(__file__).parent.parent
    outputs = []
    for disable in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable}
        done = subprocess.run([sys.executable, "-c", script], env=env, cwd=root, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
