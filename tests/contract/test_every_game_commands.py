"""Every command, run once for every registered game with its defaults and small budgets.

Parametrised over the game registry, so a new game cannot miss one: ``play``,
``tournament``, ``bench``, ``evolve`` (both genomes, the default FSM inputs), ``train`` (Q-learning,
every other setting the default), ``inspect`` and ``draw`` of the evolved machine, and ``solve``
/ ``exploit`` wherever the game declares it can (:class:`fsmarena.games.capabilities.ExactModel`,
:class:`fsmarena.games.capabilities.ZeroSumSolvable` at its ``example_params``; every other game must
refuse them with one clear line and exit 2).  Each check reads what the command reports or
writes and compares it with something it must agree with, not only the exit code.
"""

from __future__ import annotations

import csv
import json

import pytest
from cli_helpers import run_cli

from fsmarena.evo.inputs import default_inputs
from fsmarena.games import get_game
from fsmarena.games.capabilities import ExactModel, ZeroSumSolvable
from fsmarena.games.match import play_match
from fsmarena.games.players import player_from_json, resolve_player
from fsmarena.games.registry import entries

GAMES = [e.name for e in entries()]


def _ok(capsys, *argv) -> dict:
    """``fsmarena ARGV --quiet --json``: exit 0, nothing on stderr, the JSON it printed."""
    code, out, err = run_cli(capsys, *argv, "--quiet", "--json")
    assert code == 0, err
    return json.loads(out)


def _builtins(game) -> list[str]:
    return list(game.builtin_players())


def _protocol(game) -> str:
    """The fitness a game's evolution uses without further choices: the thesis's, or mean
    score for a one-player game."""
    return "score" if game.n_seats == 1 else "thesis"


@pytest.mark.parametrize("name", GAMES)
def test_play_reports_every_game_it_played(capsys, name):
    game = get_game(name)
    first = _builtins(game)[-1]
    if game.n_seats == 1:
        data = _ok(capsys, "play", name, first, "--games", 300)
        low, high = data["score_ci95"]
        assert data["games"] == 300 and low <= data["mean_score"] <= high
    else:
        data = _ok(capsys, "play", name, first, "random", "--games", 300)
        assert data["games"] == 300
        assert data["win"] + data["draw"] + data["loss"] == pytest.approx(1.0)
        # seats rotate: a player against itself wins as often as it loses, up to chance
        mirror = _ok(capsys, "play", name, "random", "random", "--games", 400, "--seed", 3)
        assert mirror["win"] + mirror["draw"] + mirror["loss"] == pytest.approx(1.0)
        assert abs(mirror["win"] - mirror["loss"]) < 0.15


