"""The compiled single-game kernels of 421 and 31 against independent implementations.

421's kernel is tied to its plain-Python reference (fsmarena/games/dice421/reference.py) game by game:
both get the same dice (the reference's scripted throws are the kernel's deal) and the same
table policy, and must show the same state at every decision (index, throws left, triple, and
the features the reference computes from its dice) and end with the same scores and rewards.
31's kernel is tied to its plain-Python reference (fsmarena/games/thirtyone/reference.py) the same way:
the reference plays the decks the kernel deals with the kernel's actions, and every decision
(seat, index, encodings, mask, features, the greedy builtins' answers, segment, potential), the
way each round ends and the final lives and rewards must be equal.  421 is also tied to its exact solver: an exact enumeration
over the dice driven by the kernel alone reproduces the optimum of ``fsmarena/games/dice421/exact.py``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_replay import replay

from fsmarena.games import kernel as contract
from fsmarena.games.dice421 import kernel as k421
from fsmarena.games.dice421.game import N_TRIPLES, Dice421, Dice421Config
from fsmarena.games.dice421.reference import play_one, state_numbers
from fsmarena.games.draws import SEED_WORDS

#: builtin arguments: none, and greedy-knock's default threshold
NO_ARGS, KNOCK_AT_30 = np.zeros(0), np.array([30.0])
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---- 421 --------------------------------------------------------------------------------------


def _reference_decisions_421(game: Dice421, rolls: np.ndarray, table: np.ndarray):
    """The plain-Python reference (fsmarena/games/dice421/reference.py) playing the scripted dice with a
    table policy: per decision (index, features, throws_left, triple) by the reference's own
    state numbering (:mod:`reference_replay`), and the final score."""
    actions = []
    R, variant = game.config.rethrows, game.config.scores
    numbers = state_numbers(R)

    class Table:
        def __getitem__(self, state):
            actions.append(int(table[state]))
            return actions[-1]

    dice, score = play_one(R, rolls.tolist(), Table(), numbers, variant)
    if len(actions) == R and all(actions):  # no re-throw left: only keep_all is legal
        actions.append(0)
    again = replay(game, _deal_421(*rolls), {0: actions})
    assert again.scores == [float(score)]
    seen = [(v.index, v.features, v.index // N_TRIPLES, v.index % N_TRIPLES) for v in again.views[0]]
    return seen, again.scores, again.rewards


def _kernel_decisions_421(p: np.ndarray, deal: np.ndarray, table: np.ndarray):
    """The same game in the kernel: observations per decision, then scores and rewards."""
    s = np.zeros(k421.state_size(p), dtype=np.int64)
    k421.reset(p, s, deal)
    feats = np.zeros(k421.n_features(p))
    mask = np.zeros(k421.n_actions(p), dtype=np.bool_)
    seen = []
    while k421.to_move(p, s) >= 0:
        assert k421.to_move(p, s) == 0
        index = k421.observe_index(p, s, 0)
        k421.features(p, s, 0, feats)
        seen.append((index, feats.tolist(), k421.encoding(p, s, 0, 0), k421.encoding(p, s, 0, 1)))
        k421.legal(p, s, 0, mask)
        action = table[index] if mask[table[index]] else 0
        assert mask[action]
        k421.step(p, s, action)
    out_scores, out_rewards = np.zeros(1), np.zeros(1)
    k421.scores(p, s, out_scores)
    k421.rewards(p, s, out_rewards)
    return seen, out_scores, out_rewards


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), rethrows=st.integers(0, 4), scores=st.sampled_from(["seed", "sum"]))
def test_421_kernel_plays_the_reference_game_by_game(seed, rethrows, scores):
    game = Dice421(Dice421Config(rethrows=rethrows, scores=scores))
    p = k421.make_params(game.config, deal_throws=rethrows + 1)  # every throw scripted
    rng = np.random.default_rng(seed)
    n = 40
    rolls = rng.integers(1, 7, size=(n, rethrows + 1, 3))
    table = rng.integers(0, 8, size=game.n_states)
    table[rng.random(game.n_states) < 0.3] = 0  # some games stop early
    for i in range(n):
        seen, scores_, rewards = _reference_decisions_421(game, rolls[i], table)
        k_seen, k_scores, k_rewards = _kernel_decisions_421(p, _deal_421(*rolls[i]), table)
        assert len(k_seen) == len(seen)
        for (index, k_feats, left, triple), (r_index, feats, r_left, r_triple) in zip(k_seen, seen):
            assert (index, left, triple) == (r_index, r_left, r_triple)
            assert np.allclose(k_feats, feats, rtol=0, atol=1e-12)
        assert k_scores.tolist() == scores_
        assert k_rewards.tolist() == rewards


def test_421_kernel_sizes_match_the_game():
    for rethrows in (0, 2, 5):
        game = Dice421(Dice421Config(rethrows=rethrows))
        p = k421.make_params(game.config)
        assert k421.n_states(p) == game.n_states
        assert k421.n_actions(p) == game.n_actions
        assert k421.n_features(p) == len(game.feature_names)
        assert k421.n_seats(p) == game.n_seats
        sizes = [k421.encoding_size(p, w) for w in range(k421.n_encodings(p))]
        assert sizes == list(game.encodings.values())
        assert set(k421.BUILTINS) <= set(game.builtin_players())
    assert contract.kernel_of(Dice421()) is k421


def _deal_421(*throws) -> np.ndarray:
    """A scripted deal: the dice of these throws, then the stream's seed (unused: every throw
    of the game is scripted)."""
    return np.array([*np.ravel(throws), *[0] * SEED_WORDS], dtype=np.int64)


def _transition_421(p1: np.ndarray, dice: tuple[int, int, int], action: int, roll: tuple[int, int, int]) -> int:
    """The triple the kernel reaches from ``dice`` after re-throwing with ``roll`` (R = 1)."""
    s = np.zeros(k421.state_size(p1), dtype=np.int64)
    k421.reset(p1, s, _deal_421(dice, roll))
    k421.step(p1, s, action)
    return k421.encoding(p1, s, 0, 1)


@pytest.mark.parametrize("scores", ["seed", "sum"])
def test_421_kernel_exact_enumeration_equals_the_solver(scores):
    """Backward induction whose every transition, score and start state comes from the
    kernel (all 216 ordered rolls per re-throw) gives exactly the solver's optimum."""
    game = Dice421(Dice421Config(rethrows=2, scores=scores))
    p1 = k421.make_params(Dice421Config(rethrows=1, scores=scores), deal_throws=2)
    rolls = list(itertools.product(range(1, 7), repeat=3))
    dice_of = [None] * N_TRIPLES
    for roll in rolls:
        s = np.zeros(k421.state_size(p1), dtype=np.int64)
        k421.reset(p1, s, _deal_421(roll, roll))
        dice_of[k421.encoding(p1, s, 0, 1)] = tuple(int(d) for d in sorted(roll, reverse=True))
    stop_score = []
    for dice in dice_of:
        s = np.zeros(k421.state_size(p1), dtype=np.int64)
        k421.reset(p1, s, _deal_421(dice, dice))
        k421.step(p1, s, 0)
        out = np.zeros(1)
        k421.scores(p1, s, out)
        stop_score.append(Fraction(int(out[0])))
    moves = [[[_transition_421(p1, dice, a, roll) for roll in rolls] for a in range(8)] for dice in dice_of]
    value = stop_score
    for _ in range(game.config.rethrows):
        value = [
            max([stop_score[k]] + [sum(value[j] for j in moves[k][a]) / 216 for a in range(1, 8)])
            for k in range(N_TRIPLES)
        ]
    start = sum(value[_transition_421(p1, (1, 1, 1), 7, roll)] for roll in rolls) / 216
    assert start == game.exact_optimum()[0]


