"""Tuning inside a study: a family with a search space is tuned before it trains, at every budget
level, with the same budget of games as every other tuned family; its replicates train with the
chosen settings, and the report compares it with its untuned twin.

One small divide-the-dollar study (Q-learning untuned and tuned, SARSA tuned, two budget levels) is
run once for the module.  Oracles: a trial of the record trained and scored again by hand gives the
recorded games and score; the chosen settings are the best trial's and are the settings every tuned
replicate recorded; the twin table's difference is recomputed from the panel counts with numpy;
re-running and reading the folder back searches nothing again; the store keeps every record."""

from __future__ import annotations

import gzip
import json
import re

import numpy as np
import pytest
from publish_helpers import store_one_part

from fsmarena.api import load_results, run_study
from fsmarena.errors import FsmarenaError
from fsmarena.studies.catalogue import study_from_data
from fsmarena.studies.store import RESULTS, load_store
from fsmarena.studies.study_file import read_toml
from fsmarena.tuning.report import section
from fsmarena.tuning.search import TrialTask
from fsmarena.tuning.stage import objective, record_path

STUDY = """
name = "dtd-tuning"
version = 1
title = "Tuned and untuned Q-learning"
game = "dtd"
seed = 5
panel = ["random", "always-small"]
stages = ["tuning", "crossplay"]
tuning = { opponents = ["random"], eval_games = 60 }

[[competitors]]
name = "q-learning"
label = "Q-learning"
method = "train"
params = { algo = "q-learning", learner_seat = 0, eval_games = 50, eval_schedule = "log", eval_points = 2 }

[[competitors]]
name = "q-learning-tuned"
label = "Q-learning (tuned)"
method = "train"
params = { algo = "q-learning", learner_seat = 0, eval_games = 50, eval_schedule = "log", eval_points = 2 }
tune = { alpha = { float = [0.02, 0.5], log = true }, epsilon = { float = [0.02, 0.3] } }

[[competitors]]
name = "sarsa-tuned"
label = "SARSA (tuned)"
method = "train"
params = { algo = "sarsa", learner_seat = 0, eval_games = 50, eval_schedule = "log", eval_points = 2 }
tune = { alpha = { choice = [0.05, 0.2] } }

[scales.test]
replicates = 3
panel_games = 100
crossplay_halfwidth = 0.1
levels = [600, 300]
tuning_runs = 3
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tuning")
    (folder / "study.toml").write_text(STUDY)
    results = run_study(folder / "study.toml", "test", folder / "out", figures=False)
    return folder, results


def _record(folder, name, level=None):
    where = folder / "out" if level is None else folder / "out" / "levels" / f"{level}-games"
    return json.loads(record_path(where, name).read_text())


def test_every_tuned_family_searches_at_every_level_with_the_same_budget(run):
    folder, results = run
    for level in (600, 300):
        records = [_record(folder, n, None if level == 600 else level) for n in ("q-learning-tuned", "sarsa-tuned")]
        for record in records:
            assert record["complete"] and len(record["trials"]) == 3
            assert record["tuning_games"] == 3 * level  # three training runs' worth at the level
    assert not record_path(folder / "out", "q-learning").exists()  # the untuned twin is not tuned


def test_a_trial_trained_again_by_hand_gives_the_recorded_games_and_score(run):
    folder, results = run
    record = _record(folder, "q-learning-tuned")
    study = results.study
    plan = study.plan("test")  # the study as defined at its top level: the objective's parameters
    goal = objective(study, plan, plan.competitor("q-learning-tuned"))
    trial = record["trials"][1]
    games, score = goal(TrialTask(1, trial["settings"]))
    assert (games, score) == (trial["games"], trial["score"])


def test_the_tuned_replicates_train_with_the_best_trials_settings(run):
    folder, results = run
    record = _record(folder, "q-learning-tuned")
    best = max(record["trials"], key=lambda t: t["score"])
    assert record["chosen"] == best["settings"]
    for r in results.only.family("q-learning-tuned"):
        assert {k: r.settings[k] for k in best["settings"]} == best["settings"]
    untuned = results.only.family("q-learning")[0].settings
    assert untuned["alpha"] == record["defaults"]["alpha"]


def test_the_report_compares_each_tuned_family_with_its_untuned_twin(run):
    folder, results = run
    text = section(results)
    assert text.startswith("## Tuning") and "every family configured for 300 games" in text
    data = results.only
    wins = {
        name: np.array([r.panel["random"]["wins"] / r.panel["random"]["games"] for r in data.family(name)])
        for name in ("q-learning", "q-learning-tuned")
    }
    difference = 100 * (wins["q-learning-tuned"].mean() - wins["q-learning"].mean())
    top = text.split("every family configured for 600 games")[1]  # the levels come in ascending order
    row = next(line for line in top.splitlines() if line.startswith("| Q-learning (tuned) | Q-learning |"))
    assert re.search(rf"\| {difference:+.1f} pp \[", row), row
    assert "SARSA (tuned) | alpha |" in text  # searched without a twin: its search, no comparison
    assert "| SARSA (tuned) | " not in [line[:16] for line in text.splitlines() if "pp [" in line]
    assert "## Tuning" in (folder / "out" / "report.md").read_text()


def test_running_again_and_reading_back_search_nothing_again(run):
    folder, results = run
    path = record_path(folder / "out", "q-learning-tuned")
    before = path.stat().st_mtime_ns
    again = run_study(folder / "study.toml", "test", folder / "out", figures=False)
    assert path.stat().st_mtime_ns == before
    back = load_results(folder / "out", folder / "study.toml")
    for key, record in results.only.records.items():
        assert again.only.records[key].raw == record.raw == back.only.records[key].raw
    assert back.only.stages["tuning"] == results.only.stages["tuning"]


def test_a_space_that_changes_the_budget_is_refused_before_any_trial_runs(tmp_path):
    """An evolution whose population is searched would consume other budgets than the study's."""
    study = STUDY.replace(
        "tune = { alpha = { choice = [0.05, 0.2] } }",
        'tune = { alpha = { choice = [0.05, 0.2] } }\n\n[[competitors]]\nname = "fsm"\nmethod = "evolve"\n'
        'params = { genome = "fsm", protocol = "round-robin", curve_every = 5, curve_games = 50 }\n'
        "tune = { games_per_pair = { choice = [5, 10] } }",
    ).replace("tuning_runs = 3", "tuning_runs = 3\n[scales.test.budgets]\nfsm = { population = 4, games_per_pair = 5 }")
    (tmp_path / "s.toml").write_text(study)
    with pytest.raises(FsmarenaError, match="changes the games a training run consumes") as caught:
        run_study(tmp_path / "s.toml", "test", tmp_path / "out", figures=False)
    assert "\n" not in str(caught.value)
    assert not list((tmp_path / "out").rglob("tuning/fsm.json"))


