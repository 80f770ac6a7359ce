"""The study layer end to end: a tiny study with the real evolution and RL methods.

Oracles: panel results replayed from the documented seeds; cross-play family tables
recomputed from the raw pairing counts; the heat map's drawn numbers against the CSV; the
same study run with --jobs 1 and 2, interrupted and resumed, giving identical tables.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import math
import zlib
from pathlib import Path

import numpy as np
import pytest
from report_helpers import report_defects

from fsmarena.cli import main
from fsmarena.errors import FsmarenaError
from fsmarena.games.match import play_match
from fsmarena.games.players import load_player, resolve_player
from fsmarena.studies import runner
from fsmarena.studies.analysis import analyse, read_csv
from fsmarena.studies.catalogue import get_study, load_study_toml
from fsmarena.studies.pipeline import run_pipeline
from fsmarena.studies.report import write_report
from fsmarena.studies.results import StudyResults
from fsmarena.studies.study_file import study_from_dict

TINY = """
name = "tiny"
version = 1
title = "Tiny study"
question = "Does the pipeline hold together?"
game = "dtd"
seed = 11
panel = ["random", "always-large"]
questions = [["fsm", "bda"], ["mc", "q-evo"]]

[[competitors]]
name = "bda"
label = "BDA"
method = "evolve"
params = { genome = "bda", protocol = "thesis", generations = 2, opponents = 3, curve_every = 1, curve_games = 100 }

[[competitors]]
name = "fsm"
label = "FSM"
method = "evolve"
params = { genome = "fsm", protocol = "round-robin", generations = 2, population = 4, games_per_pair = 2, curve_every = 1, curve_games = 100 }

[[competitors]]
name = "mc"
label = "MC-ES"
method = "train"
params = { algo = "mc", episodes = 600, batch = 200, eval_every = 300, eval_games = 100, learner_seat = 0 }

[[competitors]]
name = "q-evo"
label = "Q (evo)"
method = "train"
params = { algo = "q-learning", episodes = 600, batch = 200, eval_every = 300, eval_games = 100 }
needs = ["bda", "fsm"]

[scales.test]
replicates = 3
panel_games = 100
levels = [450]  # BDA 2 generations x 15 x 3 x 5; FSM 19 x 24 = 456; learners 450 episodes
crossplay_halfwidth = 0.1
[scales.test.budgets]
mc = { replicates = 2 }
q-evo = { replicates = 2 }

[scales.other]
replicates = 1
panel_games = 100
crossplay_halfwidth = 0.1
levels = [450]
"""

RESULT_TABLES = (
    "panel",
    "panel_summary",
    "panel_tests",
    "curves",
    "seeds",
    "crossplay_family",
    "crossplay_champions",
    "crossplay_pairs",
    "crossplay_league",
    "crossplay_league_summary",
    "crossplay_league_tests",
)


@pytest.fixture(scope="module")
def study_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("def") / "tiny.toml"
    path.write_text(TINY)
    return path


@pytest.fixture(scope="module")
def plan(study_file):
    return load_study_toml(study_file).plan("test")


@pytest.fixture(scope="module")
def finished(plan, tmp_path_factory):
    """The tiny study run once, uninterrupted, with figures and report (shared by tests)."""
    out = tmp_path_factory.mktemp("run") / "out"
    data = run(plan, out, jobs=1, log=lambda m: None)
    captured = {}
    import fsmarena.figures.heatmap as heatmap

    original = heatmap.save

    def spy(fig, stem, *args, **kwargs):  # record the numbers the heat map actually draws
        if Path(stem).name == "crossplay_heatmap":
            ax = fig.axes[0]
            captured["labels"] = [t.get_text() for t in ax.get_yticklabels()]
            captured["texts"] = [(t.get_position(), t.get_text()) for t in ax.texts]
        return original(fig, stem, *args, **kwargs)

    heatmap.save = spy
    try:
        analysis = analyse(data)
        write_report(one_part(data, "fsmarena study tiny.toml --scale test --out out"))
    finally:
        heatmap.save = original
    return data, analysis, captured


def one_part(data: runner.StudyData, command: str) -> StudyResults:
    """The results object of one part's data, written where the data lives."""
    plan = data.plan
    return StudyResults(plan.study, plan.scale.name, plan.seed, {None: data}, command, out=data.out)


