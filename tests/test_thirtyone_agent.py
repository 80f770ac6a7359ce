"""The network learner on 31: rewards, the two heads, player files, checkpoints, learning.

Oracles: the lives potential against closed-form coin-flip probabilities, round returns worked
out by hand, the potential of the final lives equal to the game's reward (so segment returns
telescope to it), identical actions after a save/load round trip (and from a file of the
earlier ``thirtyone-mlp`` kind), a resumed run against an uninterrupted one (bit-identical
weights), and a short training run that must beat its own untrained start against greedy.
The learner itself on every game: tests/test_network_learner.py.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

pytest.importorskip("sklearn")

from cli_helpers import run_cli  # noqa: E402

from fsmarena.errors import FsmarenaError  # noqa: E402
from fsmarena.figures.network import plot_metrics  # noqa: E402
from fsmarena.games.arena import play_games  # noqa: E402
from fsmarena.games.builtin_player import BuiltinPlayer  # noqa: E402
from fsmarena.games.players import RandomPlayer, load_player, resolve_player, save_player  # noqa: E402
from fsmarena.games.thirtyone.agent import NETWORK, MLPAgent  # noqa: E402
from fsmarena.games.thirtyone.game import ThirtyOne, ThirtyOneConfig  # noqa: E402
from fsmarena.games.thirtyone.potential import LivesPotential  # noqa: E402
from fsmarena.rl.network_agent import NetworkAgent  # noqa: E402
from fsmarena.rl.network_training import NetworkSettings, Trainer, train_network  # noqa: E402
from fsmarena.rl.segments import segment_returns  # noqa: E402


def small_agent(game, seed=0, hidden=(8,)):
    """A network player of ``game`` with 31's two heads, untrained."""
    return Trainer(game, NetworkSettings.of(game, hidden=hidden, seed=seed), [BuiltinPlayer("greedy")]).agent


# ---- rewards ------------------------------------------------------------------------------------


def coin_flip_win(a: int, b: int) -> float:
    """P(the other player loses b lives before I lose a), one fair coin per round."""
    return sum(math.comb(b - 1 + k, k) / 2 ** (b + k) for k in range(a))


def test_lives_potential_matches_coin_flip_probabilities():
    potential = LivesPotential.of(ThirtyOne())
    for a in range(0, 4):
        for b in range(0, 4):
            expected = -1.0 if a == 0 else 1.0 if b == 0 else 2 * coin_flip_win(a, b) - 1
            assert potential.value(np.array([[a, b]]), 0)[0] == pytest.approx(expected)
            assert potential.value(np.array([[b, a]]), 1)[0] == pytest.approx(expected)
    three = LivesPotential.of(ThirtyOne(ThirtyOneConfig(players=3)))
    assert three.value(np.array([[1, 1, 1]]), 0)[0] == pytest.approx(2 / 3 - 1)  # symmetric: 1/3
    assert three.value(np.array([[2, 0, 1]]), 0)[0] == pytest.approx(0.5)  # 1v1 at (2, 1): 3/4


def test_round_returns_by_hand():
    potential = LivesPotential.of(ThirtyOne())
    v = {(3, 3): 0.0, (3, 2): 2 * coin_flip_win(3, 2) - 1, (2, 3): 2 * coin_flip_win(2, 3) - 1}
    # game 0: round 0 (3 decisions, lives 3-3), round 2 (2 decisions, lives 3-2), then it wins 3-0
    # game 1: round 0 (1 decision, 3-3), lost 0-3 at the end
    game = np.array([0, 0, 0, 0, 0, 1])
    rnd = np.array([0, 0, 0, 2, 2, 0])
    lives = np.array([[3, 3]] * 3 + [[3, 2]] * 2 + [[3, 3]])
    final = np.array([[3, 0], [0, 3]])
    returns, reward, sizes = round_returns(game, rnd, lives, final, 0, potential)
    assert list(sizes) == [3, 2, 1]
    assert reward == pytest.approx([v[(3, 2)] - v[(3, 3)], 1 - v[(3, 2)], -1 - v[(3, 3)]])
    r0, r1, r2 = reward
    assert returns == pytest.approx([r0 / 4, r0 / 2, r0, r1 / 2, r1, r2])
    # the same decisions seen from seat 1 (lives columns swapped)
    _, reward1, _ = round_returns(game, rnd, lives[:, ::-1], final[:, ::-1], 1, potential)
    assert reward1 == pytest.approx(reward)


