"""Variation operators and breeding: crossover moves whole states between two cut points,
mutation changes exactly the entries it reports, offspring are always valid."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsmarena.evo.genome import genome_spec
from fsmarena.evo.operators import Individual, crossover_states, hall_of_fame, mutate_points, tournament
from fsmarena.evo.protocols import RoundRobinProtocol, ThesisProtocol
from fsmarena.evo.run import EvolveConfig
from fsmarena.games.dtd.game import DivideTheDollar

GAME = DivideTheDollar()

specs = st.one_of(
    st.builds(lambda s: genome_spec(GAME, "bda", states=s), st.integers(1, 10)),
    st.builds(
        lambda s, i: genome_spec(GAME, "fsm", states=s, inputs=i),
        st.integers(1, 6),
        st.sampled_from(["index", "opp_last", "index+opp_last"]),
    ),
)


@given(specs, st.integers(0, 2**32 - 1))
def test_crossover_exchanges_whole_states_between_two_cut_points(spec, seed):
    rng = np.random.default_rng(seed)
    a, b = spec.random(rng, 2)
    child_a, child_b = a.copy(), b.copy()
    c1, c2 = crossover_states(child_a, child_b, rng)
    n = spec.n_states
    if n == 1:
        assert (c1, c2) == (0, 0) and np.array_equal(child_a, a) and np.array_equal(child_b, b)
        return
    assert 1 <= c1 < c2 <= n
    for state in range(n):
        swapped = c1 <= state < c2
        assert np.array_equal(child_a[state], b[state] if swapped else a[state])
        assert np.array_equal(child_b[state], a[state] if swapped else b[state])
    spec.check(np.stack([child_a, child_b]))


def test_crossover_cut_points_cover_every_segment_deap_allows():
    rng = np.random.default_rng(0)
    a, b = np.zeros((4, 7), dtype=np.int64), np.ones((4, 7), dtype=np.int64)
    seen = {crossover_states(a.copy(), b.copy(), rng) for _ in range(400)}
    assert seen == {(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)}


@given(specs, st.integers(0, 2**32 - 1), st.integers(0, 12))
def test_mutation_changes_exactly_the_entries_it_reports(spec, seed, count):
    rng = np.random.default_rng(seed)
    genome = spec.random(rng, 1)[0]
    before = genome.copy()
    positions = mutate_points(genome, spec.high, rng, count=count)
    changed = set(np.flatnonzero(genome.reshape(-1) != before.reshape(-1)).tolist())
    mutable = spec.high.reshape(-1) > 1
    if not mutable.any():
        assert len(positions) == 0 and not changed
        return
    assert len(positions) == count
    assert all(mutable[p] for p in positions)  # never an entry with a single possible value
    once = {p for p in positions.tolist() if positions.tolist().count(p) == 1}
    assert once <= changed <= set(positions.tolist())
    spec.check(genome[None])


def test_thesis_mutation_redraws_one_of_seven_fields_of_a_state():
    spec = genome_spec(GAME, "bda")
    rng = np.random.default_rng(3)
    fields = set()
    for _ in range(300):
        genome = spec.random(rng, 1)[0]
        before = genome.copy()
        (position,) = mutate_points(genome, spec.high, rng, count=1)
        state, field = divmod(int(position), 7)
        assert np.array_equal(np.argwhere(genome != before), [[state, field]])
        fields.add(field)
    assert fields == set(range(7))


def test_mutation_rate_zero_and_one():
    spec = genome_spec(GAME, "fsm", states=3, inputs="opp_last")
    rng = np.random.default_rng(4)
    genome = spec.random(rng, 1)[0]
    before = genome.copy()
    assert len(mutate_points(genome, spec.high, rng, rate=0.0)) == 0 and np.array_equal(genome, before)
    mutate_points(genome, spec.high, rng, rate=1.0)
    assert np.all(genome != before)  # every entry has another value to take here


def test_tournament_winner_follows_the_order_statistic():
    # fitness = index: the winner of k draws with replacement among P has E[max] = sum_w 1 - ((w+1)/P)^k
    P, k, n = 10, 3, 40_000
    winners = tournament(np.arange(P, dtype=float), k, n, np.random.default_rng(5))
    expected = sum(1 - ((w + 1) / P) ** k for w in range(P))
    assert abs(winners.mean() - expected) < 0.03
    counts = np.bincount(winners, minlength=P) / n
    exact = np.array([((w + 1) / P) ** k - (w / P) ** k for w in range(P)])
    assert np.max(np.abs(counts - exact)) < 0.01


def thesis_protocol(**changes):
    config = EvolveConfig(genome="bda", protocol="thesis", **changes).resolved()
    spec = genome_spec(GAME, "bda")
    return ThesisProtocol(GAME, spec, config), spec


@given(st.integers(0, 2**32 - 1))
def test_thesis_breeding_replaces_the_two_worst_of_eleven_by_bred_copies_of_the_two_best(seed):
    protocol, spec = thesis_protocol()
    rng = np.random.default_rng(seed)
    genomes = spec.random(rng, 15)
    fitness = rng.permutation(15) / 15  # distinct
    chosen = np.random.default_rng(seed + 1).permutation(15)[:11]
    ranked = chosen[np.argsort(-fitness[chosen], kind="stable")]
    best, worst = ranked[:2], ranked[-2:]
    bred = protocol.breed(genomes, fitness, np.random.default_rng(seed + 1))
    spec.check(bred)
    untouched = np.setdiff1d(np.arange(15), worst)
    assert np.array_equal(bred[untouched], genomes[untouched])
    for slot in worst:
        # every state comes from one of the two parents, up to at most 9 mutated fields
        from_a = np.all(bred[slot] == genomes[best[0]], axis=1)
        from_b = np.all(bred[slot] == genomes[best[1]], axis=1)
        assert np.sum(~(from_a | from_b)) <= 9
        differing = np.minimum(
            np.sum(bred[slot] != genomes[best[0]], axis=1), np.sum(bred[slot] != genomes[best[1]], axis=1)
        ).sum()
        assert 0 < differing <= 9


def test_generational_breeding_keeps_the_elite_and_the_population_size():
    config = EvolveConfig(
        genome="fsm", protocol="round-robin", population=12, elite=3, states=2, inputs="opp_last"
    ).resolved()
    spec = genome_spec(GAME, "fsm", states=2, inputs="opp_last")
    protocol = RoundRobinProtocol(GAME, spec, config)
    rng = np.random.default_rng(8)
    genomes = spec.random(rng, 12)
    fitness = rng.random(12)
    bred = protocol.breed(genomes, fitness, rng)
    assert bred.shape == genomes.shape
    assert np.array_equal(bred[:3], genomes[np.argsort(-fitness)[:3]])
    spec.check(bred)


def test_individuals_pickle_and_the_hall_of_fame_knows_duplicates():
    genome = np.arange(14).reshape(2, 7) % 3
    individual = Individual(genome, 0.5)
    copy = pickle.loads(pickle.dumps(individual))
    assert np.array_equal(copy.genome, genome) and copy.fitness.values == (0.5,)
    fame = hall_of_fame(3)
    fame.update([individual, Individual(genome, 0.5), Individual(genome + 1, 0.25)])
    assert len(fame) == 2
    assert fame[0].fitness.values == (0.5,)


def test_config_errors_are_clear():
    from fsmarena.errors import FsmarenaError

    with pytest.raises(FsmarenaError, match="unknown protocol"):
        EvolveConfig(protocol="island").resolved()
    with pytest.raises(FsmarenaError, match="--tournament"):
        EvolveConfig(protocol="thesis", tournament=20).resolved()
    with pytest.raises(FsmarenaError, match="--elite"):
        EvolveConfig(protocol="round-robin", population=4, elite=4).resolved()
    with pytest.raises(FsmarenaError, match="--panel"):
        EvolveConfig(protocol="panel").resolved()
    with pytest.raises(FsmarenaError, match="not both"):
        EvolveConfig(protocol="round-robin", mutations=2, mutation_rate=0.1).resolved()
    with pytest.raises(FsmarenaError, match="--games-per-pair"):
        EvolveConfig(protocol="round-robin", games_per_pair=-3).resolved()


def test_products_of_options_each_within_its_limit_are_bounded_too():
    """Options multiply into a generation's games, its tasks and the genome entries held at once:
    each product is refused (naming its limit) when the configuration meets the game, and
    --mutations and --tournament are bounded whatever the protocol."""
    from fsmarena.errors import FsmarenaError
    from fsmarena.limits import MAX_GENERATION_GAMES, MAX_MUTATIONS

    game = DivideTheDollar()
    thesis = dict(genome="fsm", protocol="thesis", population=10, tournament=5)
    robin = dict(genome="fsm", protocol="round-robin", population=10)
    refused = [
        (dict(thesis, opponents=10**6, games_per_opponent=2), "MAX_GENERATION_GAMES"),
        (dict(thesis, games_per_opponent=MAX_GENERATION_GAMES // 250 + 1), "MAX_GENERATION_GAMES"),
        (dict(thesis, opponents=1000, states=1024), "MAX_GENOME_ENTRIES"),
        (dict(robin, population=1000, games_per_pair=11), "MAX_GENERATION_GAMES"),
        (dict(robin, population=5000, states=1024, games_per_pair=1), "MAX_GENERATION_GAMES"),
        (dict(robin, population=2000, states=1024, games_per_pair=1), "MAX_GENOME_ENTRIES"),
        (dict(robin, chunk=1, games_per_pair=2000), "MAX_GENERATION_TASKS"),
        (dict(robin, protocol="panel", panel=("random",) * 5, population=10_000, games_per_pair=101), "MAX_GENER"),
    ]
    for options, limit in refused:
        EvolveConfig(**options).resolved()  # each option alone is fine
        with pytest.raises(FsmarenaError, match=limit):
            EvolveConfig(**options).resolved(game)
    with pytest.raises(FsmarenaError, match="the limit is 10,000 \\(MAX_MUTATIONS\\)"):
        EvolveConfig(**thesis, mutations=MAX_MUTATIONS + 1).resolved()
    for protocol in ("round-robin", "panel", "score"):
        with pytest.raises(FsmarenaError, match=r"--tournament must be between 1 and the population \(10\)"):
            EvolveConfig(
                protocol=protocol, population=10, tournament=11, panel=("random",) * (protocol == "panel")
            ).resolved()
    EvolveConfig(**dict(robin, population=700, games_per_pair=20)).resolved(game)  # 9,786,000 games: allowed


def test_a_generations_games_count_the_seats_of_the_panel_games():
    """Panel games are played in every seat: with three seats a generation plays 3/2 as many."""
    from fsmarena.evo.protocols import generation_games

    config = EvolveConfig(protocol="panel", panel=("random", "max"), population=10, games_per_pair=7).resolved()
    assert generation_games(config, 2) == 10 * 2 * 2 * 7
    assert generation_games(config, 3) == 10 * 2 * 3 * 7
    mixed = EvolveConfig(**{**config.to_dict(), "panel": ("random", "max"), "panel_weight": 0.5}).resolved()
    assert generation_games(mixed, 3) == 10 * 2 * 3 * 7 + 10 * 9 * 7
