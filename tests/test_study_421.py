"""The 421 study end to end: report, tables and figures, checked against independent oracles.

Oracles: every final player re-scored from its saved file by the exact evaluator; value and
policy iteration against the integer-arithmetic optimum; the last point of every learning
curve against the final policy; summary rows recomputed from the per-replicate rows; the
optimal-policy table against ``exact_optimum``; the same plan with --jobs 1 and 2 giving the
same tables.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from fsmarena.cli import main
from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.players import load_player
from fsmarena.games.registry import resolve
from fsmarena.studies import exact_values
from fsmarena.studies.catalogue import get_study, study_from_data
from fsmarena.studies.exact_report import LAYOUT
from fsmarena.studies.exact_values import ExactReference
from fsmarena.studies.pipeline import run_pipeline
from fsmarena.studies.registry import report_entry
from fsmarena.studies.report import write_report
from fsmarena.studies.results import StudyResults

GAME = get_game("421")
OPTIMUM, OPTIMAL_TABLE = GAME.exact_optimum()


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_study_421_runs_end_to_end_and_its_numbers_agree(tmp_path, capsys):
    out = tmp_path / "study"
    code = main(["study", "421", "--scale", "test", "--jobs", "2", "--out", str(out), "--quiet"])
    assert code == 0
    printed = capsys.readouterr().out
    plan = get_study("421").plan("test")
    for c in plan.competitors:
        assert c.label in printed
    for stem in ("learning_curves", "final_values", "reliability", "optimal_policy"):
        for suffix in (".png", ".pdf"):
            assert (out / "figures" / f"{stem}{suffix}").stat().st_size > 1000
    values = rows(out / "tables" / "values.csv")
    assert len(values) == sum(c.replicates for c in plan.competitors)
    for row in values:
        player = load_player(out / "players" / row["competitor"] / f"r{int(row['replicate']):03d}.json", GAME)
        exact = float(GAME.exact_player_values(player)[0])
        assert float(row["exact_value"]) == pytest.approx(exact, rel=1e-5)
        assert float(row["gap"]) == pytest.approx(float(OPTIMUM) - exact, abs=1e-5)
        assert float(row["fraction"]) == pytest.approx(exact / float(OPTIMUM), rel=1e-5)
        assert (row["reaches_target"] == "True") == (exact >= 0.99 * float(OPTIMUM))
        low, high = float(row["sampled_ci_low"]), float(row["sampled_ci_high"])
        assert low < float(row["sampled_mean"]) < high and int(row["sampled_games"]) == 2000
        if row["kind"] == "plan":  # value and policy iteration: the optimum, action for action
            assert np.array_equal(player.table[0][56:], OPTIMAL_TABLE[56:])
            assert row["games"] == "0" and float(row["gap"]) == pytest.approx(0, abs=1e-9)
        else:
            assert int(row["games"]) > 0 or row["competitor"] == "ga-exact"
    curves = rows(out / "tables" / "curves.csv")
    for row in values:
        if row["kind"] != "train-exact":
            continue
        mine = [r for r in curves if r["competitor"] == row["competitor"] and r["replicate"] == row["replicate"]]
        # log-spaced evaluations (4 points from 1,000 to 4,000: 1000 * 4 ** (k / 3)) after the start
        assert [int(r["games"]) for r in mine] == [0, 1000, 1587, 2520, 4000]
        assert float(mine[-1]["exact_value"]) == pytest.approx(float(row["exact_value"]), rel=1e-5)
    summary = rows(out / "tables" / "values_summary.csv")
    for row in summary:
        mine = [float(r["exact_value"]) for r in values if r["competitor"] == row["competitor"]]
        assert float(row["median"]) == pytest.approx(float(np.median(mine)), rel=1e-5)
        assert int(row["reaching_target"]) == sum(v >= 0.99 * float(OPTIMUM) for v in mine)
    policy = rows(out / "tables" / "optimal_policy.csv")
    assert len(policy) == 112
    for row in policy:
        index = GAME.index_of(tuple(int(d) for d in row["dice"]), int(row["throws_left"]))
        assert row["action"] == GAME.action_names[OPTIMAL_TABLE[index]]
        assert row["keep"] == "".join(
            map(str, GAME.kept_dice(tuple(int(d) for d in row["dice"]), OPTIMAL_TABLE[index]))
        )
    report = (out / "report.md").read_text()
    assert "553679/139968" in report and "keep 42" in report
    for stem in ("learning_curves", "final_values", "reliability", "optimal_policy"):
        assert f"figures/{stem}.png" in report
    for c in plan.competitors:
        assert c.label in report


SMALL = {
    "name": "small-421",
    "version": 1,
    "game": "421",
    "seed": 5,
    "panel": [],
    "report": "exact-values",
    "competitors": [
        {
            "name": "q",
            "method": "train-exact",
            "params": {
                "algo": "q-learning",
                "episodes": 3000,
                "batch": 500,
                "eval_every": 1000,
                "eval_games": 10,
                "check_games": 500,
            },
        },
        {
            "name": "ga",
            "method": "evolve-exact",
            "params": {
                "genome": "fsm",
                "protocol": "score",
                "states": 1,
                "generations": 3,
                "population": 6,
                "games_per_pair": 20,
                "curve_every": 1,
                "check_games": 500,
            },
        },
    ],
    "scales": {"test": {"replicates": 2, "panel_games": 1, "crossplay_halfwidth": 0.05, "levels": [3000]}},
}


def test_the_same_plan_gives_the_same_tables_for_any_jobs(tmp_path):
    study = study_from_data(SMALL)
    tables = []
    for jobs in (1, 2):
        results = run_pipeline(study, "test", tmp_path / f"jobs{jobs}", jobs=jobs, log=lambda message: None)
        results.command = "test"
        summary = write_report(results, False)
        assert Path(summary["report"]).exists()
        tables.append(
            [
                (tmp_path / f"jobs{jobs}" / "tables" / f"{name}.csv").read_text()
                for name in ("values", "values_summary", "curves")
            ]
        )
    assert tables[0] == tables[1]
    curve = rows(tmp_path / "jobs1" / "tables" / "curves.csv")
    ga = [r for r in curve if r["competitor"] == "ga" and r["replicate"] == "0"]
    assert [int(r["games"]) for r in ga] == list(range(120, 3001, 120))  # the level: 25 generations of 120 games


def test_421_exact_model_gives_its_optimum_and_policy_as_data():
    reference = exact_values.exact_reference(GAME)
    assert reference.value == OPTIMUM and reference.draw_policy is None  # no chart named
    assert reference.policy_intro == GAME.policy_intro and reference.policy_caption == GAME.policy_caption
    assert reference.policy_text == GAME.policy_text(OPTIMAL_TABLE)
    assert len(reference.policy_rows) == 112
    for row in reference.policy_rows:  # the rows name the optimal action of their state
        index = GAME.index_of(tuple(int(d) for d in row["dice"]), int(row["throws_left"]))
        assert row["action"] == GAME.action_names[OPTIMAL_TABLE[index]]


def test_the_exact_values_report_draws_the_chart_its_game_names_and_refuses_a_game_without_a_model(tmp_path):
    data = SimpleNamespace(game=GAME)
    reference = exact_values.study_reference(data)
    assert reference.draw_policy is not None
    drawn = reference.draw_policy(tmp_path / "policy")
    assert [p.suffix for p in drawn] == [".png", ".pdf"] and all(p.stat().st_size > 0 for p in drawn)
    on_dtd = dataclasses.replace(study_from_data(SMALL), game="dtd")
    with pytest.raises(FsmarenaError, match="report 'exact-values' needs a game with an exact model, not dtd"):
        LAYOUT.check(on_dtd)


def test_the_exact_values_report_is_built_from_whatever_reference_the_game_gives(tmp_path, monkeypatch):
    """The studies layer writes the report: a reference with another value, its own words and no
    drawing changes the gaps, the policy section and nothing else of the game's."""
    study = study_from_data({**SMALL, "competitors": SMALL["competitors"][:1]})
    results = run_pipeline(study, "test", tmp_path / "run", log=lambda message: None)
    results.command = "test"
    own = exact_values.exact_reference(GAME)
    other = ExactReference(
        value=Fraction(2 * own.value),
        policy_rows=[{"state": "s", "action": "a"}],
        policy_text="POLICY AS TEXT",
        policy_intro="HOW TO READ THE POLICY.",
    )
    monkeypatch.setattr(exact_values, "exact_reference", lambda game, figure: other)
    summary = write_report(results, True)
    report = Path(summary["report"]).read_text()
    assert summary["optimum"] == pytest.approx(float(other.value))
    assert f"The optimum is {other.value} ≈ {float(other.value):.6f}" in report
    assert "HOW TO READ THE POLICY. Full table" in report and "POLICY AS TEXT" in report
    assert "optimal_policy.png" not in report and not (tmp_path / "run" / "figures" / "optimal_policy.png").exists()
    assert rows(tmp_path / "run" / "tables" / "optimal_policy.csv") == [{"state": "s", "action": "a"}]
    for row in rows(tmp_path / "run" / "tables" / "values.csv"):  # every gap is to the hook's value
        assert float(row["gap"]) == pytest.approx(float(other.value) - float(row["exact_value"]), abs=1e-5)