def test_421_optimal_builtin_over_every_deal_scores_the_exact_optimum():
    """With one re-throw, the kernel's ``optimal`` builtin played on all 216**2 deals averages
    exactly the solver's optimal value."""
    game = Dice421(Dice421Config(rethrows=1))
    p = k421.make_params(game.config, deal_throws=2)
    code = k421.BUILTINS.index("optimal")
    s = np.zeros(k421.state_size(p), dtype=np.int64)
    mask = np.zeros(8, dtype=np.bool_)
    out = np.zeros(1)
    total = 0
    for deal in itertools.product(range(1, 7), repeat=6):
        k421.reset(p, s, _deal_421(deal))
        while k421.to_move(p, s) == 0:
            action = k421.builtin_action(p, s, 0, code, NO_ARGS)
            k421.legal(p, s, 0, mask)
            assert mask[action]
            k421.step(p, s, action)
        k421.scores(p, s, out)
        total += int(out[0])
    assert Fraction(total, 216**2) == game.exact_optimum()[0]


def test_421_random_deals_and_builtins_are_legal_and_reproducible():
    p = k421.make_params(Dice421Config(rethrows=3))
    deals = []
    for _ in range(2):
        contract.seed(7)
        deal = np.zeros(k421.deal_size(p), dtype=np.int64)
        played = []
        for _game in range(200):
            k421.draw_deal(p, deal)
            s = np.zeros(k421.state_size(p), dtype=np.int64)
            k421.reset(p, s, deal)
            assert 1 <= s[k421.D2] <= s[k421.D1] <= s[k421.D0] <= 6
            mask = np.zeros(8, dtype=np.bool_)
            while k421.to_move(p, s) == 0:
                k421.legal(p, s, 0, mask)
                action = k421.builtin_action(p, s, 0, k421.BUILTINS.index("random"), NO_ARGS)
                assert mask[action]
                played.append(action)
                k421.step(p, s, action)
            played.append(deal.tolist())
        deals.append(played)
    assert deals[0] == deals[1]
    assert any(a == 7 for a in deals[0] if isinstance(a, int))


