"""Tuning (fsmarena.tuning, ``fsmarena tune``): the search, its budget, its seeds, its record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import DEEP_MISSING, deep_extra_missing

from fsmarena.cli import main
from fsmarena.errors import FsmarenaError
from fsmarena.studies.catalogue import study_from_data
from fsmarena.studies.protocol import CROSSPLAY_KEY
from fsmarena.tuning.family import TUNING_KEY, FamilyObjective, tuning_seed
from fsmarena.tuning.record import run_tuning
from fsmarena.tuning.search import best_trial, optuna_search, planned_trials, planned_tuning_games, random_search
from fsmarena.tuning.space import parse_space

TOY_SPACE = {"x": {"float": [0.0, 1.0]}, "k": {"int": [1, 9]}, "mode": {"choice": ["a", "b", "c"]}}


def toy_score(settings) -> float:
    """Known optimum: x = 0.3, k = 7, mode = "b" (score 2.0)."""
    return 2.0 - (settings["x"] - 0.3) ** 2 - 0.01 * (settings["k"] - 7) ** 2 - (settings["mode"] != "b")


def toy_evaluate(task):
    return 10, toy_score(task.settings)


def toy_cost(settings) -> int:
    return 10


def test_random_search_finds_the_known_optimum_of_a_toy_objective():
    trials = random_search(parse_space(TOY_SPACE), toy_cost, toy_evaluate, budget=4000, seed=3)
    assert len(trials) == 400
    best = best_trial(trials)
    assert best.score == max(t.score for t in trials)  # the chosen trial is the best one run
    assert best.settings["mode"] == "b" and abs(best.settings["k"] - 7) <= 1
    assert abs(best.settings["x"] - 0.3) < 0.05


def test_samples_stay_in_their_ranges_and_log_ranges_cover_decades():
    space = parse_space({"lr": {"float": [1e-4, 1.0], "log": True}, "n": {"int": [2, 5]}})
    rng = np.random.default_rng(0)
    draws = [space.sample(rng) for _ in range(2000)]
    lrs = np.array([d["lr"] for d in draws])
    assert lrs.min() >= 1e-4 and lrs.max() <= 1.0
    assert 0.2 < np.mean(lrs < 1e-2) < 0.8  # half the decades lie below 1e-2: log-uniform, not uniform
    assert {d["n"] for d in draws} == {2, 3, 4, 5}


def test_budget_accounting_is_exact_and_never_exceeded():
    space = parse_space({"episodes": {"int": [100, 900]}})
    cost = lambda s: s["episodes"]  # noqa: E731 - trials of different costs
    planned = planned_trials(space, cost, budget=5000, seed=1)
    trials = random_search(space, cost, lambda t: (t.settings["episodes"], 0.0), budget=5000, seed=1)
    assert sum(t.games for t in trials) == sum(t.settings["episodes"] for t in trials) <= 5000
    assert planned_tuning_games(space, cost, 5000, seed=1) == sum(t.games for t in trials)
    assert [t.settings for t in trials] == [task.settings for task, _ in planned]
    rng = np.random.default_rng(np.random.SeedSequence(1, spawn_key=(1,)))
    draws = [space.sample(rng)["episodes"] for _ in range(len(trials) + 1)]
    assert sum(draws) > 5000  # the search stopped at the first trial that did not fit


def test_a_method_whose_games_disagree_with_its_accounting_is_caught():
    with pytest.raises(ValueError, match="consumed"):
        random_search(parse_space(TOY_SPACE), toy_cost, lambda t: (11, 0.0), budget=100, seed=0)


def test_a_resumed_search_reuses_finished_trials_and_chooses_the_same():
    space = parse_space(TOY_SPACE)
    full = random_search(space, toy_cost, toy_evaluate, budget=200, seed=5)
    calls = []

    def counting(task):
        calls.append(task.index)
        return toy_evaluate(task)

    resumed = random_search(space, toy_cost, counting, 200, 5, done={t.index: t for t in full[:8]})
    assert resumed == full and sorted(calls) == list(range(8, 20))


@pytest.mark.parametrize(
    "space, message",
    [
        ({}, "non-empty"),
        ({"a": 3}, "must be a table"),
        ({"a": {"int": [5, 1]}}, "empty"),
        ({"a": {"int": [1.5, 3]}}, "whole numbers"),
        ({"a": {"float": [0.0, 1.0], "log": True}}, "above zero"),
        ({"a": {"choice": []}}, "non-empty list"),
        ({"a": {"float": [0, 1], "int": [0, 1]}}, "exactly one"),
        ({"a": {"float": [0, 1], "step": 2}}, "exactly one"),
        ({"a": {"float": [0, "x"]}}, "two numbers"),
    ],
)
def test_bad_spaces_are_refused_in_one_line(space, message):
    with pytest.raises(FsmarenaError, match=message) as info:
        parse_space(space)
    assert "\n" not in str(info.value)


def test_impossible_budgets_are_refused():
    with pytest.raises(FsmarenaError, match="smaller than one trial"):
        random_search(parse_space(TOY_SPACE), toy_cost, toy_evaluate, budget=5, seed=0)
    with pytest.raises(FsmarenaError, match="no games"):
        random_search(parse_space(TOY_SPACE), lambda s: 0, toy_evaluate, budget=5, seed=0)


def test_tuning_seeds_are_disjoint_from_every_study_stream_and_reproducible():
    study = study_from_data(DTD_STUDY)
    plan = study.plan("test")
    study_keys = {plan.task_seed(r, "q", p).spawn_key[0] for r in range(100) for p in ("train", "panel")}
    study_keys |= {CROSSPLAY_KEY, 2**32 + 16, 2**32 + 31, 2**32 + 32, 2**32 + 1000}
    assert tuning_seed(plan.seed, 0, 0).spawn_key[0] == TUNING_KEY not in study_keys
    replicate = plan.task_seed(0, "q", "train").generate_state(4)
    tuning = {tuple(tuning_seed(plan.seed, i, p).generate_state(4)) for i in range(50) for p in (0, 1)}
    assert tuple(replicate) not in tuning and len(tuning) == 100
    assert (tuning_seed(16, 3, 1).generate_state(4) == tuning_seed(16, 3, 1).generate_state(4)).all()


def test_optuna_search_keeps_its_budget_and_its_seed():
    pytest.importorskip("optuna")
    space = parse_space(TOY_SPACE)
    first = optuna_search(space, toy_cost, toy_evaluate, budget=400, seed=2)
    again = optuna_search(space, toy_cost, toy_evaluate, budget=400, seed=2)
    assert len(first) == 40 and sum(t.games for t in first) == 400
    assert [t.settings for t in first] == [t.settings for t in again]
    assert best_trial(first).score > 1.5  # TPE finds the right mode and a good x in 40 trials


DTD_STUDY = {
    "name": "tune-test",
    "version": 1,
    "title": "tuning a Q-learner",
    "game": "dtd",
    "seed": 16,
    "panel": ["random", "always-small"],
    "competitors": [
        {
            "name": "q",
            "label": "Q",
            "method": "train",
            "params": {"algo": "q-learning", "learner_seat": 0, "eval_games": 20},
        }
    ],
    "scales": {
        "test": {
            "description": "seconds",
            "replicates": 1,
            "panel_games": 50,
            "crossplay_halfwidth": 0.2,
            "budgets": {"q": {"episodes": 100}},
        }
    },
}


def _objective() -> FamilyObjective:
    plan = study_from_data(DTD_STUDY).plan("test")
    c = plan.competitors[0]
    return FamilyObjective("dtd", c.method, dict(c.params), c.name, ("random", "always-small"), 40, plan.seed)


def test_a_real_family_is_tuned_identically_for_any_jobs(tmp_path):
    space = parse_space({"alpha": {"float": [0.01, 0.5], "log": True}, "episodes": {"int": [100, 200]}})
    one = run_tuning(_objective(), space, 500, "random", "tune-test", tmp_path / "one.json", jobs=1)
    two = run_tuning(_objective(), space, 500, "random", "tune-test", tmp_path / "two.json", jobs=2)
    assert one == two == json.loads((tmp_path / "two.json").read_text())
    assert one["tuning_games"] == sum(t["games"] for t in one["trials"]) <= 500
    assert [t["games"] for t in one["trials"]] == [t["settings"]["episodes"] for t in one["trials"]]
    assert one["chosen_settings"]["alpha"] == one["chosen"]["alpha"] and one["defaults"]["alpha"] == 0.001


def test_the_command_refuses_bad_input_in_one_line(tmp_path, capsys):
    study = tmp_path / "study.toml"
    study.write_text(
        'name = "t"\nversion = 1\ntitle = "t"\ngame = "dtd"\nseed = 1\npanel = ["random"]\n'
        '[[competitors]]\nname = "q"\nlabel = "Q"\nmethod = "train"\nparams = { algo = "q-learning" }\n'
        "[scales.test]\nreplicates = 1\npanel_games = 10\ncrossplay_halfwidth = 0.2\n"
        "[scales.test.budgets]\nq = { episodes = 100 }\n"
    )
    (tmp_path / "bad.toml").write_text("nonsense = { float = [0.1, 0.2] }\n")
    (tmp_path / "good.toml").write_text("alpha = { float = [0.1, 0.2] }\n")
    out = str(tmp_path / "r.json")
    for space, extra, message in [
        ("good", ["--competitor", "nope", "--budget", "500"], "unknown competitor 'nope'"),
        ("good", ["--competitor", "q", "--budget", "50"], "smaller than one trial"),
        ("bad", ["--competitor", "q", "--budget", "500"], "unknown parameter 'nonsense'"),
    ]:
        base = ["tune", str(study), "--space", str(tmp_path / f"{space}.toml"), "--out", out]
        assert main(base + extra) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1
    assert not Path(out).exists()


#: one setting every method of a kind takes and that leaves its budget as it is, searched in
#: the every-family test; a method missing here consumes no games or has only budget settings
SEARCHED = {
    "train": {"epsilon": {"float": [0.05, 0.2]}},
    "train-variant": {"epsilon": {"float": [0.05, 0.2]}},
    "train-exact": {"epsilon": {"float": [0.05, 0.2]}},
    "evolve": {"mutation_rate": {"float": [0.05, 0.2]}},
    "evolve-variant": {"mutation_rate": {"float": [0.05, 0.2]}},
    "evolve-exact": {"crossover_rate": {"float": [0.5, 0.9]}},
    "train-mlp": {"learning_rate": {"float": [0.001, 0.01], "log": True}},
    "deep": {"learning_rate": {"float": [0.0001, 0.001], "log": True}},
}
#: the methods that cannot be tuned at a cost: fixed players, outside agents, exact planners and the
#: random-search baseline (its only settings are its budget)
UNTUNABLE = {"builtin", "python", "plan", "random-search"}


def _tunable_families() -> list[Any]:
    from fsmarena.studies.catalogue import get_study, study_names

    skip = pytest.mark.skipif(deep_extra_missing(), reason=DEEP_MISSING)
    found = []
    for name in study_names():
        for c in get_study(name).competitors:
            if not c.needs and c.method not in UNTUNABLE:
                found.append(pytest.param(name, c.name, marks=skip) if c.method == "deep" else (name, c.name))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("study, competitor", _tunable_families())
def test_every_family_of_every_named_study_is_tuned_by_the_command(study, competitor, tmp_path, capsys):
    """``fsmarena tune`` runs for every family that trains on its own, in every game: one trial at the
    study's test scale, its games the family's own accounting, its record complete."""
    from fsmarena.studies.catalogue import get_study

    plan = get_study(study).plan("test")
    c = plan.competitor(competitor)
    assert c.method in SEARCHED, f"no setting to search for method '{c.method}': add it to SEARCHED"
    space = tmp_path / "space.toml"
    ((name, spec),) = SEARCHED[c.method].items()
    bounds = ", ".join(map(str, spec[next(k for k in spec if k != "log")]))
    space.write_text(f"{name} = {{ float = [{bounds}]{', log = true' if spec.get('log') else ''} }}\n")
    out = tmp_path / "record.json"
    goal = FamilyObjective(
        plan.study.game, c.method, dict(c.params), c.name, ("random",), 20, plan.seed, dict(plan.study.game_params)
    )
    budget = goal.cost({})
    args = ["tune", study, "--competitor", competitor, "--space", str(space), "--budget", str(budget or 1000)]
    against = ["--opponent", plan.study.panel[0]] if plan.study.panel else []  # one player (421): its own score
    code = main([*args, *against, "--eval-games", "20", "--out", str(out), "--quiet"])
    if budget == 0:  # evolved on exact fitness (421's GA): it consumes no game, nothing to tune at a cost
        err = capsys.readouterr().err
        assert code == 2 and "consumes no games" in err and len(err.splitlines()) == 1 and not out.exists()
        return
    assert code == 0
    record = json.loads(out.read_text())
    assert record["complete"] and len(record["trials"]) == 1
    assert record["tuning_games"] == budget == record["trials"][0]["games"]
    assert record["chosen_settings"][name] == record["chosen"][name]