def round_returns(game, rnd, lives, final_lives, seat, potential, gamma=0.5):
    """The learner's segment returns with 31's rounds and lives potential (rl.segments)."""
    return segment_returns(game, rnd, potential.value(lives, seat), potential.value(final_lives[game], seat), gamma)


@pytest.mark.parametrize("players", [2, 3])
def test_the_potential_of_the_final_lives_is_the_reward(players):
    """The learner ends a game's last round in its reward: the potential of the final lives."""
    game = ThirtyOne(ThirtyOneConfig(players=players))
    outcome = play_games(
        game,
        [BuiltinPlayer("greedy"), RandomPlayer(), BuiltinPlayer("greedy")][:players],
        200,
        np.random.default_rng(1),
    )
    potential = LivesPotential.of(game)
    for seat in range(players):
        assert np.array_equal(potential.value(outcome.scores.astype(np.int64), seat), outcome.rewards[:, seat])


def test_the_heads_split_the_decisions_by_phase():
    """The turn network decides draws and knocks, the swap network which card goes."""
    game = ThirtyOne()
    agent = small_agent(game)
    assert [h.name for h in agent.heads] == ["turn", "swap"] and agent.heads == NETWORK.heads
    seen = {"turn": set(), "swap": set()}
    real = agent.act

    def watched(obs, memory, rows, rng):
        actions = real(obs, memory, rows, rng)
        seen[agent.heads[agent._head(obs)].name].update(game.action_names[a] for a in actions)
        return actions

    agent.act = watched
    agent.epsilon = 1.0
    play_games(game, [agent, BuiltinPlayer("greedy")], 100, np.random.default_rng(2), check_legal=True)
    assert seen["turn"] == {"draw_deck", "draw_discard", "knock"}
    assert seen["swap"] == {"discard_0", "discard_1", "discard_2", "discard_drawn"}


# ---- playing ------------------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.0, 1.0])
def test_agent_plays_only_legal_actions(epsilon):
    for players in (2, 3):
        game = ThirtyOne(ThirtyOneConfig(players=players))
        agent = small_agent(game)
        agent.epsilon = epsilon
        seats = [agent, BuiltinPlayer("greedy"), RandomPlayer()][:players]
        outcome = play_games(game, seats, 50, np.random.default_rng(players), check_legal=True)
        assert np.all((outcome.rewards == 1).sum(axis=1) == 1)


