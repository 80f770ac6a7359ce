"""Published results: ``published/<study>/`` and ``fsmarena publish [--add DIR] [--check]``.

Oracles: the report written from a store is, section by section, the report the study wrote
from its own folder (421, and the standard report of dtd-thesis and goofspiel, whose machine,
fingerprint, best-known and cross-play parts the store keeps as measured at ``--add`` time); a
round trip (study, --add, publish, --check) passes and changing one
stored number makes --check fail naming the page; every marker error and every damaged or
hostile store file ends in one line naming the file, and writes nothing.  The repository's own
pages agree with its ``published/`` folder (what CI checks).
"""

from __future__ import annotations

import copy
import csv
import gzip
import json
import re
import shutil
from pathlib import Path
from typing import Any, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsmarena.errors import FsmarenaError
from fsmarena.games.crossplay import every_pairing
from fsmarena.publish.pages import Published, published, render
from fsmarena.studies.store import MANIFEST, RESULTS, load_store, read_results, write_results
from tests.cli_helpers import cli, run_cli

ROOT = Path(__file__).resolve().parent.parent
PAGE = "docs/results/421.md"


@pytest.fixture(scope="module")
def study_folder(tmp_path_factory) -> Path:
    """A finished 421 study at test scale (no figures)."""
    out = tmp_path_factory.mktemp("study") / "run"
    code, _ = cli("study", "421", "--scale", "test", "--jobs", "1", "--out", out, "--no-figures", "--quiet")
    assert code == 0
    return out


@pytest.fixture()
def checkout(tmp_path, study_folder) -> Path:
    """A checkout holding README.md, docs/ and the study stored by ``--add``."""
    root = tmp_path / "checkout"
    (root / "docs" / "results").mkdir(parents=True)
    (root / "README.md").write_text(
        "# project\n\nQ-learning: <!-- value 421:q-learning.fraction_median .2% -->?<!-- /value --> of the optimum\n",
        encoding="utf-8",
    )
    code, out = cli("publish", "--add", study_folder, "--root", root)
    assert code == 0 and "published/421" in out
    return root


def sections(report: str) -> dict[str, str]:
    """A report's ``##`` sections by heading, blank lines squeezed (figures leave some)."""
    found = {}
    for part in re.split(r"^(?=## )", report, flags=re.M)[1:]:
        heading, _, body = part.partition("\n")
        found[heading] = re.sub(r"\n{3,}", "\n\n", body.strip())
    return found


def test_the_report_from_the_store_is_the_report_of_the_study_folder(checkout, study_folder):
    ours = sections(published(checkout).blocks["421:report"])
    theirs = sections((study_folder / "report.md").read_text(encoding="utf-8"))
    assert set(ours) == set(theirs)
    for heading in ours:
        if heading != "## Reproduce":  # the store adds numba to the versions
            assert ours[heading] == theirs[heading], heading
    assert "| numba |" in ours["## Reproduce"]


def test_round_trip_publish_check_and_a_changed_number(checkout, capsys):
    assert run_cli(capsys, "publish", "--check", "--root", checkout)[0] == 1  # pages not written yet
    code, out, _ = run_cli(capsys, "publish", "--root", checkout)
    assert code == 0 and PAGE in out and "README.md" in out
    page = (checkout / PAGE).read_text(encoding="utf-8")
    store = load_store(checkout / "published" / "421")
    finals = [r.info["exact_value"] for r in store.only.family("q-learning")]
    assert len(finals) == 2  # the median of two replicates is their mean
    fraction = sum(finals) / 2 / store.only.records[("q-learning", 0)].info["optimum"]
    readme = (checkout / "README.md").read_text(encoding="utf-8")
    assert f"-->{100 * fraction:.2f}%<!--" in readme
    assert "## Results" in page and "| Q-learning |" in page
    assert run_cli(capsys, "publish", "--check", "--root", checkout)[:2] == (
        0,
        "every page matches the published data\n",
    )
    assert run_cli(capsys, "publish", "--root", checkout)[1] == "every page already matches the published data\n"

    folder = checkout / "published" / "421"
    results = read_results(folder)
    task = next(t for t in results["parts"][0]["results"] if t["competitor"] == "q-learning" and t["replicate"] == 0)
    task["info"]["exact_value"] -= 0.25
    write_results(folder, results)
    code, _, err = run_cli(capsys, "publish", "--check", "--root", checkout)
    assert code == 1
    assert f"{PAGE} differs from the published data" in err and "README.md differs" in err
    assert (checkout / PAGE).read_text(encoding="utf-8") == page  # --check wrote nothing


