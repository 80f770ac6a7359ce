"""The network learner (``--algo mlp``) on any game with features: divide-the-dollar, 421, 31.

Oracles: a resumed run against an uninterrupted one (bit-identical weights and files), a
modest divide-the-dollar run that must beat ``random`` and its own untrained start (it can
fail: an update with the wrong sign or a broken mask loses to random), the network's update
moving only the taken action, and the size limits against a count of weights by hand.
31's own part (its two heads, its potential, its old player files): test_thirtyone_agent.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sklearn")

from cli_helpers import run_cli  # noqa: E402

from fsmarena.errors import FsmarenaError  # noqa: E402
from fsmarena.figures.network import plot_metrics  # noqa: E402
from fsmarena.games.arena import play_games  # noqa: E402
from fsmarena.games.dice421.game import Dice421  # noqa: E402
from fsmarena.games.dtd.game import DivideTheDollar  # noqa: E402
from fsmarena.games.players import RandomPlayer, load_player  # noqa: E402
from fsmarena.games.thirtyone.game import ThirtyOne  # noqa: E402
from fsmarena.limits import MAX_MLP_PARAMETERS  # noqa: E402
from fsmarena.rl import registry  # noqa: E402
from fsmarena.rl.network import QNetwork, check_network_size, network_parameters  # noqa: E402
from fsmarena.rl.network_agent import NetworkAgent, network_spec  # noqa: E402
from fsmarena.rl.network_training import NetworkLearner, NetworkSettings, Trainer, train_network  # noqa: E402

SMALL = dict(games=600, batch=150, hidden=(8,), eval_every=300, eval_games=60, rolling=200, seed=5)


def weights(trainer: Trainer) -> list[np.ndarray]:
    return [array for net in trainer.agent.nets.values() for array in net.arrays().values()]


def test_the_registry_names_the_learner_and_its_options():
    entry = registry.learner("mlp", "network")
    assert entry.target == "fsmarena.rl.network_training:NetworkLearner"
    assert {"hidden", "learning_rate", "epochs", "reward"} <= set(entry.settings)
    assert "Pseudocode" in (NetworkLearner.__doc__ or "")


@pytest.mark.parametrize("game", [DivideTheDollar(), Dice421(), ThirtyOne()], ids=lambda g: g.name)
def test_trains_on_every_kind_of_game_and_writes_its_files(tmp_path, game):
    trainer = train_network(game, NetworkSettings.of(game, **SMALL), tmp_path / "run", draw=plot_metrics)
    for name in ("policy.json", "metrics.csv", "curve.csv", "metrics.png", "metrics.pdf", "checkpoint.npz", "run.json"):
        assert (tmp_path / "run" / name).exists(), name
    assert [row["games"] for row in trainer.curve if row["opponent"] in ("", "random", "greedy")] == [0, 300, 600]
    assert len(trainer.metrics) == 4 and trainer.done == 600
    loaded = load_player(tmp_path / "run" / "policy.json", game)
    assert isinstance(loaded, NetworkAgent)
    seats = [loaded] + [RandomPlayer()] * (game.n_seats - 1)
    play_games(game, seats, 30, np.random.default_rng(0), check_legal=True)
    if game.n_seats == 1:  # a solo curve: mean scores, no win rates
        assert all(row["opponent"] == "" and row["win"] == "" for row in trainer.curve)


def test_one_head_over_every_action_unless_the_game_declares_its_own():
    assert [(h.name, h.first, h.n_actions, h.phase) for h in network_spec(DivideTheDollar()).heads] == [
        ("q", 0, 3, None)
    ]
    assert [h.name for h in network_spec(ThirtyOne()).heads] == ["turn", "swap"]
    assert NetworkSettings.of(ThirtyOne()).opponents == ("greedy",)  # 31 recommends its builtin
    assert NetworkSettings.of(DivideTheDollar()).opponents == ("random",)
    assert NetworkSettings.of(ThirtyOne()).reward == "segment" and NetworkSettings.of(Dice421()).reward == "game"


def test_resume_gives_the_weights_of_an_uninterrupted_run(tmp_path):
    game = DivideTheDollar()
    settings = NetworkSettings.of(game, **SMALL)
    full = train_network(game, settings, tmp_path / "full")
    first = Trainer(game, settings, [RandomPlayer()])
    first.run_batch(150)
    first.run_batch(150)
    first.save(tmp_path / "mid.npz")
    again = Trainer(game, settings, [RandomPlayer()])
    again.restore(tmp_path / "mid.npz", [RandomPlayer()])
    for trainer in (first, again):
        trainer.run_batch(150)
        trainer.run_batch(150)
    for x, y, z in zip(weights(first), weights(again), weights(full)):
        assert np.array_equal(x, y) and np.array_equal(x, z)
    with pytest.raises(FsmarenaError, match="other training settings: games was 600, now 900"):
        Trainer(game, NetworkSettings.of(game, **{**SMALL, "games": 900}), [RandomPlayer()]).restore(
            tmp_path / "full" / "checkpoint.npz", [RandomPlayer()]
        )
    other = Trainer(Dice421(), NetworkSettings.of(Dice421(), **SMALL), [])
    with pytest.raises(FsmarenaError):  # another game's checkpoint
        other.restore(tmp_path / "full" / "checkpoint.npz", [])


CLI = ["--episodes", "400", "--batch", "100", "--hidden", "8", "--eval-every", "200", "--eval-games", "40"]


@pytest.mark.slow
def test_cli_resumes_an_interrupted_run_exactly(capsys, tmp_path, monkeypatch):
    code, out, _err = run_cli(capsys, "train", "dtd", "--algo", "mlp", *CLI, "--out", tmp_path / "full", "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["algo"] == "mlp" and summary["games"] == 400 and summary["config"]["reward"] == "game"
    real = Trainer.run_batch
    calls = {"n": 0}

    def failing(self, size):
        calls["n"] += 1
        if calls["n"] == 3:  # the last checkpoint is at 200 games
            raise KeyboardInterrupt
        return real(self, size)

    monkeypatch.setattr(Trainer, "run_batch", failing)
    code, _out, _err = run_cli(capsys, "train", "dtd", "--algo", "mlp", *CLI, "--out", tmp_path / "cut")
    assert code != 0 and calls["n"] == 3
    monkeypatch.setattr(Trainer, "run_batch", real)
    code, _out, _err = run_cli(capsys, "train", "dtd", "--algo", "mlp", *CLI, "--out", tmp_path / "cut", "--resume")
    assert code == 0
    for name in ("policy.json", "curve.csv"):
        assert (tmp_path / "cut" / name).read_text() == (tmp_path / "full" / name).read_text(), name


def test_beats_random_on_divide_the_dollar_with_a_modest_budget(tmp_path):
    game = DivideTheDollar()
    settings = NetworkSettings.of(
        game,
        games=20_000,
        batch=1_000,
        hidden=(32,),
        epsilon=0.2,
        epsilon_final=0.0,
        eval_every=20_000,
        eval_games=2_000,
        seed=11,
    )
    trainer = train_network(game, settings, None)
    start, end = trainer.curve[0], trainer.curve[-1]
    assert end["games"] == 20_000 and end["opponent"] == "random"
    assert end["win_ci_low"] > 0.6
    assert end["win_ci_low"] > start["win_ci_high"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--episodes", "100", "--alpha", "0.1"], "--alpha does not apply to the network learner"),
        (["--episodes", "100", "--checkpoint-seconds", "5"], "--checkpoint-seconds does not apply"),
        (["--episodes", "100", "--reward", "segment"], "dtd has no segments"),
        (["--episodes", "100", "--opponent", "nobody"], "unknown player 'nobody'"),
        (["--episodes", "100", "--hidden=4096,4096"], "the limit is 500,000 (MAX_MLP_PARAMETERS)"),
        (["--episodes", "100", "--resume"], "does not exist"),
        ([], "--episodes must be a positive whole number"),
    ],
)
def test_cli_bad_input_is_one_line_and_writes_nothing(capsys, tmp_path, extra, message):
    out = tmp_path / "out"
    code, _stdout, err = run_cli(capsys, "train", "dtd", "--algo", "mlp", *extra, "--out", out)
    assert code == 2 and err.startswith("fsmarena: error:") and err.count("\n") == 1
    assert message in err
    assert not out.exists()


def test_one_player_games_take_no_opponent(capsys, tmp_path):
    code, _out, err = run_cli(
        capsys, "train", "421", "--algo", "mlp", "--episodes", "10", "--opponent", "random", "--out", tmp_path / "o"
    )
    assert code == 2 and "one-player game: opponents do not apply" in err


def test_fit_moves_the_taken_action_only():
    net = QNetwork(5, 3, (16,), 1e-2, seed=3)
    rng = np.random.default_rng(0)
    x = rng.random((512, 5))
    before = net.predict(x)
    actions = np.zeros(512, dtype=np.int64)
    for _ in range(30):
        net.fit(x, actions, np.ones(512), epochs=1)
    after = net.predict(x)
    assert np.abs(after[:, 0] - 1).mean() < 0.5 * np.abs(before[:, 0] - 1).mean()
    assert np.abs(after[:, 1:] - before[:, 1:]).mean() < 0.5 * np.abs(after[:, 0] - before[:, 0]).mean()


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("outputs, hidden", [(1, (8,)), (3, (16, 8))])
def test_predict_is_scikit_learns_forward_pass_bit_for_bit(outputs, hidden):
    """The network's own forward pass (no input validation) gives scikit-learn's predictions
    exactly, after training too, one output or several; training warns of nothing (one output
    is given to scikit-learn as a flat vector, not as a column it would complain of)."""
    net = QNetwork(6, outputs, hidden, 1e-2, seed=5)
    rng = np.random.default_rng(1)
    x = rng.random((300, 6))
    net.fit(x, rng.integers(0, outputs, 300), rng.random(300), epochs=2)
    for rows in (x, x[:1]):  # a one-row batch takes another BLAS path: compared as such
        assert np.array_equal(net.predict(rows), net.model.predict(rows).reshape(len(rows), outputs))


def test_network_size_limits_keep_the_policy_file_readable():
    """The largest network the limits allow has at most MAX_MLP_PARAMETERS weights and biases,
    and one parameter more is refused; every game's settings go through the same check."""
    inputs, outputs = len(ThirtyOne.feature_names), 4
    assert network_parameters((8,), inputs, outputs) == (inputs + 1) * 8 + 9 * outputs
    width = next(h for h in range(1, 5000) if network_parameters((h, h), inputs, outputs) > MAX_MLP_PARAMETERS)
    check_network_size((width - 1, width - 1), inputs, outputs)
    with pytest.raises(FsmarenaError, match="MAX_MLP_PARAMETERS"):
        check_network_size((width, width), inputs, outputs)
    with pytest.raises(FsmarenaError, match="MAX_MLP_PARAMETERS"):
        NetworkSettings.of(ThirtyOne(), hidden=(width, width))