def test_player_file_round_trip_and_hostile_files(tmp_path):
    game = ThirtyOne()
    agent = small_agent(game, seed=4)
    path = tmp_path / "agent.json"
    save_player(agent, game, path)
    loaded = resolve_player(str(path), game)
    assert type(loaded) is NetworkAgent
    a = play_games(game, [agent, BuiltinPlayer("greedy")], 40, np.random.default_rng(9))
    b = play_games(game, [loaded, BuiltinPlayer("greedy")], 40, np.random.default_rng(9))
    assert np.array_equal(a.scores, b.scores)
    data = json.loads(path.read_text())
    old = tmp_path / "old.json"  # a file of the kind earlier versions wrote: the same fields
    old.write_text(json.dumps({**data, "kind": "thirtyone-mlp"}))
    legacy = load_player(old, game)
    assert isinstance(legacy, MLPAgent)
    c = play_games(game, [legacy, BuiltinPlayer("greedy")], 40, np.random.default_rng(9))
    assert np.array_equal(a.scores, c.scores)

    def rejected(mutate):
        bad = json.loads(json.dumps(data))
        mutate(bad)
        target = tmp_path / "bad.json"
        target.write_text(json.dumps(bad))
        with pytest.raises(FsmarenaError):
            load_player(target, game)

    rejected(lambda d: d["turn"]["weights"][0].pop())  # wrong shape
    rejected(lambda d: d["swap"]["biases"][-1].append(0.0))  # wrong output count
    rejected(lambda d: d["turn"].__setitem__("hidden", [8, 8]))  # layers do not match
    rejected(lambda d: d["turn"].__setitem__("hidden", [10**9]))  # absurd size
    rejected(lambda d: d.__setitem__("features", d["features"][:-1]))  # other feature list
    rejected(lambda d: d["turn"]["weights"][0][0].__setitem__(0, "x"))  # not a number
    rejected(lambda d: d.pop("swap"))  # missing network


# ---- training -----------------------------------------------------------------------------------

SMALL = dict(games=600, batch=150, hidden=(8,), eval_every=300, eval_games=60, rolling=200, seed=5)
PANEL = [BuiltinPlayer("greedy")]


def settings(**changes):
    return NetworkSettings.of(ThirtyOne(), **{**SMALL, **changes})


def test_outputs_and_resume_equals_an_uninterrupted_run(tmp_path):
    game = ThirtyOne()
    full = train_network(game, settings(), tmp_path / "full", draw=plot_metrics)
    for name in ("policy.json", "metrics.csv", "curve.csv", "metrics.png", "metrics.pdf", "checkpoint.npz", "run.json"):
        assert (tmp_path / "full" / name).exists(), name
    header = (tmp_path / "full" / "metrics.csv").read_text().splitlines()[0].split(",")
    assert header == [
        "games",
        "epsilon",
        "turn_loss",
        "swap_loss",
        "mean_segment_reward",
        "segment_length",
        "rolling_mean_reward",
        "rolling_win_rate",
        "seconds",
    ]
    assert len(full.metrics) == 4 and [c["games"] for c in full.curve] == [0, 300, 600]
    with pytest.raises(FsmarenaError):  # a checkpoint is only continued with its own settings
        Trainer(game, settings(games=900), [BuiltinPlayer("greedy")]).restore(
            tmp_path / "full" / "checkpoint.npz", PANEL
        )
    with pytest.raises(FsmarenaError):  # and never silently overwritten
        train_network(game, settings(), tmp_path / "full")
    # stop after two batches, save, restore into a fresh trainer and continue: same weights
    first = Trainer(game, settings(), [BuiltinPlayer("greedy")])
    first.run_batch(150)
    first.run_batch(150)
    first.save(tmp_path / "mid.npz")
    again = Trainer(game, settings(), [BuiltinPlayer("greedy")])
    again.restore(tmp_path / "mid.npz", PANEL)
    for trainer in (first, again):
        trainer.run_batch(150)
        trainer.run_batch(150)
    for name in ("turn", "swap"):
        for x, y in zip(first.agent.nets[name].arrays().values(), again.agent.nets[name].arrays().values()):
            assert np.array_equal(x, y)
    for x, y in zip(full.agent.nets["turn"].arrays().values(), first.agent.nets["turn"].arrays().values()):
        assert np.array_equal(x, y)  # same seed, same batches: the full run is the same run


def test_bad_settings_and_files(tmp_path):
    game = ThirtyOne()
    for bad in (
        {"games": 0},
        {"batch": -1},
        {"hidden": ()},
        {"gamma": 0.0},
        {"epsilon": 1.5},
        {"learning_rate": 2.0},
        {"opponents": ()},
        {"hidden": (4097,)},
        {"hidden": (4,) * 9},
        {"hidden": (1000, 1000)},
    ):
        with pytest.raises(FsmarenaError):
            settings(**bad)
    with pytest.raises(FsmarenaError):
        Trainer(game, settings(), [BuiltinPlayer("greedy")]).restore(tmp_path / "missing.npz", PANEL)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(FsmarenaError):
        Trainer(game, settings(), [BuiltinPlayer("greedy")]).restore(tmp_path / "junk.npz", PANEL)


