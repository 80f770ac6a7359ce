"""Training runs and ``fsmarena train``: outputs, reproducibility for any --jobs, resume after
an interruption (in-process and a real SIGKILL), self-play, opponents from files, planners on
421, and bad input (one line, exit 2, nothing written)."""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run_cli

import fsmarena.rl.resume as resume
import fsmarena.rl.train
import fsmarena.rl.training_run as training_run
from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.dtd.game import DivideTheDollar
from fsmarena.games.players import FixedActionPlayer, TablePolicy, load_player, save_player
from fsmarena.rl.checkpoint import FILENAME, load_checkpoint
from fsmarena.rl.schedules import CurvePoints
from fsmarena.rl.train import TrainConfig, train


def read_curve(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def same_run(a: Path, b: Path) -> None:
    """Two output folders hold the same trained result."""
    with np.load(a / "tables.npz", allow_pickle=False) as ta, np.load(b / "tables.npz", allow_pickle=False) as tb:
        assert np.array_equal(ta["q"], tb["q"]) and np.array_equal(ta["counts"], tb["counts"])
    assert json.loads((a / "policy.json").read_text()) == json.loads((b / "policy.json").read_text())
    assert (a / "curve.csv").read_text() == (b / "curve.csv").read_text()


# ---- outputs -----------------------------------------------------------------------------------


def test_cli_writes_policy_curve_tables_and_summary(capsys, tmp_path):
    out = tmp_path / "run"
    code, stdout, err = run_cli(
        capsys,
        "train",
        "dtd",
        "--algo",
        "q-learning",
        "--episodes",
        3000,
        "--batch",
        500,
        "--eval-every",
        1000,
        "--eval-games",
        400,
        "--eval-panel",
        "random",
        "always-large",
        "--seed",
        3,
        "--out",
        out,
        "--json",
    )
    assert code == 0, err
    summary = json.loads(stdout)
    assert summary["games"] == 3000 and summary["algo"] == "q-learning"
    game = DivideTheDollar()
    policy = load_player(out / "policy.json", game)
    assert isinstance(policy, TablePolicy) and policy.table.shape == (1, game.n_states)
    rows = read_curve(out / "curve.csv")
    assert [(int(r["games"]), r["opponent"]) for r in rows] == [
        (g, o) for g in (0, 1000, 2000, 3000) for o in ("random", "always-large")
    ]
    assert all(int(r["eval_games"]) == 400 for r in rows)
    for r in rows:
        assert float(r["win_ci_low"]) <= float(r["win"]) <= float(r["win_ci_high"])
        assert float(r["win"]) + float(r["draw"]) + float(r["loss"]) == pytest.approx(1.0)
    with np.load(out / "tables.npz", allow_pickle=False) as tables:
        assert tables["q"].shape == (game.n_states, 3)
        assert tables["counts"].sum() == 3000 * game.config.rounds
        greedy = np.argmax(tables["q"], axis=1)
        seen = tables["counts"].sum(axis=1) > 0
        assert np.array_equal(greedy[seen], policy.table[0][seen])
    run = json.loads((out / "run.json").read_text())
    assert run["config"]["alpha"] == 0.001 and run["config"]["epsilon_schedule"] == "linear"  # TD defaults
    assert run["seed"] == 3


def test_same_seed_same_result_for_any_jobs(tmp_path):
    game = DivideTheDollar()
    config = TrainConfig(
        "mc", episodes=4000, batch=1000, eval_every=4000, eval_games=120_000
    )  # 4 chunks per evaluation
    one = train(game, config, seed=8, jobs=1)
    two = train(game, config, seed=8, jobs=2)
    assert np.array_equal(one.q, two.q) and np.array_equal(one.counts, two.counts)
    assert np.array_equal(one.policy.table, two.policy.table)
    assert one.curve == two.curve


def test_planners_on_421_write_the_exact_optimum(capsys, tmp_path):
    game = get_game("421")
    optimum, table = game.exact_optimum()
    for algo in ("value-iteration", "policy-iteration"):
        out = tmp_path / algo
        code, stdout, err = run_cli(
            capsys, "train", "421", "--algo", algo, "--eval-games", 2000, "--out", out, "--json"
        )
        assert code == 0, err
        summary = json.loads(stdout)
        assert summary["exact_value"] == pytest.approx(float(optimum), abs=1e-12)
        assert np.array_equal(load_player(out / "policy.json", game).table[0], table)
        rows = read_curve(out / "curve.csv")
        assert rows[0]["iteration"] == "1" and rows[-1]["iteration"] == ""
        assert float(rows[-2]["exact_value"]) == pytest.approx(float(optimum), abs=1e-12)


def test_learners_run_on_421_and_report_the_exact_value_of_their_policy():
    game = get_game("421")
    result = train(
        game,
        TrainConfig(
            "sarsa", episodes=20_000, batch=1000, eval_games=1000, alpha="1/n", epsilon=0.1, epsilon_schedule="constant"
        ),
        seed=1,
    )
    assert result.exact_value == pytest.approx(float(game.exact_value(result.policy)), abs=1e-9)
    assert all(row["exact_value"] is not None for row in result.curve)
    assert result.curve[-1]["exact_value"] > result.curve[0]["exact_value"] + 1.0


# ---- resume ----------------------------------------------------------------------------------


def test_resume_after_an_interruption_gives_the_uninterrupted_result(tmp_path, monkeypatch):
    game = DivideTheDollar()
    config = TrainConfig(
        "sarsa", episodes=6000, batch=700, eval_every=1500, eval_games=300, epsilon=0.3, epsilon_schedule="linear"
    )
    train(game, config, seed=2, out=tmp_path / "whole")

    calls = {"n": 0}
    real = training_run.play_games

    def failing(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 9:  # batches of <= 700 games, two calls each (seats): game 2200 of 6000
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(training_run, "play_games", failing)
    with pytest.raises(KeyboardInterrupt):
        train(game, config, seed=2, out=tmp_path / "cut")
    meta, _tables = load_checkpoint(tmp_path / "cut" / FILENAME)
    assert 0 < meta["done"] < 6000
    assert not (tmp_path / "cut" / "policy.json").exists()
    monkeypatch.setattr(training_run, "play_games", real)
    train(game, config, seed=2, out=tmp_path / "cut", resume=True)
    same_run(tmp_path / "whole", tmp_path / "cut")


def test_resume_with_other_settings_is_refused(tmp_path):
    game = DivideTheDollar()
    config = TrainConfig("mc", episodes=1000, batch=500, eval_games=100)
    train(game, config, seed=1, out=tmp_path)
    with pytest.raises(FsmarenaError, match="different settings: config.episodes was 1000, now 2000"):
        train(
            game,
            TrainConfig("mc", episodes=2000, batch=500, eval_every=100, eval_games=100),
            seed=1,
            out=tmp_path,
            resume=True,
        )
    with pytest.raises(FsmarenaError, match="already holds a training checkpoint"):
        train(game, config, seed=1, out=tmp_path)
    with pytest.raises(FsmarenaError, match="nothing to resume"):
        train(game, config, seed=1, out=tmp_path / "empty", resume=True)


@pytest.mark.slow
def test_resume_after_sigkill_of_a_real_process(tmp_path):
    args = [
        "train",
        "dtd",
        "--algo",
        "q-learning",
        "--episodes",
        "40000",
        "--batch",
        "500",
        "--eval-every",
        "5000",
        "--eval-games",
        "200",
        "--checkpoint-seconds",
        "0.2",
        "--seed",
        "6",
        "--quiet",
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    cut = tmp_path / "cut"
    process = subprocess.Popen(
        [sys.executable, "-m", "fsmarena", *args, "--out", str(cut)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    checkpoint = cut / FILENAME
    deadline = time.monotonic() + 120
    done = 0
    while time.monotonic() < deadline and process.poll() is None:
        if checkpoint.exists():
            try:
                done = load_checkpoint(checkpoint)[0]["done"]
            except FsmarenaError:
                done = 0  # cannot happen with atomic writes, but never mind: retry
            if done >= 5000:
                break
        time.sleep(0.05)
    assert process.poll() is None, "the run finished before it could be killed: raise --episodes"
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert 0 < load_checkpoint(checkpoint)[0]["done"] < 40_000
    assert not (cut / "policy.json").exists()
    resumed = subprocess.run(
        [sys.executable, "-m", "fsmarena", *args, "--out", str(cut), "--resume"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert resumed.returncode == 0, resumed.stderr
    whole = tmp_path / "whole"
    straight = subprocess.run(
        [sys.executable, "-m", "fsmarena", *args, "--out", str(whole)], env=env, capture_output=True, text=True
    )
    assert straight.returncode == 0, straight.stderr
    same_run(whole, cut)


# ---- opponents ---------------------------------------------------------------------------------


def test_self_play_starts_against_the_frozen_greedy_policy_and_refreshes_it(tmp_path):
    game = DivideTheDollar()
    common = dict(batch=100, eval_every=500, eval_games=100, epsilon=0.2, epsilon_schedule="constant")
    # the first frozen copy is the greedy policy of an all-zero table: action 0 everywhere
    self_play = train(game, TrainConfig("q-learning", episodes=500, self_play_every=500, **common), seed=4)
    always_small = train(
        game, TrainConfig("q-learning", episodes=500, **common), seed=4, opponent=FixedActionPlayer(0, "small_spoil")
    )
    assert np.array_equal(self_play.q, always_small.q)
    # after 500 games the copy is refreshed to the learner's greedy policy at that moment
    train(game, TrainConfig("q-learning", episodes=1000, self_play_every=500, **common), seed=4, out=tmp_path)
    _meta, tables = load_checkpoint(tmp_path / FILENAME)
    assert np.array_equal(tables["frozen"], self_play.policy.table[0])
    assert not np.array_equal(tables["frozen"], np.zeros(game.n_states))


def test_an_opponent_from_a_player_file_is_the_same_opponent(capsys, tmp_path):
    game = DivideTheDollar()
    table = np.random.default_rng(0).integers(0, 3, game.n_states)
    save_player(TablePolicy(table, label="fixed table"), game, tmp_path / "opp.json")
    code, _out, err = run_cli(
        capsys,
        "train",
        "dtd",
        "--algo",
        "mc",
        "--episodes",
        2000,
        "--batch",
        500,
        "--eval-games",
        100,
        "--opponent",
        tmp_path / "opp.json",
        "--out",
        tmp_path / "file",
    )
    assert code == 0, err
    direct = train(
        game, TrainConfig("mc", episodes=2000, batch=500, eval_games=100), seed=0, opponent=TablePolicy(table)
    )
    with np.load(tmp_path / "file" / "tables.npz", allow_pickle=False) as tables:
        assert np.array_equal(tables["q"], direct.q)


def test_thesis_seat_and_batch_plan():
    assert training_run._seat_counts(0, 5, 2, 0) == [5, 0]
    assert training_run._seat_counts(3, 5, 2, "alternate") == [2, 3]  # games 3..7: seats 1 0 1 0 1
    assert training_run._seat_counts(0, 7, 1, "alternate") == [7]
    assert training_run._batch_plan(0, 30, CurvePoints(100, every=25), None) == 25
    assert training_run._batch_plan(25, 30, CurvePoints(100, every=25), 40) == 15
    assert training_run._batch_plan(90, 30, CurvePoints(100, every=50), None) == 10


# ---- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--algo", "monte-carlo", "--episodes", "10"], "unknown algorithm 'monte-carlo'"),
        (["--algo", "mc", "--episodes", "0"], "must be a positive whole number"),
        (["--algo", "mc", "--episodes", "-5"], "must be a positive whole number"),
        (["--algo", "mc"], "--episodes must be a positive whole number"),
        (["--algo", "sarsa", "--episodes", "10", "--epsilon", "1.5"], "epsilon must be a number in [0, 1]"),
        (["--algo", "sarsa", "--episodes", "10", "--alpha", "2"], "alpha must be a number in (0, 1]"),
        (["--algo", "sarsa", "--episodes", "10", "--alpha", "-0.1"], "alpha must be a number in (0, 1]"),
        (["--algo", "sarsa", "--episodes", "10", "--gamma", "1.1"], "gamma must be a number in [0, 1]"),
        (["--algo", "sarsa", "--episodes", "10", "--alpha-final", "1.5"], "final alpha must be a number in [0, 1]"),
        (
            ["--algo", "sarsa", "--episodes", "10", "--alpha", "1/n", "--alpha-schedule", "linear"],
            "alpha 1/n has no schedule",
        ),
        (
            ["--algo", "q-learning", "--episodes", "10", "--alpha-schedule", "exponential"],
            "an exponential alpha schedule needs alpha and final alpha > 0",
        ),
        (["--algo", "mc", "--episodes", "10", "--alpha", "0.1"], "use mc-constant-alpha"),
        (["--algo", "mc", "--episodes", "10", "--batch", "0"], "must be a positive whole number"),
        (["--algo", "mc", "--episodes", "10", "--eval-games", "-1"], "must be a positive whole number"),
        (["--algo", "mc", "--episodes", "10", "--opponent", "nobody"], "unknown player 'nobody'"),
        (["--algo", "mc", "--episodes", "10", "--learner-seat", "2"], "learner seat 2 does not exist"),
        (["--algo", "value-iteration"], "needs a game with a known model"),
        (["--algo", "mc", "--episodes", "10", "--resume"], "nothing to resume"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(capsys, tmp_path, extra, message):
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, "train", "dtd", *extra, "--out", out)
    assert code == 2
    assert err.startswith("fsmarena: error:") and err.count("\n") == 1
    assert message in err
    assert not out.exists()


def test_a_player_file_that_does_not_parse_is_refused(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format_version": 1, "kind": "table-policy", "game": "dtd", "actions": [1, 2')
    code, _out, err = run_cli(
        capsys, "train", "dtd", "--algo", "mc", "--episodes", 10, "--opponent", bad, "--out", tmp_path / "out"
    )
    assert code == 2 and "not valid JSON" in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"format_version": 1, "kind": "table-policy", "game": "dtd", "actions": [5] * 40}))
    code, _out, err = run_cli(
        capsys, "train", "dtd", "--algo", "mc", "--episodes", 10, "--eval-panel", wrong, "--out", tmp_path / "out"
    )
    assert code == 2 and "entries must be in [0, 2]" in err


def test_one_player_games_refuse_opponents(capsys, tmp_path):
    code, _out, err = run_cli(
        capsys, "train", "421", "--algo", "sarsa", "--episodes", 10, "--opponent", "random", "--out", tmp_path / "out"
    )
    assert code == 2 and "one-player game" in err
    assert not (tmp_path / "out").exists()


# ---- tampered checkpoints: one line, exit 2, nothing written ----------------------------------

TAMPER_ARGS = ["train", "dtd", "--algo", "q-learning", "--episodes", "400", "--eval-games", "50", "--quiet"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished q-learning run's folder (its checkpoint is the one the tests tamper with)."""
    from cli_helpers import cli

    out = tmp_path_factory.mktemp("finished") / "run"
    assert cli(*TAMPER_ARGS, "--out", out)[0] == 0
    return out


def tampered(finished: Path, folder: Path, meta_change=None, tables=None) -> Path:
    """A copy of ``finished`` whose checkpoint has ``meta_change(meta)`` and ``tables`` replaced."""
    import shutil

    shutil.copytree(finished, folder)
    with np.load(folder / FILENAME) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(arrays["meta"].tobytes())
    if meta_change is not None:
        meta_change(meta)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    arrays.update({f"table_{k}": v(arrays[f"table_{k}"]) for k, v in (tables or {}).items()})
    np.savez(folder / FILENAME, **arrays)
    return folder


@pytest.mark.parametrize(
    "meta_change, tables, message",
    [
        (lambda m: m.update(curve=[[1, 2]]), None, "curve row 0 must be an object with the keys games, iteration"),
        (lambda m: m.update(curve=[{"x": 1}]), None, "curve row 0 must be an object .* \\(missing key"),
        (lambda m: m.update(done=200, curve=[None, "x", 5]), None, "curve row 0 must be an object .* \\(got None\\)"),
        (lambda m: m["curve"][1].update(win=2.0), None, "curve row 1: 'win' must be a number in \\[0, 1\\]"),
        (lambda m: m["curve"][0].update(opponent="x"), None, "'opponent' must be one of 'random', got 'x'"),
        (lambda m: m["curve"][0].update(games=401), None, "'games' must be a whole number in \\[0, 400\\]"),
        (None, {"n": lambda n: n + 0.5}, "table 'n' has type float64; expected signed integer values"),
        (None, {"q": lambda q: q.astype(np.int64)}, "table 'q' has type int64; expected float values"),
        (None, {"legal": lambda legal: legal.astype(np.int64) * 7}, "table 'legal' has type int64; expected boolean"),
        (None, {"legal": np.zeros_like}, "table 'n' counts updates of actions that table 'legal' never saw legal"),
        (lambda m: m.update(fingerprint="x" * 10**6), None, "different settings: fingerprint was 'xxx"),
    ],
)
def test_a_tampered_checkpoint_is_one_line_exit_2_and_nothing_is_written(
    capsys, tmp_path, finished, meta_change, tables, message
):
    out = tampered(finished, tmp_path / "run", meta_change, tables)
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in out.iterdir()}
    code, _out, err = run_cli(capsys, *TAMPER_ARGS, "--out", out, "--resume")
    assert code == 2 and err.count("\n") == 1 and err.startswith("fsmarena: error: checkpoint ")
    assert re.search(message, err), err
    assert len(err) < 400
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in out.iterdir()} == before


def test_tables_in_another_byte_or_memory_order_or_narrower_float_resume_the_same_run(capsys, tmp_path, finished):
    """Lossless conversions are taken over: the resumed run writes the finished run's outputs."""
    for name, change in (("big", lambda q: q.astype(">f8")), ("fortran", np.asfortranarray)):
        out = tampered(finished, tmp_path / name, tables={"q": change})
        assert run_cli(capsys, *TAMPER_ARGS, "--out", out, "--resume")[0] == 0
        same_run(finished, out)


def test_settings_differences_name_each_field_and_stay_short():
    saved = {"config": {"alpha": 0.5, "episodes": 1, "gamma": 0.1, "q_init": 2.0}, "panel": [{"label": "a"}]}
    current = {"config": {"alpha": 0.1, "episodes": 1, "gamma": 1.0, "q_init": 0.0}, "panel": [{"label": "b"}]}
    text = resume._differences(saved, current)
    assert (
        text
        == "config.alpha was 0.5, now 0.1, config.gamma was 0.1, now 1.0, config.q_init was 2.0, now 0.0 (and more)"
    )
    assert (
        resume._differences({"panel": [{"label": "a"}]}, {"panel": [{"label": "b"}]})
        == "panel[0].label was 'a', now 'b'"
    )
    long = resume._differences("x" * 10**7, {"k\x1b": "y" * 10**7})
    assert long.startswith("fingerprint was 'xxx") and len(long) < 250 and "\x1b" not in long


def test_a_tampered_checkpoint_is_refused_before_any_work(tmp_path, finished, monkeypatch):
    """prepare() reads the whole checkpoint: the run (learner, model, compiled code) never starts."""
    out = tampered(finished, tmp_path / "run", lambda m: m["curve"][0].update(eval_games=0))

    def no_work(*args, **kwargs):
        raise AssertionError("the run started")

    monkeypatch.setattr(fsmarena.rl.train, "TrainingRun", no_work)
    config = TrainConfig("q-learning", episodes=400, eval_games=50)
    with pytest.raises(
        FsmarenaError, match="'eval_games' must be a whole number in \\[1, 1,000,000,000\\] \\(MAX_GAMES\\), got 0"
    ):
        train(DivideTheDollar(), config, out=out, resume=True)
