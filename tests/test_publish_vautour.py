"""Published runs of a study over several player counts: ``fsmarena publish --add`` of a finished
``vautour`` run (both player counts) and of ``vautour-small`` (with exact exploitability).

Oracles: the report written from the store is the report the run wrote in its folder (section by
section; only the versions table gains numba); the repository's template of the results page
renders from the store with every key known; a round trip passes ``--check`` and changing one
stored league count makes it fail naming the page; a damaged or hostile store, and an unfinished
or foreign run, end in one clear line and write nothing; a finished run missing a stage's cached
counts is stored with the counts played again.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import cli, run_cli
from publish_helpers import damage_manifest, damage_results, sections

from fsmarena.publish.pages import published
from fsmarena.studies.catalogue import get_study
from fsmarena.studies.pipeline import SWEEP_MARKER
from fsmarena.studies.store import load_store, read_results, write_results

ROOT = Path(__file__).resolve().parent.parent
PAGE = "docs/results/vautour.md"


def checkout(root: Path, run: Path, template: bool = False) -> Path:
    """A checkout (README.md, docs/) with ``run`` stored by ``--add``, and the repository's
    template of the Vautour page when asked."""
    (root / "docs" / "results").mkdir(parents=True)
    (root / "README.md").write_text("# project\n", encoding="utf-8")
    if template:
        shutil.copy(ROOT / "docs" / "results" / "vautour.md.template", root / "docs" / "results")
    code, out = cli("publish", "--add", run, "--root", root)
    assert code == 0 and "published/" in out
    return root


@pytest.fixture(scope="module")
def stored_once(vautour_run, tmp_path_factory) -> Path:
    """The run stored once (``--add`` replays what the report measures: seconds)."""
    return checkout(tmp_path_factory.mktemp("stored") / "checkout", vautour_run[0], template=True)


@pytest.fixture()
def stored(stored_once, tmp_path) -> Path:
    """A fresh copy of that checkout, for a test to damage or publish into."""
    return Path(shutil.copytree(stored_once, tmp_path / "checkout"))


@pytest.fixture()
def small_run(vautour_small_run) -> Path:
    """``vautour-small`` at the test scale (one player count, solvable, with exploitability): the
    session's run, which ``publish --add`` only reads."""
    return vautour_small_run[0]


def test_the_report_from_the_store_is_the_report_of_the_run(stored, vautour_run):
    ours = sections(published(stored).blocks["vautour:report"])
    theirs = sections((vautour_run[0] / "report.md").read_text(encoding="utf-8"))
    assert set(ours) == set(theirs) and {"## 2 players", "## 3 players", "## Conclusions"} <= set(ours)
    for heading in ours:
        if heading != "## Reproduce":  # the store adds numba to the versions
            assert ours[heading] == theirs[heading], heading
    store = load_store(stored / "published" / "vautour")
    families = len(get_study("vautour").competitors)
    assert sorted(store.parts) == [2, 3] and store.manifest["tasks"] == 2 * families * 2  # 2 parts, 2 replicates
    assert all(
        "player" not in task
        for part in read_results(stored / "published" / "vautour")["parts"]
        for task in part["results"]
    )


def test_exploitability_is_stored_and_reported(small_run, tmp_path):
    root = checkout(tmp_path / "checkout", small_run)
    ours = sections(published(root).blocks["vautour-small:report"])
    theirs = sections((small_run / "report.md").read_text(encoding="utf-8"))
    assert ours["## 2 players"] == theirs["## 2 players"]
    assert "### Exploitability (2 players, exact)" in ours["## 2 players"]
    rows = read_results(root / "published" / "vautour-small")["parts"][0]["stages"]["exploitability"]
    assert rows[0]["player"] == "equilibrium" and rows[0]["exploitability"] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.slow
def test_round_trip_the_template_and_a_changed_league_count(stored, capsys):
    assert run_cli(capsys, "publish", "--check", "--root", stored)[0] == 1  # the page is not written yet
    code, out, _ = run_cli(capsys, "publish", "--root", stored)
    assert code == 0 and PAGE in out
    page = (stored / PAGE).read_text(encoding="utf-8")
    assert "<!-- generated vautour:section.2-players -->\n## 2 players" in page and "?<!-- /value -->" not in page
    assert run_cli(capsys, "publish", "--check", "--root", stored)[:2] == (0, "every page matches the published data\n")

    folder = stored / "published" / "vautour"
    results = read_results(folder)
    league = results["parts"][0]["stages"]["league"]
    k = next(i for i, g in enumerate(league["games"]) if 0 < league["wins"][i])
    league["wins"][k] -= 1  # one win becomes a draw: the counts stay consistent
    league["draws"][k] += 1
    write_results(folder, results)
    code, _, err = run_cli(capsys, "publish", "--check", "--root", stored)
    assert code == 1 and f"{PAGE} differs from the published data" in err
    assert (stored / PAGE).read_text(encoding="utf-8") == page  # --check wrote nothing