@pytest.mark.slow
def test_training_beats_the_untrained_network_against_greedy(tmp_path):
    game = ThirtyOne()
    trainer = train_network(
        game,
        NetworkSettings.of(game, games=30_000, batch=2_000, eval_every=30_000, eval_games=4_000, seed=7),
        tmp_path / "run",
    )
    start, end = trainer.curve[0], trainer.curve[-1]
    assert end["win_ci_low"] > start["win_ci_high"] + 0.1


# ---- fsmarena train thirtyone --algo mlp ----------------------------------------------------------

CLI_SMALL = [
    "--episodes",
    "300",
    "--batch",
    "100",
    "--hidden",
    "8",
    "--eval-every",
    "150",
    "--eval-games",
    "30",
    "--seed",
    "3",
]


@pytest.mark.slow
def test_cli_trains_the_mlp_agent_and_resumes_an_interrupted_run_exactly(capsys, tmp_path, monkeypatch):
    code, out, _err = run_cli(
        capsys, "train", "thirtyone", "--algo", "mlp", *CLI_SMALL, "--out", tmp_path / "full", "--json"
    )
    assert code == 0
    summary = json.loads(out)
    assert summary["games"] == 300 and summary["config"]["hidden"] == [8] and summary["config"]["seed"] == 3
    assert [row["opponent"] for row in summary["final"]] == ["greedy"]  # the seed's opponent by default
    for name in ("policy.json", "metrics.csv", "curve.csv", "metrics.png", "checkpoint.npz", "run.json"):
        assert (tmp_path / "full" / name).exists(), name
    curve = (tmp_path / "full" / "curve.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in curve[1:]] == ["0", "150", "300"]
    assert isinstance(load_player(tmp_path / "full" / "policy.json", ThirtyOne()), NetworkAgent)

    # interrupted after the third batch (the last checkpoint is at 150 games), then resumed
    real = Trainer.run_batch
    calls = {"n": 0}

    def failing(self, size):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(self, size)

    monkeypatch.setattr(Trainer, "run_batch", failing)
    code, _out, _err = run_cli(capsys, "train", "thirtyone", "--algo", "mlp", *CLI_SMALL, "--out", tmp_path / "cut")
    assert code != 0 and calls["n"] == 3
    monkeypatch.setattr(Trainer, "run_batch", real)
    code, _out, _err = run_cli(
        capsys, "train", "thirtyone", "--algo", "mlp", *CLI_SMALL, "--out", tmp_path / "cut", "--resume"
    )
    assert code == 0
    for name in ("policy.json", "curve.csv"):
        assert (tmp_path / "cut" / name).read_text() == (tmp_path / "full" / name).read_text(), name


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--episodes", "100", "--alpha", "0.1"], "--alpha does not apply to the network learner (mlp)"),
        (["--episodes", "100", "--learner-seat", "1"], "--learner-seat does not apply to the network learner (mlp)"),
        (["--episodes", "100", "--learning-rate", "2"], "learning_rate must be in (0, 1)"),
        (["--episodes", "100", "--epsilon", "1.5"], "epsilon must be a number in [0, 1]"),
        (["--episodes", "100", "--opponent", "nobody"], "unknown player 'nobody'"),
        (["--episodes", "100", "--eval-panel", "greedy", "nobody"], "unknown player 'nobody'"),
        (["--episodes", "100", "--resume"], "does not exist"),
        (["--episodes", "100", "--hidden", "8,0"], "layer sizes must be positive"),
        (
            ["--episodes", "100", "--hidden=100000,100000"],
            "a layer of 100,000 units; the limit is 4,096 (MAX_HIDDEN_UNITS)",
        ),
        (["--episodes", "100", "--hidden=4097"], "the limit is 4,096 (MAX_HIDDEN_UNITS)"),
        (["--episodes", "100", "--hidden=" + ",".join(["4"] * 9)], "9 layers; the limit is 8 (MAX_HIDDEN_LAYERS)"),
        (["--episodes", "100", "--hidden=4096,4096"], "the limit is 500,000 (MAX_MLP_PARAMETERS)"),
        ([], "--episodes must be a positive whole number"),
    ],
)
def test_cli_bad_input_is_one_line_and_writes_nothing(capsys, tmp_path, extra, message):
    out = tmp_path / "out"
    code, _stdout, err = run_cli(capsys, "train", "thirtyone", "--algo", "mlp", *extra, "--out", out)
    assert code == 2
    assert err.startswith("fsmarena: error:") and err.count("\n") == 1
    assert message in err
    assert not out.exists()


