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


def test_text_names_states_inputs_usage_and_drawings(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("FSMARENA_DRAWINGS", str(tmp_path / "drawings.json"))
    path = tmp_path / "copies.json"
    save_player(copies_fsm(), GAME, path)
    (tmp_path / "best_fsm.png").write_bytes(b"\x89PNG")  # a PNG of no known player: not listed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run_cli(capsys, "draw", path, "--games", 0, "--out", elsewhere / "c.png")[0] == 0
    other = tmp_path / "other.json"
    save_player(dead_test_bda(), GAME, other)
    assert run_cli(capsys, "draw", other, "--games", 0, "--out", tmp_path / "copies-2.png")[0] == 0
    code, out, err = run_cli(capsys, "inspect", path, "--games", 20)
    assert code == 0 and not err
    assert "table-fsm 'copies' for dtd" in out
    assert "states: 4, reachable 3, effective 2 (exact)" in out
    assert "inputs 'opp_last':" in out and "of 4 met in play" in out
    assert "160 games against always-large, always-median, always-small, random" in out
    drawn = next(line for line in out.splitlines() if line.startswith("drawings:"))
    assert drawn == f"drawings: {elsewhere / 'c.png'}"  # found by its content hash, not by its folder
    assert f"fsmarena draw {path} --minimise" in out and f"fsmarena draw {path} --card" in out


def test_a_drawing_is_found_when_moved_or_relabelled_and_not_when_redrawn_for_another(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("FSMARENA_DRAWINGS", str(tmp_path / "drawings.json"))
    path = tmp_path / "copies.json"
    save_player(copies_fsm(), GAME, path)
    assert run_cli(capsys, "draw", path, "--games", 0, "--out", tmp_path / "x.png")[0] == 0
    (tmp_path / "x.png").rename(tmp_path / "moved.png")  # the index no longer knows it: found next to the file
    relabelled = tmp_path / "relabelled.json"
    save_player(TableFSM(copies_fsm().next_state, copies_fsm().action, "opp_last", label="new name"), GAME, relabelled)
    for player in (path, relabelled):
        data = json.loads(run_cli(capsys, "inspect", player, "--games", 1, "--json")[1])
        assert data["drawings"]["found"] == [str(tmp_path / "moved.png")]
    assert (
        run_cli(capsys, "draw", tmp_path / "copies.json", "--games", 0, "--card", "--out", tmp_path / "m.png")[0] == 2
    )
    save_player(dead_test_bda(), GAME, tmp_path / "dead.json")
    assert run_cli(capsys, "draw", tmp_path / "dead.json", "--games", 0, "--out", tmp_path / "moved.png")[0] == 0
    assert json.loads(run_cli(capsys, "inspect", path, "--games", 1, "--json")[1])["drawings"]["found"] == []


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
        ((machine, "--games", 0), "must be a positive whole number"),
        ((machine, "--panel", "nobody"), "unknown player 'nobody'"),
    ]
    for argv, message in cases:
        code, out, err = run_cli(capsys, "inspect", *argv)
        assert code == 2 and not out
        assert message in err and err.count("\n") == 1


def test_a_studys_drawing_of_the_minimal_machine_is_found_by_its_hash(capsys, tmp_path, monkeypatch):
    """A study draws each family's best machine minimised (``figures/best_<family>.png``) from
    ``players/<family>/rNNN.json``: the drawing carries the minimal machine's hash, which
    ``inspect`` computes on the same usage games."""
    from fsmarena.figures.machine_graph import minimal_for_drawing, write_machine

    monkeypatch.setenv("FSMARENA_DRAWINGS", str(tmp_path / "drawings.json"))
    (tmp_path / "players" / "fsm").mkdir(parents=True)
    (tmp_path / "figures").mkdir()
    path = tmp_path / "players" / "fsm" / "r000.json"
    save_player(copies_fsm(), GAME, path)
    minimal, inputs, usage, link = minimal_for_drawing(copies_fsm(), GAME, None, 20, 0)
    drawing = tmp_path / "figures" / "best_fsm.png"
    write_machine(minimal, GAME, drawing, usage=usage, inputs=inputs, measure=False, link=link)
    data = json.loads(run_cli(capsys, "inspect", path, "--games", 20, "--json")[1])
    assert data["drawings"]["found"] == [str(drawing)]
    (tmp_path / "figures" / "best_bda.png").write_bytes(drawing.read_bytes())  # a copy: still this machine
    data = json.loads(run_cli(capsys, "inspect", path, "--games", 20, "--json")[1])
    assert data["drawings"]["found"] == [str(tmp_path / "figures" / "best_bda.png"), str(drawing)]
