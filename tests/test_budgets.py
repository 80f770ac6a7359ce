"""Budgets counted one way (fsmarena/studies/budgets.py): the games a method's settings plan are the games
a tiny run consumes, for every kind of method and game; the 10% check at load; log-spaced
learning-curve points (fsmarena/rl/schedules.py); the curves figure on the shared log axis."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest
from cli_helpers import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

import fsmarena.figures.curves as curves_module
import fsmarena.methods.adapters as adapters
from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.players import RandomPlayer
from fsmarena.methods.base import MethodContext, check_method, get_method, planned_games
from fsmarena.rl.schedules import FIRST_LOG_POINT, CurvePoints, curve_points, log_points
from fsmarena.rl.train import TrainConfig, train
from fsmarena.studies import budgets
from fsmarena.studies.catalogue import get_study, study_names
from fsmarena.studies.runner import result_path, run_study
from fsmarena.studies.study_file import study_from_dict

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

# ---- predicted games == consumed games ----------------------------------------------------------

#: (game, game parameters, method, params): every kind of method and protocol on the games that have them
CASES = [
    ("dtd", {}, "evolve", {"genome": "bda", "protocol": "thesis", "generations": 3, "opponents": 4}),
    ("dtd", {}, "evolve", {"genome": "fsm", "protocol": "round-robin", "generations": 2, "population": 5}),
    (
        "goofspiel",
        {"cards": 4},
        "evolve",
        {
            "genome": "fsm",
            "protocol": "panel",
            "panel": ["random", "match"],
            "panel_weight": 0.5,
            "generations": 2,
            "population": 4,
            "games_per_pair": 3,
        },
    ),
    (
        "vautour",
        {"cards": 5, "players": 3, "action_set": "both"},
        "evolve-variant",
        {
            "genome": "bda",
            "protocol": "panel",
            "panel": ["random"],
            "generations": 2,
            "population": 4,
            "games_per_pair": 2,
            "game_params": {"action_set": "abstract"},
        },
    ),
    pytest.param(  # compiles 31's kernels: a minute on a busy machine
        "thirtyone",
        {},
        "evolve",
        {"genome": "bda", "protocol": "round-robin", "generations": 2, "population": 3},
        marks=pytest.mark.slow,
    ),
    pytest.param(  # the sequential learner (compiles its kernel: a minute on a busy machine)
        "dtd", {}, "train", {"algo": "q-learning", "episodes": 1500, "eval_games": 20}, marks=pytest.mark.slow
    ),
    ("dtd", {}, "train", {"algo": "mc", "episodes": 1300, "batch": 300, "eval_games": 20}),  # batched
    (
        "dtd",
        {},
        "train",
        {"algo": "sarsa", "episodes": 5000, "batch": 500, "eval_schedule": "log", "eval_points": 5, "eval_games": 20},
    ),
    (
        "vautour",
        {"cards": 5, "action_set": "both"},
        "train-variant",
        {
            "algo": "mc",
            "episodes": 1200,
            "batch": 300,
            "opponents": ["random", "max"],
            "game_params": {"action_set": "abstract"},
        },
    ),
    (
        "421",
        {},
        "train-exact",
        {"algo": "q-learning", "episodes": 2500, "batch": 400, "eval_games": 10, "check_games": 50},
    ),
    ("421", {}, "plan", {"algo": "value-iteration", "check_games": 50}),
    (
        "421",
        {},
        "evolve-exact",
        {"genome": "fsm", "protocol": "score", "states": 1, "generations": 3, "population": 4, "check_games": 50},
    ),
    (
        "421",
        {},
        "evolve-exact",
        {
            "genome": "fsm",
            "protocol": "score",
            "states": 1,
            "generations": 2,
            "population": 4,
            "exact_fitness": True,
            "check_games": 50,
        },
    ),
    ("dtd", {}, "random-search", {"candidates": 3, "games_per_candidate": 40}),
    ("dtd", {}, "builtin", {"player": "always-large"}),
]


@pytest.mark.parametrize("game_name, game_params, method, params", CASES)
def test_the_games_a_method_plans_are_the_games_a_tiny_run_consumes(game_name, game_params, method, params):
    game = get_game(game_name, {k: str(v) for k, v in game_params.items()})
    ctx = MethodContext(game, params, 7, "tiny", curve_opponent="random")
    planned = planned_games(method, check_method(method, ctx), game)
    trained = get_method(method)(ctx)
    assert trained.games == planned
    if method in ("plan", "builtin") or params.get("exact_fitness"):
        assert planned == 0  # exact planners, exact fitness and builtins simulate no game
    else:
        assert planned > 0


def test_the_mlp_agent_plans_its_training_games():
    pytest.importorskip("sklearn")
    game = get_game("thirtyone")
    params = {"games": 120, "batch": 50, "hidden": [4], "eval_every": 60, "eval_games": 10}
    ctx = MethodContext(game, params, 3, "mlp", curve_opponent="greedy")
    trained = get_method("train-mlp")(ctx)
    assert trained.games == planned_games("train-mlp", check_method("train-mlp", ctx), game) == 120


def test_evolution_counts_every_fitness_game_by_hand():
    """Hand-worked: the thesis protocol plays population x opponents x games per opponent a
    generation; the round robin every ordered pair games_per_pair times."""
    game = get_game("dtd")
    thesis = {"genome": "bda", "protocol": "thesis", "generations": 3, "opponents": 4}
    robin = {"genome": "fsm", "protocol": "round-robin", "generations": 2, "population": 5, "games_per_pair": 3}
    for params, expected in ((thesis, 3 * 15 * 4 * 5), (robin, 2 * 5 * 4 * 3)):
        settings_ = check_method("evolve", MethodContext(game, params, 0, "x"))
        assert planned_games("evolve", settings_, game) == expected


# ---- the runner records what each task consumed, and refuses a miscount --------------------------

MATCHED = """
name = "matched"
version = 1
game = "dtd"
seed = 3
panel = ["random"]

