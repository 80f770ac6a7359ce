"""The Python API (docs/python-api.md): the functions run the command line's pipeline, and every
snippet of the page runs.

Oracles: a study run from Python writes the same tables as ``fsmarena study`` with the same seed;
its results read back from the folder and from a published store are the same object with the
same tables; a match played from Python counts the same games as ``fsmarena play``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fsmarena
from fsmarena.errors import FsmarenaError
from fsmarena.studies.results import StudyResults
from tests.cli_helpers import cli

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "python-api.md"


@pytest.fixture(scope="module")
def run_421(tmp_path_factory) -> tuple[StudyResults, Path]:
    out = tmp_path_factory.mktemp("api") / "421"
    return fsmarena.run_study("421", scale="test", out=out, figures=False), out


def test_run_study_writes_the_folder_the_command_writes(run_421, tmp_path):
    results, out = run_421
    code, _ = cli(
        "study", "421", "--scale", "test", "--jobs", "2", "--out", tmp_path / "cli", "--no-figures", "--quiet"
    )
    assert code == 0
    for table in ("values", "values_summary", "curves"):
        ours = (out / "tables" / f"{table}.csv").read_text(encoding="utf-8")
        assert ours == (tmp_path / "cli" / "tables" / f"{table}.csv").read_text(encoding="utf-8"), table
    assert results.command == f"fsmarena study 421 --scale test --jobs 1 --out {out}"
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["command"] == results.command
    assert len(results.only.records) == sum(c.replicates for c in results.only.plan.competitors)


def test_load_results_reads_a_folder_and_a_published_store(run_421):
    results, out = run_421
    again = fsmarena.load_results(out)
    assert again.tables() == results.tables() and again.summary() == results.summary()
    assert "Q-learning" in results.summary() and "report:" not in results.summary()
    rows = again.tables()["values_summary"]
    assert all(isinstance(row["median"], float) for row in rows)
    published = fsmarena.load_results(ROOT / "published" / "421")
    assert published.manifest is not None and published.manifest["scale"] == "paper"
    assert {row["method"] for row in published.tables()["values_summary"]} == {row["method"] for row in rows}


def test_to_pandas_gives_a_frame_per_table(run_421):
    pandas = pytest.importorskip("pandas")
    frames = run_421[0].to_pandas()
    assert set(frames) == set(run_421[0].tables())
    frame = frames["values_summary"]
    assert isinstance(frame, pandas.DataFrame) and list(frame["method"]) == [
        row["method"] for row in run_421[0].tables()["values_summary"]
    ]


def test_a_folder_that_is_no_run_is_one_clear_error(tmp_path):
    with pytest.raises(FsmarenaError, match="is not a study folder"):
        fsmarena.load_results(tmp_path)


def test_play_counts_what_the_command_counts():
    stats = fsmarena.play("dtd", "always-large", "random", games=2000, seed=1)
    code, text = cli("play", "dtd", "always-large", "random", "--games", "2000", "--seed", "1", "--json")
    assert code == 0
    result = json.loads(text)
    assert stats.games == 2000 and stats.wins / stats.games == pytest.approx(result["win"])


def test_import_fsmarena_loads_no_engine():
    code = "import sys, fsmarena; print('numba' in sys.modules, 'fsmarena.api' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.split() == ["False", "False"]
    with pytest.raises(AttributeError):
        fsmarena.no_such_function  # noqa: B018


def test_every_snippet_of_the_page_runs(tmp_path, monkeypatch):
    """The page's Python blocks, in order, in one namespace, from a fresh folder holding the
    repository's published/ (as a checkout does)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "published").symlink_to(ROOT / "published")
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(PAGE), "exec"), namespace)  # noqa: S102 - the documentation's own code
    assert (
        isinstance(namespace["results"], StudyResults) and (tmp_path / "results" / "421-test" / "report.md").is_file()
    )


def test_train_and_evolve_give_what_the_commands_give(tmp_path):
    from fsmarena.games import get_game
    from fsmarena.games.players import load_player, player_to_json

    game = get_game("dtd")
    trained = fsmarena.train("dtd", "q-learning", episodes=3000, seed=3)
    assert (
        cli("train", "dtd", "--algo", "q-learning", "--episodes", "3000", "--seed", "3", "--out", tmp_path / "q")[0]
        == 0
    )
    assert player_to_json(trained.policy, game) == player_to_json(
        load_player(tmp_path / "q" / "policy.json", game), game
    )
    evolved = fsmarena.evolve("dtd", "fsm", "round-robin", generations=2, population=4, games_per_pair=2, seed=4)
    argv = ("evolve", "dtd", "--genome", "fsm", "--protocol", "round-robin", "--generations", "2", "--population", "4")
    assert cli(*argv, "--games-per-pair", "2", "--seed", "4", "--out", tmp_path / "e")[0] == 0
    expected = load_player(tmp_path / "e" / "best.json", game)
    assert {**player_to_json(evolved.best, game), "label": ""} == {**player_to_json(expected, game), "label": ""}


def test_a_setting_the_learner_does_not_take_is_one_clear_error():
    with pytest.raises(FsmarenaError, match="max_tests|max-tests"):
        fsmarena.evolve("dtd", "fsm", "round-robin", generations=1, max_tests=3)
    with pytest.raises(FsmarenaError, match="unknown training setting 'no_such_setting'"):
        fsmarena.train("dtd", "q-learning", no_such_setting=1)
    with pytest.raises(FsmarenaError, match="unknown evolution setting 'generation'"):
        fsmarena.evolve("dtd", generation=3)
