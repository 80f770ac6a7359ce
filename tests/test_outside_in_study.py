"""An outside agent with no player file of its own (a function of the Gymnasium observation) enters
a study from its TOML (method ``python``): it is kept by its entry, rebuilt by the study that names
it, plays the panel and the cross-play exactly as the function does, and a player file holding such
an entry is never run by itself."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import run_cli

from fsmarena.api import load_results, run_study
from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.match import play_match
from fsmarena.games.players import load_player, resolve_player

AGENT = '''
from fsmarena.deep.adapter import callable_player


def lowest_legal(observation):
    """The first legal action: a rule any user could write as a function of the observation."""
    return int(observation["action_mask"].argmax())


def make_player(game):
    return callable_player(lowest_legal, game, "lowest legal")
'''

STUDY = """
name = "outside-function"
version = 1
title = "A function of the observation in a study"
game = "dtd"
seed = 3
panel = ["random", "always-large"]

[[competitors]]
name = "rule"
label = "lowest legal"
method = "python"
params = { entry = "outside_rule_agent:make_player" }

[[competitors]]
name = "q-learning"
label = "Q-learning"
method = "train"
params = { algo = "q-learning", episodes = 400, learner_seat = 0, eval_games = 50 }

[scales.test]
replicates = 2
panel_games = 100
crossplay_halfwidth = 0.2
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("outside")
    (folder / "outside_rule_agent.py").write_text(AGENT)
    (folder / "study.toml").write_text(STUDY)
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(folder))
    results = run_study(folder / "study.toml", "test", folder / "out", figures=False)
    yield folder, results
    mp.undo()


def test_the_function_is_a_competitor_kept_by_its_entry(run):
    folder, results = run
    stored = json.loads((folder / "out" / "players" / "rule" / "r000.json").read_text())
    assert stored["kind"] == "outside" and stored["entry"] == "outside_rule_agent:make_player"
    assert "crossplay" in results.only.stages


def test_its_panel_games_are_the_functions_own(run):
    """Replayed outside the study with the documented seed: the same counts."""
    folder, results = run
    import outside_rule_agent

    game = get_game("dtd")
    record = results.only.records[("rule", 0)]
    plan = results.only.plan
    seeds = plan.task_seed(0, "rule", "panel").spawn(len(plan.study.panel))
    stats = play_match(game, outside_rule_agent.make_player(game), resolve_player("random", game), 100, seeds[0])
    assert record.panel["random"]["wins"] == stats.wins and record.panel["random"]["losses"] == stats.losses


def test_a_rerun_and_a_reading_rebuild_it_from_the_study(run):
    folder, results = run
    again = run_study(folder / "study.toml", "test", folder / "out", figures=False)
    back = load_results(folder / "out", folder / "study.toml")
    for key, record in results.only.records.items():
        assert again.only.records[key].raw == record.raw == back.only.records[key].raw
    assert type(back.only.records[("rule", 1)].player).__name__ == "OutsidePlayer"


def test_a_file_holding_an_outside_entry_is_never_run_alone(run, capsys):
    folder, _ = run
    path = folder / "out" / "players" / "rule" / "r000.json"
    with pytest.raises(FsmarenaError, match="only the study that names it rebuilds it") as caught:
        load_player(path, get_game("dtd"))
    assert "\n" not in str(caught.value)
    code, _, err = run_cli(capsys, "play", "dtd", str(path), "random", "--games", "10")
    assert code == 2 and "only the study that names it rebuilds it" in err and len(err.strip().splitlines()) == 1


def test_a_result_naming_another_entry_is_refused_and_redone(run, tmp_path):
    """A result file whose outside entry is not the study's is stale: run again, not trusted."""
    import shutil

    folder, results = run
    out = tmp_path / "copy"
    shutil.copytree(folder / "out", out)
    result = out / "replicates" / "rule" / "r001.json"
    data = json.loads(result.read_text())
    data["player"]["entry"] = "os:system"
    result.write_text(json.dumps(data))
    again = run_study(folder / "study.toml", "test", out, figures=False)
    assert json.loads(result.read_text())["player"]["entry"] == "outside_rule_agent:make_player"
    timings = ("train_seconds", "panel_seconds", "cpu_seconds")
    redone, first = (
        {k: v for k, v in r.only.records[("rule", 1)].raw.items() if k not in timings} for r in (again, results)
    )
    assert redone == first
    assert np.isfinite(again.only.records[("rule", 1)].panel["random"]["score"])
