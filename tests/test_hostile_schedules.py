"""The options rule one level down: a final value no schedule moves to is refused
(``fsmarena.options.check_finals``), on the command line, in a study's params and budgets, and
through the Python API; with the schedule that uses it, it is accepted."""

from __future__ import annotations

import pytest
from cli_helpers import run_cli
from hostile_helpers import assert_one_clear_line

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.rl.config import TrainConfig
from fsmarena.rl.network_training import NetworkSettings

TRAIN = ["train", "dtd", "--episodes", "1000", "--eval-every", "500", "--eval-games", "20", "--quiet"]
#: the reproducers: each exited 0 and ignored its final value
IGNORED = [
    (["--algo", "q-learning", "--alpha-final", "0.001"], "--alpha-final", "q-learning's is constant"),
    (
        ["--algo", "q-learning", "--alpha-schedule", "constant", "--alpha-final", "0.001"],
        "--alpha-final",
        "not constant",
    ),
    (
        ["--algo", "q-learning", "--epsilon-schedule", "constant", "--epsilon-final", "0.7"],
        "--epsilon-final",
        "not constant",
    ),
    (["--algo", "mc", "--epsilon-final", "0.3"], "--epsilon-final", "mc's is constant"),  # MC's default: constant
    (["--algo", "sarsa", "--alpha", "0.1", "--alpha-final", "0.01"], "--alpha-final", "sarsa's is constant"),
    (["--algo", "mc-constant-alpha", "--epsilon-final", "0.3"], "--epsilon-final", "constant"),
]


@pytest.mark.parametrize("options, flag, words", IGNORED)
def test_a_final_value_no_schedule_uses_is_one_line_and_no_folder(capsys, tmp_path, options, flag, words):
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, *TRAIN, *options, "--out", out)
    assert_one_clear_line(code, err)
    assert flag in err and words in err and "schedule" in err
    assert not out.exists()


@pytest.mark.parametrize(
    "config",
    [
        TrainConfig(algo="q-learning", episodes=100, alpha_schedule="linear", alpha_final=0.001),
        TrainConfig(algo="q-learning", episodes=100, alpha_schedule="exponential", alpha_final=0.001),
        TrainConfig(algo="q-learning", episodes=100, epsilon_final=0.1),  # TD's default epsilon is linear
        TrainConfig(algo="mc", episodes=100, epsilon=0.5, epsilon_schedule="linear", epsilon_final=0.1),
    ],
)
def test_a_final_value_with_its_schedule_is_accepted_and_resolves_to_itself(config):
    resolved = config.resolved(get_game("dtd"))
    assert resolved.resolved(get_game("dtd")) == resolved  # a resolved configuration resolves again


def test_a_game_whose_default_schedule_moves_takes_the_final_value_alone():
    """Stupide Vautour's Monte Carlo default epsilon is linear: --epsilon-final applies there."""
    resolved = TrainConfig(algo="mc", episodes=100, epsilon_final=0.05).resolved(get_game("vautour"), ["epsilon_final"])
    assert (resolved.epsilon_schedule, resolved.epsilon_final) == ("linear", 0.05)
    with pytest.raises(FsmarenaError, match="--epsilon-final is only used by a linear or exponential"):
        TrainConfig(algo="mc", episodes=100, epsilon_final=0.05).resolved(get_game("dtd"), ["epsilon_final"])


def test_the_python_api_counts_a_changed_final_as_given():
    with pytest.raises(FsmarenaError, match="--alpha-final"):
        TrainConfig(algo="q-learning", episodes=100, alpha_final=0.0001).resolved(get_game("dtd"))


def test_the_network_learner_refuses_a_final_its_constant_schedule_ignores():
    game = get_game("thirtyone")
    with pytest.raises(FsmarenaError, match="--epsilon-final is only used by a linear or exponential"):
        NetworkSettings.of(game, epsilon_schedule="constant", epsilon_final=0.1)
    assert NetworkSettings.of(game, epsilon_final=0.01).epsilon_final == 0.01  # its default is linear


STUDY = """
name = "finals"
version = 1
game = "dtd"
seed = 1
panel = ["random"]

[[competitors]]
name = "learner"
method = "train"
params = {{ algo = "q-learning", episodes = 1000, eval_games = 50{params} }}

[scales.test]
replicates = 1
panel_games = 50
crossplay_halfwidth = 0.4
[scales.test.budgets]
learner = {{ episodes = 1000{test} }}

[scales.paper]
replicates = 1
panel_games = 50
crossplay_halfwidth = 0.4
[scales.paper.budgets]
learner = {{ episodes = 2000{paper} }}
"""


@pytest.mark.parametrize(
    "where, text",
    [
        ("params", ", alpha_final = 0.001"),
        ("params", ", epsilon_schedule = 'constant', epsilon_final = 0.5"),
        ("test", ", alpha_schedule = 'constant', alpha_final = 0.001"),
        ("paper", ", alpha_final = 0.001"),  # a scale this run does not use
    ],
)
def test_a_study_refuses_a_final_value_in_params_and_budgets(capsys, tmp_path, where, text):
    slots = {"params": "", "test": "", "paper": ""}
    study = tmp_path / "finals.toml"
    study.write_text(STUDY.format(**{**slots, where: text}))
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "study", study, "--scale", "test", "--out", out, "--quiet")
    assert_one_clear_line(code, err)
    assert "-final is only used by a linear or exponential" in err and "learner" in err
    assert not out.exists()


def test_a_study_with_the_schedule_is_accepted(tmp_path):
    from fsmarena.studies.catalogue import load_study_toml
    from fsmarena.studies.competitors import check_competitors

    study = tmp_path / "finals.toml"
    study.write_text(STUDY.format(params=", alpha_schedule = 'linear', alpha_final = 0.001", test="", paper=""))
    settings = check_competitors(load_study_toml(study).plan("test"), get_game("dtd"))
    assert (settings["learner"]["alpha_schedule"], settings["learner"]["alpha_final"]) == ("linear", 0.001)