# ---- 31 ---------------------------------------------------------------------------------------

from fsmarena.games.thirtyone import kernel as k31  # noqa: E402
from fsmarena.games.thirtyone.game import DISCARD, END_KINDS, ThirtyOne, ThirtyOneConfig  # noqa: E402
from fsmarena.games.thirtyone.potential import LivesPotential  # noqa: E402

MAX_DECISIONS = 20_000


def _policy_31(u: float, v: float, mask: np.ndarray, phase: int, greedy_turn: int) -> int:
    """A deterministic mixed policy from two uniform numbers: greedy half the time, otherwise a
    uniformly random legal action, a knock kept only one time in four (longer rounds)."""
    if u < 0.5:
        return 3 if phase == DISCARD else greedy_turn
    legal_actions = np.flatnonzero(mask)
    action = int(legal_actions[int(v * len(legal_actions))])
    return 0 if action == 2 and u > 0.625 else action


def _kernel_decisions_31(
    p: np.ndarray, deal: np.ndarray, noise: np.ndarray, table: np.ndarray, events: set | None = None
):
    """The same game in the kernel: every decision, the scores and rewards, and the rounds'
    ends as the state shows them.  A call that ends rounds (the reset, when dealt 31s end
    rounds before any turn, or a step) gives ``(first, knocker, last, kind, lives)``: the first
    round it ended and that round's knocker (read before the step), the last round it ended
    (a step ends more than one only when the next rounds are dealt 31s), how that one ended
    and the lives after it.  ``events`` collects how rounds ended and pile turnovers."""
    s = np.zeros(k31.state_size(p), dtype=np.int64)
    ends: list[tuple] = []

    def record_ends(first: int, knocker: int) -> None:
        if s[k31.ROUNDS] > first:
            lives = s[k31.LIVES : k31.LIVES + k31.n_seats(p)].tolist()
            ends.append((first, knocker, int(s[k31.ROUNDS]) - 1, int(s[k31.END_KIND]), lives))
            if events is not None:
                events.add(int(s[k31.END_KIND]))

    k31.reset(p, s, deal)
    record_ends(0, -1)
    feats = np.zeros(k31.n_features(p))
    mask = np.zeros(k31.n_actions(p), dtype=np.bool_)
    seen = []
    while (seat := k31.to_move(p, s)) >= 0:
        k31.features(p, s, seat, feats)
        k31.legal(p, s, seat, mask)
        codes = [k31.encoding(p, s, seat, w) for w in range(k31.n_encodings(p))]
        u, v = noise[len(seen)]
        action = _policy_31(u, v, mask, codes[0], codes[6])
        assert mask[action]
        seen.append(
            (
                seat,
                k31.observe_index(p, s, seat),
                codes,
                mask.tolist(),
                feats.tolist(),
                k31.builtin_action(p, s, seat, k31.GREEDY, NO_ARGS),
                k31.builtin_action(p, s, seat, k31.GREEDY_KNOCK, KNOCK_AT_30),
                action,
                k31.segment(p, s, seat),
                k31.potential(p, s, seat, table),
            )
        )
        rounds, ptr = int(s[k31.ROUNDS]), int(s[k31.PTR])
        knocker = seat if codes[0] == k31.TURN and action == k31.KNOCK else int(s[k31.KNOCKER])
        k31.step(p, s, action)
        if events is not None and s[k31.ROUNDS] == rounds and s[k31.PTR] < ptr:
            events.add("turnover")
        record_ends(rounds, knocker)
    out_scores, out_rewards = np.zeros(k31.n_seats(p)), np.zeros(k31.n_seats(p))
    k31.scores(p, s, out_scores)
    k31.rewards(p, s, out_rewards)
    return seen, out_scores, out_rewards, ends


