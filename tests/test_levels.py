"""Budget levels: a scale with several ``levels`` runs every family configured for each, and the
report compares the families at each (the sample-efficiency section, the declared questions).

One small divide-the-dollar study with levels of 750 and 1,500 games at the test scale is run once
for the module; the tests check what it ran, how it resumes, what the store keeps, and that every
number the section prints is recomputed from the replicates by plain numpy."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import numpy as np
import pytest
from publish_helpers import store_one_part

from fsmarena.api import load_results, run_study
from fsmarena.errors import FsmarenaError
from fsmarena.studies import sample_efficiency as se
from fsmarena.studies.budgets import TOLERANCE, curve_value_at
from fsmarena.studies.registry import SECTIONS
from fsmarena.studies.store import RESULTS, load_store

STUDY = """
name = "dtd-levels"
version = 1
title = "Two budget levels"
question = "Which family is ahead at each budget?"
game = "dtd"
seed = 7
panel = ["random", "always-small"]
curve_opponent = "random"
stages = ["crossplay", "cards"]
questions = [["bda", "q-learning"], ["mc", "q-learning"]]

[[competitors]]
name = "bda"
label = "BDA"
method = "evolve"
params = { genome = "bda", protocol = "thesis", curve_every = 2, curve_games = 100 }

[[competitors]]
name = "mc"
label = "MC-ES"
method = "train"
params = { algo = "mc", learner_seat = 0, eval_games = 100, eval_schedule = "log" }

[[competitors]]
name = "q-learning"
label = "Q-learning"
method = "train"
params = { algo = "q-learning", learner_seat = 0, eval_games = 100, eval_schedule = "log" }

[scales.test]
replicates = 3
panel_games = 100
crossplay_halfwidth = 0.1
levels = [1500, 750]
[scales.test.budgets]
bda = { opponents = 5, curve_games = 100 }
mc = { eval_points = 3 }
q-learning = { eval_points = 3 }
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("levels")
    (folder / "study.toml").write_text(STUDY)
    results = run_study(folder / "study.toml", "test", folder / "out", figures=False)
    return folder, results


def test_the_scale_runs_every_family_configured_for_each_level(run):
    folder, results = run
    assert results.level == 1500 and list(results.levels) == [750]
    assert (folder / "out" / "levels" / "750-games" / "study.json").is_file()
    for level, at in results.at_every_level().items():
        data = at.only
        for c in data.plan.competitors:
            games = [r.games for r in data.family(c.name)]
            assert all(abs(g - level) <= TOLERANCE * level for g in games), (level, c.name, games)


def test_the_compute_section_counts_the_tasks_of_every_level(run):
    """The top level's total, each smaller level's and their sum, each from the records' own CPU
    seconds (the manifest of a published run counts every level's tasks: the page must agree)."""
    from fsmarena.studies.provenance import compute_section

    _, results = run
    minutes = {
        level: sum(r.cpu_seconds for r in at.only.records.values()) / 60
        for level, at in results.at_every_level().items()
    }
    text = compute_section(results)
    assert f"Total CPU time of the replicate tasks at 1,500 games: {minutes[1500]:.1f} min" in text
    assert f"At the smaller budget levels: {minutes[750]:.1f} min at 750 games;" in text
    assert f"every level together: {minutes[750] + minutes[1500]:.1f} min." in text
    assert "smaller budget levels" not in compute_section(results.levels[750])


def test_a_smaller_level_runs_only_the_stages_that_compare_families(run):
    _, results = run
    assert set(results.only.stages) == {"crossplay", "cards"}
    assert set(results.levels[750].only.stages) == {"crossplay"}


def test_reading_the_folder_again_gives_every_level_identically(run):
    folder, results = run
    again = load_results(folder / "out", folder / "study.toml")
    for level, at in results.at_every_level().items():
        theirs = again.at_every_level()[level].only
        for key, record in at.only.records.items():
            assert theirs.records[key].raw == record.raw


def test_the_store_keeps_every_level_and_reads_it_back(run, tmp_path):
    _, results = run
    store = store_one_part(results, tmp_path)
    back = load_store(store)
    assert back.level == 1500 and list(back.levels) == [750]
    for key, record in results.levels[750].only.records.items():
        assert {k: v for k, v in record.raw.items() if k != "player"} == back.levels[750].only.records[key].raw
    assert back.manifest["tasks"] == 2 * 3 * 3
    assert se.section(back) == se.section(results)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d["levels"][0].update(level=1500), "smaller budget level"),
        (lambda d: d["levels"][0].update(level=3000), "smaller budget level"),
        (lambda d: d["levels"].append(dict(d["levels"][0])), "named once"),
        (lambda d: d["levels"][0]["parts"][0]["stages"].pop("crossplay"), "stages"),
        (lambda d: d["levels"][0]["parts"][0]["plan"].update(seed=8), "fingerprint"),
    ],
)
def test_a_tampered_level_in_a_store_is_one_clear_error(run, tmp_path, edit, message):
    _, results = run
    store = store_one_part(results, tmp_path)
    data = json.loads(gzip.decompress((store / RESULTS).read_bytes()))
    edit(data)
    (store / RESULTS).write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(FsmarenaError, match=message) as caught:
        load_store(store)
    assert "\n" not in str(caught.value)


