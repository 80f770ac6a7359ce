"""The one study pipeline: stages, sweeps, one results object and one store.

Oracles: a stage written in the test folder and registered by one line runs in a study, reaches
its results object, is kept by the store and read back equal (a damaged copy is its own one-line
error); a swept study gives each part the plan of the study with that parameter; the fields a
stage declares are read and any other is refused; the run's results, its folder read back and its
store are the same results.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import fsmarena
from fsmarena.errors import FsmarenaError
from fsmarena.studies import registry
from fsmarena.studies.catalogue import load_study_toml, study_from_data
from fsmarena.studies.registry import Entry
from fsmarena.studies.store import read_results, write_results
from tests.cli_helpers import cli, run_cli

SMALL = """
name = "small"
version = 1
title = "Small study"
question = "Does a stage from elsewhere run?"
game = "dtd"
seed = 5
panel = ["random"]
stages = ["crossplay", "games-consumed"]
games_label = "training games"

[[competitors]]
name = "mc"
label = "MC"
method = "train"
params = { algo = "mc", episodes = 300, batch = 100, eval_every = 150, eval_games = 50 }

[[competitors]]
name = "large"
label = "always-large"
method = "builtin"
params = { player = "always-large" }

[scales.test]
replicates = 2
panel_games = 60
crossplay_halfwidth = 0.2
"""


@pytest.fixture()
def with_stage(monkeypatch):
    """The test folder's stage registered by one line, as a user would add one."""
    entry = Entry("games-consumed", "tests.stage_helpers:STAGE", "games consumed per family", ("games_label",))
    monkeypatch.setitem(registry.STAGES, "games-consumed", entry)


@pytest.fixture()
def small(tmp_path, with_stage) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL, encoding="utf-8")
    return path


def test_a_stage_from_the_test_folder_runs_and_reaches_the_results(small, tmp_path):
    results = fsmarena.run_study(small, scale="test", out=tmp_path / "run", figures=False)
    data = results.only
    assert list(data.stages) == ["crossplay", "games-consumed"]
    assert data.stages["games-consumed"] == {"mc": 2 * 300, "large": 0}
    with pytest.raises(FsmarenaError, match="names study 'small', not a named study"):
        fsmarena.load_results(tmp_path / "run")
    again = fsmarena.load_results(tmp_path / "run", study=small)  # from the folder: the stages' caches
    assert again.only.stages["games-consumed"] == data.stages["games-consumed"]
    assert again.tables() == results.tables()


def test_a_stage_field_is_known_only_where_the_stage_is_listed(small, tmp_path):
    assert load_study_toml(small).options == {"games_label": "training games"}
    without = tmp_path / "without.toml"
    without.write_text(SMALL.replace('stages = ["crossplay", "games-consumed"]\n', ""), encoding="utf-8")
    with pytest.raises(FsmarenaError, match="field 'games_label' is a setting of stage 'games-consumed': list"):
        load_study_toml(without)
    unknown = tmp_path / "unknown.toml"
    unknown.write_text(SMALL.replace('"games-consumed"]', '"no-such-stage"]'), encoding="utf-8")
    with pytest.raises(FsmarenaError, match="unknown stage 'no-such-stage' \\(known: crossplay, league"):
        load_study_toml(unknown)
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.replace('games_label = "training games"', "games_label = 3"), encoding="utf-8")
    with pytest.raises(FsmarenaError, match="'games_label' must be a string"):
        load_study_toml(bad)


def test_a_stage_is_stored_and_read_back_by_its_own_reader(small, tmp_path, monkeypatch, capsys):
    code, _ = cli("study", small, "--scale", "test", "--out", tmp_path / "run", "--no-figures", "--quiet")
    assert code == 0
    root = tmp_path / "checkout"
    (root / "docs").mkdir(parents=True)
    # a named study: the store holds the named studies only
    monkeypatch.setattr("fsmarena.studies.catalogue.studies", lambda: {"small": str(small)})
    monkeypatch.setattr("fsmarena.studies.pipeline.study_names", lambda: ["small"])
    assert run_cli(capsys, "publish", "--add", tmp_path / "run", "--root", root)[0] == 0
    store = root / "published" / "small"
    stored = read_results(store)
    assert stored["parts"][0]["stages"]["games-consumed"] == {"mc": 600, "large": 0}
    loaded = fsmarena.load_results(store)
    assert loaded.only.stages["games-consumed"] == {"mc": 600, "large": 0}
    stored["parts"][0]["stages"]["games-consumed"] = {"mc": 600}
    write_results(store, stored)
    with pytest.raises(FsmarenaError, match="games-consumed: must hold one count per competitor"):
        fsmarena.load_results(store)
    del stored["parts"][0]["stages"]["games-consumed"]
    write_results(store, stored)
    with pytest.raises(FsmarenaError, match="must hold exactly the results of the stages crossplay, games-consumed"):
        fsmarena.load_results(store)