def _reference_decisions_31(game: ThirtyOne, deal: np.ndarray, k_seen: list):
    """The reference replaying ``deal`` (the decks the kernel deals from it) with the kernel's
    actions: every decision as :func:`_kernel_decisions_31` logs it, and the replay."""
    actions: dict[int, list[int]] = {}
    for decision in k_seen:
        actions.setdefault(decision[0], []).append(decision[7])
    again = replay(game, deal, actions)
    assert again.order is not None
    count = dict.fromkeys(again.views, 0)
    seen = []
    for seat in again.order:
        view = again.views[seat][count[seat]]
        count[seat] += 1
        mask = [a in view.legal for a in range(game.n_actions)]
        codes = [view.codes[name] for name in game.encodings]
        builtins = view.builtins["greedy"], view.builtins["greedy-knock"]
        action = actions[seat][count[seat] - 1]
        seen.append(
            (
                seat,
                view.index,
                codes,
                mask,
                view.features,
                *builtins,
                action,
                view.parts["segment"],
                view.parts["potential"],
            )
        )
    return seen, again


def _compare_31(config: ThirtyOneConfig, deals: np.ndarray, noise: np.ndarray) -> set:
    """Kernel and reference on the same decks (the reference gets every deck the kernel deals
    from ``deals``) and the kernel's actions (from the policy noise): identical decision by
    decision, exactly, and at the end; the ways the rounds ended are the reference's."""
    game = ThirtyOne(config)
    p = k31.make_params(config)
    table = k31.potential_table(config)
    events: set = set()
    for i in range(len(deals)):
        k_seen, k_scores, k_rewards, ends = _kernel_decisions_31(p, deals[i], noise[i], table, events)
        seen, again = _reference_decisions_31(game, deals[i], k_seen)
        assert len(k_seen) == len(seen)
        for k, (mine, theirs) in enumerate(zip(k_seen, seen)):
            assert mine == theirs, f"game {i}, decision {k}"
        assert k_scores.tolist() == again.scores
        assert k_rewards.tolist() == again.rewards
        _same_rounds_31(ends, again.rounds, i)
    return events


#: the kernel's codes of the ways a round ends, by the reference's names
END_CODES_31 = {"deal31": k31.DEAL31, "blitz": k31.BLITZ, "gun": k31.GUN, "knock": k31.KNOCKED, "cap": k31.CAP}


