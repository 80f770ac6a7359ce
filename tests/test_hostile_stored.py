"""Stored values are range-checked, not only type-checked (``fsmarena.stored_values``), by every
reader of results: a study's replicate result files (a re-run recomputes a damaged one), the
published stores and their manifests (``publish`` and ``publish --check`` refuse them in one
line), and a store is exactly one gzip member."""

from __future__ import annotations

import csv
import gzip
import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import cli, run_cli
from hostile_helpers import assert_one_clear_line, builtin_study
from hypothesis import given
from hypothesis import strategies as st

from fsmarena.errors import FsmarenaError
from fsmarena.stored_values import check_stored
from fsmarena.studies.store import MANIFEST, RESULTS, read_results, write_results

REPOSITORY = Path(__file__).resolve().parents[1]
STUDY = builtin_study("stored")


@pytest.fixture(scope="module")
def finished_study(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("stored")
    definition = root / "stored.toml"
    definition.write_text(STUDY)
    out = root / "out"
    assert cli("study", definition, "--scale", "test", "--out", out, "--no-figures", "--quiet")[0] == 0
    return definition, out


def _get(data: dict, path: str):
    for key in path.split("."):
        data = data[key]
    return data


def _set(data: dict, path: str, value) -> None:
    *parents, last = path.split(".")
    for key in parents:
        data = data[int(key)] if isinstance(data, list) else data[key]
    data[last] = value


#: a field of a replicate's result file and a value of the right type but impossible
RESULT_DAMAGES = {
    "negative games": ("games", -5),
    "negative panel games": ("panel.random.games", -5),
    "more wins than games": ("panel.random.wins", 21),
    "a negative curve count": ("curve_games", [-1]),
    "negative seconds": ("cpu_seconds", -1.0),
    "a negative seed": ("seed", -3),
}


@pytest.mark.parametrize("damage", sorted(RESULT_DAMAGES))
def test_a_damaged_result_file_is_recomputed_not_reported(capsys, tmp_path, finished_study, damage):
    """``games = -5`` in a result file was accepted on re-run and written to tables/seeds.csv."""
    definition, finished = finished_study
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    path = out / "replicates" / "small" / "r000.json"
    original = path.read_bytes()
    data = json.loads(original)
    _set(data, *RESULT_DAMAGES[damage])
    if damage == "more wins than games":
        data["panel"]["random"]["losses"] = 0  # their sum stays 21 > 20: only the bound is wrong
    path.write_text(json.dumps(data))
    code, _, err = run_cli(capsys, "study", definition, "--scale", "test", "--out", out, "--no-figures", "--quiet")
    assert code == 0, err
    rewritten = json.loads(path.read_bytes())
    field, value = RESULT_DAMAGES[damage]
    assert _get(rewritten, field) != value  # recomputed, not kept
    assert _untimed(rewritten) == _untimed(json.loads(original))  # from its seed, to the same result
    with open(out / "tables" / "seeds.csv", newline="") as handle:
        assert all(int(row["games"]) >= 0 for row in csv.DictReader(handle) if "games" in row)


def _untimed(result: dict) -> dict:
    """A result without its measured times (a recomputation takes its own)."""
    return {k: v for k, v in result.items() if not k.endswith("_seconds")}


@pytest.fixture()
def checkout(tmp_path) -> Path:
    """A checkout holding the repository's published 421 run and its page."""
    root = tmp_path / "checkout"
    shutil.copytree(REPOSITORY / "published" / "421", root / "published" / "421")
    (root / "docs" / "results").mkdir(parents=True)
    shutil.copyfile(REPOSITORY / "docs" / "results" / "421.md", root / "docs" / "results" / "421.md")
    # the page shows the figures drawn beside it (its figures block reads that folder)
    shutil.copytree(REPOSITORY / "docs" / "results" / "421", root / "docs" / "results" / "421")
    (root / "README.md").write_text("# project\n", encoding="utf-8")
    return root


def _results(change):
    def damage(folder: Path) -> None:
        results = read_results(folder)
        change(results)
        write_results(folder, results)

    return damage


def _first_curve(results: dict) -> dict:
    return next(r for r in results["parts"][0]["results"] if r["curve_games"])


def _manifest(key, value):
    def damage(folder: Path) -> None:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        manifest[key] = value
        (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")

    return damage


def _append(data: bytes):
    def damage(folder: Path) -> None:
        with open(folder / RESULTS, "ab") as handle:
            handle.write(data)

    return damage


STORE_DAMAGES = {
    "a result with games = -1": (
        _results(lambda r: r["parts"][0]["results"][0].__setitem__("games", -1)),
        "field 'games'",
    ),
    "a curve count below 0": (_results(lambda r: _first_curve(r)["curve_games"].__setitem__(0, -1)), "curve_games"),
    "negative CPU seconds": (
        _results(lambda r: r["parts"][0]["results"][2].__setitem__("cpu_seconds", -2.0)),
        "cpu_seconds",
    ),
    "a finished date that is no date": (_manifest("finished", "yesterday"), "field 'finished' must be a date"),
    "an impossible finished date": (_manifest("finished", "2026-13-45"), "field 'finished' must be a date"),
    "an added date that is no date": (_manifest("added", "<b>soon</b>"), "field 'added' must be a date"),
    "a stage name that is a list": (_results(lambda r: r["study"].__setitem__("stages", [[]])), "field 'stages'"),
    "a level no smaller than the run's": (
        _results(lambda r: r.update(level=1000, levels=[{"level": 1000, "parts": r["parts"]}])),
        "smaller budget level",
    ),
    "trailing bytes after the gzip data": (_append(b"trailing"), "bytes after its gzip data"),
    "a second gzip member": (_append(gzip.compress(b'{"format_version": 1}', mtime=0)), "a second gzip member"),
}


@pytest.mark.parametrize("case", sorted(STORE_DAMAGES))
def test_a_store_with_an_impossible_value_fails_publish_and_its_check(capsys, checkout, case):
    """``games = -1`` in a stored result passed ``publish --check`` ("every page matches")."""
    damage, words = STORE_DAMAGES[case]
    page = checkout / "docs" / "results" / "421.md"
    before = page.read_bytes()
    damage(checkout / "published" / "421")
    for argv in (["publish", "--check"], ["publish"]):
        code, out, err = run_cli(capsys, *argv, "--root", checkout)
        assert_one_clear_line(code, err)
        assert words in err and out == ""
    assert page.read_bytes() == before


def test_the_intact_store_passes_its_check(capsys, checkout):
    """The control: the repository's own store and page agree."""
    code, out, err = run_cli(capsys, "publish", "--check", "--root", checkout)
    assert (code, out.strip()) == (0, "every page matches the published data"), err


def test_every_published_store_holds_only_possible_values():
    """The rules accept every value the repository's stores and manifests hold."""
    for folder in sorted((REPOSITORY / "published").iterdir()):
        check_stored(json.loads(gzip.decompress((folder / RESULTS).read_bytes())), str(folder))
        check_stored(json.loads((folder / MANIFEST).read_text(encoding="utf-8")), str(folder))


COUNT = st.sampled_from(["games", "wins", "draws", "losses", "replicates", "tasks"])
VALUE = st.one_of(st.integers(-(10**20), 10**20), st.booleans(), st.floats(allow_nan=True), st.none())


@given(st.lists(st.tuples(COUNT, VALUE), max_size=6), st.booleans())
def test_counts_are_whole_numbers_in_range_wherever_they_are(fields, nested):
    """An oracle written apart from the walker: a count is refused iff some count is not a
    whole number from 0 to its limit (None allowed), or wins + draws + losses exceed games."""
    entry = dict(fields)
    data = {"results": [{"panel": {"x": entry}}]} if nested else entry
    limit = {"replicates": 10**9, "tasks": 10**9}
    bad = any(v is not None and (type(v) is not int or not 0 <= v <= limit.get(k, 2**53)) for k, v in entry.items())
    outcomes = [entry[k] for k in ("wins", "draws", "losses") if k in entry]
    if not bad and "games" in entry and type(entry["games"]) is int and outcomes:
        bad = all(type(v) is int for v in outcomes) and sum(outcomes) > entry["games"]
    if bad:
        with pytest.raises(FsmarenaError):
            check_stored(data, "x")
    else:
        check_stored(data, "x")


@pytest.mark.parametrize("bare", [None, 3, "text", True, []])
def test_a_bare_value_where_a_structure_was_stored_is_left_to_its_reader(bare):
    """A mutation turned a stage's stored list into ``None``: the walk crashed on it with a
    TypeError instead of leaving the value to the reader, whose one-line error says what it expected."""
    check_stored(bare, "store")  # holds no field: nothing to check, and no crash
    from types import SimpleNamespace

    from fsmarena.studies.stage_cards import read_cards

    data = SimpleNamespace(plan=SimpleNamespace(competitors=[SimpleNamespace(name="a", replicates=1)]))
    with pytest.raises(FsmarenaError, match="expected a list of 1 cards") as caught:
        read_cards(bare, "store: cards", data)
    assert "\n" not in str(caught.value)