SWEPT = """
name = "swept"
version = 1
title = "Swept"
question = "Two player counts"
game = "vautour"
seed = 3
panel = ["random", "max", "prize-rank"]
game_params = { cards = "5" }
sweep = { players = [2, 3] }
stages = ["league"]
report = "player-counts"
reference = "prize-rank"

[[competitors]]
name = "q"
label = "Q"
method = "train"
params = { algo = "q-learning", episodes = 200, batch = 100, eval_every = 100, eval_games = 40 }

[scales.test]
replicates = 1
panel_games = 40
crossplay_halfwidth = 0.3
league_games = 20
"""


def test_a_sweep_gives_each_part_the_study_with_that_parameter(tmp_path):
    study = study_from_data(__import__("tomllib").loads(SWEPT), "swept")
    parts = study.parts()
    assert list(parts) == [2, 3]
    assert [p.name for p in parts.values()] == ["swept-2p", "swept-3p"]
    assert [p.title for p in parts.values()] == ["Swept (2 players)", "Swept (3 players)"]
    assert [dict(p.game_params) for p in parts.values()] == [
        {"cards": "5", "players": "2"},
        {"cards": "5", "players": "3"},
    ]
    assert study.part_folder(tmp_path, 3) == tmp_path / "3-players"
    # the part plans are those of the same study written out for one player count
    single = __import__("tomllib").loads(SWEPT.replace("sweep = { players = [2, 3] }\n", ""))
    single.update(name="swept-3p", title="Swept (3 players)", game_params={"cards": "5", "players": "3"})
    assert study_from_data(single, "single").plan("test").fingerprint == parts[3].plan("test").fingerprint
    for bad, message in (
        ("sweep = { players = [2, 2] }", "'sweep' must name one rule parameter"),
        ("sweep = { players = [2], cards = [5] }", "'sweep' must name one rule parameter"),
        ("sweep = { cards = [4, 5] }", "give the values of 'cards' in 'sweep', not in game_params"),
    ):
        with pytest.raises(FsmarenaError, match=message):
            study_from_data(__import__("tomllib").loads(SWEPT.replace("sweep = { players = [2, 3] }", bad)), "bad")


def test_a_swept_run_keeps_its_parts_and_refuses_one_part_alone(tmp_path, capsys):
    path = tmp_path / "swept.toml"
    path.write_text(SWEPT, encoding="utf-8")
    results = fsmarena.run_study(path, scale="test", out=tmp_path / "run", figures=False)
    assert sorted(results.parts) == [2, 3] and all("league" in d.stages for d in results.parts.values())
    marker = json.loads((tmp_path / "run" / "sweep.json").read_text(encoding="utf-8"))
    assert marker["fingerprints"] == {str(n): d.plan.fingerprint for n, d in results.parts.items()}
    assert (tmp_path / "run" / "2-players" / "report.md").is_file()  # each part's own report
    assert results.settings.keys() == {"q.2p", "q.3p"}
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "run", copy)
    with pytest.raises(FsmarenaError, match="is one part of the run in"):
        fsmarena.load_results(copy / "2-players", study=path)
    assert fsmarena.load_results(copy, study=path).tables() == results.tables()


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "name",
    ["421", *(pytest.param(n, marks=pytest.mark.slow) for n in ("dtd-thesis", "goofspiel", "thirtyone", "vautour"))],
)
def test_a_section_from_the_test_folder_is_in_every_studys_report(name, monkeypatch):
    """One registry line adds a section to every report layout, before its compute section (and
    taking the line out takes the section out: checked on 421, whose report is written in seconds;
    dtd-thesis's takes minutes a time)."""
    from fsmarena.publish.pages import report_of
    from fsmarena.studies.store import load_store

    entry = Entry("replicates", "tests.stage_helpers:replicates_section", "replicate tasks per part")
    monkeypatch.setitem(registry.SECTIONS, "replicates", entry)
    results = load_store(ROOT / "published" / name)
    text, _ = report_of(results)
    counts = ", ".join(str(len(data.records)) for data in results.parts.values())
    assert text.count("## Replicates at a glance") == 1 and f"Replicate tasks per part: {counts}." in text
    assert text.index("## Replicates at a glance") < text.index("## Compute") < text.index("## Reproduce")
    if name == "421":
        monkeypatch.delitem(registry.SECTIONS, "replicates")
        assert "## Replicates at a glance" not in report_of(results)[0]