HOSTILE = {
    "a league pairing with other games": (
        damage_results(lambda r: r["parts"][0]["stages"]["league"]["games"].__setitem__(0, 7)),
        "inconsistent counts",
    ),
    "a league played by other entrants": (
        damage_results(lambda r: r["parts"][1]["stages"]["league"]["labels"].__setitem__(0, "mc/r009")),
        "its entrants or pairings are not this study's",
    ),
    "a part of another player count": (
        damage_results(lambda r: r["parts"][1].__setitem__("part", 2)),
        "its parts are not those of its study",
    ),
    "a part missing": (damage_results(lambda r: r["parts"].pop()), "its parts are not those of its study"),
    "a result missing": (damage_results(lambda r: r["parts"][0]["results"].pop()), "results for the plan's"),
    "kept measures it does not read": (
        damage_results(lambda r: r["parts"][0].__setitem__("kept", {})),
        "keeps measures of players that its report does not read",
    ),
    "exploitability rows in an unsolvable game": (
        damage_results(lambda r: r["parts"][0]["stages"].__setitem__("exploitability", [])),
        "must hold exactly the results of the stages tuning, crossplay, league, cards",
    ),
    "a manifest of an earlier format": (
        damage_manifest(lambda m: m.__setitem__("format_version", 1)),
        "unsupported format_version",
    ),
    "a reference outside the panel": (
        damage_results(lambda r: r["study"]["options"].__setitem__("reference", "nobody")),
        "the reference 'nobody' must be one of the panel's builtins",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_damaged_store_is_one_clear_error_and_writes_nothing(stored, capsys, case):
    assert run_cli(capsys, "publish", "--root", stored)[0] == 0
    page = (stored / PAGE).read_text(encoding="utf-8")
    damage, message = HOSTILE[case]
    damage(stored / "published" / "vautour")
    for argv in (("publish", "--root", stored), ("publish", "--check", "--root", stored)):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith("fsmarena: error: ") and message in err, err
    assert (stored / PAGE).read_text(encoding="utf-8") == page


def test_add_refuses_an_unfinished_or_foreign_run(vautour_run, tmp_path, capsys):
    root = tmp_path / "checkout"
    (root / "docs").mkdir(parents=True)
    unfinished = tmp_path / "unfinished"
    shutil.copytree(vautour_run[0], unfinished)
    (unfinished / "3-players" / "replicates" / "mc" / "r001.json").unlink()
    code, _, err = run_cli(capsys, "publish", "--add", unfinished, "--root", root)
    assert code == 2 and "is not a finished run" in err and "3-players" in err and err.count("\n") == 1

    other = tmp_path / "other"
    shutil.copytree(vautour_run[0], other)
    marker = json.loads((other / SWEEP_MARKER).read_text(encoding="utf-8"))
    marker["fingerprints"]["2"] = "0" * 16
    (other / SWEEP_MARKER).write_text(json.dumps(marker), encoding="utf-8")
    code, _, err = run_cli(capsys, "publish", "--add", other, "--root", root)
    assert code == 2 and "was run with another definition of study 'vautour'" in err

    code, _, err = run_cli(capsys, "publish", "--add", vautour_run[0] / "2-players", "--root", root)
    assert code == 2 and f"is one part of the run in {vautour_run[0]}: give that folder" in err
    assert not (root / "published").exists()


def test_add_plays_a_missing_league_again_as_a_resume_would(vautour_run, tmp_path):
    """A finished run whose cached league counts were deleted is no unfinished run: ``--add``
    plays the league again (from the same seeds: the same counts) and stores it."""
    replayed = tmp_path / "replayed"
    shutil.copytree(vautour_run[0], replayed)
    original = json.loads((replayed / "3-players" / "raw" / "league.json").read_text(encoding="utf-8"))
    (replayed / "3-players" / "raw" / "league.json").unlink()
    root = tmp_path / "checkout"
    (root / "docs").mkdir(parents=True)
    code, out = cli("publish", "--add", replayed, "--root", root)
    assert code == 0 and "published/" in out
    stored = read_results(root / "published" / "vautour")["parts"][1]
    assert stored["part"] == 3
    league = stored["stages"]["league"]
    for key in ("labels", "groups", "first", "other", "games", "wins", "draws", "losses", "other_wins"):
        assert league[key] == original[key], key


def test_the_declared_pairs_head_to_head_are_the_leagues_own_counts_recomputed():
    """The published 2-player league, read with plain numpy: each declared pair's mean win rate
    over its pairings and how many of the first family's champions win more than half their
    games against the second family; the conclusions say exactly these (and, with 3 players,
    present the games against copies of the reference as a check, not a finding)."""
    import re

    import numpy as np

    page = (ROOT / PAGE).read_text(encoding="utf-8")
    results = load_store(ROOT / "published" / "vautour")
    league = results.parts[2].stages["league"]
    labels = {c.name: c.label for c in results.parts[2].plan.competitors}
    groups = np.asarray(league.groups)
    line = next(x for x in page.splitlines() if "the declared pairs head to head" in x)
    for a, b in results.study.questions:
        pick = (groups[league.first] == labels[a]) & (groups[league.other] == labels[b])
        rates = league.wins[pick] / league.games[pick]
        per_champion = {}
        for champion, rate in zip(league.first[pick], rates):
            per_champion.setdefault(champion, []).append(rate)
        above = sum(np.mean(v) > 0.5 for v in per_champion.values())
        said = re.search(
            rf"{re.escape(labels[a])} wins ([\d.]+)% \[[^]]*\] of its games against {re.escape(labels[b])} "
            rf"\((\d+) of its (\d+) champions above half\)",
            line,
        )
        assert said is not None, (a, b)
        assert float(said.group(1)) == pytest.approx(100 * rates.mean(), abs=0.05)
        assert (int(said.group(2)), int(said.group(3))) == (above, len(per_champion))
    assert "a check rather than a finding: against 2 copies of `prize-rank`" in page