def test_an_unknown_key_is_one_error_naming_file_and_line(checkout, capsys):
    (checkout / "docs" / "other.md").write_text(
        "# other\n\nsome text\nvalue: <!-- value 421:nobody.median -->1<!-- /value -->\n", encoding="utf-8"
    )
    before = {p: p.read_text(encoding="utf-8") for p in (checkout / "README.md", checkout / "docs" / "other.md")}
    code, out, err = run_cli(capsys, "publish", "--root", checkout)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "docs/other.md:4: unknown published value '421:nobody.median'" in err
    assert {p: p.read_text(encoding="utf-8") for p in before} == before
    assert not (checkout / PAGE).exists()


FOUND = Published(
    blocks={"s:report": "## Report\n\n```\ncode\n```"},
    values={"s:count": 1234567, "s:share": 0.98765, "s:name": "fsmarena study s", "s:flag": True},
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a <!-- value s:count -->x<!-- /value --> b", "a <!-- value s:count -->1,234,567<!-- /value --> b"),
        ("a <!-- value s:share .1% -->?<!-- /value -->", "a <!-- value s:share .1% -->98.8%<!-- /value -->"),
        ("a <!-- value s:share -->?<!-- /value -->", "a <!-- value s:share -->0.9877<!-- /value -->"),
        ("a <!-- value s:flag -->?<!-- /value -->", "a <!-- value s:flag -->yes<!-- /value -->"),
        (
            "<!-- generated s:report -->\nold\ntext\n<!-- /generated -->\nafter",
            "<!-- generated s:report -->\n## Report\n\n```\ncode\n```\n<!-- /generated -->\nafter",
        ),
        (
            "```text\n<!-- value s:unknown -->x<!-- /value -->\n```",
            "```text\n<!-- value s:unknown -->x<!-- /value -->\n```",
        ),
        (  # a section this run's report does not write: left empty
            "<!-- generated s:section.later if-written -->\nold\n<!-- /generated -->",
            "<!-- generated s:section.later if-written -->\n<!-- /generated -->",
        ),
        (
            "<!-- generated s:report if-written -->\nold\n<!-- /generated -->",
            "<!-- generated s:report if-written -->\n## Report\n\n```\ncode\n```\n<!-- /generated -->",
        ),
    ],
)
def test_markers_are_written_from_the_data(text, expected):
    assert render(text, "page.md", FOUND) == expected
    assert render(expected, "page.md", FOUND) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "a\nb <!-- value s:count -->x",
            "page.md:2: '<!-- value KEY -->' needs its '<!-- /value -->' on the same line",
        ),
        ("a <!-- value s:name .2f -->x<!-- /value -->", "page.md:1: format '.2f' does not apply to 's:name'"),
        ("a <!-- value s:count );import -->x<!-- /value -->", "page.md:1: format ');import' does not apply"),
        ("a\n  <!-- value s:count -->x<!-- /value --> b", "page.md:2: a value marker must not begin a line"),
        ("\n\n<!-- generated s:report -->\nx", "page.md:3: '<!-- generated s:report -->' has no '<!-- /generated -->'"),
        ("<!-- generated s:nothing -->\n<!-- /generated -->", "page.md:1: unknown published block 's:nothing'"),
        (  # if-written spares a missing section, not a study that is not published
            "<!-- generated t:section.x if-written -->\n<!-- /generated -->",
            "page.md:1: unknown published block 't:section.x'",
        ),
        ("text <!-- generated s:report --> text", "page.md:1: a generated-block marker must stand alone"),
    ],
)
def test_a_bad_marker_is_one_clear_error(text, message):
    with pytest.raises(FsmarenaError, match=re.escape(message)):
        render(text, "page.md", FOUND)