def run(plan, out: Path, jobs: int = 1, log=lambda m: None) -> runner.StudyData:
    """The whole run of the plan's (one-part) study into ``out``: its replicate tasks, then its
    stages (the cross-play), as ``fsmarena study`` runs them."""
    return run_pipeline(plan.study, plan.scale.name, out, plan.seed, jobs, log).only


def tables(out: Path) -> dict[str, str]:
    return {name: (out / "tables" / f"{name}.csv").read_text() for name in RESULT_TABLES}


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# ---- end to end -----------------------------------------------------------------------------------


def test_every_output_exists_and_the_report_links_resolve(finished):
    data, analysis, _ = finished
    out = data.out
    report = (out / "report.md").read_text()
    for label in ("BDA", "FSM", "MC-ES", "Q (evo)"):
        assert label in report
    for needle in (
        "## Question",
        "## Protocol",
        "## Conclusions",
        "## Reproduce",
        "numpy",
        "scipy",
        "deap",
        "matplotlib",
        "joblib",
        "Master seed** 11",
        "fsmarena study tiny.toml",
    ):
        assert needle in report
    links = [line.split("](", 1)[1].split(")", 1)[0] for line in report.splitlines() if line.startswith("![")]
    assert {
        "figures/learning_curves.png",
        "figures/crossplay_heatmap.png",
        "figures/panel_outcomes.png",
        "figures/policy_map.png",
        "figures/best_bda.png",
        "figures/best_fsm.png",
    } <= set(links)
    for link in links:
        assert (out / link).stat().st_size > 1000
        assert (out / link).with_suffix(".pdf").read_bytes()[:4] == b"%PDF"
    for name in RESULT_TABLES:
        assert (out / "tables" / f"{name}.csv").exists()
    # per-competitor replicates: 3 evolved, 2 RL
    seeds = read_csv(out / "tables" / "seeds.csv")
    assert sorted((r["competitor"], r["replicate"]) for r in seeds) == sorted(
        [(c, str(r)) for c in ("bda", "fsm") for r in range(3)]
        + [(c, str(r)) for c in ("mc", "q-evo") for r in range(2)]
    )


def test_panel_results_replay_from_the_documented_seeds(finished, plan):
    data, _, _ = finished
    rows = read_csv(data.out / "tables" / "panel.csv")
    for competitor, replicate in (("bda", 2), ("q-evo", 1)):
        player = load_player(data.out / "players" / competitor / f"r{replicate:03d}.json", data.game)
        seeds = np.random.SeedSequence(11, spawn_key=(replicate, zlib.crc32(competitor.encode()), 1)).spawn(2)
        for opponent, seed in zip(("random", "always-large"), seeds):
            stats = play_match(data.game, player, resolve_player(opponent, data.game), 100, seed)
            row = next(
                r
                for r in rows
                if r["competitor"] == competitor and r["replicate"] == str(replicate) and r["opponent"] == opponent
            )
            assert (int(row["wins"]), int(row["draws"]), int(row["losses"])) == (stats.wins, stats.draws, stats.losses)


def test_crossplay_family_table_recomputed_from_raw_pairs(finished, plan):
    data, _, _ = finished
    out = data.out
    pairs = read_csv(out / "tables" / "crossplay_pairs.csv")
    family = {(r["family"], r["opponent_family"]): r for r in read_csv(out / "tables" / "crossplay_family.csv")}
    names = [c.name for c in plan.competitors]
    needed = math.ceil(1.959963984540054**2 / (4 * 0.1**2))
    for a in names:
        for b in names:
            wins = losses = games = 0
            for p in pairs:
                fa, fb = p["champion_a"].split("/")[0], p["champion_b"].split("/")[0]
                if (fa, fb) == (a, b):
                    wins += int(p["wins_a"])
                    losses += int(p["losses_a"])
                    games += int(p["games"])
                elif (fa, fb) == (b, a) and a != b:
                    wins += int(p["losses_a"])
                    losses += int(p["wins_a"])
                    games += int(p["games"])
            if not games or a == b:  # no self cells: a family against itself is no comparison
                assert (a, b) not in family
                continue
            row = family[(a, b)]
            assert (int(row["games"]), int(row["wins"]), int(row["losses"])) == (games, wins, losses)
            assert games >= needed  # the per-game precision the protocol asks for
            assert float(row["net"]) == pytest.approx((wins - losses) / games, abs=1e-5)
            # the champion-level interval is around the rate (and wider than the games alone give)
            assert float(row["ci_low"]) <= float(row["win_rate"]) <= float(row["ci_high"])
            assert float(row["net_ci_low"]) <= float(row["net"]) <= float(row["net_ci_high"])
            mirror = family[(b, a)]  # one estimate per unordered pair: the reverse is its mirror
            assert float(mirror["net_ci_low"]) == pytest.approx(-float(row["net_ci_high"]), abs=1e-5)
    # every champion meets every other exactly once
    labels = {p["champion_a"] for p in pairs} | {p["champion_b"] for p in pairs}
    assert len(pairs) == len(labels) * (len(labels) - 1) // 2 == 45


