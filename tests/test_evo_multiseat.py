"""Evolution in games of more than two seats (Stupide Vautour with 3 and 4 players): the seat
plans written out by hand, scoring against a plain loop over the same games, game counts,
seed equality for any --jobs, resume, and an evolution that learns; two-seat plans unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from fsmarena.evo.genome import genome_spec
from fsmarena.evo.protocols import PanelSeat, panel_pairings, round_robin_pairing, score
from fsmarena.evo.run import EvolveConfig, evolve
from fsmarena.games.arena import Seat, play_games
from fsmarena.games.match import play_match
from fsmarena.games.players import resolve_player
from tests.vautour_helpers import vautour

THREE = vautour(players=3, cards=6, action_set="abstract")


def as_rows(pairing):
    """The pairing as one tuple of seat occupants per game."""
    return [
        tuple(int(e[g]) if not isinstance(e, PanelSeat) else f"panel {e.index}" for e in pairing)
        for g in range(len(next(e for e in pairing if not isinstance(e, PanelSeat))))
    ]


def test_two_seat_plans_are_the_two_player_plans():
    first, second = round_robin_pairing(3, 2, seats=2)
    assert list(zip(first.tolist(), second.tolist())) == [
        (0, 1),
        (0, 1),
        (0, 2),
        (0, 2),
        (1, 0),
        (1, 0),
        (1, 2),
        (1, 2),
        (2, 0),
        (2, 0),
        (2, 1),
        (2, 1),
    ]
    plans = panel_pairings(2, 2, 1, seats=2)
    assert [tuple(isinstance(e, PanelSeat) and e.index for e in p) for p in plans] == [
        (False, 0),
        (0, False),
        (False, 1),
        (1, False),
    ]


def test_three_seat_round_robin_rotates_the_single_seat_against_copies():
    rows = as_rows(round_robin_pairing(2, 4, seats=3))
    # pair (0, 1): game k puts 0 in seat k mod 3 and 1 in the two others; then pair (1, 0)
    assert rows == [(0, 1, 1), (1, 0, 1), (1, 1, 0), (0, 1, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0)]


def test_panel_plan_puts_each_individual_in_every_seat_against_panel_copies():
    plans = panel_pairings(2, 1, 2, seats=3)
    assert [as_rows(p) for p in plans] == [
        [(0, "panel 0", "panel 0"), (0, "panel 0", "panel 0"), (1, "panel 0", "panel 0"), (1, "panel 0", "panel 0")],
        [("panel 0", 0, "panel 0"), ("panel 0", 0, "panel 0"), ("panel 0", 1, "panel 0"), ("panel 0", 1, "panel 0")],
        [("panel 0", "panel 0", 0), ("panel 0", "panel 0", 0), ("panel 0", "panel 0", 1), ("panel 0", "panel 0", 1)],
    ]


def test_three_seat_scores_match_a_plain_loop_over_the_same_games():
    spec = genome_spec(THREE, "fsm", states=2, inputs="prize+lead")
    genomes = spec.random(np.random.default_rng(2), 3)
    panel = (resolve_player("max", THREE),)
    pairings = [round_robin_pairing(3, 3, seats=3)] + panel_pairings(3, 1, 2, seats=3)
    scores, games = score(THREE, spec, genomes, pairings, np.random.SeedSequence(5), chunk=7, panel=panel)
    assert games == 3 * 2 * 3 + 3 * 3 * 2
    reward, wins, played = np.zeros(3), np.zeros(3), np.zeros(3)
    stack = spec.player(genomes)
    # the same chunks (7 games), in the same order, with the same spawned streams
    chunks = []
    for pairing in pairings:
        n = len(next(e for e in pairing if not isinstance(e, PanelSeat)))
        for start in range(0, n, 7):
            chunks.append(tuple(e if isinstance(e, PanelSeat) else e[start : start + 7] for e in pairing))
    for pairing, child in zip(chunks, np.random.SeedSequence(5).spawn(len(chunks))):
        seats = [Seat(panel[e.index]) if isinstance(e, PanelSeat) else Seat(stack, e) for e in pairing]
        n = len(next(e for e in pairing if not isinstance(e, PanelSeat)))
        outcome = play_games(THREE, seats, n, np.random.default_rng(child))
        for seat, entry in enumerate(pairing):
            if isinstance(entry, PanelSeat):
                continue
            for g, member in enumerate(entry):
                reward[member] += outcome.rewards[g, seat]
                wins[member] += outcome.rewards[g, seat] > 0
                played[member] += 1
    assert scores.reward.tolist() == reward.tolist() and scores.wins.tolist() == wins.tolist()
    # round robin: each of 6 ordered pairs x 3 games seats the pair's two genomes in 3 seats;
    # panel: 2 games x 3 seats each
    assert scores.games.tolist() == played.tolist() == [6 + 12 + 6] * 3


RUNS = {
    "round-robin": EvolveConfig(
        genome="fsm",
        protocol="round-robin",
        generations=4,
        population=5,
        states=2,
        inputs="prize",
        games_per_pair=6,
        checkpoint_every=2,
        curve_every=2,
        curve_games=300,
        chunk=40,
    ),
    "panel": EvolveConfig(
        genome="bda",
        protocol="panel",
        generations=4,
        population=5,
        states=3,
        panel=("max", "random"),
        panel_weight=0.5,
        games_per_pair=6,
        checkpoint_every=2,
        curve_every=2,
        curve_games=300,
        chunk=40,
    ),
    "thesis": EvolveConfig(
        genome="bda",
        protocol="thesis",
        generations=4,
        population=5,
        opponents=4,
        games_per_opponent=3,
        tournament=4,
        states=3,
        checkpoint_every=2,
        curve_every=2,
        curve_games=300,
        chunk=40,
    ),
}


def test_games_counted_per_generation_with_three_seats():
    population, per_pair = 5, 6
    rr = evolve(THREE, RUNS["round-robin"], seed=1)
    assert [r["games"] for r in rr.logbook] == [population * (population - 1) * per_pair * (g + 1) for g in range(4)]
    panel = evolve(THREE, RUNS["panel"], seed=1)
    per_generation = population * 2 * per_pair * 3 + population * (population - 1) * per_pair
    assert [r["games"] for r in panel.logbook] == [per_generation * (g + 1) for g in range(4)]
    thesis = evolve(THREE, RUNS["thesis"], seed=1)
    assert thesis.games == 4 * population * 4 * 3
    assert all(0.0 <= f <= 1.0 for f in thesis.fitness)


@pytest.mark.parametrize("protocol", sorted(RUNS))
def test_three_seat_runs_are_the_same_for_any_jobs_and_after_resume(tmp_path, protocol):
    one = evolve(THREE, RUNS[protocol], seed=3, jobs=1)
    two = evolve(THREE, RUNS[protocol], seed=3, jobs=2)
    assert np.array_equal(one.genomes, two.genomes) and one.fitness.tolist() == two.fitness.tolist()

    class Stop(Exception):
        pass

    def interrupt(record):
        if record["gen"] == 1:
            raise Stop

    with pytest.raises(Stop):
        evolve(THREE, RUNS[protocol], seed=3, out=tmp_path, callback=interrupt)
    resumed = evolve(THREE, RUNS[protocol], seed=3, out=tmp_path, resume=True)
    assert np.array_equal(resumed.genomes, one.genomes) and resumed.fitness.tolist() == one.fitness.tolist()


def test_four_player_panel_evolution_learns_to_beat_its_panel():
    """One-state FSMs (an abstract bid per prize) in the 4-player 8-card game against three
    random bidders, a fair share being 25% of the wins: ten generations take the champion
    past the first generation's best (itself 39-46% on seeds 7-9) to near bid-the-prize-rank
    (50%); with 60 games per pair (20 left the selection noisy enough to end below its start)."""
    game = vautour(players=4, cards=8, action_set="abstract")
    config = EvolveConfig(
        genome="fsm",
        inputs="prize",
        states=1,
        protocol="panel",
        generations=10,
        population=10,
        panel=("random",),
        games_per_pair=60,
        curve_every=0,
        curve_games=100,
    )
    result = evolve(game, config, seed=7)
    first = evolve(game, EvolveConfig(**{**config.to_dict(), "panel": ("random",), "generations": 1}), seed=7)
    opponent = resolve_player("random", game)
    best = play_match(game, result.best, opponent, 4000, 1).win_rate
    start = play_match(game, first.best, opponent, 4000, 1).win_rate
    assert best > 0.45 and best > start