def _damage_results(folder: Path, change) -> None:
    results = read_results(folder)
    change(results)
    write_results(folder, results)


def _raw(folder: Path, data: bytes) -> None:
    (folder / RESULTS).write_bytes(data)


HOSTILE = {
    "manifest is not JSON": (lambda f: (f / MANIFEST).write_text("{", encoding="utf-8"), "is not valid JSON"),
    "manifest names another study": (
        lambda f: (f / MANIFEST).write_text(
            (f / MANIFEST).read_text(encoding="utf-8").replace('"study": "421"', '"study": "dtd-thesis"'),
            encoding="utf-8",
        ),
        "names study 'dtd-thesis', not its folder's '421'",
    ),
    "results are not gzip": (lambda f: _raw(f, b"not gzip at all"), "is not a gzip file"),
    "results are truncated": (lambda f: _raw(f, (f / RESULTS).read_bytes()[:200]), "is truncated"),
    "a gzip bomb": (
        lambda f: _raw(f, gzip.compress(b"[" + b" " * (70 * 1024 * 1024) + b"]", mtime=0)),
        "is too large once decompressed",
    ),
    "a result is missing": (
        lambda f: _damage_results(f, lambda r: r["parts"][0]["results"].pop()),
        "results for the plan's",
    ),
    "a result twice": (
        lambda f: _damage_results(f, lambda r: r["parts"][0]["results"].__setitem__(0, r["parts"][0]["results"][1])),
        "is not one of the plan's tasks, or a second result of one",
    ),
    "a plan parameter edited": (
        lambda f: _damage_results(
            f, lambda r: r["parts"][0]["plan"]["competitors"][2]["params"].__setitem__("episodes", 9)
        ),
        "its plan does not match its fingerprint",
    ),
    "a curve value out of range": (
        lambda f: _damage_results(
            f,
            lambda r: r["parts"][0]["results"][2].__setitem__(
                "curve_win", [2.0] * len(r["parts"][0]["results"][2]["curve_win"])
            ),
        ),
        "field 'curve_win' entries must be finite numbers in [0.0, 1.0]",
    ),
    "a competitor name that would open an HTML comment": (
        lambda f: _damage_results(f, lambda r: r["parts"][0]["plan"]["competitors"][0].__setitem__("name", "<!--")),
        "field 'name' must be a competitor name",
    ),
    "results as a folder": (
        lambda f: ((f / RESULTS).unlink(), (f / RESULTS).mkdir()),
        "is a folder, not a file",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_damaged_or_hostile_store_is_one_clear_error_and_writes_nothing(checkout, capsys, case):
    assert run_cli(capsys, "publish", "--root", checkout)[0] == 0
    pages = {p: p.read_text(encoding="utf-8") for p in (checkout / "README.md", checkout / PAGE)}
    damage, message = HOSTILE[case]
    damage(checkout / "published" / "421")
    for argv in (("publish", "--root", checkout), ("publish", "--check", "--root", checkout)):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith("fsmarena: error: ") and message in err
    assert {p: p.read_text(encoding="utf-8") for p in pages} == pages


def test_add_refuses_a_foreign_or_unfinished_folder(tmp_path, study_folder, capsys):
    root = tmp_path / "checkout"
    code, _, err = run_cli(capsys, "publish", "--add", study_folder, "--root", root)
    assert code == 2 and f"{root} is not a checkout of fsmarena (it has no docs/ folder)" in err
    (root / "docs").mkdir(parents=True)
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("hello", encoding="utf-8")
    code, _, err = run_cli(capsys, "publish", "--add", stranger, "--root", root)
    assert code == 2 and "is not a study folder (no study.json)" in err

    unfinished = tmp_path / "unfinished"
    shutil.copytree(study_folder, unfinished)
    (unfinished / "replicates" / "sarsa" / "r001.json").unlink()
    code, _, err = run_cli(capsys, "publish", "--add", unfinished, "--root", root)
    assert code == 2 and "is not a finished run" in err and "r001.json" in err

    no_record = tmp_path / "no-record"
    shutil.copytree(study_folder, no_record)
    (no_record / "run.json").unlink()
    code, _, err = run_cli(capsys, "publish", "--add", no_record, "--root", root)
    assert code == 2 and "is not a finished run: it has no run.json" in err

    other = tmp_path / "other"
    shutil.copytree(study_folder, other)
    marker = json.loads((other / "study.json").read_text(encoding="utf-8"))
    marker["fingerprint"] = "0" * 16
    (other / "study.json").write_text(json.dumps(marker), encoding="utf-8")
    code, _, err = run_cli(capsys, "publish", "--add", other, "--root", root)
    assert code == 2 and "was run with another definition of study '421'" in err

    refusals = {
        "vautour": "which runs one part per players: give the folder its run was written to",
        "../../421.toml": "published/ holds the named studies only",
    }
    for name, message in refusals.items():
        marker["study"] = name
        (other / "study.json").write_text(json.dumps(marker), encoding="utf-8")
        code, _, err = run_cli(capsys, "publish", "--add", other, "--root", root)
        assert code == 2 and message in err and err.count("\n") == 1, err
    assert not (root / "published").exists()


def test_add_replaces_a_store_and_keeps_no_player(checkout, study_folder):
    folder = checkout / "published" / "421"
    before = (folder / RESULTS).read_bytes()
    assert cli("publish", "--add", study_folder, "--root", checkout)[0] == 0
    assert (folder / RESULTS).read_bytes() == before  # deterministic: same run, same bytes
    assert sorted(p.name for p in (checkout / "published").iterdir()) == ["421"]  # no temporary folder left
    assert all("player" not in task for task in read_results(folder)["parts"][0]["results"])
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["command"].startswith("fsmarena study 421 --scale test --jobs 1 --out ")
    assert manifest["tasks"] == 2 + 6 * 2 and manifest["scale"] == "test" and manifest["seed"] == 421
    assert {"python", "fsmarena", "numpy", "numba", "platform"} <= set(manifest["environment"])


@pytest.mark.slow
def test_the_repository_pages_match_its_published_runs(capsys):
    """``fsmarena publish --check`` on this checkout, CI's check of the published pages (slow: it
    rebuilds every published report, tens of CPU-seconds; ``.ci/run`` runs it as this test)."""
    code, _, err = run_cli(capsys, "publish", "--check", "--root", ROOT)
    assert code == 0, err


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside decoded JSON (keys and indices)."""
    found = [prefix]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, child in items:
        found += _paths(child, (*prefix, key))
    return found


class Pristine:
    """A store, its decoded files and every path into them (shown briefly in failures)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.files = {RESULTS: read_results(folder), MANIFEST: json.loads((folder / MANIFEST).read_text("utf-8"))}
        self.paths = {name: _paths(content)[1:] for name, content in self.files.items()}

    def write(self, name: str, content: Any) -> None:
        if name == RESULTS:
            write_results(self.folder, content)
        else:
            (self.folder / name).write_text(json.dumps(content), encoding="utf-8")

    def __repr__(self) -> str:
        return f"Pristine({self.folder})"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory, study_folder) -> Pristine:
    root = tmp_path_factory.mktemp("pristine")
    (root / "docs").mkdir()
    assert cli("publish", "--add", study_folder, "--root", root)[0] == 0
    return Pristine(root / "published" / "421")


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=6,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from([RESULTS, MANIFEST]),
    where=st.integers(0, 10**9),
    value=JSON_VALUES | st.sampled_from(["delete"]),
)
def test_a_mutated_store_gives_its_pages_or_one_clear_error(pristine, name, where, value):
    """Any one value of a stored file replaced (or removed): the store is read and its report
    and values made, or one FsmarenaError; never another exception."""
    paths = pristine.paths[name]
    _read_with(pristine, name, _with_value(pristine.files[name], paths[where % len(paths)], value))


