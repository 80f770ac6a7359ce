"""Evolution on a one-player game (421) with the ``score`` protocol, and exact values of
table FSMs.

Oracles: a plain-Python recursion in exact fractions over (throws left, dice, machine state)
for FSMs of several states and input encoders; the integer-arithmetic value of action tables
(a one-state FSM over ``index`` is exactly a table policy, also game by game in the engine);
sampled means of the engine against the exact values; seed equality for any ``--jobs``;
evolution that clearly improves the exact value of its champion.
"""

from __future__ import annotations

import csv
from fractions import Fraction

import numpy as np
import pytest

from fsmarena.cli import main
from fsmarena.errors import FsmarenaError
from fsmarena.evo.genome import genome_spec
from fsmarena.evo.inputs import input_encoder
from fsmarena.evo.run import EvolveConfig, evolve
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.games import get_game
from fsmarena.games.arena import play_games
from fsmarena.games.dice421.exact import N_TRIPLES, exact_value
from fsmarena.games.dice421.game import Dice421
from fsmarena.games.match import play_match
from fsmarena.games.players import TablePolicy, load_player
from fsmarena.games.stats import mean_interval

GAME = get_game("421")
OPTIMUM = float(GAME.exact_optimum()[0])


def fraction_value(game: Dice421, next_state: np.ndarray, action: np.ndarray, inputs: str) -> Fraction:
    """The exact value of one FSM by plain recursion over every outcome (test oracle)."""
    t = game.tables
    encoder, triples = input_encoder(game, inputs), np.arange(N_TRIPLES, dtype=np.int64)
    codes = np.stack([encoder.encode(game._observe(triples, left)) for left in range(game.config.rethrows + 1)])
    memo: dict[tuple[int, int, int], Fraction] = {}

    def value(left: int, k: int, q: int) -> Fraction:
        key = (left, k, q)
        if key not in memo:
            x = int(codes[left, k])
            a = int(action[q, x])
            if left == 0 or a == 0:
                memo[key] = Fraction(int(t.score[k]))
            else:
                q2 = int(next_state[q, x])
                memo[key] = sum(
                    (Fraction(int(c), 216) * value(left - 1, j, q2) for j, c in enumerate(t.counts[k, a]) if c),
                    Fraction(0),
                )
        return memo[key]

    R = game.config.rethrows
    return sum((Fraction(int(c), 216) * value(R, k, 0) for k, c in enumerate(t.start_counts) if c), Fraction(0))


@pytest.mark.parametrize(
    "states, inputs, params",
    [
        (1, "index", {}),
        (3, "triple", {}),
        (2, "throws_left", {}),
        (4, "index+triple", {"rethrows": "3"}),
        (3, "triple", {"scores": "sum"}),
    ],
)
def test_fsm_exact_values_match_a_plain_recursion_in_fractions(states, inputs, params):
    game = get_game("421", params)
    spec = genome_spec(game, "fsm", states, inputs)
    genomes = spec.random(np.random.default_rng(states), 4)
    player = spec.player(genomes)
    values = game.exact_player_values(player)
    assert values.shape == (4,)
    for m in range(4):
        oracle = fraction_value(game, player.next_state[m], player.action[m], inputs)
        assert values[m] == pytest.approx(float(oracle), abs=1e-12)


def test_a_one_state_fsm_over_index_is_exactly_the_table_policy():
    rng = np.random.default_rng(3)
    tables = rng.integers(0, 8, size=(5, GAME.n_states))
    tables[0] = GAME.exact_optimum()[1]
    fsm = TableFSM(np.zeros((5, 1, GAME.n_states), dtype=np.int64), tables[:, None, :])
    values = GAME.exact_player_values(fsm)
    assert values[0] == pytest.approx(OPTIMUM, abs=1e-12)
    for m in range(5):
        assert values[m] == pytest.approx(float(exact_value(GAME, tables[m])), abs=1e-12)
    # the same dice give the same games, game by game
    one = TableFSM(np.zeros((1, GAME.n_states), dtype=np.int64), tables[2][None, :])
    a = play_games(GAME, [one], 3000, np.random.default_rng(9), check_legal=True)
    b = play_games(GAME, [TablePolicy(tables[2])], 3000, np.random.default_rng(9), check_legal=True)
    np.testing.assert_array_equal(a.scores, b.scores)