def test_heatmap_draws_the_csv_numbers(finished, plan):
    data, _, captured = finished
    rows = read_csv(data.out / "tables" / "crossplay_family.csv")
    labels = captured["labels"]
    assert labels == [c.label for c in plan.competitors]
    drawn = {(round(y), round(x)): text for (x, y), text in captured["texts"]}
    assert len(drawn) == len(rows)
    for row in rows:  # the net score in points, signed, with its champion-level interval
        i, j = labels.index(row["method"]), labels.index(row["opponent_method"])
        net, *interval = drawn[(i, j)].split("\n")
        assert float(net) == pytest.approx(
            100 * float(row["net"]), abs=0.501
        )  # cells print whole points (figures.heatmap sizes text to the cell)
        if row["net_ci_low"]:
            low, high = (float(x) for x in interval[0].strip("[]").split(", "))
            assert low == pytest.approx(100 * float(row["net_ci_low"]), abs=0.501)
            assert high == pytest.approx(100 * float(row["net_ci_high"]), abs=0.501)
        else:  # a family against itself: no interval drawn
            assert interval == []


def test_report_tables_match_the_csv(finished):
    data, _, _ = finished
    report = (data.out / "report.md").read_text()
    for row in read_csv(data.out / "tables" / "panel_summary.csv"):
        if row["opponent"] == "random":
            assert f"{100 * float(row['mean']):.1f}% [{100 * float(row['ci_low']):.1f}%" in report


def test_report_shows_the_budgets_every_family_configured_for_the_level(finished):
    """The panel table gives each family's games consumed: the scale's level, 450 games, sets
    every family's generations / episodes (BDA 2 generations of 15 x 3 x 5 = 225 games; FSM 19
    of a round robin of 4, 4 x 3 x 2 = 24 games each; the learners 450 episodes)."""
    data, _, _ = finished
    report = (data.out / "report.md").read_text()
    budget = {"BDA": 2 * 15 * 3 * 5, "FSM": 19 * 4 * 3 * 2, "MC-ES": 450, "Q (evo)": 450}
    results = report.split("### Against the builtin panel")[1].split("###")[0]
    for label, games in budget.items():
        assert any(line.startswith(f"| {label} | {games:,} |") for line in results.splitlines()), label
    for c in data.plan.competitors:
        assert {r.games for r in data.family(c.name)} == {budget[c.label]}, c.name


def test_report_states_the_declared_questions_and_their_verdicts(finished):
    data, analysis, _ = finished
    report = (data.out / "report.md").read_text()
    conclusions = report.split("## Conclusions")[1].split("## Compute")[0]
    assert "The study declares 2 questions in advance" in conclusions
    for pair in ("**FSM vs BDA**", "**MC-ES vs Q (evo)**"):
        line = next(x for x in conclusions.splitlines() if pair in x)
        said = line.lower()  # each measure opens a sentence of its own
        assert "against `random`" in said and "league" in said and "cross-play" in said
    tests = read_csv(data.out / "tables" / "panel_tests.csv")
    declared = [r for r in tests if r["declared"] == "True"]
    assert {(r["method_a"], r["method_b"]) for r in declared} == {("FSM", "BDA"), ("MC-ES", "Q (evo)")}
    assert all(r["p_holm"] == "" for r in tests if r["declared"] == "False")
    assert "### Reliability of one run" in report and "P(a run of the row beats the median run" in report
    assert "figures/reliability.png" in report and (data.out / "figures" / "reliability.png").exists()


def test_report_has_no_empty_heading_and_lists_no_unwritten_figure(finished, tmp_path):
    data, _, _ = finished
    assert report_defects((data.out / "report.md").read_text(), figures=True) == []
    bare = dataclasses.replace(data, out=tmp_path)
    write_report(one_part(bare, "fsmarena study tiny.toml --no-figures"), figures=False)
    report = (tmp_path / "report.md").read_text()
    assert report_defects(report, figures=False) == []
    assert "### Learning curves" not in report