def _with_value(data: Any, path: Sequence[Any], value: Any) -> Any:
    """A deep copy of ``data`` with the value at ``path`` replaced, or removed (``"delete"``)."""
    damaged = copy.deepcopy(data)
    parent = damaged
    for key in path[:-1]:
        parent = parent[key]
    if value == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return damaged


def _read_with(store: Any, name: str, damaged: Any) -> None:
    """Read the published pages' values with ``damaged`` as the store's file ``name``: they are
    made, or one FsmarenaError is raised (any other exception fails the test); the file is
    restored afterwards."""
    store.write(name, damaged)
    try:
        published(store.folder.parent.parent).keys()
    except FsmarenaError:
        pass
    finally:
        store.write(name, store.files[name])


# ---- studies with the standard report: what it measures by playing the players is kept ---------


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(
    scope="module", params=[pytest.param(name, marks=pytest.mark.slow) for name in ("dtd-thesis", "goofspiel")]
)
def standard_run(request, tmp_path_factory) -> tuple[str, Path, Path]:
    """A standard-report study at test scale (no figures) and a checkout it was added to."""
    name = request.param
    out = tmp_path_factory.mktemp("standard") / "run"
    code, _ = cli("study", name, "--scale", "test", "--jobs", "1", "--out", out, "--no-figures", "--quiet")
    assert code == 0
    before = _tree(out)
    root = tmp_path_factory.mktemp("standard-checkout")
    (root / "docs").mkdir()
    code, text = cli("publish", "--add", out, "--root", root)
    assert code == 0 and f"published/{name}" in text
    assert _tree(out) == before  # --add measures in a scratch folder: the study folder is unchanged
    return name, out, root


