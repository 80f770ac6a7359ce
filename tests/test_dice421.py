"""421: rules, engine, known model and exact values, each checked against an independent oracle.

Oracles used here: a brute-force recursion over every ordered outcome of the re-thrown dice
(written below, sharing nothing with the engine or games.dice421.exact), the seed's own way of
building its score table, the closed-form optimum of the ``sum`` variant (each die alone),
the plain-Python reference loop on scripted throws, and sampling with confidence intervals.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.arena import play_games
from fsmarena.games.dice421.exact import exact_optimum, exact_state_values, exact_value, expected_scores
from fsmarena.games.dice421.game import Dice421, Dice421Config
from fsmarena.games.players import FixedActionPlayer, RandomPlayer, TablePolicy, load_player, save_player

# ---- independent oracles -------------------------------------------------------------------


def seed_score_table() -> dict[tuple[int, int, int], int]:
    """The score table built the way the seed's notebook builds it (specials, then 1 for the rest)."""
    dice = range(1, 7)
    scores = {(4, 2, 1): 11, (1, 1, 1): 7, (2, 2, 1): 0}
    scores.update({(d, 1, 1): d for d in dice if d > 1})
    scores.update({(d, d, d): d for d in dice if d > 1})
    scores.update({(d, d - 1, d - 2): 2 for d in dice if d > 2})
    specials = list(scores)
    scores.update(
        {(d, e, f): 1 for d in dice for e in dice if e <= d for f in dice if f <= e and (d, e, f) not in specials}
    )
    return scores


SEED_SCORES = seed_score_table()


def oracle_score(dice, variant: str) -> int:
    key = tuple(sorted(dice, reverse=True))
    return sum(key) if variant == "sum" else SEED_SCORES[key]


def oracle_index(dice, left: int) -> int:
    """Index of a state, from the documented numbering (throws-left major, lexicographic triples)."""
    triples = sorted(t for t in itertools.product(range(1, 7), repeat=3) if t[0] >= t[1] >= t[2])
    return left * 56 + triples.index(tuple(sorted(dice, reverse=True)))


def brute_force(rethrows: int, variant: str, policy=None) -> Fraction:
    """Expected final score by recursion over all ordered outcomes of the re-thrown dice.

    With ``policy`` None every subset of dice to re-throw is tried (the optimum); otherwise
    the policy's action (bit 4 = high die, 2 = middle, 1 = low) is followed.
    """

    @lru_cache(maxsize=None)
    def value(dice: tuple[int, int, int], left: int) -> Fraction:
        stop = Fraction(oracle_score(dice, variant))
        if left == 0:
            return stop
        if policy is None:
            choices = [c for size in (1, 2, 3) for c in itertools.combinations(range(3), size)]
        else:
            action = int(policy[oracle_index(dice, left)])
            if action == 0:
                return stop
            choices = [tuple(p for p, bit in enumerate((4, 2, 1)) if action & bit)]
        best = stop if policy is None else None
        for positions in choices:
            total = Fraction(0)
            for outcome in itertools.product(range(1, 7), repeat=len(positions)):
                new = list(dice)
                for p, v in zip(positions, outcome):
                    new[p] = v
                total += value(tuple(sorted(new, reverse=True)), left - 1)
            mean = total / 6 ** len(positions)
            best = mean if best is None else max(best, mean)
        return best

    total = sum(value(tuple(sorted(roll, reverse=True)), rethrows) for roll in itertools.product(range(1, 7), repeat=3))
    return total / 216


def game_of(rethrows: int = 2, scores: str = "seed") -> Dice421:
    return Dice421(Dice421Config(rethrows=rethrows, scores=scores))


# ---- rules and numbering -------------------------------------------------------------------


def test_score_table_matches_the_seed_construction():
    game = game_of()
    assert len(SEED_SCORES) == 56
    for k, dice in enumerate(game.tables.triples):
        assert game.tables.score[k] == SEED_SCORES[dice], dice


def test_state_numbering_and_labels():
    game = game_of(rethrows=3)
    assert game.n_states == 56 * 4 + 1
    for left in range(4):
        for dice in itertools.product(range(1, 7), repeat=3):
            index = oracle_index(dice, left)
            assert game.index_of(dice, left) == index
            assert game.decode(index) == (tuple(sorted(dice, reverse=True)), left)
    assert game.state_label(game.index_of((1, 2, 4), 2)) == "421, 2 throws left"
    assert game.state_label(game.n_states - 1) == "game over"


def test_unknown_variant_and_bad_rethrows_are_clear_errors():
    with pytest.raises(FsmarenaError, match=r"unknown score table 'french'.*known: seed, sum"):
        get_game("421", {"scores": "french"})
    with pytest.raises(FsmarenaError, match="rethrows"):
        get_game("421", {"rethrows": "-1"})
    with pytest.raises(FsmarenaError, match="rethrows"):
        get_game("421", {"rethrows": "two"})
    with pytest.raises(FsmarenaError, match="unknown parameter"):
        get_game("421", {"throws": "2"})


# ---- exact optimum and exact values ---------------------------------------------------------


