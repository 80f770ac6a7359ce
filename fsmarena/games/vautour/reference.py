"""A plain-Python, one-game-at-a-time Stupide Vautour: the oracle and the benchmark baseline.

Written independently of the kernel (hands as Python lists, every rule spelled out
step by step, no shared tables), it serves two purposes: tests check that the engine and this
loop give the same scores on the same prize orders with the same deterministic players, and
``fsmarena bench vautour`` reports the engine's speed as a ratio to it, measured in the same run.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Callable, Sequence

import numpy as np

from fsmarena.games.arena import play_games
from fsmarena.games.bench import BenchCase
from fsmarena.games.builtin_player import BuiltinPlayer
from fsmarena.games.players import TablePolicy
from fsmarena.games.vautour.game import StupideVautour

ABSTRACT = ("lowest", "median", "highest", "bid_rank", "rank_up", "rank_down")

#: chooser(seat, turn, prize, hand, deck) -> the card to bid; ``hand`` is the sorted list of
#: the seat's remaining cards and ``deck`` the full prize deck
Chooser = Callable[[int, int, int, list, Sequence[int]], int]


def play_one(prize_order: Sequence[int], players: int, tie_rule: str, choosers: Sequence[Chooser]) -> list[int]:
    """One game: the prizes come up in ``prize_order``; returns every player's total."""
    cards = len(prize_order)
    hands = [list(range(1, cards + 1)) for _ in range(players)]
    totals = [0] * players
    pot = 0  # prizes carried over by the cancel rule
    for turn, prize in enumerate(prize_order):
        at_stake = pot + prize if tie_rule == "cancel" else prize
        bids = []
        for seat in range(players):
            card = choosers[seat](seat, turn, prize, sorted(hands[seat]), prize_order)
            hands[seat].remove(card)  # ValueError if the card was already played
            bids.append(card)
        times = Counter(bids)
        unmatched = [(bid, seat) for seat, bid in enumerate(bids) if times[bid] == 1]
        if at_stake > 0 or (at_stake == 0 and prize > 0):
            best = max(unmatched) if unmatched else None  # the highest lone bid
        else:
            best = min(unmatched) if unmatched else None  # the lowest lone bid
        if best is not None:
            totals[best[1]] += at_stake
            pot = 0
        elif tie_rule == "cancel":
            pot = at_stake  # carried over, accumulates
        else:
            pot = 0  # the seed's rule: discarded
    return totals


def importance_rank(prize: int, deck: Sequence[int]) -> int:
    """1-based place of ``prize`` in the deck ordered by size, maluses first on equal size."""
    return sorted(deck, key=lambda v: (abs(v), v)).index(prize) + 1


def nearest(hand: list, target: int, prefer_up: bool = False) -> int:
    return min(hand, key=lambda c: (abs(c - target), -c if prefer_up else c))