def test_the_store_keeps_every_search_and_refuses_a_tampered_one(run, tmp_path):
    _, results = run
    store = store_one_part(results, tmp_path)
    back = load_store(store)
    assert back.only.stages["tuning"] == results.only.stages["tuning"]
    assert section(back) == section(results)
    data = json.loads(gzip.decompress((store / RESULTS).read_bytes()))
    data["parts"][0]["stages"]["tuning"]["q-learning-tuned"]["chosen"]["alpha"] = 0.123
    (store / RESULTS).write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(FsmarenaError, match="did not choose the settings its family trained with") as caught:
        load_store(store)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d["competitors"][1]["tune"].update(episodes={"int": [10, 20]}), "cannot search 'episodes'"),
        (lambda d: d["competitors"][1]["tune"].update(batch={"choice": [1, 2]}), None),  # a valid space
        (lambda d: d.update(stages=["crossplay"]), "'tuning' is a setting of stage 'tuning'"),
        (
            lambda d: [d.update(stages=["crossplay"]), d.pop("tuning"), d["scales"]["test"].pop("tuning_runs")],
            "list 'tuning' in the study's stages",
        ),
        (lambda d: [c.pop("tune", None) for c in d["competitors"]], "needs a competitor with a search space"),
        (lambda d: d["scales"]["test"].update(tuning_runs=0), "tuning_runs must be a whole number"),
        (lambda d: d["tuning"].update(games=5), "takes only opponents, eval_games and algorithm"),
        (lambda d: d["tuning"].update(algorithm="grid"), "tuning.algorithm must be one of"),
        (lambda d: d["competitors"][1]["tune"].update(alpha={"float": [0.5, 0.1]}), "alpha"),
        (lambda d: d["competitors"][1].update(needs=["q-learning"]), "cannot be tuned"),
    ],
)
def test_a_bad_tuning_declaration_is_one_clear_error(tmp_path, edit, message):
    (tmp_path / "s.toml").write_text(STUDY)
    data = read_toml(tmp_path / "s.toml")
    edit(data)
    if message is None:  # the control: the edit keeps the study valid
        study_from_data(data, "study file s.toml")
        return
    with pytest.raises(FsmarenaError, match=re.escape(message)) as caught:
        study_from_data(data, "study file s.toml")
    assert "\n" not in str(caught.value)