def test_a_standard_report_from_the_store_is_the_report_of_the_study_folder(standard_run):
    name, out, root = standard_run
    ours = sections(published(root).blocks[f"{name}:report"])
    theirs = sections((out / "report.md").read_text(encoding="utf-8"))
    assert set(ours) == set(theirs)
    for heading in ours:
        if heading != "## Reproduce":  # the store adds numba to the versions
            assert ours[heading] == theirs[heading], heading
    report = published(root).blocks[f"{name}:report"]
    assert "### What the machines do" in report and "### Cross-play" in report
    results = read_results(root / "published" / name)
    assert all("player" not in task for task in results["parts"][0]["results"])
    assert all(
        "actions" not in line for line in results["parts"][0]["kept"]["reference_lines"]
    )  # no searched table either
    assert results["parts"][0]["kept"]["machine_sizes"] and results["parts"][0]["kept"]["fingerprints"]
    if name == "dtd-thesis":
        assert len(results["parts"][0]["kept"]["reference_lines"]) == 4 and "### Best known table policy" in report


def test_league_crossplay_and_best_known_keys_quote_the_reports_numbers(standard_run):
    """A page can quote every family's league rate, every pair's cross-play net score and the best
    known line: the keys hold the numbers the report prints (its tables and the stored lines)."""
    name, out, root = standard_run
    values = published(root).values
    league = {r["method"]: r for r in _csv_rows(out / "tables" / "crossplay_league_summary.csv")}
    labels = {label: key for key, label in _labels(out).items()}
    assert league and set(labels) >= set(league)
    for label, row in league.items():
        assert values[f"{name}:{labels[label]}.league.mean"] == pytest.approx(float(row["mean"]), abs=1e-6)
    pairs = [r for r in _csv_rows(out / "tables" / "crossplay_family.csv") if r["family"] != r["opponent_family"]]
    assert pairs
    for row in pairs:
        key = f"{name}:{row['family']}.crossplay.{row['opponent_family']}"
        assert values[f"{key}.net"] == pytest.approx(float(row["net"]), abs=1e-6)
        assert values[f"{key}.net_ci_low"] == pytest.approx(float(row["net_ci_low"]), abs=1e-6)
    assert not any(f"{name}:{f}.crossplay.{f}." in k for k in values for f in _labels(out))  # no diagonal
    for line in read_results(root / "published" / name)["parts"][0]["kept"]["reference_lines"]:
        key = f"{name}:best-known.{line['opponent']}"
        assert (values[f"{key}.win"], values[f"{key}.ci_low"], values[f"{key}.ci_high"]) == (
            line["win"],
            *line["win_ci95"],
        )


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _labels(out: Path) -> dict[str, str]:
    """Competitor name -> label, from the study folder's protocol."""
    study = json.loads((out / "study.json").read_text(encoding="utf-8"))
    return {c["name"]: c["label"] for c in study["plan"]["competitors"]}