def abstract_bid(name: str, hand: list, prize: int, deck: Sequence[int]) -> int:
    """The card an abstract action bids (the deterministic ones), from the rules in words."""
    rank = importance_rank(prize, deck)
    if name == "bid_rank":
        return nearest(hand, rank)
    if name == "rank_up":
        return nearest(hand, min(rank + 1, len(deck)), prefer_up=True)
    if name == "rank_down":
        return nearest(hand, max(rank - 1, 1))
    if name == "lowest":
        return hand[0]
    if name == "median":
        return hand[(len(hand) - 1) // 2]
    if name == "highest":
        return hand[-1]
    raise ValueError(name)


def state_number(prize: int, hand: list, deck: Sequence[int]) -> int:
    """The seed's no-memory state: prize position (deck by value) x non-empty hand subsets."""
    subsets = 2 ** len(deck) - 1
    bits = sum(1 << (card - 1) for card in hand)
    return sorted(deck).index(prize) * subsets + bits - 1


def table_chooser(table: Sequence[int], deck: Sequence[int]) -> Chooser:
    """A chooser from a table of actions per state (abstract 0..5 or concrete 7..; not 6)."""
    subsets = 2 ** len(deck) - 1
    position = {prize: i * subsets for i, prize in enumerate(sorted(deck))}

    def choose(seat, turn, prize, hand, _deck):
        bits = 0
        for card in hand:
            bits |= 1 << (card - 1)
        action = table[position[prize] + bits - 1]
        if action < len(ABSTRACT):
            return abstract_bid(ABSTRACT[action], hand, prize, deck)
        card = action - len(ABSTRACT)
        return card if card in hand else nearest(hand, card)

    return choose


def plain_loop(config, n_games: int, tables: Sequence[Sequence[int]], seed: int) -> int:
    """The benchmark baseline: ``n_games`` games with table players; returns seat 0's wins."""
    rng = random.Random(seed)
    deck = list(config.prizes)
    choosers = [table_chooser(t, deck) for t in tables]
    wins = 0
    for _ in range(n_games):
        rng.shuffle(deck)
        totals = play_one(deck, config.players, config.tie_rule, choosers)
        wins += totals[0] > max(totals[1:])
    return wins


def builtin_loop(config, n_games: int, seed: int) -> int:
    """Baseline for the strategies case: prize-rank (seat 0) against uniformly random bids."""
    rng = random.Random(seed)
    deck = list(config.prizes)
    order = list(deck)

    rank = {prize: importance_rank(prize, deck) for prize in deck}

    def prize_rank(seat, turn, prize, hand, _deck):
        return nearest(hand, rank[prize])

    def uniform(seat, turn, prize, hand, _deck):
        return rng.choice(hand)

    choosers = [prize_rank] + [uniform] * (config.players - 1)
    wins = 0
    for _ in range(n_games):
        rng.shuffle(order)
        totals = play_one(order, config.players, config.tie_rule, choosers)
        wins += totals[0] > max(totals[1:])
    return wins


def random_legal_tables(game, count: int, seed: int) -> np.ndarray:
    """``count`` tables with one uniformly random legal concrete bid per state."""
    t = game.tables
    states = np.arange(game.n_states)
    hands = states % (t.H - 1) + 1
    rng = np.random.default_rng(seed)
    pick = (rng.random((count, len(states))) * t.popcount[hands]).astype(np.int64)
    return t.select[hands, pick].astype(np.int64) + len(ABSTRACT)  # action 6 + c bids card c


def bench_cases(game) -> list:
    cases = []
    for players, target in ((2, ">= 50,000 full 15-turn games/s on one core"), (3, "")):
        config = game.config.__class__(
            players=players,
            cards=game.config.cards,
            prizes=game.config.prizes,
            tie_rule=game.config.tie_rule,
            action_set="bids",
        )
        bench_game = StupideVautour(config)
        tables = random_legal_tables(bench_game, players, 12345)
        seats = [TablePolicy(table) for table in tables]

        def engine(n: int, seed: int, bench_game=bench_game, seats=seats) -> object:
            rng = np.random.default_rng(seed)
            chunk = 50_000
            for start in range(0, n, chunk):
                play_games(bench_game, seats, min(chunk, n - start), rng)
            return None

        def plain(n: int, seed: int, config=config, tables=tables) -> object:
            return plain_loop(config, n, tables.tolist(), seed)

        cases.append(
            BenchCase(
                f"{players} table players ({config.cards} cards, {config.tie_rule} rule)",
                engine,
                plain,
                engine_games=200_000,
                plain_games=4_000,
                target=target,
            )
        )

    config = game.config.__class__(
        players=2, cards=game.config.cards, prizes=game.config.prizes, tie_rule="cancel", action_set="abstract"
    )
    abstract_game = StupideVautour(config)
    strategies = [BuiltinPlayer("prize-rank"), BuiltinPlayer("random")]  # the seed's random: a random card

    def engine_builtins(n: int, seed: int) -> object:
        rng = np.random.default_rng(seed)
        for start in range(0, n, 50_000):
            play_games(abstract_game, strategies, min(50_000, n - start), rng)
        return None

    cases.append(
        BenchCase(
            "prize-rank vs random, abstract actions (cancel rule)",
            engine_builtins,
            lambda n, seed: builtin_loop(config, n, seed),
            engine_games=200_000,
            plain_games=2_000,
        )
    )
    return cases
