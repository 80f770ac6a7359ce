"""Published runs of a study with a target and a table: ``fsmarena publish --add`` of a finished
``thirtyone`` run (confirmation matches and the 3-player table beside the standard results).

Oracles: the report written from the store is the report the run wrote in its folder (section by
section; only the versions table gains numba); the repository's template of the results page
renders from the store with every key known; a round trip passes ``--check`` and changing one
stored confirmation count makes it fail naming the page; a damaged store and a foreign run end in
one clear line and write nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import cli, run_cli
from publish_helpers import damage_manifest, damage_results, sections

from fsmarena.publish.pages import published
from fsmarena.studies.stage_confirm import reference_result
from fsmarena.studies.store import load_store, read_results, write_results

ROOT = Path(__file__).resolve().parent.parent
PAGE = "docs/results/thirtyone.md"


@pytest.fixture(scope="module")
def stored_once(thirtyone_run, tmp_path_factory) -> Path:
    """A checkout (README.md, docs/ with the repository's template) holding the run stored by
    ``--add``, made once: ``--add`` replays what the report measures, tens of seconds."""
    root = tmp_path_factory.mktemp("stored") / "checkout"
    (root / "docs" / "results").mkdir(parents=True)
    (root / "README.md").write_text("# project\n", encoding="utf-8")
    shutil.copy(ROOT / "docs" / "results" / "thirtyone.md.template", root / "docs" / "results")
    code, out = cli("publish", "--add", thirtyone_run[0], "--root", root)
    assert code == 0 and "published/thirtyone" in out
    return root


@pytest.fixture()
def stored(stored_once, tmp_path) -> Path:
    """A fresh copy of that checkout, for a test to damage or publish into."""
    return Path(shutil.copytree(stored_once, tmp_path / "checkout"))


def test_the_report_from_the_store_is_the_report_of_the_run(stored, thirtyone_run):
    ours = sections(published(stored).blocks["thirtyone:report"])
    theirs = sections((thirtyone_run[0] / "report.md").read_text(encoding="utf-8"))
    assert set(ours) == set(theirs) and "## 3 players: against greedy + random" in ours
    for heading in ours:
        if heading != "## Reproduce":  # the store adds numba to the versions
            assert ours[heading] == theirs[heading], heading
    store = load_store(stored / "published" / "thirtyone")
    assert [r["competitor"] for r in store.only.stages["confirm"]] == [c.name for c in store.only.plan.competitors]
    assert reference_result(store.study) == (0.746, "the seed's neural agent")
    assert store.study.options["reference_result"] == 0.746
    assert all(
        "player" not in task
        for part in read_results(stored / "published" / "thirtyone")["parts"]
        for task in part["results"]
    )


def test_round_trip_the_template_and_a_changed_confirmation_count(stored, capsys):
    assert run_cli(capsys, "publish", "--check", "--root", stored)[0] == 1  # the page is not written yet
    code, out, _ = run_cli(capsys, "publish", "--root", stored)
    assert code == 0 and PAGE in out
    page = (stored / PAGE).read_text(encoding="utf-8")
    assert "?<!-- /value -->" not in page and "\n## Answer: who wins 75% of 1v1 games against greedy?" in page
    assert run_cli(capsys, "publish", "--check", "--root", stored)[:2] == (0, "every page matches the published data\n")

    folder = stored / "published" / "thirtyone"
    results = read_results(folder)
    row = results["parts"][0]["stages"]["confirm"][3]  # the MLP agent's confirmation match, quoted by the template
    if row["wins"]:
        row["wins"], row["losses"] = row["wins"] - 1, row["losses"] + 1
    else:
        row["wins"], row["losses"] = 1, row["losses"] - 1
    write_results(folder, results)
    code, _, err = run_cli(capsys, "publish", "--check", "--root", stored)
    assert code == 1 and f"{PAGE} differs from the published data" in err
    assert (stored / PAGE).read_text(encoding="utf-8") == page  # --check wrote nothing


def _stage(name):
    """The stored results of stage ``name`` of the store's one part."""
    return lambda r: r["parts"][0]["stages"][name]


CONFIRM, TABLE = _stage("confirm"), _stage("table")

HOSTILE = {
    "a confirmation match of another competitor": (
        damage_results(lambda r: CONFIRM(r).__setitem__(0, CONFIRM(r)[1])),
        "must be competitor 'mc''s match",
    ),
    "a confirmation by a champion that does not exist": (
        damage_results(lambda r: CONFIRM(r)[0].__setitem__("replicate", 99)),
        "field 'replicate'",
    ),
    "a table row with counts that do not add up": (
        damage_results(lambda r: TABLE(r)[0].__setitem__("wins", TABLE(r)[0]["wins"] + 1)),
        "its counts must add up",
    ),
    "a table row of another entrant": (
        damage_results(lambda r: TABLE(r)[0].__setitem__("entrant", "mc/r007")),
        "must be the row of 'mc/r000'",
    ),
    "opponents winning more than the entrant lost": (
        damage_results(lambda r: TABLE(r)[0].__setitem__("other_wins", [TABLE(r)[0]["games"]] * 2)),
        "its opponents won more games than it lost",
    ),
    "a reference outside the panel": (
        damage_results(lambda r: r["study"]["options"].__setitem__("reference", "nobody")),
        "'reference' must be the curve opponent and one of the panel's builtins",
    ),
    "a table row missing": (damage_results(lambda r: TABLE(r).pop()), "must hold one row per table entrant"),
    "a manifest of an earlier format": (
        damage_manifest(lambda m: m.__setitem__("format_version", 1)),
        "unsupported format_version",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_damaged_store_is_one_clear_error_and_writes_nothing(stored, capsys, case):
    assert run_cli(capsys, "publish", "--root", stored)[0] == 0
    page = (stored / PAGE).read_text(encoding="utf-8")
    damage, message = HOSTILE[case]
    damage(stored / "published" / "thirtyone")
    for argv in (("publish", "--root", stored), ("publish", "--check", "--root", stored)):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith("fsmarena: error: ") and message in err, err
    assert (stored / PAGE).read_text(encoding="utf-8") == page


def test_add_refuses_a_foreign_run(thirtyone_run, tmp_path, capsys):
    root = tmp_path / "checkout"
    (root / "docs").mkdir(parents=True)
    other = tmp_path / "other"
    shutil.copytree(thirtyone_run[0], other)
    marker = json.loads((other / "study.json").read_text(encoding="utf-8"))
    marker["fingerprint"] = "0" * 16
    (other / "study.json").write_text(json.dumps(marker), encoding="utf-8")
    code, _, err = run_cli(capsys, "publish", "--add", other, "--root", root)
    assert code == 2 and "was run with another definition of study 'thirtyone'" in err and err.count("\n") == 1
    assert not (root / "published").exists()