def test_the_pages_read_the_kept_measures(standard_run, tmp_path, capsys):
    """Changing a kept machine size, a cross-play count or a best-known line changes the page:
    the report reads them from the store (it has no player to measure)."""
    name, _, root = standard_run
    checkout = tmp_path / "checkout"
    shutil.copytree(root, checkout)
    assert run_cli(capsys, "publish", "--root", checkout)[0] == 0
    page = checkout / "docs" / "results" / f"{name}.md"
    written = page.read_text(encoding="utf-8")
    folder = checkout / "published" / name
    pristine = read_results(folder)

    def more_states(r):
        r["parts"][0]["kept"]["machine_sizes"][0]["states"] += 1

    def a_pairing_won_otherwise(r):
        # the first pairing of two families' champions: a family's champions against each other
        # are no cell of the page (no self cells)
        counts = r["parts"][0]["stages"]["crossplay"]
        pairs = counts.get("pairs", every_pairing(len(counts["labels"])).tolist())  # absent: every pairing
        i = next(i for i, (a, b) in enumerate(pairs) if counts["families"][a] != counts["families"][b])
        counts["wins"][i], counts["losses"][i] = counts["losses"][i] + counts["draws"][i], counts["wins"][i]
        counts["draws"][i] = 0

    changes = [more_states, a_pairing_won_otherwise]
    if pristine["parts"][0]["kept"]["reference_lines"]:

        def a_better_line(r):
            r["parts"][0]["kept"]["reference_lines"][0]["win"] = (
                1.0 - r["parts"][0]["kept"]["reference_lines"][0]["win"] / 2
            )

        changes.append(a_better_line)
    for change in changes:
        results = copy.deepcopy(pristine)
        change(results)
        write_results(folder, results)
        code, _, err = run_cli(capsys, "publish", "--check", "--root", checkout)
        assert code == 1 and f"docs/results/{name}.md differs" in err, change.__name__
    write_results(folder, pristine)
    assert run_cli(capsys, "publish", "--check", "--root", checkout)[0] == 0
    assert page.read_text(encoding="utf-8") == written


def _kept_change(change):
    return lambda f: _damage_results(f, lambda r: change(r["parts"][0]["kept"]))