def test_cli_keeps_neural_options_away_from_tabular_learners_and_other_games(capsys, tmp_path):
    code, _out, err = run_cli(
        capsys, "train", "thirtyone", "--algo", "sarsa", "--episodes", 10, "--hidden", "8", "--out", tmp_path / "out"
    )
    assert code == 2 and "--hidden is an option of the network learner" in err
    code, _out, err = run_cli(
        capsys, "train", "dtd", "--algo", "mlp", "--episodes", 10, "--reward", "segment", "--out", tmp_path / "out"
    )
    assert code == 2 and "dtd has no segments" in err
    code, _out, err = run_cli(
        capsys, "train", "thirtyone", "--algo", "mcc", "--episodes", 10, "--out", tmp_path / "out"
    )
    assert code == 2 and "mlp" in err  # the known list names the network learner
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"metrics": [None]}, "metrics row 0 must be an object"),
        ({"metrics": [{"games": 150}]}, "metrics row 0 must be an object with the keys games, epsilon"),
        ({"metric": ("epsilon", 2.0)}, "metrics row 0: 'epsilon' must be a number in \\[0, 1\\]"),
        ({"metric": ("seconds", None)}, "'seconds' must be a number in \\[0, inf\\], got None"),
        ({"metric": ("games", 10**6)}, "'games' must be a whole number in \\[0, 300\\]"),
        ({"curve": [[0, "greedy"]]}, "curve row 0 must be an object"),
        ({"table": ("turn_w0", np.int64)}, "table 'turn_w0' has type int64; expected float"),
        ({"table": ("swap_opt_t", np.float64)}, "table 'swap_opt_t' has type float64; expected signed integer"),
        ({"table": ("turn_opt_v0", -1.0)}, "second moments\\) holds negative entries"),
    ],
)
def test_a_tampered_checkpoint_is_refused_before_anything_is_taken_over(tmp_path, change, message):
    """Rows are checked in full (keys, types, ranges) and tables keep their dtype kind."""
    game = ThirtyOne()
    trainer = Trainer(game, settings(), [BuiltinPlayer("greedy")])
    trainer.run_batch(150)
    trainer.run_batch(150)
    trainer.save(tmp_path / "c.npz")
    with np.load(tmp_path / "c.npz") as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(arrays["meta"].tobytes())
    for key, value in change.items():
        if key == "metric":
            meta["metrics"][0][value[0]] = value[1]
        elif key == "table":
            name, kind = value
            arrays[f"table_{name}"] = (
                arrays[f"table_{name}"] * kind if isinstance(kind, float) else arrays[f"table_{name}"].astype(kind)
            )
        else:
            meta[key] = value
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(tmp_path / "c.npz", **arrays)
    with pytest.raises(FsmarenaError, match=message):
        Trainer(game, settings(), [BuiltinPlayer("greedy")]).restore(tmp_path / "c.npz", PANEL)