# ---- reproducibility ------------------------------------------------------------------------------


def test_jobs_do_not_change_results(finished, plan, tmp_path):
    data, _, _ = finished
    other = run(plan, tmp_path / "jobs2", jobs=2, log=lambda m: None)
    analyse(other, figures=False)
    assert tables(tmp_path / "jobs2") == tables(data.out)


def test_interrupted_study_resumes_to_the_same_results(finished, plan, tmp_path, monkeypatch):
    data, _, _ = finished
    out = tmp_path / "resumed"
    calls = {"n": 0}
    real = runner._run_task

    def dying(task):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt  # as if the user pressed Ctrl-C during the fifth task
        return real(task)

    monkeypatch.setattr(runner, "_run_task", dying)
    with pytest.raises(KeyboardInterrupt):
        run(plan, out, jobs=1, log=lambda m: None)
    monkeypatch.setattr(runner, "_run_task", real)
    done = sorted((out / "replicates").rglob("*.json"))
    assert len(done) == 4 and not (out / "raw").exists()
    before = {p: p.stat().st_mtime_ns for p in done}
    messages = []
    resumed = run(plan, out, jobs=1, log=messages.append)
    assert any("4 of 8 tasks already done" in m for m in messages)
    assert {p: p.stat().st_mtime_ns for p in done} == before  # finished replicates were not redone
    analyse(resumed, figures=False)
    assert tables(out) == tables(data.out)
    # a third run reuses everything, including the cross-play
    messages.clear()
    run(plan, out, jobs=1, log=messages.append)
    assert any("reusing" in m for m in messages)


def test_tasks_never_touch_the_output_folder(finished, plan, tmp_path, monkeypatch):
    """Workers on other machines of a cluster cannot see DIR: a task takes the champions it
    needs with it and returns its result, which the study's own process writes."""
    data, _, _ = finished
    out, hidden = tmp_path / "study", tmp_path / "elsewhere"
    real = runner._run_task

    def on_another_machine(task):
        out.rename(hidden)  # DIR is not there while the task runs
        try:
            return real(task)
        finally:
            hidden.rename(out)

    monkeypatch.setattr(runner, "_run_task", on_another_machine)
    other = run(plan, out, jobs=1, log=lambda m: None)
    analyse(other, figures=False)
    assert tables(out) == tables(data.out)


def test_stale_result_file_is_redone(finished, plan, tmp_path):
    """A result of another protocol, or computed under other method defaults, is recomputed."""
    import json

    data, _, _ = finished
    out = tmp_path / "stale"
    runner.claim(out, plan)
    target = runner.result_path(out, "bda", 0)
    target.parent.mkdir(parents=True)
    target.write_text('{"format_version": 1, "fingerprint": "somebody else"}')
    old_defaults = json.loads(runner.result_path(data.out, "fsm", 1).read_text())
    assert old_defaults["settings"]["generations"] == 19  # the level's 450 games: 19 x 24 = 456
    old_defaults["settings"]["generations"] = 7
    panel = old_defaults["panel"]["random"]  # a consistent but different record: shows if it were used
    panel["wins"], panel["losses"] = 0, panel["games"] - panel["draws"]
    runner.result_path(out, "fsm", 1).parent.mkdir(parents=True)
    runner.result_path(out, "fsm", 1).write_text(json.dumps(old_defaults))
    result = run(plan, out, jobs=1, log=lambda m: None)
    assert result.records[("bda", 0)].seed == data.records[("bda", 0)].seed
    analyse(result, figures=False)
    assert tables(out) == tables(data.out)