def test_an_unknown_report_kind_is_one_clear_error(tmp_path):
    with pytest.raises(FsmarenaError, match="unknown report 'nope'"):
        report_entry("nope")
    assert resolve(report_entry("exact-values").target, "report 'exact-values'") is LAYOUT
    unknown = dataclasses.replace(study_from_data(SMALL), report="nope")  # as if its file named it
    with pytest.raises(FsmarenaError, match="unknown report 'nope'"):
        write_report(StudyResults(unknown, "test", 5, {}, out=tmp_path), figures=False)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"report": "nope"}, "unknown report 'nope'"),
        ({"game": "dtd"}, "one-player game|not one of the game dtd's reports"),
        ({"competitors": [{"name": "p", "method": "plan", "params": {"algo": "q-learning"}}]}, "plan runs one of"),
        (
            {
                "competitors": [
                    {"name": "g", "method": "evolve-exact", "params": {"genome": "bda", "protocol": "score"}}
                ]
            },
            "only table FSMs",
        ),
        (
            {
                "competitors": [
                    {"name": "g", "method": "evolve-exact", "params": {"genome": "fsm", "protocol": "thesis"}}
                ]
            },
            'protocol = "score"',
        ),
        (
            {"competitors": [{"name": "t", "method": "train-exact", "params": {"algo": "mc", "episodes": -3}}]},
            "--episodes must be a positive",
        ),
        (
            {"competitors": [{"name": "t", "method": "train-exact", "params": {"algo": "mc", "bogus": 1}}]},
            "unknown parameter 'bogus'",
        ),
    ],
)
def test_bad_421_studies_fail_in_one_line_before_writing(tmp_path, change, message):
    out = tmp_path / "never"
    with pytest.raises(FsmarenaError, match=message):
        run_pipeline(study_from_data({**SMALL, **change}), "test", out, log=lambda m: None)
    assert not out.exists()


