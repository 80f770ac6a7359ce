"""The command-line contract of games / play / tournament / bench, and its errors."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pytest
from cli_helpers import run_cli

from fsmarena.games import get_game
from fsmarena.games.match import play_match
from fsmarena.games.players import RandomPlayer

TIMING_KEYS = {"games_per_second"}


def without_timing(data):
    if isinstance(data, dict):
        return {k: without_timing(v) for k, v in data.items() if k not in TIMING_KEYS}
    if isinstance(data, list):
        return [without_timing(v) for v in data]
    return data


def test_games_lists_dtd_with_parameters_and_builtins(capsys):
    code, out, _ = run_cli(capsys, "games", "--json")
    assert code == 0
    games = {g["name"]: g for g in json.loads(out)["games"]}
    dtd = games["dtd"]
    assert dtd["parameters"]["counts"] == [16, 28, 16]
    assert dtd["states"] == 40
    assert set(dtd["builtin_players"]) >= {"random", "always-small", "always-median", "always-large"}


def test_play_json_has_the_contract_fields_and_is_identical_for_any_jobs(capsys):
    args = ["play", "dtd", "always-large", "random", "--games", "30000", "--seed", "4", "--json"]
    code, out1, _ = run_cli(capsys, *args, "--jobs", "1")
    assert code == 0
    code, out2, _ = run_cli(capsys, *args, "--jobs", "2")
    assert code == 0
    one, two = json.loads(out1), json.loads(out2)
    assert set(one) >= {"games", "win", "draw", "loss", "score", "opp_score", "win_ci95", "games_per_second"}
    assert one["games"] == 30000
    assert abs(one["win"] + one["draw"] + one["loss"] - 1) < 1e-12
    assert one["win_ci95"][0] < one["win"] < one["win_ci95"][1]
    assert without_timing(one) == without_timing(two)


def test_different_seeds_give_different_games(capsys):
    outs = [
        json.loads(run_cli(capsys, "play", "dtd", "random", "random", "--games", "2000", "--seed", s, "--json")[1])
        for s in ("1", "2")
    ]
    assert outs[0]["score"] != outs[1]["score"]


def test_tournament_writes_consistent_tables_and_heatmap(capsys, tmp_path):
    players = ["random", "always-small", "always-median", "always-large"]
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        code, stdout, _ = run_cli(
            capsys,
            "tournament",
            "dtd",
            *players,
            "--games",
            "4000",
            "--seed",
            "9",
            "--jobs",
            jobs,
            "--out",
            str(out),
            "--json",
        )
        assert code == 0
        outs.append(json.loads(stdout))
        for name in ("results.csv", "matrix.csv", "tournament.json", "heatmap.png", "heatmap.pdf"):
            assert (out / name).stat().st_size > 0
    assert without_timing(outs[0]) == without_timing(outs[1])
    out = tmp_path / "jobs1"
    with open(out / "matrix.csv") as handle:
        matrix_rows = list(csv.reader(handle))
    with open(out / "results.csv") as handle:
        results = list(csv.DictReader(handle))
    labels = matrix_rows[0][1:]
    assert labels == players
    for row in results:
        i, j = labels.index(row["player"]), labels.index(row["opponent"])
        assert float(matrix_rows[i + 1][j + 1]) == pytest.approx(float(row["win"]), abs=1e-6)
        assert float(row["win_ci_low"]) <= float(row["win"]) <= float(row["win_ci_high"])
    # i's wins against j are j's losses against i
    matrix = np.array([[float(v) if v else np.nan for v in r[1:]] for r in matrix_rows[1:]])
    draws = {(r["player"], r["opponent"]): float(r["draw"]) for r in results}
    for i in range(4):
        for j in range(4):
            if i != j:
                assert matrix[i, j] + matrix[j, i] + draws[(labels[i], labels[j])] == pytest.approx(1.0)


def test_identical_players_with_seats_swapped_are_symmetric():
    game = get_game("dtd")
    stats = play_match(game, RandomPlayer(), RandomPlayer(), 200_000, seed=3)
    # seat 0 leads first, so a seat bias would show; with seats swapped wins and losses balance
    spread = np.sqrt((stats.wins + stats.losses)) * 4
    assert abs(stats.wins - stats.losses) < spread


def test_matches_run_in_bounded_memory():
    game = get_game("dtd")
    tracemalloc.start()
    play_match(game, RandomPlayer(), RandomPlayer(), 400_000, seed=1, chunk=20_000)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 40 * 2**20  # one 20k-game chunk at a time, not 400k games at once


def test_bench_reports_engine_plain_and_ratio(capsys):
    code, out, _ = run_cli(capsys, "bench", "dtd", "--scale", "0.02", "--json")
    assert code == 0
    result = json.loads(out)["results"][0]
    assert result["engine_per_second"] > 0 and result["plain_per_second"] > 0
    assert result["ratio"] == pytest.approx(result["engine_per_second"] / result["plain_per_second"])
    assert result["clock"] == "cpu"
    assert result["engine_per_second"] == pytest.approx(result["engine_units"] / result["engine_cpu_seconds"])


def _busy(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_bench_rates_single_process_cases_per_cpu_second_and_worker_cases_per_wall_second():
    """Waiting (here: sleeping, as when other programs hold the cores) does not count against a
    single-process case; a case with worker processes is timed by the wall clock."""
    from fsmarena.games.bench import BenchCase, time_case

    def waits(n, seed):
        time.sleep(0.3)

    def works(n, seed):
        _busy(0.3)

    single = time_case(BenchCase("waits", waits, works, engine_games=1, plain_games=1, warmup=False))
    assert single["clock"] == "cpu" and single["ratio"] > 5
    assert single["engine_seconds"] >= 0.3 > single["engine_cpu_seconds"]
    pooled = time_case(BenchCase("waits", waits, works, engine_games=1, plain_games=1, warmup=False, workers=True))
    assert pooled["clock"] == "wall" and "engine_cpu_seconds" not in pooled
    assert pooled["ratio"] == pytest.approx(pooled["plain_seconds"] / pooled["engine_seconds"])
    assert single["ratio"] == pytest.approx(single["plain_cpu_seconds"] / single["engine_cpu_seconds"])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "chess", "random", "random"], "unknown game 'chess'"),
        (["play", "dtd", "random", "wizard"], "unknown player 'wizard'"),
        (["play", "dtd", "random", "random", "--games", "0"], "positive"),
        (["play", "dtd", "random", "random", "--games", "-5"], "positive"),
        (["play", "dtd", "random", "random", "--games", "many"], "whole number"),
        (["play", "dtd", "random"], "give an opponent"),
        (["play", "dtd", "random", "random", "--param", "hand_size=0"], "hand_size"),
        (["play", "dtd", "random", "random", "--param", "colour=red"], "unknown parameter 'colour'"),
        (["play", "dtd", "random", "random", "--param", "counts=1,1,1"], "cannot deal"),
        (["play", "dtd", "random", "random", "--jobs", "0"], "jobs"),
        (["play", "dtd", "random", "random", "--seed", "-1"], "seed"),
        (["tournament", "dtd", "random", "--out", "x"], "at least two players"),
        (["bench", "dtd", "--scale", "-1"], "scale"),
        (["bench", "dtd", "--case", "no such case"], "no benchmark case's name contains --case 'no such case'"),
        (["frobnicate"], "invalid choice"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["play", "dtd", "random", "random", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_input_is_one_clear_line(capsys, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fsmarena: error:")
    assert message in lines[0]
    assert lines[0].count("fsmarena:") == 1  # not "fsmarena: error: fsmarena: ..."


def test_bad_player_file_and_unwritable_out_leave_nothing(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format_version": 1, "kind": "table-policy", "game": "dtd", "actions": [9]}')
    code, _, err = run_cli(capsys, "play", "dtd", str(bad), "random")
    assert code == 2 and "bad.json" in err and len(err.strip().splitlines()) == 1

    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = run_cli(
        capsys, "tournament", "dtd", "random", "always-small", "--games", "100", "--out", str(blocker / "sub")
    )
    assert code == 2 and "cannot create output folder" in err

    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "tournament", "dtd", "random", str(bad), "--games", "100", "--out", str(out))
    assert code == 2
    assert not out.exists() or not any(out.iterdir())


def test_console_script_prints_no_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "fsmarena", "play", "dtd", "random", "nobody.json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == ["fsmarena: error: player file nobody.json does not exist"]


def test_three_player_round_robin_plays_each_direction():
    """With 3 seats, "A vs B" is A against two copies of B: not the mirror of B vs two A's."""
    from fsmarena.games.match import round_robin
    from fsmarena.games.players import resolve_player

    game = get_game("vautour", {"players": "3"})
    players = [resolve_player(name, game) for name in ("prize-rank", "random")]
    result = round_robin(game, players, 3000, seed=2, desc=None)
    assert set(result.pairs) == {(0, 1), (1, 0)}
    matrix = result.win_matrix()
    direct = play_match(game, players[0], players[1], 3000, seed=2)
    assert matrix[0, 1] > 0.6 and direct.win_rate > 0.6  # prize-rank beats two random bidders
    # two prize-rank copies always bid the same card, so under the seed's tie rule they cancel
    # and random takes every prize; mirroring the first match would have said about 0.2
    assert matrix[1, 0] > 0.95
