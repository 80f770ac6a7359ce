"""The deep RL families (fsmarena.deep): Stable-Baselines3 agents as study competitors.

Without the ``[deep]`` extra: the method's check asks for it in one line, nothing imports torch,
the ``policy-network`` player file reads, plays and refuses damaged files, and bad parameters are
refused in one line.  With it (skipped otherwise): the exported player chooses what
Stable-Baselines3 itself chooses, the same seed gives the same weights and results, training
stops after exactly its budget of games, and deep families run in studies end to end, their
stored players reading back without pickle and equal to a retraining from the stored seed.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fsmarena.cli import main
from fsmarena.deep import extra
from fsmarena.deep.player import Layer, PolicyNetworkPlayer
from fsmarena.errors import FsmarenaError
from fsmarena.extras import install_hint
from fsmarena.fileio import read_json
from fsmarena.games import get_game
from fsmarena.games.base import Observation
from fsmarena.games.match import play_match
from fsmarena.games.players import Player, RandomPlayer, load_player, player_from_json, player_to_json, save_player
from fsmarena.methods.base import MethodContext, check_method, get_method, planned_games, require_method
from fsmarena.studies.catalogue import get_study, load_study_toml

ROOT = Path(__file__).resolve().parent.parent
HAS_TORCH = find_spec("torch") is not None


@pytest.fixture
def sb3() -> None:
    """Skip a test that trains unless the ``[deep]`` extra is installed."""
    pytest.importorskip("torch")
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")


def _ctx(game: str, params: dict[str, Any], seed: int = 0, label: str = "deep") -> MethodContext:
    return MethodContext(get_game(game), params, seed, label)


def _random_player(game_name: str, hidden: list[int], seed: int, activation: str = "tanh") -> PolicyNetworkPlayer:
    game = get_game(game_name)
    sizes = [len(game.feature_names), *hidden, game.n_actions]
    rng = np.random.default_rng(seed)
    layers = [Layer(rng.normal(size=(a, b)), rng.normal(size=b)) for a, b in zip(sizes, sizes[1:])]
    return PolicyNetworkPlayer(game.feature_names, layers, activation, label="net")


def _decisions(game_name: str, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` decisions of the Gymnasium environment (learner's seat, random legal play):
    their features as fsmarena shows them (float64) and their legal masks."""
    from fsmarena.games.env_gymnasium import GymGameEnv

    env = GymGameEnv(get_game(game_name))
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    features: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    while len(features) < count:
        mask = env.action_masks()
        features.append(obs["features"].copy())
        masks.append(mask.copy())
        obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if done:
            obs, _ = env.reset()
    return np.array(features), np.array(masks)


def _played(player: PolicyNetworkPlayer, features: np.ndarray, masks: np.ndarray) -> np.ndarray:
    obs = Observation(len(features), masks.shape[1], features=features, mask=masks)
    return player.act(obs, None, None, np.random.default_rng(0))


# ---- without the extra ----------------------------------------------------------------------------