def _same_rounds_31(ends: list[tuple], records: list, where: int) -> None:
    """The rounds' ends the kernel's state showed (:func:`_kernel_decisions_31`) are the
    reference's rounds (:class:`~fsmarena.games.thirtyone.reference.RoundRecord`): every round
    once, in order; who knocked, how it ended and the lives after it wherever the state shows
    them; rounds ended with an earlier one in the same step are dealt 31s."""
    assert all(END_KINDS[code] == name for name, code in END_CODES_31.items())
    covered = [r for first, _, last, _, _ in ends for r in range(first, last + 1)]
    assert covered == list(range(len(records))), (where, covered, len(records))
    for first, knocker, last, kind, lives in ends:
        assert records[first].knocker == knocker, (where, first)
        assert END_CODES_31[records[last].kind] == kind, (where, last, records[last].kind, kind)
        assert records[last].lives == lives, (where, last)
        assert all(records[r].kind == "deal31" for r in range(first + 1, last + 1)), (where, first, last)


def _deals(rng: np.random.Generator, n: int, config: ThirtyOneConfig) -> np.ndarray:
    """``n`` kernel deals: a random first deck and random stream seed words each."""
    size = k31.deal_size(k31.make_params(config))
    deals = rng.integers(0, 2**32, size=(n, size))
    deals[:, :52] = np.argsort(rng.random((n, 52)), axis=1)
    return deals


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 6),
    lives=st.integers(1, 5),
    tok=st.sampled_from([None, 30.5, 20.0]),
    gun=st.booleans(),
    max_turns=st.sampled_from([2, 9, 100]),
    max_rounds=st.sampled_from([1, 4, 32]),
)
def test_31_kernel_plays_the_reference_game_by_game(seed, players, lives, tok, gun, max_turns, max_rounds):
    config = ThirtyOneConfig(
        players=players, lives=lives, three_of_a_kind=tok, under_the_gun=gun, max_turns=max_turns, max_rounds=max_rounds
    )
    rng = np.random.default_rng(seed)
    n = 6
    _compare_31(config, _deals(rng, n, config), rng.random((n, MAX_DECISIONS, 2)))


def test_31_comparison_reaches_every_way_a_round_ends():
    """A fixed set of games that meets every rule: dealt 31, 31 in play, under the gun, knocks,
    the turn cap and the stock turned over - all played identically by kernel and reference."""
    events: set = set()
    rng = np.random.default_rng(2026)
    for config in (ThirtyOneConfig(), ThirtyOneConfig(players=4, lives=2, max_turns=30)):
        n = 12
        deals = _deals(rng, n, config)
        ace_king_queen = [12, 11, 10]  # spades: a dealt 31 for the first player of game 0
        deals[0, :52] = ace_king_queen + [c for c in deals[0, :52] if c not in ace_king_queen]
        noise = rng.random((n, MAX_DECISIONS, 2))
        noise[1, 0::2] = 0.9, 0.0  # game 1 always draws from the stock (turn decisions) and
        noise[1, 1::2] = 0.9, 0.99  # throws the drawn card back: its stock runs out in a round
        events |= _compare_31(config, deals, noise)
    assert events == {k31.DEAL31, k31.BLITZ, k31.GUN, k31.KNOCKED, k31.CAP, "turnover"}


def test_31_kernel_sizes_match_the_game():
    for players, lives in ((2, 3), (6, 5), (3, 1)):
        game = ThirtyOne(ThirtyOneConfig(players=players, lives=lives))
        p = k31.make_params(game.config)
        assert k31.n_states(p) == game.n_states
        assert k31.n_actions(p) == game.n_actions
        assert k31.n_features(p) == len(game.feature_names)
        assert k31.n_seats(p) == game.n_seats
        sizes = [k31.encoding_size(p, w) for w in range(k31.n_encodings(p))]
        assert sizes == list(game.encodings.values())
        assert set(k31.BUILTINS) <= set(game.builtin_players())
    assert contract.kernel_of(ThirtyOne()) is k31


