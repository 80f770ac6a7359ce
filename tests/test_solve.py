"""``fsmarena solve``: the exact optimum on the command line, readable and as JSON."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from fsmarena.cli import main
from fsmarena.games import get_game
from fsmarena.games.dice421.exact import exact_value


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_json_is_consistent(capsys):
    code, out, err = run(capsys, "solve", "421", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    game = get_game("421")
    assert data["game"] == "421"
    value = Fraction(data["value_fraction"])
    assert data["value"] == float(value)
    # the printed table plays to the printed value, exactly
    table = np.array(data["actions"])
    assert exact_value(game, table) == value
    # the readable rows say the same as the table
    assert len(data["policy"]) == 56 * 2
    for row in data["policy"]:
        index = game.index_of(tuple(row["dice"]), row["throws_left"])
        action = int(table[index])
        assert row["action"] == game.action_names[action]
        assert row["keep"] == list(game.kept_dice(tuple(row["dice"]), action))
        assert row["value"] >= row["stop_score"]  # optimal: never worse than stopping now
    four_two_one = [r for r in data["policy"] if r["dice"] == [4, 2, 1]]
    assert all(r["action"] == "keep_all" for r in four_two_one)


def test_solve_with_parameters_changes_the_optimum(capsys):
    code, out, _ = run(capsys, "solve", "421", "--param", "scores=sum", "--json")
    assert code == 0 and json.loads(out)["value_fraction"] == "14/1"
    code, out, _ = run(capsys, "solve", "421", "--param", "rethrows=1", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["policy"]) == 56 and data["value"] < 14


def test_solve_text_shows_fraction_and_keep_table(capsys):
    code, out, _ = run(capsys, "solve", "421")
    assert code == 0
    first = out.splitlines()[0]
    data_value = get_game("421").exact_optimum()[0]
    assert f"{data_value.numerator}/{data_value.denominator}" in first
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("dice"))
    assert "2 left" in lines[start] and "1 left" in lines[start]
    assert len(lines) - start - 1 == 56
    row = next(line for line in lines[start:] if line.startswith("421 "))
    assert row.split()[1:] == ["11", "stop", "stop"]


@pytest.mark.parametrize(
    "argv,message",
    [
        (["solve", "dtd"], "no known model"),
        (["solve", "nosuchgame"], "unknown game 'nosuchgame'"),
        (["solve", "421", "--param", "scores=french"], "unknown score table 'french'"),
        (["solve", "421", "--param", "rethrows=-2"], "rethrows"),
    ],
)
def test_solve_bad_input_is_one_clear_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("fsmarena: error:") and message in err and len(err.strip().splitlines()) == 1


def test_solve_vautour_prints_the_value_and_the_equilibrium_check(capsys):
    code, out, err = run(capsys, "solve", "vautour", "--param", "cards=3", "--param", "tie_rule=cancel")
    assert code == 0 and err == ""
    assert "value for the first seat (wdl): 0" in out and "exploitability of the equilibrium" in out
    code, out, _ = run(capsys, "solve", "vautour", "--param", "cards=3", "--reward", "points", "--json")
    data = json.loads(out)
    assert data["reward"] == "points" and abs(data["value"]) < 1e-12 and abs(data["equilibrium_exploitability"]) < 1e-9