@pytest.mark.parametrize("name", GAMES)
def test_tournament_writes_every_pairing(capsys, tmp_path, name):
    game = get_game(name)
    players = _builtins(game)[:3]
    code, _, err = run_cli(capsys, "tournament", name, *players, "--games", 40, "--quiet", "--out", tmp_path / "t")
    assert code == 0, err
    with open(tmp_path / "t" / "results.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    expected = len(players) if game.n_seats == 1 else len(players) * (len(players) - 1)
    assert len(rows) == expected
    assert json.loads((tmp_path / "t" / "tournament.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", GAMES)
def test_bench_has_cases_that_run(capsys, name):
    data = _ok(capsys, "bench", name, "--scale", "0.001")
    assert data["results"], f"{name} has no benchmark case"
    for result in data["results"]:
        assert result["game"] == name and result["engine_per_second"] > 0


def _evolve(capsys, tmp_path, name: str, genome: str) -> tuple[dict, object]:
    game = get_game(name)
    out = tmp_path / genome
    budget = ["--generations", 2, "--population", 4, "--tournament", 2, "--mutations", 1, "--curve-games", 20]
    if _protocol(game) == "thesis":
        budget += ["--opponents", 2, "--games-per-opponent", 2, "--replaced", 1]
    else:
        budget += ["--games-per-pair", 4]
    data = _ok(capsys, "evolve", name, "--genome", genome, "--protocol", _protocol(game), *budget, "--out", out)
    champion = player_from_json(json.loads((out / "best.json").read_text(encoding="utf-8")), game, "best.json")
    return data, champion


@pytest.mark.parametrize("genome", ["fsm", "bda"])
@pytest.mark.parametrize("name", GAMES)
def test_evolve_with_default_inputs_then_inspect_and_draw(capsys, tmp_path, name, genome):
    game = get_game(name)
    data, champion = _evolve(capsys, tmp_path, name, genome)
    assert data["game"] == name and data["generations"] == 2 and data["genome"] == genome
    best = tmp_path / genome / "best.json"
    # the champion plays; its reported curve point is a win rate (a score in one-player games)
    if game.n_seats == 1:
        assert data["champion_score"] is not None
    else:
        assert 0.0 <= data["champion_vs_random"] <= 1.0
    stats = play_match(game, champion, resolve_player("random", game), 20, 0)
    assert stats.games == 20
    described = _ok(capsys, "inspect", best, "--games", 20)
    assert described["game"] == name
    if genome == "fsm":
        assert described["states"] == 4  # the FSM default
        assert described["inputs"]["encoding"] == default_inputs(game)
    drawing = tmp_path / "machine.dot"
    code, _, err = run_cli(capsys, "draw", best, "--out", drawing, "--quiet")
    assert code == 0, err
    assert "digraph" in drawing.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", GAMES)
def test_train_with_the_default_settings(capsys, tmp_path, name):
    game = get_game(name)
    data = _ok(
        capsys, "train", name, "--algo", "q-learning", "--episodes", 400, "--eval-games", 100, "--out", tmp_path / "q"
    )
    assert data["games"] == 400
    (final,) = data["final"]
    if game.n_seats == 1:
        assert final["score_ci_low"] <= final["mean_score"] <= final["score_ci_high"]
    else:
        assert final["opponent"] == "random" and 0.0 <= final["win"] <= 1.0
    policy = player_from_json(json.loads((tmp_path / "q" / "policy.json").read_text(encoding="utf-8")), game, "policy")
    assert policy.table.shape[-1] == game.n_states


@pytest.mark.parametrize("name", GAMES)
def test_solve_and_exploit_where_the_game_declares_it(capsys, name):
    game = get_game(name)
    if isinstance(game, ExactModel):
        data = _ok(capsys, "solve", name)
        # optimal: no builtin scores more on average (one-sided, with its 95% interval)
        for player in _builtins(game):
            stats = _ok(capsys, "play", name, player, "--games", 2000)
            assert stats["score_ci95"][0] <= data["value"] + 1e-9
        return
    if isinstance(game, ZeroSumSolvable):
        assert game.example_params, f"{name} declares ZeroSumSolvable but no example_params"
        params = [arg for key, value in game.example_params.items() for arg in ("--param", f"{key}={value}")]
        small = get_game(name, dict(game.example_params))
        assert isinstance(small, ZeroSumSolvable) and small.solvable()
        data = _ok(capsys, "solve", name, *params)
        assert data["equilibrium_exploitability"] == pytest.approx(0.0, abs=1e-9)
        for player in _builtins(small):
            found = _ok(capsys, "exploit", name, player, *params)
            # a best response does at least as well as the equilibrium, which gets the game's value
            assert found["best_response_value"] >= found["equilibrium_value"] - 1e-9
            assert found["equilibrium_value"] >= found["game_value"] - 1e-9
            assert found["exploitability"] == pytest.approx(found["best_response_value"] - found["game_value"])
        random_found = _ok(capsys, "exploit", name, "random", *params)
        assert random_found["exploitability"] > 0.1  # uniformly random bids are far from optimal
        return
    for command in (["solve", name], ["exploit", name, "random"]):
        code, out, err = run_cli(capsys, *command, "--quiet")
        assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("fsmarena: error:")
