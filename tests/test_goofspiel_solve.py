"""Goofspiel's exact solution and best responses (through Stupide Vautour's solver) and how
well its default tabular state learns.

Oracles: two-player Goofspiel is Stupide Vautour with the prizes 1..n, so every player's
exploitability must be the same number computed through the other game's engine, observations,
actions and players; OpenSpiel's best response (skipped when it is absent); and the real engine
playing the equilibrium against a player, which must score what the best-response tree says.
"""

from __future__ import annotations

import numpy as np
import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.arena import play_games
from fsmarena.games.capabilities import ZeroSumSolvable
from fsmarena.games.goofspiel.game import Goofspiel, GoofspielConfig
from fsmarena.games.players import FixedActionPlayer, RandomPlayer, TablePolicy, resolve_player
from fsmarena.games.stats import mean_interval
from fsmarena.games.vautour.game import N_ABSTRACT

REWARDS = ("wdl", "points")


def _pair(cards: int, **goofspiel) -> tuple[Goofspiel, object]:
    """Goofspiel and the Stupide Vautour game with the same rules (two players)."""
    params = {"cards": str(cards), **goofspiel}
    prizes = ",".join(str(p) for p in range(1, cards + 1))
    return get_game("goofspiel", params), get_game("vautour", {"cards": str(cards), "prizes": prizes})


def test_goofspiel_declares_the_capability_and_its_limits():
    assert isinstance(Goofspiel(GoofspielConfig(cards=4)), ZeroSumSolvable)
    assert Goofspiel(GoofspielConfig(cards=4)).solvable()
    assert not Goofspiel(GoofspielConfig(cards=4, players=3)).solvable()
    assert not Goofspiel(GoofspielConfig(cards=4, points_order="descending")).solvable()
    assert not Goofspiel(GoofspielConfig()).solvable()  # 13 cards
    for params in ({"cards": "4", "players": "3"}, {"cards": "4", "points_order": "ascending"}, {"cards": "6"}):
        with pytest.raises(FsmarenaError):
            get_game("goofspiel", params).solve_equilibrium()


@pytest.mark.parametrize("reward", REWARDS)
@pytest.mark.parametrize("cards", [3, 4])
def test_same_exploitability_as_stupide_vautour_with_prizes_one_to_n(cards, reward):
    goofspiel, vautour = _pair(cards, state="no-memory")
    assert goofspiel.solve_equilibrium(reward)[0] == pytest.approx(0.0, abs=1e-12)
    rng = np.random.default_rng(cards)
    # the same table in both games: equal state numbering, card c is action c - 1 / 6 + c
    table = rng.integers(0, cards, size=goofspiel.n_states)
    pairs = [
        (resolve_player("random", goofspiel), resolve_player("random", vautour)),
        (resolve_player("match", goofspiel), resolve_player("prize-rank", vautour)),
        (resolve_player("max", goofspiel), resolve_player("max", vautour)),
        (TablePolicy(table), TablePolicy(table + N_ABSTRACT)),
        (FixedActionPlayer(cards - 2), FixedActionPlayer(N_ABSTRACT + cards - 2)),
    ]
    for mine, theirs in pairs:
        a, b = goofspiel.exploitability(mine, reward), vautour.exploitability(theirs, reward)
        for key in ("best_response_value", "equilibrium_value", "exploitability"):
            assert a[key] == pytest.approx(b[key], abs=1e-12), (mine.label, key)


def test_a_machine_with_memory_is_replayed_like_in_stupide_vautour():
    from fsmarena.evo.genome import genome_spec

    goofspiel, vautour = _pair(3)
    spec = genome_spec(goofspiel, "fsm", 3, "opp_last")
    machine = spec.player(spec.random(np.random.default_rng(5), 1))
    result = goofspiel.exploitability(machine)
    assert result["best_response_value"] >= result["equilibrium_value"] - 1e-12 >= -1e-9
    assert result["nodes"] > goofspiel.exploitability(resolve_player("match", goofspiel))["nodes"]


@pytest.mark.parametrize("cards", [3, 4])
def test_best_response_to_random_agrees_with_openspiel(cards):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability

    spiel = pyspiel.load_game("goofspiel", {"num_cards": cards, "points_order": "random", "returns_type": "win_loss"})
    turn_based = pyspiel.convert_to_turn_based(spiel)
    theirs = exploitability.best_response(turn_based, policy.UniformRandomPolicy(turn_based), 0)
    ours = get_game("goofspiel", {"cards": str(cards)}).exploitability(RandomPlayer())
    assert ours["best_response_value"] == pytest.approx(theirs["best_response_value"], abs=1e-12)


def test_the_equilibrium_scores_in_play_what_the_tree_says():
    game = get_game("goofspiel", {"cards": "4"})
    _, equilibrium = game.solve_equilibrium("points")
    upbid = resolve_player("upbid", game)
    expected = game.exploitability(upbid, "points")["equilibrium_value"]
    n = 40_000
    outcome = play_games(game, [equilibrium, upbid], n, np.random.default_rng(11))
    difference = outcome.scores[:, 0] - outcome.scores[:, 1]
    low, high = mean_interval(difference.sum(), (difference**2).sum(), n)
    assert low <= expected <= high
    assert expected > 0.1  # upbid is predictable: the equilibrium wins points from it


@pytest.mark.slow
def test_default_q_learning_beats_openspiels_tabular_learner():
    """The rules page's claim: the mean over five seeds of the final win rate against random."""
    from fsmarena.games.goofspiel.bench import LEARNING_GAMES, OPENSPIEL_WIN, learning_win_rates

    rates = learning_win_rates(LEARNING_GAMES)
    assert np.mean(rates) >= OPENSPIEL_WIN