def test_study_json_output_has_the_summary(tmp_path, capsys):
    path = tmp_path / "tiny.toml"
    path.write_text("""
name = "tiny-421"
version = 1
game = "421"
seed = 1
panel = []
report = "exact-values"
[[competitors]]
name = "vi"
method = "plan"
params = { algo = "value-iteration", check_games = 300 }
[scales.test]
replicates = 1
panel_games = 1
crossplay_halfwidth = 0.05
""")
    code = main(
        ["study", str(path), "--scale", "test", "--out", str(tmp_path / "out"), "--json", "--no-figures", "--quiet"]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["optimum"] == pytest.approx(float(OPTIMUM), abs=1e-12)
    assert summary["values_summary"][0]["median"] == pytest.approx(float(OPTIMUM), abs=1e-12)
    assert not (tmp_path / "out" / "figures").exists()


def test_each_smaller_level_says_how_many_replicates_reached_the_target_there(tmp_path):
    """A scale with two levels: the conclusions count, for the smaller one, the replicates whose
    final player's exact value reaches 99% of the optimum, recomputed here from the records."""
    two = {**SMALL, "scales": {"test": {**SMALL["scales"]["test"], "levels": [1200, 3000]}}}
    results = run_pipeline(study_from_data(two), "test", tmp_path / "out", jobs=2, log=lambda message: None)
    results.command = "test"
    write_report(results, False)
    assert list(results.levels) == [1200]
    text = (tmp_path / "out" / "report.md").read_text()
    sentence = next(line for line in text.splitlines() if "configured for 1,200 simulated games" in line)
    data = results.levels[1200].only
    for c in data.plan.competitors:
        if c.method == "plan" or c.params.get("exact_fitness"):
            continue
        values = [GAME.exact_player_values(r.player)[0] for r in data.family(c.name)]  # the oracle: exact DP
        reached = sum(float(v) >= 0.99 * float(OPTIMUM) for v in values)
        assert f"{c.label} {reached} of {c.replicates}" in sentence
    assert "## Sample efficiency" in text and "configured for 1,200 games" in text