def test_engine_means_of_machines_with_memory_agree_with_their_exact_values():
    spec = genome_spec(GAME, "fsm", 3, "triple")
    player = spec.player(spec.random(np.random.default_rng(5), 1))
    exact = GAME.exact_player_values(player)[0]
    stats = play_match(GAME, player, None, 200_000, 17)
    low, high = mean_interval(stats.score, stats.score_sq, stats.games)
    assert low <= exact <= high
    assert high - low < 0.05  # the interval is tight enough to mean something


def test_players_without_an_exact_value_are_refused_clearly():
    spec = genome_spec(GAME, "bda")
    with pytest.raises(FsmarenaError, match="no exact evaluation"):
        GAME.exact_player_values(spec.player(spec.random(np.random.default_rng(0), 1)))
    with pytest.raises(FsmarenaError, match="inputs"):
        GAME.exact_player_values(TableFSM(np.zeros((1, 5), dtype=np.int64), np.zeros((1, 5), dtype=np.int64)))


# ---- evolution ------------------------------------------------------------------------------


def table_run(**changes) -> EvolveConfig:
    settings = dict(
        genome="fsm",
        protocol="score",
        states=1,
        inputs="index",
        population=20,
        generations=12,
        games_per_pair=30,
        curve_every=3,
        chunk=200,
        checkpoint_every=4,
    )
    settings.update(changes)
    if settings["exact_fitness"] if "exact_fitness" in settings else False:
        del settings["games_per_pair"]  # exact fitness simulates no game: the option is refused
    if settings["genome"] == "bda":
        del settings["inputs"]  # an FSM setting, refused with BDAs
    return EvolveConfig(**settings)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sampled_score_evolution_improves_the_exact_value_of_its_champion(seed):
    result = evolve(
        GAME, table_run(generations=60, games_per_pair=50, tournament=5, mutation_rate=0.02, curve_every=20), seed=seed
    )
    curve = result.score_curve()
    assert result.games == 60 * 20 * 50
    assert [g for g, _ in curve] == [1000, 21000, 41000, 60000]
    first, last = curve[0][1], curve[-1][1]
    # the curve is the champion's exact value (not a sample)
    champion = result.spec.player(result.genomes[int(np.argmax(result.fitness))][None])
    assert last == pytest.approx(GAME.exact_player_values(champion)[0], abs=1e-12)
    assert last > first + 0.2  # random tables score about 1.9; the optimum is 3.96
    # fitness is the mean score of the games played: the exact value up to sampling noise
    exact = GAME.exact_player_values(result.spec.player(result.genomes))
    assert abs(result.fitness.mean() - exact.mean()) < 4 * 3.9 / np.sqrt(20 * 50)


def test_exact_fitness_evolution_approaches_the_optimum_without_simulating():
    result = evolve(
        GAME,
        table_run(generations=120, population=36, tournament=5, mutations=1, exact_fitness=True, curve_every=20),
        seed=2,
    )
    assert result.games == 0
    best = result.best
    value = GAME.exact_player_values(best)[0]
    assert value == pytest.approx(result.best_fitness, abs=1e-12)
    curve = result.score_curve()
    assert curve[0][1] < 0.6 * OPTIMUM < 0.88 * OPTIMUM <= curve[-1][1] <= value
    # with a fixed yardstick the hall of fame keeps the best ever seen
    assert max(result.logbook.select("max")) == pytest.approx(result.best_fitness)