@pytest.mark.skipif(HAS_TORCH, reason="checks the installation without the [deep] extra")
def test_without_the_extra_a_study_is_read_and_planned_and_a_run_asks_for_it_first(tmp_path, capsys):
    settings_found = check_method("deep", _ctx("dtd", {"algo": "maskable-ppo", "episodes": 100}))
    assert settings_found["versions"]["torch"] == "not installed" and settings_found["episodes"] == 100
    plan = get_study("vautour-deep").plan("paper", level=2000)
    assert plan.competitor("maskable-ppo").params["episodes"] == 2000
    with pytest.raises(FsmarenaError) as info:
        require_method("deep")
    assert install_hint("deep") in str(info.value) and "\n" not in str(info.value)
    out = tmp_path / "run"
    assert main(["study", "vautour-deep", "--scale", "test", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert install_hint("deep") in err and err.count("\n") == 1
    assert not out.exists()  # asked before anything is written


def test_a_missing_package_is_named_with_the_install_command(monkeypatch):
    monkeypatch.setattr(extra, "find_spec", lambda name: None if name == "stable_baselines3" else object())
    with pytest.raises(FsmarenaError, match=r"stable_baselines3 is not installed\): pip install -e .*\[deep\]'"):
        require_method("deep")
    assert extra.installed_versions()["stable-baselines3"] == "not installed"


@pytest.mark.slow
def test_the_command_line_the_check_and_the_player_never_import_torch(tmp_path):
    path = tmp_path / "net.json"
    save_player(_random_player("dtd", [4], 1), get_game("dtd"), path)
    script = f"""
import sys
from importlib.util import find_spec
from fsmarena.cli import build_parser
from fsmarena.games import get_game
from fsmarena.games.match import play_match
from fsmarena.games.players import load_player
from fsmarena.methods.base import MethodContext, check_method
build_parser()
game = get_game("dtd")
play_match(game, load_player({str(path)!r}, game), None if game.n_seats == 1 else load_player({str(path)!r}, game), 50, 0)
if find_spec("torch") is not None:
    check_method("deep", MethodContext(game, {{"algo": "dqn", "episodes": 10}}, 0, "x"))
print(sorted(m for m in ("torch", "stable_baselines3", "sb3_contrib") if m in sys.modules))
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "params, message",
    [
        ({"algo": "a2c", "episodes": 10}, "unknown algo 'a2c'"),
        ({"algo": "ppo"}, "missing parameter 'episodes'"),
        ({"algo": "ppo", "episodes": 0}, "'episodes' must be at least 1"),
        ({"algo": "ppo", "episodes": "many"}, "'episodes' has the wrong type"),
        ({"algo": "ppo", "episodes": 10, "learning_rate": 2.0}, "'learning_rate' must be between 0 and 1"),
        ({"algo": "ppo", "episodes": 10, "learning_rate": 0}, "'learning_rate' must be above 0"),
        ({"algo": "ppo", "episodes": 10, "net_arch": [0, 8]}, "'net_arch': layer sizes must be positive"),
        ({"algo": "ppo", "episodes": 10, "net_arch": [5000]}, "'net_arch': a layer of 5,000 units"),
        ({"algo": "ppo", "episodes": 10, "batch_size": 600}, "the limit is its n_steps (512)"),
        ({"algo": "ppo", "episodes": 10, "buffer_size": 100}, "'buffer_size' is not one of ppo's"),
        ({"algo": "dqn", "episodes": 10, "n_epochs": 3}, "'n_epochs' is not one of dqn's"),
        ({"algo": "ppo", "episodes": 10, "lerning_rate": 0.1}, "unknown parameters: lerning_rate"),
        ({"algo": "ppo", "episodes": 10, "activation": "gelu"}, "'activation' must be one of tanh, relu"),
        ({"algo": "ppo", "episodes": 10, "illegal_action": "skip"}, "'illegal_action' must be one of"),
        ({"algo": "maskable-ppo", "episodes": 10, "illegal_action": "lose"}, "never takes an illegal action"),
        ({"algo": "dqn", "episodes": 10, "opponent": "nobody"}, "opponent: unknown player 'nobody'"),
        ({"algo": "dqn", "episodes": 10, "opponents": ["random", "nobody"]}, "opponent: unknown player 'nobody'"),
        ({"algo": "dqn", "episodes": 10, "opponents": []}, "'opponents' must list different player names"),
        ({"algo": "dqn", "episodes": 10, "opponents": ["max", "max"]}, "'opponents' must list different player names"),
        ({"algo": "ppo", "episodes": 10, "opponent": "max", "opponents": ["min"]}, "not opponent and opponents"),
    ],
)
def test_bad_parameters_are_one_line_naming_the_competitor(params, message):
    with pytest.raises(FsmarenaError) as info:
        check_method("deep", _ctx("dtd", params, label="mine"))
    text = str(info.value)
    assert text.startswith("competitor 'mine': ") and message in text and "\n" not in text


def test_the_check_resolves_every_setting_and_the_games_are_the_episodes():
    game = get_game("vautour")
    ppo = check_method("deep", _ctx("vautour", {"algo": "ppo", "episodes": 3000}))
    dqn = check_method("deep", _ctx("vautour", {"algo": "dqn", "episodes": 50, "net_arch": [8]}))
    assert ppo["eval_every"] == 300 and ppo["n_steps"] == 512 and ppo["activation"] == "tanh"
    assert ppo["illegal_action"] == "first-legal" and ppo["opponent"] == "random" and ppo["net_arch"] == [64, 64]
    assert dqn["activation"] == "relu" and dqn["net_arch"] == [8] and "n_steps" not in dqn and "buffer_size" in dqn
    assert planned_games("deep", ppo, game) == 3000 and planned_games("deep", dqn, game) == 50
    pool = check_method("deep", _ctx("vautour", {"algo": "ppo", "episodes": 30, "opponents": ["max", "min"]}))
    assert pool["opponent"] == ["max", "min"]


def test_budget_levels_configure_a_deep_family_like_any_other(tmp_path):
    text = VAUTOUR_STUDY.replace("[scales.test]", "[scales.test]\nlevels = [40, 90]").replace("episodes = 60, ", "")
    (tmp_path / "levels.toml").write_text(text, encoding="utf-8")
    study = load_study_toml(tmp_path / "levels.toml")
    for level in (40, 90):
        plan = study.plan("test", level=level)
        assert {c.name: c.params["episodes"] for c in plan.competitors} == {"mppo": level, "dqn": level}


def test_a_pool_of_opponents_is_what_the_training_environment_draws_from(sb3, monkeypatch):
    from fsmarena.deep import training  # imports torch: only with the extra

    seen = []
    original = training.features_env
    monkeypatch.setattr(training, "features_env", lambda game, pool, *a: seen.append(pool) or original(game, pool, *a))
    params = {
        "algo": "maskable-ppo",
        "episodes": 6,
        "n_steps": 32,
        "batch_size": 16,
        "opponents": ["max", "prize-rank"],
    }
    get_method("deep")(_ctx("vautour", params, seed=3))
    assert seen == [["max", "prize-rank"]]


# ---- the player file ------------------------------------------------------------------------------


def test_the_player_computes_its_layers_and_plays_the_best_legal_action():
    player = _random_player("vautour", [5, 3], 2, activation="relu")
    features, masks = _decisions("vautour", 200, 3)
    hidden = np.maximum(features.astype(np.float32) @ player.layers[0].weights + player.layers[0].biases, 0)
    hidden = np.maximum(hidden @ player.layers[1].weights + player.layers[1].biases, 0)
    outputs = hidden @ player.layers[2].weights + player.layers[2].biases
    expected = [max(np.flatnonzero(m), key=lambda a: o[a]) for o, m in zip(outputs, masks)]
    assert _played(player, features, masks).tolist() == expected
    assert not masks.all()  # the masks mattered


def test_a_player_file_reads_back_exactly_and_plays_the_same(tmp_path):
    game = get_game("vautour")
    player = _random_player("vautour", [6], 4)
    save_player(player, game, tmp_path / "p.json")
    again = load_player(tmp_path / "p.json", game)
    assert isinstance(again, PolicyNetworkPlayer)
    assert player_to_json(again, game) == player_to_json(player, game)
    first = play_match(game, player, RandomPlayer(), 300, 5)
    second = play_match(game, again, RandomPlayer(), 300, 5)
    assert (first.wins, first.draws, first.score) == (second.wins, second.draws, second.score)


def _damaged(data: dict[str, Any], change: str) -> dict[str, Any]:
    data = copy.deepcopy(data)
    layers = data["layers"]
    if change == "shape":
        layers[0]["weights"] = layers[0]["weights"][:-1]
    elif change == "not-a-number":
        layers[1]["biases"][0] = "x"
    elif change == "infinite":
        layers[1]["weights"][0][0] = 1e400
    elif change == "activation":
        data["activation"] = "sigmoid"
    elif change == "features":
        data["features"] = data["features"][::-1]
    elif change == "too-wide":
        layers[0]["biases"] = [0.0] * 5000
    elif change == "no-layers":
        data["layers"] = []
    elif change == "output":
        data["output"] = "probabilities"
    return data


@pytest.mark.parametrize(
    "change", ["shape", "not-a-number", "infinite", "activation", "features", "too-wide", "no-layers", "output"]
)
def test_a_damaged_player_file_is_one_line(change):
    game = get_game("dtd")
    data = json.loads(json.dumps(player_to_json(_random_player("dtd", [4], 6), game)))
    with pytest.raises(FsmarenaError) as info:
        player_from_json(_damaged(data, change), game, "player file p.json")
    assert str(info.value).startswith("player file p.json") and "\n" not in str(info.value)


# ---- with the extra: Stable-Baselines3 as the oracle --------------------------------------------


def _trained_model(algo: str, game_name: str, games: int, seed: int, **params: Any) -> Any:
    """An SB3 model of the family ``algo`` after ``games`` training games (the method's parts)."""
    from fsmarena.deep.algorithms import make_model
    from fsmarena.deep.budget import GameBudget
    from fsmarena.deep.determinism import deterministic_torch
    from fsmarena.deep.environment import features_env

    resolved = check_method("deep", _ctx(game_name, {"algo": algo, "episodes": games, **params}))
    env = features_env(get_game(game_name), illegal_action="lose" if algo == "maskable-ppo" else "first-legal")
    with deterministic_torch():
        model = make_model(resolved, env, seed)
        model.learn(2**40, callback=GameBudget(games, games, lambda _: None))
    return model


@pytest.mark.parametrize("algo", ["maskable-ppo", "ppo", "dqn"])
def test_the_exported_player_chooses_what_stable_baselines3_chooses(sb3, algo):
    import torch

    from fsmarena.deep.adapter import sb3_player

    extra_params = {"n_steps": 128} if algo != "dqn" else {"learning_starts": 100, "train_freq": 1}
    model = _trained_model(algo, "vautour", 40, 11, **extra_params)
    player = sb3_player(model, get_game("vautour"))
    assert isinstance(player, PolicyNetworkPlayer)
    features, masks = _decisions("vautour", 600, 12)
    seen = features.astype(np.float32)  # what the features environment shows SB3
    mine = _played(player, features, masks)
    if algo == "maskable-ppo":
        expected, _ = model.predict(seen, deterministic=True, action_masks=masks)
    else:
        with torch.no_grad():
            if algo == "dqn":
                outputs = model.q_net(torch.as_tensor(seen)).numpy()
            else:
                outputs = model.policy.get_distribution(torch.as_tensor(seen)).distribution.logits.numpy()
        expected = np.where(masks, outputs, -np.inf).argmax(axis=1)
        unmasked, _ = model.predict(seen, deterministic=True)
        legal = masks[np.arange(len(seen)), unmasked]
        assert legal.any() and (mine[legal] == unmasked[legal]).all()  # where SB3's own choice is legal
    assert mine.tolist() == np.asarray(expected).tolist()
    assert len(set(mine.tolist())) > 2  # not a constant policy: the comparison means something


class LastLegal(Player):
    """The last legal action, as a player: what the callable below answers."""

    kind = "last-legal"

    def act(self, obs, memory, rows, rng):
        return obs.n_actions - 1 - np.argmax(obs.mask[:, ::-1], axis=1)


def test_any_sb3_model_or_callable_becomes_a_player(sb3):
    from sb3_contrib import MaskablePPO

    from fsmarena.deep.adapter import CallablePlayer, callable_player, sb3_player
    from fsmarena.deep.determinism import deterministic_torch
    from fsmarena.games.env_gymnasium import GymGameEnv
    from fsmarena.games.stepper import IllegalAction

    game = get_game("vautour")
    model = MaskablePPO("MultiInputPolicy", GymGameEnv(game), n_steps=64, batch_size=32, seed=1, device="cpu")
    with deterministic_torch():
        model.learn(128)
    player = sb3_player(model, game, label="dict")  # a dictionary observation: not exportable
    assert isinstance(player, CallablePlayer)
    assert play_match(game, player, RandomPlayer(), 20, 3).games == 20
    with pytest.raises(FsmarenaError, match="has no player file") as info:
        player_to_json(player, game)
    assert "\n" not in str(info.value)

    seen: list[dict[str, Any]] = []
    last = callable_player(lambda obs: seen.append(obs) or int(np.flatnonzero(obs["action_mask"])[-1]), game)
    by_callable = play_match(game, last, RandomPlayer(), 50, 4)
    by_player = play_match(game, LastLegal(), RandomPlayer(), 50, 4)
    assert (by_callable.wins, by_callable.score) == (by_player.wins, by_player.score)
    assert {"features", "action_mask", "prize"} <= set(seen[0]) and len(seen) == 50 * 15

    def illegal(obs: dict[str, Any]) -> int:
        refused = np.flatnonzero(obs["action_mask"] == 0)
        return int(refused[0]) if len(refused) else int(np.flatnonzero(obs["action_mask"])[0])

    with pytest.raises(IllegalAction, match="player 'bad'.*is illegal"):
        play_match(game, callable_player(illegal, game, "bad"), RandomPlayer(), 10, 5)


def _count_games(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the games the training environment ends, independently of the method's callback."""
    import gymnasium

    from fsmarena.deep import training

    ended = [0]
    original = training.features_env

    class Counting(gymnasium.Wrapper):
        def step(self, action):
            result = super().step(action)
            ended[0] += int(result[2] or result[3])
            return result

        def action_masks(self):
            return self.env.action_masks()

    monkeypatch.setattr(training, "features_env", lambda *a, **k: Counting(original(*a, **k)))
    return ended


@pytest.mark.parametrize(
    "algo, params",
    [
        ("ppo", {"illegal_action": "lose", "n_steps": 64, "batch_size": 32}),  # games of every length
        ("dqn", {"learning_starts": 50}),
        ("maskable-ppo", {"n_steps": 100}),
    ],
)
def test_training_stops_after_exactly_its_games(sb3, monkeypatch, algo, params):
    ended = _count_games(monkeypatch)
    ctx = _ctx("vautour", {"algo": algo, "episodes": 37, "eval_every": 10, "eval_games": 100, **params}, seed=5)
    trained = get_method("deep")(ctx)
    assert trained.games == ended[0] == 37 == planned_games("deep", check_method("deep", ctx), ctx.game)
    assert trained.curve_games == [10, 20, 30, 37]
    assert all(0 <= w <= 1 for w in trained.curve_win)
    assert player_to_json(trained.snapshots[-1], ctx.game) == player_to_json(trained.player, ctx.game)
    if algo == "ppo":
        assert trained.info["illegal_actions"] > 0  # "lose" ended games early: the count is of games


@pytest.mark.parametrize("algo", ["maskable-ppo", "ppo", "dqn"])
def test_the_same_seed_gives_the_same_weights_and_results(sb3, algo):
    params = {"algo": algo, "episodes": 30, "eval_every": 15, "eval_games": 100, "net_arch": [16]}
    params.update({"learning_starts": 50, "train_freq": 1} if algo == "dqn" else {"n_steps": 128})
    runs = [get_method("deep")(_ctx("dtd", params, seed)) for seed in (7, 7, 8)]
    game = get_game("dtd")
    files = [json.dumps(player_to_json(run.player, game)) for run in runs]
    assert files[0] == files[1] and files[0] != files[2]
    assert runs[0].curve_win == runs[1].curve_win and runs[0].info == runs[1].info
    untrained = _random_player("dtd", [16], 0)
    assert files[0] != json.dumps(player_to_json(untrained, game))


# ---- studies ------------------------------------------------------------------------------------

DTD_STUDY = """
name = "deep-dtd"
version = 1
title = "deep families on divide-the-dollar"
game = "dtd"
seed = 3
panel = ["random", "always-large"]

[[competitors]]
name = "mppo"
label = "MaskablePPO"
method = "deep"
params = { algo = "maskable-ppo", n_steps = 256 }

[[competitors]]
name = "ppo"
label = "PPO"
method = "deep"
params = { algo = "ppo", n_steps = 256, net_arch = [32] }

[[competitors]]
name = "dqn"
label = "DQN"
method = "deep"
params = { algo = "dqn", learning_starts = 200 }

[scales.test]
replicates = 1
panel_games = 200
crossplay_halfwidth = 0.2
[scales.test.budgets]
mppo = { episodes = 40, eval_every = 20, eval_games = 200 }
ppo = { episodes = 40, eval_every = 20, eval_games = 200 }
dqn = { episodes = 40, eval_every = 20, eval_games = 200 }
"""

VAUTOUR_STUDY = """
name = "deep-vautour"
version = 1
title = "deep families on Stupide Vautour"
game = "vautour"
seed = 4
panel = ["random", "max"]

[[competitors]]
name = "mppo"
label = "MaskablePPO"
method = "deep"
params = { algo = "maskable-ppo", n_steps = 128 }

[[competitors]]
name = "dqn"
label = "DQN"
method = "deep"
params = { algo = "dqn", learning_starts = 100, opponent = "max" }

[scales.test]
replicates = 2
panel_games = 200
crossplay_halfwidth = 0.2
[scales.test.budgets]
mppo = { episodes = 60, eval_every = 30, eval_games = 200 }
dqn = { episodes = 60, eval_every = 30, eval_games = 200 }
"""


THIRTYONE_STUDY = """
name = "deep-thirtyone"
version = 1
title = "a deep family on 31"
game = "thirtyone"
seed = 6
panel = ["random"]

[[competitors]]
name = "mppo"
label = "MaskablePPO"
method = "deep"
params = { algo = "maskable-ppo", n_steps = 128 }

[scales.test]
replicates = 2
panel_games = 100
crossplay_halfwidth = 0.3
[scales.test.budgets]
mppo = { episodes = 20, eval_every = 10, eval_games = 50 }
"""

#: per study above: its players, and what the first maskable PPO replicate was trained with
DEEP_STUDIES = {
    "dtd": (DTD_STUDY, 3, {"episodes": 40, "n_steps": 256, "eval_every": 20, "eval_games": 200}),
    "vautour": (VAUTOUR_STUDY, 4, {"episodes": 60, "n_steps": 128, "eval_every": 30, "eval_games": 200}),
    "thirtyone": (THIRTYONE_STUDY, 2, {"episodes": 20, "n_steps": 128, "eval_every": 10, "eval_games": 50}),
}


def _study(tmp_path: Path, text: str, env: dict[str, str] | None = None, study: Path | None = None) -> Path:
    """Run ``fsmarena study`` on ``text`` (or the file ``study``) at the test scale; its folder."""
    if study is None:
        study = tmp_path / "study.toml"
        study.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "fsmarena", "study", str(study), "--scale", "test", "--out", str(out), "--quiet"]
    run = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env={**os.environ, **(env or {})})
    assert run.returncode == 0, run.stderr[-2000:]
    assert (out / "report.md").is_file()
    return out


def _stored_players(out: Path, game_name: str) -> dict[str, tuple[Any, dict[str, Any]]]:
    """Every stored player, read back by the player reader, with its result file."""
    game = get_game(game_name)
    found = {}
    for path in sorted((out / "players").glob("*/r*.json")):
        result = read_json(out / "replicates" / path.parent.name / path.name)
        player = load_player(path, game)
        assert player_to_json(player, game) == result["player"]
        found[f"{path.parent.name}/{path.stem}"] = (player, result)
    return found


@pytest.mark.parametrize("game_name", sorted(DEEP_STUDIES))
def test_deep_families_run_in_a_study_and_their_players_read_back(sb3, tmp_path, game_name):
    text, players, trained_with = DEEP_STUDIES[game_name]
    out = _study(tmp_path, text)
    stored = _stored_players(out, game_name)
    assert len(stored) == players
    for player, result in stored.values():
        assert isinstance(player, PolicyNetworkPlayer)
        episodes = result["settings"]["episodes"]
        assert result["games"] == episodes and result["curve_games"][-1] == episodes
    player, result = stored["mppo/r000"]
    params = {"algo": "maskable-ppo", **trained_with}
    again = get_method("deep")(_ctx(game_name, params, seed=result["seed"], label="mppo/r000"))
    assert player_to_json(again.player, get_game(game_name)) == result["player"]  # another process, the same player
    assert again.curve_win == result["curve_win"]


def test_the_examples_train_an_sb3_agent_and_enter_it_in_a_study(sb3, tmp_path):
    examples = ROOT / "docs" / "examples"
    train = [sys.executable, str(examples / "sb3_agent.py"), "--episodes", "40", "--out", "sb3-agent.json"]
    run = subprocess.run(train, capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    study = tmp_path / "sb3_study.toml"
    text = (examples / "sb3_study.toml").read_text(encoding="utf-8")
    study.write_text(text.replace("episodes = 300", "episodes = 40"), encoding="utf-8")  # a smaller test scale
    out = _study(tmp_path, "", env={"PYTHONPATH": str(examples)}, study=study)
    stored = _stored_players(out, "vautour")
    assert set(stored) == {"sb3/r000", "maskable-ppo/r000", "ppo/r000"}
    saved = read_json(tmp_path / "sb3-agent.json")
    assert stored["sb3/r000"][0].layers[0].weights.tolist() == saved["layers"][0]["weights"]
    assert stored["sb3/r000"][1]["games"] == 0