STANDARD_HOSTILE = {
    "kept measures removed": (
        lambda f: _damage_results(f, lambda r: r["parts"][0].pop("kept")),
        "keeps no measures of its players",
    ),
    "cross-play removed": (
        lambda f: _damage_results(f, lambda r: r["parts"][0]["stages"].pop("crossplay")),
        # the listing is the study's own stages, whatever they are, and names the one removed
        re.compile(r"must hold exactly the results of the stages ([a-z-]+, )*crossplay(, [a-z-]+)*$"),
    ),
    "cross-play counts replaced by nothing": (
        lambda f: _damage_results(f, lambda r: r["parts"][0]["stages"].__setitem__("crossplay", None)),
        "stages: crossplay: expected a JSON object",
    ),
    "cross-play games changed": (
        lambda f: _damage_results(
            f,
            lambda r: (
                r["parts"][0]["stages"]["crossplay"]["games"].__setitem__(
                    0, r["parts"][0]["stages"]["crossplay"]["games"][0] + 2
                ),
                r["parts"][0]["stages"]["crossplay"]["wins"].__setitem__(
                    0, r["parts"][0]["stages"]["crossplay"]["wins"][0] + 2
                ),
            ),
        ),
        "its cross-play counts are not the pairings of the plan's champions",
    ),
    "a machine size of a stranger": (
        _kept_change(lambda k: k["machine_sizes"][0].__setitem__("champion", "<!-- x -->")),
        "names champion '<!-- x -->', not one of the run's",
    ),
    "a negative state count": (
        _kept_change(lambda k: k["machine_sizes"][0].__setitem__("states", -1)),
        "field 'states' must be between 0",
    ),
    "a fingerprint value out of range": (
        _kept_change(lambda k: k["fingerprints"][0]["values"][0].__setitem__(0, 1.5)),
        "field 'values' entries must be finite numbers in [0.0, 1.0]",
    ),
    "a fingerprint of the wrong shape": (
        _kept_change(lambda k: k["fingerprints"][0]["values"].pop()),
        "field 'values' must have shape",
    ),
    "a fingerprint twice": (
        _kept_change(lambda k: k["fingerprints"].append(k["fingerprints"][0])),
        "holds two fingerprints of",
    ),
    "an unknown kept part": (
        _kept_change(lambda k: k.__setitem__("players", [])),
        "must hold exactly 'machine_sizes', 'fingerprints' and 'reference_lines'",
    ),
}


@pytest.mark.parametrize("case", sorted(STANDARD_HOSTILE))
def test_a_damaged_standard_store_is_one_clear_error_and_writes_nothing(standard_run, tmp_path, capsys, case):
    name, _, root = standard_run
    checkout = tmp_path / "checkout"
    shutil.copytree(root, checkout)
    assert run_cli(capsys, "publish", "--root", checkout)[0] == 0
    page = checkout / "docs" / "results" / f"{name}.md"
    written = page.read_text(encoding="utf-8")
    damage, message = STANDARD_HOSTILE[case]
    damage(checkout / "published" / name)
    for argv in (("publish", "--root", checkout), ("publish", "--check", "--root", checkout)):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        found = message.search(err.strip()) if isinstance(message, re.Pattern) else message in err
        assert err.startswith("fsmarena: error: ") and found, err
    assert page.read_text(encoding="utf-8") == written


def test_damaged_best_known_lines_are_one_clear_error(standard_run, tmp_path, capsys):
    name, _, root = standard_run
    if name != "dtd-thesis":
        pytest.skip("only dtd-thesis declares best-known lines")
    cases = {
        "its best-known lines are not those of the study's opponents": lambda r: r["parts"][0]["kept"][
            "reference_lines"
        ].pop(),
        "was searched with another budget": lambda r: r["parts"][0]["kept"]["reference_lines"][0].__setitem__(
            "budget", 7
        ),
        "field 'win' must be between 0.0 and 1.0": lambda r: r["parts"][0]["kept"]["reference_lines"][1].__setitem__(
            "win", 2
        ),
        "field 'budgets' must be a": lambda r: r["parts"][0]["study"]["best_known"].__setitem__("budgets", [1]),
    }
    for message, change in cases.items():
        checkout = tmp_path / message[:20].replace(" ", "-").replace("'", "")
        shutil.copytree(root, checkout)
        _damage_results(checkout / "published" / name, change)
        code, out, err = run_cli(capsys, "publish", "--root", checkout)
        assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err


@pytest.fixture(scope="module")
def pristine_standard(standard_run, tmp_path_factory) -> Pristine:
    name, _, root = standard_run
    copy_root = tmp_path_factory.mktemp("pristine-standard")
    shutil.copytree(root, copy_root, dirs_exist_ok=True)
    return Pristine(copy_root / "published" / name)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.integers(0, 10**9), value=JSON_VALUES | st.sampled_from(["delete"]))
