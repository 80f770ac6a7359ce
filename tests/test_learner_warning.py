"""``fsmarena train`` warns, in one line, when a run ends not clearly better than ``random``."""

from __future__ import annotations

import json

import numpy as np
from cli_helpers import run_cli

from fsmarena.games import get_game
from fsmarena.games.match import play_match
from fsmarena.games.players import RandomPlayer, TablePolicy
from fsmarena.rl.evaluation import streams
from fsmarena.rl.learning_check import not_clearly_better_than_random
from fsmarena.rl.results import TrainResult
from fsmarena.rl.train import TrainConfig


def _result(game, algo, row):
    config = TrainConfig(algo, episodes=10, eval_games=row["eval_games"]).resolved(game)
    table = np.zeros(game.n_states, dtype=np.int64)
    counts = np.zeros((game.n_states, game.n_actions), dtype=np.int64)
    curve = [{"games": 10, "iteration": "", **row}]
    return TrainResult(TablePolicy(table), np.zeros(counts.shape), counts, curve, 10, 0.0, config)


def _baseline(game, games, seed, rival):
    """random in the learner's place on the curve's deals (common random numbers)."""
    stats = play_match(game, RandomPlayer(), rival, games, streams(seed)[1])
    return stats.wins / stats.games if rival is not None else stats.score / stats.games


def test_the_warning_compares_the_final_interval_with_random_in_the_learners_place():
    game = get_game("dtd")
    base = _baseline(game, 2000, 7, RandomPlayer())
    assert 0.3 < base < 0.6
    row = {"opponent": "random", "eval_games": 2000, "win": base + 0.02, "win_ci_high": base + 0.04}
    low = _result(game, "sarsa", {**row, "win_ci_low": base - 1e-9})
    warning = not_clearly_better_than_random(game, low, 7)
    assert warning and f"{base:.1%} of random in its place" in warning and "dtd" in warning
    high = _result(game, "sarsa", {**row, "win_ci_low": base + 1e-9})
    assert not_clearly_better_than_random(game, high, 7) is None
    other = _result(game, "sarsa", {**row, "opponent": "always-large", "win_ci_low": 0.0})
    assert not_clearly_better_than_random(game, other, 7) is None  # no random on the curve: no check


def test_a_one_player_game_compares_mean_scores():
    game = get_game("421")
    base = _baseline(game, 3000, 2, None)
    row = {"opponent": "", "eval_games": 3000, "mean_score": base, "score_ci_high": base + 0.1}
    assert "mean score" in not_clearly_better_than_random(game, _result(game, "mc", {**row, "score_ci_low": base}), 2)
    assert not_clearly_better_than_random(game, _result(game, "mc", {**row, "score_ci_low": base + 1e-6}), 2) is None


def test_train_warns_in_one_line_exactly_when_the_final_interval_does_not_clear_random(capsys, tmp_path):
    """Two real runs: SARSA in self-play (whose opponent drifts: seed 0 ends below random) and
    20,000 games of Monte Carlo ES; each warns exactly when its interval does not clear random."""
    runs = (
        ("sarsa", 200_000, 0, ["--self-play-every", 50_000, "--eval-every", 200_000]),
        ("mc", 20_000, 3, []),
    )
    warned = []
    for algo, episodes, seed, extra in runs:
        code, text, err = run_cli(
            capsys, "train", "dtd", "--algo", algo, "--episodes", episodes, "--eval-games", 4000, "--seed", seed,
            *extra, "--out", tmp_path / algo, "--json",
        )  # fmt: skip
        assert code == 0
        summary = json.loads(text)
        final = summary["final"][0]
        expected = final["win_ci_low"] <= _baseline(get_game("dtd"), 4000, seed, RandomPlayer())
        assert ("warning" in err) == expected, (algo, final, err)
        assert (summary["warning"] is not None) == expected and (not expected or summary["warning"] in err)
        if expected:
            assert err.count("\n") == 1 and err.startswith("fsmarena train: warning: the final policy's win rate")
        warned.append(expected)
    assert warned == [True, False]  # both branches are exercised