def test_a_changed_definition_keeps_every_untouched_familys_tasks(finished, study_file, tmp_path):
    """A family added to the study (or one changed) is run in the same folder; every other
    family's finished tasks are kept byte for byte, and the stages run again over all."""
    import shutil

    data, _, _ = finished
    out = tmp_path / "grown"
    shutil.copytree(data.out, out)
    before = snapshot(out / "replicates")
    sarsa = TINY.replace(
        "[scales.test]",
        """[[competitors]]
name = "sarsa"
label = "SARSA"
method = "train"
params = { algo = "sarsa", episodes = 600, batch = 200, eval_every = 300, eval_games = 100, learner_seat = 0 }

[scales.test]""",
    )
    grown_file = tmp_path / "grown.toml"
    grown_file.write_text(sarsa)
    grown = load_study_toml(grown_file).plan("test")
    assert grown.fingerprint != data.plan.fingerprint
    assert all(grown.task_fingerprint(c) == data.plan.task_fingerprint(c) for c in ("bda", "fsm", "mc", "q-evo"))
    messages = []
    result = run(grown, out, jobs=1, log=messages.append)
    assert any("another definition of study 'tiny'" in m for m in messages)
    after = snapshot(out / "replicates")
    assert {k: v for k, v in after.items() if not k.startswith("sarsa")} == before
    assert sum(k.startswith("sarsa") for k in after) == 3
    analyse(result, figures=False)
    assert "SARSA" in (out / "tables" / "crossplay_family.csv").read_text()
    assert result.records[("bda", 0)].raw == data.records[("bda", 0)].raw
    # changing the BDAs' settings reruns them and the family that trains against them, nothing else
    changed = sarsa.replace("opponents = 3, curve_every", "opponents = 2, curve_every")
    grown_file.write_text(changed)
    again = load_study_toml(grown_file).plan("test")
    kept = snapshot(out / "replicates")
    run(again, out, jobs=1, log=lambda m: None)
    redone = {k for k, v in snapshot(out / "replicates").items() if kept[k] != v}
    assert {k.split("/")[0] for k in redone} == {"bda", "q-evo"}


# ---- bad input ------------------------------------------------------------------------------------


def run_cli(*args) -> int:
    return main(["study", *args, "--quiet"])


def test_unknown_study_and_scale(tmp_path, capsys, study_file):
    assert run_cli("no-such-study", "--out", str(tmp_path / "a")) == 2
    assert "unknown study 'no-such-study'" in capsys.readouterr().err
    assert run_cli(str(study_file), "--scale", "huge", "--out", str(tmp_path / "b")) == 2
    assert "has no scale 'huge'" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_out_holding_another_study_is_refused_untouched(finished, tmp_path, capsys, study_file):
    data, _, _ = finished
    before = snapshot(data.out)
    assert run_cli(str(study_file), "--scale", "other", "--out", str(data.out)) == 2
    err = capsys.readouterr().err
    assert "holds the results of study 'tiny' (scale test" in err and err.count("\n") == 1
    assert run_cli("dtd-thesis", "--scale", "test", "--out", str(data.out)) == 2
    assert "choose another --out" in capsys.readouterr().err
    assert snapshot(data.out) == before
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    assert run_cli(str(study_file), "--scale", "test", "--out", str(foreign)) == 2
    assert "holds no study results" in capsys.readouterr().err
    assert snapshot(foreign) == {"notes.txt": hashlib.sha256(b"mine").hexdigest()}