def _cells(text: str, heading: str) -> list[list[str]]:
    """The rows of the first table after ``heading``."""
    after = text.split(heading, 1)[1]
    rows = [line for line in after.splitlines() if line.startswith("| ")]
    block = []
    for line in after.splitlines()[after.splitlines().index(rows[0]) :]:
        if not line.startswith("|"):
            break
        block.append([cell.strip() for cell in line.strip("|").split("|")])
    return block


def _mean(cell: str) -> float:
    return float(re.match(r"(?:all \d+ replicates )?(-?[\d.]+)%", cell).group(1)) / 100


def test_every_curve_cell_is_the_mean_of_the_replicates_curves_read_there(run):
    _, results = run
    data = results.only
    rows = _cells(se.section(results), "## Sample efficiency")
    header, body = rows[0], rows[2:]
    points = [int(h.split()[0].replace(",", "")) for h in header[2:-1]]
    assert points == se.points(max(se.budgets(data).values())) == [1000]
    for row, c in zip(body, se.curved(data)):
        assert row[0] == c.label
        for games, cell in zip(points, row[2:-1]):
            values = [curve_value_at(games, r.curve_games, r.curve_win) for r in data.family(c.name)]
            if any(v is None for v in values):
                assert cell == "–"
            else:
                assert _mean(cell) == pytest.approx(np.mean(values), abs=0.0005)
        assert _mean(row[-1]) == pytest.approx(np.mean([r.curve_win[-1] for r in data.family(c.name)]), abs=0.0005)


def test_each_level_column_is_the_final_players_win_rate_there(run):
    _, results = run
    rows = _cells(se.section(results), "### At each configured budget")
    assert rows[0] == ["family", "configured for 750 games", "configured for 1,500 games"]
    for row in rows[2:]:
        name = next(c.name for c in results.only.plan.competitors if c.label == row[0])
        for cell, at in zip(row[1:], (results.levels[750], results)):
            rates = [r.panel["random"]["wins"] / r.panel["random"]["games"] for r in at.only.family(name)]
            games = int(np.median([r.games for r in at.only.family(name)]))
            assert _mean(cell) == pytest.approx(np.mean(rates), abs=0.0005)
            assert cell.endswith(f"({games:,})")


def test_the_declared_pairs_cross_play_and_questions_are_given_at_each_level(run):
    _, results = run
    text = se.section(results)
    for level in ("750", "1,500"):
        assert f"- Cross-play at {level} games, BDA vs Q-learning:" in text
        assert f"- Cross-play at {level} games, MC-ES vs Q-learning:" in text
    answers = SECTIONS["questions"]
    from fsmarena.games.registry import resolve

    written = resolve(answers.target, "questions")(results)
    assert written.index("### Every family configured for 750 games") < written.index(
        "### Every family configured for 1,500 games"
    )
    assert written.count("BDA") >= 4


def test_the_report_has_the_section_and_a_scale_without_levels_has_no_level_table(run, tmp_path):
    folder, results = run
    report = (folder / "out" / "report.md").read_text()
    assert "## Sample efficiency" in report and "### At each configured budget" in report
    single = STUDY.replace("levels = [1500, 750]", "levels = [750]").replace('"dtd-levels"', '"dtd-one-level"')
    (tmp_path / "one.toml").write_text(single)
    one = run_study(tmp_path / "one.toml", "test", tmp_path / "out", figures=False)
    assert one.levels == {} and one.level == 750
    assert "## Sample efficiency" in se.section(one) and "At each configured budget" not in se.section(one)
    # the same seed and settings at 750 games: the one-level run is the two-level run's smaller level
    for key, record in one.only.records.items():
        assert {k: v for k, v in record.raw.items() if k not in ("player",)}["games"] == results.levels[
            750
        ].only.records[key].raw["games"]


def test_points_are_the_powers_of_ten_below_the_budget():
    assert se.points(1000) == []
    assert se.points(1001) == [1000]
    assert se.points(2_000_000) == [1000, 10_000, 100_000, 1_000_000]


def test_a_run_folder_missing_a_level_is_not_finished(run, tmp_path):
    import shutil

    folder, _ = run
    copy = tmp_path / "copy"
    shutil.copytree(folder / "out", copy)
    shutil.rmtree(copy / "levels")
    with pytest.raises(FsmarenaError) as caught:
        load_results(copy, folder / "study.toml")
    assert "\n" not in str(caught.value)
    assert Path(copy / "study.json").is_file()


def test_the_summary_rows_of_each_level_are_what_a_page_quotes(run):
    from fsmarena.studies.sample_efficiency import level_summary

    _, results = run
    rows = {row["competitor"]: row for row in level_summary(results)["levels"]}
    for level, at in results.at_every_level().items():
        for c in at.only.plan.competitors:
            rates = [r.panel["random"]["wins"] / r.panel["random"]["games"] for r in at.only.family(c.name)]
            row = rows[f"{c.name}.at-{level}.final"]
            assert row["mean"] == pytest.approx(np.mean(rates)) and row["replicates"] == len(rates)
            assert row["ci_low"] <= row["mean"] <= row["ci_high"]
    lines = level_summary(results)["level_lines"]
    assert lines[0] == "win rate against `random`, every family configured for 750 games" and len(lines) == 4
