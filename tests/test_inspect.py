"""``fsmarena inspect`` through the command line: hand-built machines with known sizes, usage
that adds up, drawings found, and one-line errors."""

from __future__ import annotations

import json

import numpy as np
from cli_helpers import run_cli

from fsmarena.evo.bda import BinaryDecisionAutomaton
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.games.dtd.game import LARGE_MAX, MEDIAN, SMALL_SPOIL, DivideTheDollar
from fsmarena.games.players import TablePolicy, save_player

GAME = DivideTheDollar()


def copies_fsm():
    """Over opp_last: S1 and S2 are copies (both back to S0), S3 is unreachable: 2 effective."""
    return TableFSM(
        [[1, 2, 1, 2], [0, 0, 0, 0], [0, 0, 0, 0], [3, 3, 0, 1]],
        [[SMALL_SPOIL, MEDIAN, LARGE_MAX, MEDIAN], [MEDIAN] * 4, [MEDIAN] * 4, [LARGE_MAX] * 4],
        inputs="opp_last",
        label="copies",
    )


def dead_test_bda():
    """S0 tests Ttl > 1.0 (never holds): its true branch to S1 is dead, 2 effective states."""
    return BinaryDecisionAutomaton(
        np.array(
            [
                [0, 0, 1000, LARGE_MAX, 1, MEDIAN, 2],
                [4, 1, 300, SMALL_SPOIL, 0, SMALL_SPOIL, 1],
                [4, 0, 500, 0, 2, 1, 0],
            ]
        ),
        label="dead",
    )


def test_text_names_states_inputs_usage_and_drawings(capsys, tmp_path):
    path = tmp_path / "copies.json"
    save_player(copies_fsm(), GAME, path)
    (tmp_path / "best_fsm.png").write_bytes(b"\x89PNG")
    code, out, err = run_cli(capsys, "inspect", path, "--games", 20)
    assert code == 0 and not err
    assert "table-fsm 'copies' for dtd" in out
    assert "states: 4, reachable 3, effective 2 (exact)" in out
    assert "inputs 'opp_last':" in out and "of 4 met in play" in out
    assert "160 games against always-large, always-median, always-small, random" in out
    assert str(tmp_path / "best_fsm.png") in out and f"fsmarena draw {path} --minimise" in out


def test_json_counts_add_up(capsys, tmp_path):
    path = tmp_path / "dead.json"
    save_player(dead_test_bda(), GAME, path)
    code, out, _ = run_cli(capsys, "inspect", path, "--json", "--panel", "random", "always-small", "--games", 15)
    assert code == 0
    data = json.loads(out)
    assert (data["kind"], data["states"], data["reachable_states"], data["effective_states"]) == ("bda", 3, 3, 2)
    assert data["effective_states_in_play"] <= 2
    usage = data["usage"]
    assert usage["games"] == 2 * 2 * 15 and sum(usage["visits"]) == usage["decisions"] > 0
    assert usage["visits"][1] == 0  # only the dead branch leads there
    assert data["panel"] == ["random", "always-small"]
    assert data["tests"]["never_held"] >= 1
    assert data["drawings"]["found"] == []


def test_errors_are_one_line_with_exit_2(capsys, tmp_path):
    machine = tmp_path / "machine.json"
    save_player(copies_fsm(), GAME, machine)
    policy = tmp_path / "policy.json"
    save_player(TablePolicy(np.zeros(GAME.n_states, dtype=int)), GAME, policy)
    cases = [
        ((tmp_path / "none.json",), "does not exist"),
        ((machine, "--game", "vautour"), "is for the game 'dtd', not 'vautour'"),
        ((policy,), "only table-fsm and bda"),
        ((machine, "--games", 0), "must be a positive whole number"),
        ((machine, "--panel", "nobody"), "unknown player 'nobody'"),
    ]
    for argv, message in cases:
        code, out, err = run_cli(capsys, "inspect", *argv)
        assert code == 2 and not out
        assert message in err and err.count("\n") == 1