def test_a_mutated_standard_store_gives_its_pages_or_one_clear_error(pristine_standard, where, value):
    """Any one value of the kept measures or the cross-play replaced (or removed): the report
    is made, or one FsmarenaError; never another exception."""
    paths = [
        p
        for p in pristine_standard.paths[RESULTS]
        if p[:3] == ("parts", 0, "kept")
        or p[:4] == ("parts", 0, "stages", "crossplay")
        or p[:4] == ("parts", 0, "study", "best_known")
    ]
    assert paths
    damaged = _with_value(pristine_standard.files[RESULTS], paths[where % len(paths)], value)
    _read_with(pristine_standard, RESULTS, damaged)


def test_a_results_page_is_written_from_its_template_once_its_study_is_published(standard_run, tmp_path, capsys):
    """The repository's template of the dtd-thesis page resolves every key from a stored run and
    becomes the page; before the study is published the template is not read."""
    name, _, root = standard_run
    if name != "dtd-thesis":
        pytest.skip("the repository holds a template for dtd-thesis")
    template = (ROOT / "docs" / "results" / "dtd-thesis.md.template").read_text(encoding="utf-8")
    checkout = tmp_path / "checkout"
    shutil.copytree(root, checkout)
    (checkout / "docs" / "results").mkdir(parents=True, exist_ok=True)
    page = checkout / "docs" / "results" / "dtd-thesis.md"
    page.write_text("# the page as it was\n", encoding="utf-8")
    (checkout / "docs" / "results" / "dtd-thesis.md.template").write_text(template, encoding="utf-8")

    code, out, _ = run_cli(capsys, "publish", "--root", checkout)
    assert code == 0 and "docs/results/dtd-thesis.md" in out
    written = page.read_text(encoding="utf-8")
    assert "the page as it was" not in written and "-->?<!--" not in written  # every value filled
    report = published(checkout).blocks["dtd-thesis:report"]
    for heading in ("### Against the builtin panel", "### Cross-play", "### Best known table policy", "## Compute"):
        assert heading in written and heading in report
    assert "-->2017<!--" in written  # the master seed, from the manifest
    assert run_cli(capsys, "publish", "--check", "--root", checkout)[0] == 0
    page.write_text(written.replace("### Cross-play", "### Cross play"), encoding="utf-8")
    code, _, err = run_cli(capsys, "publish", "--check", "--root", checkout)
    assert code == 1 and "docs/results/dtd-thesis.md differs" in err

    shutil.rmtree(checkout / "published" / "dtd-thesis")  # not published: the page stays as it is
    page.write_text("# the page as it was\n", encoding="utf-8")
    run_cli(capsys, "publish", "--root", checkout)
    assert page.read_text(encoding="utf-8") == "# the page as it was\n"


def test_a_templates_note_to_its_editors_stays_out_of_the_page_it_writes():
    from fsmarena.publish.pages import without_template_notes

    text = "# T\n\n<!-- The template of docs/results/x.md: edit the explanations here,\nnot in the page. -->\n\nBody\n"
    assert without_template_notes(text) == "# T\n\nBody\n"
    kept = "<!-- value x:run.seed d -->1<!-- /value -->\n"
    assert without_template_notes(kept) == kept
    for page in (ROOT / "docs" / "results").glob("*.md"):
        assert "<!-- The template of" not in page.read_text(encoding="utf-8"), page.name


def test_a_store_is_written_compact_and_one_that_could_not_be_read_back_is_refused(monkeypatch, tmp_path):
    from fsmarena import limits
    from fsmarena.studies.store import results_bytes

    results = {"parts": [{"pairs": [[i, i + 1] for i in range(1000)]}]}
    text = gzip.decompress(results_bytes(results)).decode()
    assert json.loads(text) == results and " " not in text and text.count("\n") == 1  # no indentation
    assert results_bytes(results) == results_bytes(copy.deepcopy(results))  # no time stamp: same bytes
    monkeypatch.setattr(limits, "MAX_JSON_BYTES", len(text) - 1)
    with pytest.raises(FsmarenaError, match="once decompressed, over the") as info:
        write_results(tmp_path, results)
    assert "\n" not in str(info.value) and not (tmp_path / RESULTS).exists()  # nothing written