@pytest.mark.parametrize("rethrows,variant", [(2, "seed"), (0, "seed"), (1, "seed"), (3, "seed"), (2, "sum")])
def test_optimum_matches_brute_force(rethrows, variant):
    value, policy = exact_optimum(game_of(rethrows, variant))
    assert isinstance(value, Fraction)
    assert value == brute_force(rethrows, variant)
    assert exact_value(game_of(rethrows, variant), policy) == value


def test_the_optimum_is_solved_once_per_rule_set_and_each_caller_gets_its_own_table():
    game = game_of(2, "seed")
    value, table = exact_optimum(game)
    table[:] = 7  # a caller changing its copy changes nobody else's
    again_value, again = exact_optimum(game_of(2, "seed"))
    assert again_value == value and again.flags.writeable and not np.all(again == 7)
    assert exact_value(game, again) == value
    other_value, other = exact_optimum(game_of(1, "seed"))  # other rules: their own optimum
    assert other_value == brute_force(1, "seed") != value and other.shape != again.shape


@pytest.mark.parametrize(
    "rethrows,expected", [(0, Fraction(21, 2)), (1, Fraction(51, 4)), (2, Fraction(14)), (3, Fraction(89, 6))]
)
def test_sum_variant_optimum_in_closed_form(rethrows, expected):
    # with the sum of the dice as score each die is re-thrown alone while below the value
    # of a fresh die with one throw fewer: v0 = 7/2, v(t+1) = E[max(die, v(t))]
    assert exact_optimum(game_of(rethrows, "sum"))[0] == expected


def test_exact_value_of_policies_matches_brute_force_and_the_linear_solve():
    from fsmarena.games.mdp import expected_return

    game = game_of()
    rng = np.random.default_rng(7)
    policies = [
        exact_optimum(game)[1],
        np.zeros(game.n_states, dtype=np.int64),
        np.full(game.n_states, 7),
        *rng.integers(0, 8, size=(3, game.n_states)),
    ]
    mdp = game.model()
    exact = [exact_value(game, p) for p in policies]
    for policy, value in zip(policies, exact):
        assert value == brute_force(2, "seed", policy)
        assert float(value) == pytest.approx(expected_return(mdp, _legal(game, policy)), abs=1e-12)
    batched = expected_scores(game, np.array(policies))
    np.testing.assert_allclose(batched, [float(v) for v in exact], atol=1e-12)
    optimum = exact_optimum(game)[0]
    assert all(v <= optimum for v in exact)
    assert exact[1] == Fraction(
        sum(SEED_SCORES[tuple(sorted(r, reverse=True))] for r in itertools.product(range(1, 7), repeat=3)), 216
    )


def _legal(game, policy):
    """The policy as the engine plays it: stop when no throw is left, any action at game over."""
    policy = np.array(policy)
    policy[:56] = 0
    policy[-1] = 0
    return policy


def test_optimal_state_values_satisfy_bellman_with_fractions():
    game = game_of()
    values = exact_state_values(game)
    counts = game.tables.counts
    for left in (1, 2):
        for k in range(56):
            stop = Fraction(int(game.tables.score[k]))
            moves = [
                sum(Fraction(int(c), 216) * values[(left - 1) * 56 + j] for j, c in enumerate(counts[k, a]))
                for a in range(1, 8)
            ]
            assert values[left * 56 + k] == max([stop] + moves)


def test_model_matches_the_engine_numbering():
    game = game_of()
    mdp = game.model()
    assert mdp.n_states == game.n_states and mdp.n_actions == game.n_actions
    assert mdp.terminal[-1] and not mdp.terminal[:-1].any()
    assert not mdp.legal[:56, 1:].any() and mdp.legal[56:-1].all()
    # from (6,6,2) with 1 throw left, re-throwing the low die gives 666 with probability 1/6
    s = game.index_of((6, 6, 2), 1)
    assert mdp.transitions[s, 1, game.index_of((6, 6, 6), 0)] == pytest.approx(1 / 6)
    assert mdp.rewards[s, 0] == 1 and mdp.transitions[s, 0, -1] == 1


def test_exact_value_rejects_bad_policies():
    game = game_of()
    with pytest.raises(FsmarenaError, match="169 entries"):
        exact_value(game, np.zeros(10, dtype=int))
    with pytest.raises(FsmarenaError, match="0..7"):
        exact_value(game, np.full(game.n_states, 8))
    with pytest.raises(FsmarenaError, match="shape"):
        expected_scores(game, np.zeros((2, 3), dtype=int))


# ---- the kernel against the plain-Python reference ----------------------------------------------


def table_decide(player, rng):
    return lambda seat, obs, rows: player.act(obs, None, rows, rng)