[[competitors]]
name = "bda"
method = "evolve"
params = { genome = "bda", protocol = "thesis", generations = 4, opponents = 2, curve_every = 1, curve_games = 50 }

[[competitors]]
name = "q"
method = "train"
params = { algo = "q-learning", episodes = 600, batch = 200, eval_games = 20 }

[scales.test]
replicates = 1
panel_games = 20
crossplay_halfwidth = 0.3
"""


def _matched(text: str = MATCHED):
    return study_from_dict(tomllib.loads(text), "study file matched.toml")


def test_each_result_records_the_games_it_consumed(tmp_path):
    plan = _matched().plan("test")
    run_study(plan, tmp_path / "out", log=lambda _m: None)
    consumed = {
        c.name: json.loads(result_path(tmp_path / "out", c.name, 0).read_text())["games"] for c in plan.competitors
    }
    assert consumed == {"bda": 4 * 15 * 2 * 5, "q": 600}


def test_a_task_that_consumes_other_than_planned_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(adapters, "train_games", lambda settings, game: int(settings["episodes"]) + 1)
    plan = _matched().plan("test")
    with pytest.raises(FsmarenaError, match="consumed 600 simulated games; its settings plan 601"):
        run_study(plan, tmp_path / "out", log=lambda _m: None)
    assert not result_path(tmp_path / "out", "q", 0).exists()


# ---- one budget per scale within 10% --------------------------------------------------------------


@pytest.mark.parametrize("episodes, accepted", [(600, True), (660, True), (661, False), (546, True), (545, False)])
def test_budgets_within_ten_percent_are_accepted_and_others_refused(episodes, accepted):
    """The thesis BDA above consumes 600 games: a learner within 10% of it is accepted (660 =
    1.1 x 600; 546 >= 600 / 1.1), one beyond is refused with one line naming both budgets."""
    text = MATCHED.replace("episodes = 600", f"episodes = {episodes}")
    if accepted:
        _matched(text)
        return
    with pytest.raises(FsmarenaError) as info:
        _matched(text)
    message = str(info.value)
    assert "\n" not in message and "scale 'test'" in message and "10%" in message
    assert "bda 600" in message and f"q {episodes:,}" in message
    assert "levels = [games, ...]" in message


def test_families_that_consume_no_game_take_no_part_in_matching():
    text = MATCHED + '\n[[competitors]]\nname = "large"\nmethod = "builtin"\nparams = { player = "always-large" }\n'
    assert budgets.plan_budgets(_matched(text).plan("test"), get_game("dtd"))["large"] == 0
    assert budgets.mismatch({"a": 0, "b": 1000, "c": 1100}) == ""
    assert budgets.mismatch({"a": 1000, "b": 1101}) == "a 1,000, b 1,101"


@pytest.mark.parametrize("value", ["true", "false", '"yes"'])
def test_the_removed_declaration_is_refused_in_one_line_naming_its_replacement(value):
    text = MATCHED.replace(
        "crossplay_halfwidth = 0.3", f"crossplay_halfwidth = 0.3\ncompare_at_smallest_budget = {value}"
    )
    with pytest.raises(FsmarenaError) as info:
        _matched(text)
    message = str(info.value)
    assert "\n" not in message and "compare_at_smallest_budget was removed" in message and "levels" in message


def test_a_mismatched_study_file_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text(MATCHED.replace("episodes = 600", "episodes = 6000"))
    code, _out, err = run_cli(capsys, "study", path, "--scale", "test", "--out", tmp_path / "out")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "q 6,000" in err
    assert not (tmp_path / "out").exists()


def _every_plan():
    """(study name, player count or None, Study) of every shipped study: each part of a swept one."""
    for name in study_names():
        for part, study in get_study(name).parts().items():
            yield name, part, study


def test_every_shipped_study_loads_and_meets_its_budgets_at_every_scale():
    seen = set()
    for name, _players, study in _every_plan():
        seen.add(name)
        game = get_game(study.game, study.game_params)
        for scale_name, scale in study.scales.items():
            for level in scale.levels or (None,):
                found = budgets.plan_budgets(study.plan(scale_name, level=level), game)
                consuming = [games for games in found.values() if games > 0]
                assert consuming, (name, scale_name)
                # every family within 10% of each other, and of the level when one is declared
                assert max(consuming) <= 1.1 * min(consuming), (name, scale_name, level, found)
                if level is not None:
                    assert all(abs(games - level) <= 0.1 * level for games in consuming), (name, level, found)
    assert {"dtd-thesis", "421", "goofspiel", "thirtyone", "vautour", "vautour-deep"} <= seen


def test_the_thesis_study_runs_every_family_at_the_thesis_budget_and_the_learners():
    study = get_study("dtd-thesis")
    assert study.scales["paper"].levels == (468_750, 2_000_000)
    assert len(study.scales["quick"].levels) == 1 and len(study.scales["test"].levels) == 1
    low = study.plan("paper", level=468_750)
    found = budgets.plan_budgets(low, get_game("dtd"))
    assert low.competitor("bda").params["generations"] == 250 and found["bda"] == 250 * 15 * 25 * 5
    assert found["mc"] == 468_750 and low.competitor("fsm").params["generations"] == 19
    high = budgets.plan_budgets(study.plan("paper", level=2_000_000), get_game("dtd"))
    assert high["mc"] == 2_000_000 and high["bda"] == 1067 * 1875 and high["fsm"] == 79 * 25_200
    assert study.plan("paper").fingerprint == study.plan("paper", level=2_000_000).fingerprint
    assert study.plan("paper", level=468_750).fingerprint != study.plan("paper").fingerprint


def _brute_force_units(method, params, level, limit):
    """The unit count in 1..limit whose planned games are nearest ``level`` (smaller on a tie)."""
    game = get_game("dtd")
    unit = budgets.UNIT_PARAMS[method]

    def games(count):
        ctx = MethodContext(game, {**params, unit: count}, 0, "x", [], "random", ())
        return planned_games(method, check_method(method, ctx), game)

    return min(range(1, limit + 1), key=lambda count: (abs(games(count) - level), count))


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 60_000),
    st.sampled_from([("bda", "thesis", 5), ("fsm", "round-robin", 6), ("fsm", "round-robin", 3)]),
)
def test_the_level_solver_agrees_with_brute_force(level, setting):
    genome, protocol, population = setting
    params = {"genome": genome, "protocol": protocol, "population": population, "games_per_pair": 2}
    if protocol == "thesis":
        params = {"genome": genome, "protocol": protocol, "opponents": 5}
    expected = _brute_force_units("evolve", params, level, 2 + level // 12)
    assert budgets.solve_units("evolve", params, "dtd", {}, level) == expected


def test_the_level_solver_gives_learners_the_level_exactly_and_planners_nothing():
    assert budgets.solve_units("train", {"algo": "sarsa"}, "dtd", {}, 123_457) == 123_457
    assert budgets.solve_units("builtin", {"player": "random"}, "dtd", {}, 1000) is None


def test_a_level_scale_may_not_set_the_unit_it_solves():
    text = MATCHED.replace("crossplay_halfwidth = 0.3", "crossplay_halfwidth = 0.3\nlevels = [600]")
    text += "[scales.test.budgets]\nbda = { generations = 4 }\n"
    with pytest.raises(FsmarenaError, match="sets 'generations', which the scale's levels solve"):
        _matched(text)
    for bad in ("[]", "[0]", "[600, 600]", '["600"]', "600"):
        text = MATCHED.replace("crossplay_halfwidth = 0.3", f"crossplay_halfwidth = 0.3\nlevels = {bad}")
        with pytest.raises(FsmarenaError, match="'levels' must be"):
            _matched(text)


def test_curve_values_at_the_smallest_budget():
    assert budgets.curve_value_at(150, [0, 100, 200], [0.2, 0.4, 0.8]) == pytest.approx(0.6)
    assert budgets.curve_value_at(250, [0, 100, 200], [0.2, 0.4, 0.8]) is None
    assert budgets.curve_value_at(50, [100, 200], [0.4, 0.8]) is None


# ---- log-spaced evaluation points ----------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10**8), st.integers(1, 40), st.integers(1, 5000))
def test_log_points_increase_from_the_first_multiple_to_the_budget(budget, count, multiple):
    points = log_points(budget, count, multiple=multiple)
    first = math.ceil(FIRST_LOG_POINT / multiple) * multiple
    assert points[-1] == budget
    assert all(a < b for a, b in zip(points, points[1:]))
    assert len(points) <= max(count, 1) or len(points) == 1
    if budget > first and count > 1:
        assert points[0] == first
        assert all(p % multiple == 0 for p in points[:-1])
    else:
        assert points == (budget,)


def test_log_points_are_geometric():
    assert log_points(1_000_000, 4) == (1_000, 10_000, 100_000, 1_000_000)
    assert log_points(4000, 4) == (1000, 1587, 2520, 4000)


def test_curve_points_never_let_a_batch_cross_a_point():
    points = curve_points("log", 100_000, count=6)
    done, seen = 0, []
    while done < 100_000:
        done = points.next_after(done)
        assert points.is_point(done)
        seen.append(done)
    assert tuple(seen) == points.points
    linear = CurvePoints(1000, every=300)
    assert [linear.next_after(d) for d in (0, 300, 900)] == [300, 600, 1000]
    with pytest.raises(FsmarenaError, match="unknown evaluation schedule"):
        curve_points("cubic", 1000, 100)


@pytest.mark.parametrize("batch", [1000, pytest.param(1, marks=pytest.mark.slow)])  # batched; sequential (compiled)
def test_a_log_schedule_run_measures_at_the_log_points(batch):
    game = get_game("dtd")
    config = TrainConfig("q-learning", episodes=20_000, batch=batch, eval_schedule="log", eval_points=5, eval_games=20)
    result = train(game, config, seed=1, opponent=RandomPlayer())
    games = [row["games"] for row in result.curve]
    assert games == [0, *log_points(20_000, 5)]
    assert result.games == 20_000


def test_log_schedule_settings_are_checked_and_linear_runs_keep_their_settings():
    with pytest.raises(FsmarenaError, match="eval-every spaces a linear curve"):
        TrainConfig("mc", episodes=5000, eval_schedule="log", eval_every=100).resolved()
    with pytest.raises(FsmarenaError, match="eval_points is for"):
        TrainConfig("mc", episodes=5000, eval_points=4).resolved()
    with pytest.raises(FsmarenaError, match="eval_points must be a positive"):
        TrainConfig("mc", episodes=5000, eval_schedule="log", eval_points=0).resolved()
    with pytest.raises(FsmarenaError, match="unknown evaluation schedule"):
        TrainConfig("mc", episodes=5000, eval_schedule="sqrt").resolved()
    linear = TrainConfig("mc", episodes=5000).resolved().to_dict()
    assert "eval_schedule" not in linear and "eval_points" not in linear  # older runs and checkpoints read the same
    log = TrainConfig("mc", episodes=5000, eval_schedule="log").resolved()
    assert log.to_dict()["eval_schedule"] == "log" and log.eval_points == 16 and log.eval_every is None


# ---- the shared curve axis -------------------------------------------------------------------------


def test_curves_share_one_log_axis_from_a_thousand_games(tmp_path, monkeypatch):
    captured = {}

    def keep(fig, stem):
        captured["figure"] = fig
        return []

    monkeypatch.setattr(curves_module, "save", keep)
    learner = [([0, 1000, 10_000, 100_000], [0.1, 0.3, 0.5, 0.7]), ([0, 1000, 10_000, 100_000], [0.3, 0.5, 0.7, 0.9])]
    evolved = [([500, 2000, 40_000], [0.2, 0.4, 0.6])] * 3
    curves_module.learning_curves({"RL": learner, "GA": evolved}, tmp_path / "curves")
    fig = captured["figure"]
    panels = {ax.get_title(): ax for ax in fig.axes if ax.get_title()}  # one panel per family, the others faint
    rl_ax, ga_ax = panels["RL (n=2)"], panels["GA (n=3)"]
    for ax in (rl_ax, ga_ax):
        assert ax.get_xscale() == "log"
        assert ax.get_xlim() == pytest.approx((1000, 100_000))
    rl, ga = rl_ax.get_lines()[-1], ga_ax.get_lines()[-1]  # each panel's own family, drawn last
    assert rl.get_xdata()[0] == pytest.approx(1000) and rl.get_xdata()[-1] == pytest.approx(100_000)
    assert np.interp(10_000, rl.get_xdata(), rl.get_ydata()) == pytest.approx(60, abs=0.5)  # median in percent
    # the evolved curve begins at 1,000 games with its interpolated value (0.2 + 0.2 * 500 / 1500)
    assert ga.get_xdata()[0] == pytest.approx(1000) and ga.get_ydata()[0] == pytest.approx(100 * (0.2 + 0.2 / 3))
    assert "from 1,000" in fig._supxlabel.get_text()


def test_band_from_the_axis_start():
    grid, q25, median, q75 = curves_module.band([([0, 500, 2000], [0.0, 0.5, 0.8])], points=3, start=1000)
    assert grid[0] == pytest.approx(1000) and median[0] == pytest.approx(0.6)