@pytest.mark.parametrize("players", [2, 4])
def test_31_random_builtin_plays_legal_reproducible_games(players):
    p = k31.make_params(ThirtyOneConfig(players=players))
    runs = []
    for _ in range(2):
        contract.seed(11)
        record = []
        deal = np.zeros(k31.deal_size(p), dtype=np.int64)
        mask = np.zeros(8, dtype=np.bool_)
        for _game in range(20):
            k31.draw_deal(p, deal)
            assert sorted(deal[:52].tolist()) == list(range(52))
            s = np.zeros(k31.state_size(p), dtype=np.int64)
            k31.reset(p, s, deal)
            while (seat := k31.to_move(p, s)) >= 0:
                k31.legal(p, s, seat, mask)
                action = k31.builtin_action(p, s, seat, k31.RANDOM, NO_ARGS)
                assert mask[action]
                record.append(action)
                k31.step(p, s, action)
            out = np.zeros(players)
            k31.rewards(p, s, out)
            assert sorted(out.tolist())[-1] >= 0 and out.sum() <= 1
        runs.append(record)
    assert runs[0] == runs[1]


def test_31_kernel_potential_is_the_agents_lives_potential():
    rng = np.random.default_rng(3)
    for players, lives in ((2, 3), (3, 2), (5, 4)):
        config = ThirtyOneConfig(players=players, lives=lives)
        p = k31.make_params(config)
        table = k31.potential_table(config)
        reference = LivesPotential.of(ThirtyOne(config))
        s = np.zeros(k31.state_size(p), dtype=np.int64)
        for _ in range(20):
            own = rng.integers(0, lives + 1, size=players)
            s[k31.LIVES : k31.LIVES + players] = own
            for seat in range(players):
                assert k31.potential(p, s, seat, table) == pytest.approx(reference.exact_value(own[None, :], seat)[0])


@pytest.mark.slow
def test_uncompiled_kernels_play_the_same_games():
    """``NUMBA_DISABLE_JIT=1`` (plain Python, for debugging) plays the same games: the rule
    tests above, rerun uncompiled in a child process: one process (the default options' ``-n
    auto`` would start two more workers for five tests), measured by coverage when the parent is
    (CI: the kernels' lines run in Python only here)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    tests = [
        "test_31_comparison_reaches_every_way_a_round_ends",
        "test_421_kernel_exact_enumeration_equals_the_solver",
        "test_31_random_builtin_plays_legal_reproducible_games",
    ]
    selected = " or ".join(tests)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider", __file__, "-k", selected],
        env=env,
        cwd=Path(__file__).parent.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "5 passed" in done.stdout


@pytest.mark.parametrize("tok", [None, 20.0, 30.5])
def test_31_expected_draw_is_the_brute_force_best_three_of_four(tok):
    """The kernel's sum over unseen cards of the score after a stock draw (greedy's yardstick)
    equals the reference scoring of the best three of the four cards, card by card; hands
    with pairs are dealt on purpose so three of a kind counts."""
    from itertools import combinations

    from fsmarena.games.thirtyone.reference import double_score

    config = ThirtyOneConfig(three_of_a_kind=tok)
    p = k31.make_params(config)
    rng = np.random.default_rng(4)
    for trial in range(40):
        deck = rng.permutation(52)
        if trial % 2:  # seat 0 holds a pair: its first two cards share a rank
            rank = int(deck[0] % 13)
            mate = next(c for c in deck[1:] if c % 13 == rank)
            deck = np.r_[deck[0], mate, [c for c in deck[1:] if c != mate]]
        s = np.zeros(k31.state_size(p), dtype=np.int64)
        k31.reset(p, s, np.r_[deck, np.zeros(k31.deal_size(p) - 52, dtype=np.int64)])
        hand = [int(c) for c in s[k31.HANDS : k31.HANDS + 3]]
        unseen = k31._unseen(p, s, 0)
        cards = [x for x in range(52) if (unseen >> x) & 1]
        expected = sum(max(double_score(list(three), tok) for three in combinations(hand + [x], 3)) for x in cards)
        assert k31._expected_sum(p, s, 0) == (expected, len(cards))