@pytest.mark.parametrize(
    "change, message",
    [
        (('method = "train"', 'method = "tran"'), "unknown study method 'tran'"),
        (("games_per_pair = 2", "games_per_pair = 2, bogus = 3"), "unknown parameter 'bogus'"),
        (
            ("episodes = 600, batch = 200, eval_every = 300, eval_games = 100, learner_seat = 0", "episodes = -5"),
            "competitor 'mc'",
        ),
        (('needs = ["bda", "fsm"]', 'needs = ["bda", "nobody"]'), "needs unknown competitors: nobody"),
        (("mc = { replicates = 2 }", "mc = { replicates = 2 }\nbda = { replicates = 1 }"), "has more replicates"),
        (
            ("crossplay_halfwidth = 0.1\n[scales.test.budgets]", "crossplay_halfwidth = 0.7\n[scales.test.budgets]"),
            "crossplay_halfwidth",
        ),
        (('panel = ["random", "always-large"]', 'panel = ["random", "always-huge"]'), "unknown player 'always-huge'"),
        (("version = 1", 'version = "one"'), "field 'version' must be a whole number"),
        (("[[competitors]]", "[[competitors]"), "not valid TOML"),
        (('["mc", "q-evo"]]', '["mc", "sarsa"]]'), "questions: unknown competitor 'sarsa'"),
        (('["mc", "q-evo"]]', '["mc", "mc"]]'), "questions: 'mc' is compared with itself"),
        (('["mc", "q-evo"]]', '["bda", "fsm"]]'), "questions: bda against fsm is asked twice"),
        (('["mc", "q-evo"]]', '["mc"]]'), "must be a pair of competitor names"),
        (('questions = [["fsm", "bda"], ["mc", "q-evo"]]', 'questions = "fsm"'), "field 'questions' must be a list"),
    ],
)
def test_bad_study_definitions_fail_before_writing(tmp_path, capsys, change, message):
    old, new = change
    assert old in TINY
    path = tmp_path / "bad.toml"
    path.write_text(TINY.replace(old, new, 1))
    out = tmp_path / "out"
    assert run_cli(str(path), "--scale", "test", "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_circular_needs_rejected():
    data = {
        "name": "loop",
        "version": 1,
        "game": "dtd",
        "seed": 1,
        "competitors": [
            {"name": "a", "method": "builtin", "needs": ["b"]},
            {"name": "b", "method": "builtin", "needs": ["a"]},
        ],
        "scales": {"test": {"replicates": 1, "panel_games": 10, "crossplay_halfwidth": 0.1}},
    }
    with pytest.raises(FsmarenaError, match="circular"):
        study_from_dict(data)


def test_named_study_plans_and_budgets():
    study = get_study("dtd-thesis")
    assert set(study.scales) >= {"test", "quick", "paper"}
    paper = study.plan("paper")  # the largest level, 2,000,000 games
    bda = paper.competitor("bda")
    assert bda.replicates == 100 and bda.params["generations"] == 1067 and bda.params["protocol"] == "thesis"
    assert study.plan("paper", level=468_750).competitor("bda").params["generations"] == 250
    assert paper.competitor("mc").params["episodes"] == 2_000_000
    assert paper.crossplay_games_needed() == 9604
    assert paper.fingerprint != study.plan("quick").fingerprint
    assert study.plan("quick", seed=5).fingerprint != study.plan("quick").fingerprint
    # replicate seeds are SeedSequence(master).spawn(R)[r]
    spawned = np.random.SeedSequence(study.seed).spawn(3)[2]
    assert paper.replicate_seed(2).generate_state(4).tolist() == spawned.generate_state(4).tolist()


def test_csv_cells_are_plain(finished):
    data, _, _ = finished
    with open(data.out / "tables" / "panel.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert all(
        float(r["win_rate"]) == int(r["wins"]) / int(r["games"])
        or abs(float(r["win_rate"]) - int(r["wins"]) / int(r["games"])) < 1e-6
        for r in rows
    )


@pytest.mark.slow
def test_sigkill_then_rerun_matches_uninterrupted(tmp_path, study_file):
    """Kill -9 a running `fsmarena study` (two worker processes), run it again: same tables."""
    import signal
    import subprocess
    import sys
    import time

    slower = tmp_path / "slower.toml"
    slower.write_text(
        study_file.read_text().replace(
            "levels = [450]", "levels = [7200]"
        )  # BDA 32 generations, FSM 300, learners 7,200 games
    )
    out = tmp_path / "killed"
    command = [
        sys.executable,
        "-m",
        "fsmarena",
        "study",
        str(slower),
        "--scale",
        "test",
        "--jobs",
        "2",
        "--out",
        str(out),
        "--quiet",
        "--no-figures",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / "replicates").rglob("*.json"))) < 2:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not (out / "report.md").exists(), "the run finished before it could be killed"
    finished = subprocess.run(command, capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr
    reference = tmp_path / "reference"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "fsmarena",
            "study",
            str(slower),
            "--scale",
            "test",
            "--jobs",
            "1",
            "--out",
            str(reference),
            "--quiet",
            "--no-figures",
        ],
        check=True,
        capture_output=True,
    )
    assert tables(out) == tables(reference)


def test_crossplay_cache_is_reused_only_for_the_same_champions(finished, plan, tmp_path):
    import json
    import shutil

    data, _, _ = finished
    out = tmp_path / "copy"
    shutil.copytree(data.out, out)
    raw = out / "raw" / "crossplay.json"
    cached = json.loads(raw.read_text())
    k = next(i for i, w in enumerate(cached["wins"]) if w > 0)
    cached["wins"][k] -= 1  # a consistent edit that shows whether the cache was used
    cached["draws"][k] += 1
    raw.write_text(json.dumps(cached))
    messages = []
    analyse(run(plan, out, jobs=1, log=messages.append), figures=False)
    assert any("reusing" in m for m in messages)
    assert tables(out)["crossplay_pairs"] != tables(data.out)["crossplay_pairs"]
    cached["champions"] = "0" * 64  # as if some champion had been retrained since
    raw.write_text(json.dumps(cached))
    messages.clear()
    analyse(run(plan, out, jobs=1, log=messages.append), figures=False)
    assert not any("reusing" in m for m in messages)
    assert tables(out) == tables(data.out)
