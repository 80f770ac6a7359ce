"""No link inside an output folder is followed (``fsmarena.outdir.confine``, ``check_no_links``).

A study re-run followed a symbolic link in place of its ``players/`` folder and rewrote the
files of the folder it pointed to, outside the study folder, with exit status 0.  Every folder a
command reads back or rewrites is now reached through real folders only: a link in place of
one is one error line (exit status 2) and the folder it points to is left byte for byte, with
its times, as it was.  Here: every sub-folder of a study folder, an evolution's and a training
run's checkpoint, and ``publish``'s stores, pages and ``--add`` folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_helpers import cli, run_cli
from hostile_helpers import EVOLVE, RESUME, TRAIN, assert_one_clear_line, builtin_study

from fsmarena.errors import FsmarenaError
from fsmarena.outdir import check_no_links, inside

STUDY = builtin_study("links")


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and modification time."""
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()
    }


def _linked(out: Path, part: str, elsewhere: Path) -> Path:
    """``out/part`` moved to ``elsewhere`` and replaced by a link to it; the moved folder."""
    shutil.move(out / part, elsewhere)
    (out / part).symlink_to(elsewhere.resolve(), target_is_directory=True)
    return elsewhere


@pytest.fixture(scope="module")
def finished_study(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("links")
    definition = root / "links.toml"
    definition.write_text(STUDY)
    out = root / "out"
    code, _ = cli("study", definition, "--scale", "test", "--out", out, "--no-figures", "--quiet")
    assert code == 0
    return definition, out


@pytest.mark.parametrize(
    "part",
    [
        "players",
        "replicates/large",
        pytest.param("players/small", marks=pytest.mark.slow),
        pytest.param("replicates", marks=pytest.mark.slow),
        pytest.param("tables", marks=pytest.mark.slow),
        pytest.param("raw", marks=pytest.mark.slow),
    ],
)
def test_a_study_rerun_follows_no_link_in_its_folder(capsys, tmp_path, finished_study, part):
    definition, finished = finished_study
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    elsewhere = _linked(out, part, tmp_path / "elsewhere")
    for name in ("r000.json", "crossplay.json"):  # files a re-run would write again, if it followed the link
        (elsewhere / name).unlink(missing_ok=True)
    before = _snapshot(elsewhere)
    code, _, err = run_cli(capsys, "study", definition, "--scale", "test", "--out", out, "--no-figures", "--quiet")
    assert_one_clear_line(code, err)
    assert f"{out.resolve() / part} is a symbolic link" in err or f"{out / part} is a symbolic link" in err, err
    assert _snapshot(elsewhere) == before


def test_the_study_rerun_without_links_still_succeeds(capsys, tmp_path, finished_study):
    """The control: the same copy, no link, re-runs to exit status 0."""
    definition, finished = finished_study
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    code, _, err = run_cli(capsys, "study", definition, "--scale", "test", "--out", out, "--no-figures", "--quiet")
    assert code == 0, err


@pytest.mark.parametrize("command", ["evolve", "train"])
def test_a_checkpoint_read_through_a_link_is_refused(capsys, tmp_path, command):
    """``--resume`` reads its folder back: a checkpoint that is a link to another run's is
    refused, and that run's files are left as they were."""
    first, out = (EVOLVE, RESUME) if command == "evolve" else (TRAIN, [*TRAIN, "--episodes", "3000", "--resume"])
    name = "checkpoint.json" if command == "evolve" else "checkpoint.npz"
    other = tmp_path / "other"
    assert run_cli(capsys, *first, "--out", other)[0] == 0
    run = tmp_path / "run"
    assert run_cli(capsys, *first, "--out", run)[0] == 0
    (run / name).unlink()
    (run / name).symlink_to(other / name)
    before = _snapshot(other)
    code, _, err = run_cli(capsys, *out, "--out", run)
    assert_one_clear_line(code, err)
    assert f"{name} is a symbolic link" in err
    assert _snapshot(other) == before


@pytest.fixture()
def checkout(tmp_path) -> Path:
    """A checkout holding the repository's published 421 run and its page."""
    root = tmp_path / "checkout"
    repository = Path(__file__).resolve().parents[1]
    shutil.copytree(repository / "published" / "421", root / "published" / "421")
    (root / "docs" / "results").mkdir(parents=True)
    shutil.copyfile(repository / "docs" / "results" / "421.md", root / "docs" / "results" / "421.md")
    (root / "README.md").write_text("# project\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("part", ["published", "published/421", "docs/results"])
def test_publish_reads_and_writes_nothing_through_a_link(capsys, tmp_path, checkout, part):
    elsewhere = _linked(checkout, part, tmp_path / "elsewhere")
    before = _snapshot(elsewhere)
    for argv in (["publish", "--check"], ["publish"]):
        code, out, err = run_cli(capsys, *argv, "--root", checkout)
        assert_one_clear_line(code, err)
        assert "is a symbolic link" in err and out == ""
    assert _snapshot(elsewhere) == before


@pytest.mark.slow
def test_publish_add_reads_no_study_folder_through_a_link(capsys, tmp_path, checkout):
    run = tmp_path / "run"
    code, _ = cli("study", "421", "--scale", "test", "--out", run, "--no-figures", "--quiet")
    assert code == 0
    elsewhere = _linked(run, "replicates", tmp_path / "elsewhere")
    before = _snapshot(elsewhere)
    code, _, err = run_cli(capsys, "publish", "--add", run, "--root", checkout)
    assert_one_clear_line(code, err)
    assert "replicates is a symbolic link" in err
    assert _snapshot(elsewhere) == before


def test_the_helper_refuses_a_link_at_any_depth_and_only_below_its_folder(tmp_path):
    out = tmp_path / "out"
    (out / "a" / "b").mkdir(parents=True)
    (tmp_path / "real").mkdir()
    (out / "a" / "link").symlink_to(tmp_path / "real")
    assert inside(out, "a", "b", "x.json") == out / "a" / "b" / "x.json"
    with pytest.raises(FsmarenaError, match="a/link is a symbolic link"):
        inside(out, "a", "link", "x.json")
    (out / "a" / "file.json").symlink_to(tmp_path / "real")
    check_no_links(out, out / "a" / "file.json", reading=False)  # a writer replaces the link itself
    with pytest.raises(FsmarenaError, match="file.json is a symbolic link"):
        check_no_links(out, out / "a" / "file.json", reading=True)
    check_no_links(out / "a" / "b", out / "a" / "link" / "x", reading=True)  # not below the folder