def test_score_evolution_gives_the_same_result_for_any_jobs_and_after_resume(tmp_path):
    config = table_run()
    one = evolve(GAME, config, seed=8, jobs=1)
    two = evolve(GAME, config, seed=8, jobs=2)
    assert np.array_equal(one.genomes, two.genomes) and one.fitness.tolist() == two.fitness.tolist()

    class Stop(Exception):
        pass

    def interrupt(record):
        if record["gen"] == 5:
            raise Stop

    with pytest.raises(Stop):
        evolve(GAME, config, seed=8, out=tmp_path, callback=interrupt)
    resumed = evolve(GAME, config, seed=8, out=tmp_path, resume=True)
    assert np.array_equal(resumed.genomes, one.genomes) and resumed.fitness.tolist() == one.fitness.tolist()
    assert resumed.score_curve() == one.score_curve()


def test_protocols_and_games_must_fit(tmp_path):
    with pytest.raises(FsmarenaError, match="1-player games"):
        evolve(get_game("dtd"), table_run(), seed=0)
    with pytest.raises(FsmarenaError, match="2-player games.*use: score"):
        evolve(GAME, EvolveConfig(genome="fsm", protocol="round-robin", generations=1), seed=0)
    with pytest.raises(FsmarenaError, match="only used by the score protocol"):
        EvolveConfig(genome="fsm", protocol="round-robin", exact_fitness=True).resolved()

    class Sampled(Dice421):
        exact_player_values = None

    with pytest.raises(FsmarenaError, match="no exact evaluation of players"):
        evolve(Sampled(), table_run(exact_fitness=True), seed=0)
    with pytest.raises(FsmarenaError, match="no exact evaluation"):
        evolve(GAME, table_run(genome="bda", states=2, exact_fitness=True), seed=0)
    # without the exact hook, the curve is the champion's sampled mean score
    sampled = evolve(Sampled(), table_run(generations=2, curve_every=1, curve_games=500), seed=0)
    assert [g for g, _ in sampled.score_curve()] == [600, 1200]


def test_machines_without_exact_values_are_measured_by_sampling():
    """BDAs on 421: sampled fitness, and a champion curve measured by play (no exact value)."""
    result = evolve(GAME, table_run(genome="bda", states=3, generations=2, curve_every=1, curve_games=4000), seed=1)
    curve = result.score_curve()
    assert [g for g, _ in curve] == [600, 1200]
    champion = result.spec.player(result.genomes[int(np.argmax(result.fitness))][None])
    stats = play_match(GAME, champion, None, 4000, np.random.SeedSequence(1, spawn_key=(2, 1)))
    assert curve[-1][1] == pytest.approx(stats.score / stats.games, abs=1e-12)


def test_cli_evolves_a_lookup_table_for_421(capsys, tmp_path):
    out = tmp_path / "run"
    code = main(
        [
            "evolve",
            "421",
            "--genome",
            "fsm",
            "--protocol",
            "score",
            "--inputs",
            "index",
            "--states",
            "1",
            "--generations",
            "6",
            "--population",
            "10",
            "--games-per-pair",
            "40",
            "--curve-every",
            "2",
            "--seed",
            "3",
            "--out",
            str(out),
            "--json",
            "--quiet",
        ]
    )
    assert code == 0
    import json

    summary = json.loads(capsys.readouterr().out)
    best = load_player(out / "best.json", GAME)
    assert isinstance(best, TableFSM) and best.n_states == 1
    with open(out / "logbook.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["champion_score"] != "" for r in rows] == [True, False, True, False, True, True]
    assert all(r["vs_random"] == "" for r in rows)
    assert float(rows[-1]["champion_score"]) == pytest.approx(summary["champion_score"])
    assert summary["games"] == 6 * 10 * 40
    code = main(["evolve", "421", "--genome", "fsm", "--protocol", "thesis", "--out", str(tmp_path / "x")])
    assert code == 2
    assert "use: score" in capsys.readouterr().err