@pytest.mark.parametrize("rethrows,variant", [(2, "seed"), (3, "sum"), (0, "seed")])
def test_kernel_matches_reference_loop_on_scripted_throws(rethrows, variant):
    from fsmarena.games.dice421.reference import play_one, state_numbers

    game = game_of(rethrows, variant)
    rng = np.random.default_rng(3)
    n = 400
    rolls = rng.integers(1, 7, size=(n, rethrows + 1, 3))
    numbers = state_numbers(rethrows)
    for table in [exact_optimum(game)[1], *rng.integers(0, 8, size=(3, game.n_states))]:
        deals = rolls.reshape(n, -1)  # the kernel's deal: the throws, one row per game
        outcome = game.play(n, rng, table_decide(TablePolicy(table), rng), deals=deals)
        expected = [play_one(rethrows, rolls[i].tolist(), table.tolist(), numbers, variant)[1] for i in range(n)]
        np.testing.assert_array_equal(outcome.scores[:, 0], expected)
        np.testing.assert_array_equal(outcome.rewards, outcome.scores)


def test_same_seed_same_games():
    game = game_of()
    player = RandomPlayer()
    a = play_games(game, [player], 5000, np.random.default_rng(11))
    b = play_games(game, [player], 5000, np.random.default_rng(11))
    np.testing.assert_array_equal(a.scores, b.scores)


def test_masks_allow_only_stop_without_throws_left():
    game = game_of()
    outcome = play_games(game, [RandomPlayer()], 20_000, np.random.default_rng(5), check_legal=True)
    assert outcome.scores.shape == (20_000, 1)
    # a player answering 'reroll_all' everywhere still stops after the last throw
    outcome = play_games(game, [FixedActionPlayer(7, "reroll_all")], 20_000, np.random.default_rng(5), check_legal=True)
    assert set(np.unique(outcome.scores)) <= set(SEED_SCORES.values())


def test_sampled_values_of_table_policies_agree_with_exact_values():
    game = game_of()
    rng = np.random.default_rng(21)
    tables = rng.integers(0, 8, size=(3, game.n_states))
    for table in tables:
        outcome = play_games(game, [TablePolicy(table)], 200_000, rng)
        scores = outcome.scores[:, 0]
        error = scores.std(ddof=1) / np.sqrt(len(scores))
        assert abs(scores.mean() - float(exact_value(game, table))) < 4 * error


def test_optimal_policy_million_games_inside_ci():
    from fsmarena.games.match import play_match

    game = game_of()
    optimum = float(game.exact_optimum()[0])
    stats = play_match(game, game.optimal_player(), None, 1_000_000, seed=2024)
    low, high = stats.to_dict(one_player=True)["score_ci95"]
    assert stats.games == 1_000_000
    assert low <= optimum <= high
    assert high - low < 0.02  # the interval is tight enough to mean something


def test_features_and_encodings():
    game = game_of()
    seen = {}

    class Recorder(TablePolicy):
        def act(self, obs, memory, rows, rng):
            seen.setdefault(int(obs.throws_left[0]), (obs.features.copy(), obs.dice.copy(), obs.score.copy()))
            return super().act(obs, memory, rows, rng)

    play_games(game, [Recorder(np.full(game.n_states, 7))], 100, np.random.default_rng(0))
    assert sorted(seen) == [0, 1, 2]
    for left, (features, dice, score) in seen.items():
        assert features.shape == (len(dice), len(game.feature_names))
        assert ((features >= 0) & (features <= 1)).all()
        np.testing.assert_allclose(features[:, :3], (dice - 1) / 5)
        np.testing.assert_allclose(features[:, 3], left / 2)
        np.testing.assert_allclose(features[:, 4], score / 11)
        assert [oracle_score(d, "seed") for d in dice] == list(score)


# ---- players and files -----------------------------------------------------------------------


def test_policy_files_round_trip_and_refuse_another_game(tmp_path):
    game = game_of()
    table = exact_optimum(game)[1]
    path = tmp_path / "optimal.json"
    save_player(TablePolicy(table), game, path)
    loaded = load_player(path, game)
    assert exact_value(game, loaded) == exact_optimum(game)[0]
    dtd = get_game("dtd")
    with pytest.raises(FsmarenaError, match="for the game '421', not 'dtd'"):
        load_player(path, dtd)
    other = tmp_path / "dtd.json"
    save_player(TablePolicy(np.zeros(dtd.n_states, dtype=int)), dtd, other)
    with pytest.raises(FsmarenaError, match="for the game 'dtd', not '421'"):
        load_player(other, game)
    # a 421 file written for other rules (one re-throw) does not fit the default rules
    short = tmp_path / "short.json"
    save_player(TablePolicy(np.zeros(game_of(1).n_states, dtype=int)), game_of(1), short)
    with pytest.raises(FsmarenaError):
        load_player(short, game)


def test_builtin_players_and_bench_cases_run():
    from fsmarena.games.bench import cases_for, time_case

    game = game_of()
    assert {"random", "always-stop", "optimal"} <= set(game.builtin_players())
    outcome = play_games(game, [game.builtin_players()["always-stop"]()], 1000, np.random.default_rng(1))
    assert outcome.scores.shape == (1000, 1)
    cases = cases_for(game)
    assert cases
    for case in cases:
        result = time_case(case, scale=0.001)
        assert result["engine_units"] > 0 and result["ratio"] > 0
