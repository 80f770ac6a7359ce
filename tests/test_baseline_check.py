"""The warning when a player is not clearly better than ``random`` (``fsmarena evolve``).

Oracles: players whose standing against ``random`` is known: ``random`` itself and a builtin that
loses to it are warned about, a builtin that beats it and 421's exact optimal policy are not; the
command's warning is the function's on the player it wrote."""

from __future__ import annotations

import json

import pytest
from cli_helpers import run_cli

from fsmarena.games import get_game
from fsmarena.games.baseline_check import CHECK_GAMES, not_clearly_better_than_random
from fsmarena.games.players import RandomPlayer, TablePolicy, load_player, resolve_player


@pytest.mark.parametrize("name, warned", [("random", True), ("always-small", True), ("always-large", False)])
def test_a_two_player_builtin_is_warned_about_exactly_when_it_does_not_beat_random(name, warned):
    game = get_game("dtd")
    warning = not_clearly_better_than_random(game, resolve_player(name, game), seed=1)
    assert (warning is not None) == warned
    if warned:
        assert "\n" not in warning and f"over {CHECK_GAMES} games" in warning and "may not learn dtd" in warning


def test_in_a_one_player_game_random_is_warned_about_and_the_optimal_policy_is_not():
    game = get_game("421")
    assert "mean score" in not_clearly_better_than_random(game, RandomPlayer(), seed=2)
    _, table = game.exact_optimum()
    assert not_clearly_better_than_random(game, TablePolicy(table), seed=2) is None


@pytest.mark.parametrize(
    "game_name, settings, seed",
    [
        ("dtd", ["--genome", "bda", "--protocol", "thesis", "--population", "15", "--opponents", "2"], 3),
        ("vautour", ["--genome", "fsm", "--protocol", "round-robin", "--population", "6", "--tournament", "2"], 1),
    ],
)
def test_evolve_reports_the_warning_of_the_player_it_wrote(capsys, tmp_path, game_name, settings, seed):
    """Two generations of a thesis BDA (measured: clearly better than random), one of a
    six-machine Vautour round robin (measured: not): the summary and the stderr line say what
    the check says of best.json."""
    out = tmp_path / "run"
    generations = "2" if game_name == "dtd" else "1"
    code, text, err = run_cli(
        capsys, "evolve", game_name, *settings, "--generations", generations, "--seed", seed, "--out", out, "--json"
    )
    assert code == 0
    summary = json.loads(text)
    game = get_game(game_name)
    expected = not_clearly_better_than_random(game, load_player(out / "best.json", game), seed)
    assert summary["warning"] == expected
    assert (f"fsmarena evolve: warning: {expected}" in err) == (expected is not None)
    assert (expected is None) == (game_name == "dtd")
