"""docs/examples/outside_agent.py: an agent trained through the Gymnasium environment only,
wrapped as a player file, plays through the real command line (play, tournament, a study)
and beats the random player by more than chance."""

from __future__ import annotations

import csv
import importlib.util
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from cli_helpers import run_cli  # noqa: E402

from fsmarena.games import get_game  # noqa: E402
from fsmarena.games.players import TablePolicy, load_player  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"
EPISODES = 2000  # a few seconds; the docs' command trains 20,000


def _example():
    spec = importlib.util.spec_from_file_location("outside_agent", EXAMPLES / "outside_agent.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def agent_file(tmp_path_factory):
    """The example's own entry point, at a small budget: the player file it writes."""
    path = tmp_path_factory.mktemp("outside") / "outside-agent.json"
    assert _example().main(["--episodes", str(EPISODES), "--seed", "0", "--out", str(path)]) == path
    return path


def test_the_wrapped_agent_is_a_table_policy_of_the_game(agent_file):
    player = load_player(agent_file, get_game("dtd"))
    assert isinstance(player, TablePolicy) and player.label == "outside-mc"
    assert player.table.shape[-1] == get_game("dtd").n_states


def test_it_beats_random_through_play(agent_file, capsys):
    """``fsmarena play``: the lower end of the 95% interval of its win rate is above one half
    (a random policy wins about 45%: draws are possible)."""
    code, out, err = run_cli(capsys, "play", "dtd", agent_file, "random", "--games", 4000, "--json", "--quiet")
    assert code == 0, err
    result = json.loads(out)
    assert result["games"] == 4000 and result["win_ci95"][0] > 0.5, result


def test_an_untrained_agent_does_not(tmp_path, capsys):
    """The oracle can fail: with no training the table is all zeros, so the player always
    plays action 0 (small_spoil), which loses to random."""
    path = _example().main(["--episodes", "0", "--out", str(tmp_path / "untrained.json")])
    capsys.readouterr()  # the example's own message
    code, out, err = run_cli(capsys, "play", "dtd", path, "random", "--games", 4000, "--json", "--quiet")
    assert code == 0, err
    assert json.loads(out)["win_ci95"][0] <= 0.5


def test_it_plays_in_a_tournament(agent_file, tmp_path, capsys):
    out_dir = tmp_path / "tournament"
    code, _, err = run_cli(
        capsys, "tournament", "dtd", agent_file, "random", "always-large", "--games", 400, "--out", out_dir, "--quiet"
    )
    assert code == 0, err
    rows = list(csv.DictReader((out_dir / "results.csv").open()))
    assert {"outside-mc", "random", "always-large"} <= {value for row in rows for value in row.values()}


@pytest.mark.slow
def test_it_is_a_competitor_of_a_study(agent_file, tmp_path, capsys, monkeypatch):
    """The example's study TOML names the file (read from the working directory) as a
    competitor next to fsmarena's own Q-learner; the test scale runs to its report."""
    shutil.copy(agent_file, tmp_path / "outside-agent.json")
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(
        capsys, "study", EXAMPLES / "outside_agent_study.toml", "--scale", "test", "--out", "study", "--quiet"
    )
    assert code == 0, err
    report = (tmp_path / "study" / "report.md").read_text()
    assert "outside MC" in report and "Q-learning" in report
