"""Output folders under hostile conditions: concurrent runs and foreign folders, stale temporary
files, control files that are not small regular files, a full or closed standard output, any
kind file or budgeted JSON read or refused.

Every case ends as the README promises (:mod:`hostile_helpers` says how).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from cli_helpers import run_cli
from hostile_helpers import (
    EVOLVE,
    EVOLVE_BASE,
    FSMARENA,
    RESUME,
    TRAIN,
    assert_one_clear_line,
    files,
    hostile,
    json_trees,
    run_bounded,
)
from hypothesis import given
from hypothesis import strategies as st

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import loads
from fsmarena.outdir import KIND_FILE, LOCK, claim_folder, release_all

# ---- output folders ---------------------------------------------------------------------------


def test_a_second_run_into_a_folder_in_use_is_refused_naming_the_holder(tmp_path, capsys):
    out = tmp_path / "evo"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from fsmarena.outdir import claim_folder; "
            "claim_folder(sys.argv[1], 'evolve'); print('held', flush=True); time.sleep(60)",
            str(out),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        code, _, err = run_cli(capsys, *EVOLVE, "--out", out)
        assert_one_clear_line(code, err)
        assert f"is in use by another fsmarena run (pid {holder.pid})" in err
        assert files(out) == {}
    finally:
        holder.kill()
        holder.wait()
    assert run_cli(capsys, *EVOLVE, "--out", out)[0] == 0  # the kernel released the lock


@pytest.mark.slow
def test_two_concurrent_runs_into_one_folder_one_wins_one_is_refused(tmp_path):
    out = tmp_path / "evo"
    argv = [*FSMARENA, *EVOLVE, "--generations", "60", "--out", str(out)]
    runs = [
        subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    results = [(p.wait(timeout=120), p.stderr.read()) for p in runs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    assert_one_clear_line(2, refused)
    assert "in use by another fsmarena run" in refused or "already holds a run" in refused


@pytest.mark.parametrize(
    "first, second", [("evolve", "train"), ("train", "evolve"), ("evolve", "tournament"), ("tournament", "study")]
)
def test_commands_refuse_each_others_folders(tmp_path, capsys, first, second):
    commands = {
        "evolve": EVOLVE,
        "train": TRAIN,
        "tournament": ["tournament", "dtd", "random", "always-large", "--games", "20", "--quiet"],
        "study": ["study", "dtd-thesis", "--scale", "test", "--no-figures", "--quiet"],
    }
    out = tmp_path / "out"
    assert run_cli(capsys, *commands[first], "--out", out)[0] == 0
    assert (out / KIND_FILE).read_text().strip() == first
    before = files(out)
    code, _, err = run_cli(capsys, *commands[second], "--out", out)
    assert_one_clear_line(code, err)
    assert f"'fsmarena {first}' run" in err
    assert files(out) == before


def test_stale_temporary_files_are_removed_by_the_next_run(tmp_path, capsys):
    out = tmp_path / "evo"
    assert run_cli(capsys, *EVOLVE, "--out", out)[0] == 0
    stale = [out / ".checkpoint.json.tmp-ab12cd34.json", out / ".best.json.tmp-zz99_x0a.json"]
    for path in stale:
        path.write_text("{half")
    keep = out / ".notes"
    keep.write_text("mine")
    assert run_cli(capsys, *RESUME, "--out", out)[0] == 0
    assert not any(path.exists() for path in stale)
    assert keep.read_text() == "mine"


def test_a_failed_tournament_rerun_leaves_no_mix_of_old_and_new_tables(tmp_path, capsys, monkeypatch):
    out = tmp_path / "t"
    argv = ["tournament", "dtd", "random", "always-large", "--quiet", "--out", out, "--games"]
    assert run_cli(capsys, *argv, 20)[0] == 0
    assert (out / "matrix.csv").exists()

    def broken_heatmap(*args, **kwargs):
        raise FsmarenaError("cannot write heatmap: disk full")

    monkeypatch.setattr("fsmarena.figures.heatmap.win_rate_heatmap", broken_heatmap)
    code, _, err = run_cli(capsys, *argv, 30)
    assert_one_clear_line(code, err)
    tables = files(out)
    assert "tournament.json" not in tables  # the old summary is gone, not left beside new tables
    for name in ("results.csv", "matrix.csv"):
        if name in tables:
            assert b",30," in tables[name] or name == "matrix.csv"


def test_a_run_refused_after_claiming_its_folder_leaves_nothing_behind(tmp_path, capsys):
    """evolve checks its panel after claiming the folder: the refusal removes what the claim made."""
    out = tmp_path / "new"
    code, _, err = run_cli(capsys, *EVOLVE_BASE, "--protocol", "panel", "--panel", "nobody", "--out", out)
    assert_one_clear_line(code, err)
    assert not out.exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("x")
    code, _, err = run_cli(capsys, "study", "vautour", "--scale", "test", "--out", mine)
    assert_one_clear_line(code, err)
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]


def test_claiming_is_idempotent_within_a_run_and_released_after(tmp_path):
    out = claim_folder(tmp_path / "x", "train")
    assert claim_folder(out, "train") == out
    assert (out / LOCK).read_text().strip() == str(os.getpid())
    release_all()
    with pytest.raises(FsmarenaError, match="'fsmarena train' run, not of 'evolve'"):
        claim_folder(out, "evolve")


@pytest.mark.parametrize(
    "argv",
    [
        EVOLVE,
        TRAIN,
        ["tournament", "dtd", "random", "always-large", "--games", "20", "--quiet"],
        ["study", "dtd-thesis", "--scale", "test", "--no-figures", "--quiet"],
        ["search", "dtd", "--quiet"],
        ["solve", "vautour", "--param", "cards=3"],
        ["draw", "PLAYER"],
    ],
    ids=["evolve", "train", "tournament", "study", "search", "solve", "draw"],
)
def test_an_empty_output_path_is_refused_not_taken_for_the_current_folder(tmp_path, capsys, monkeypatch, argv):
    """``--out ''`` used to lock, mark and fill the working directory (solve: write nothing)."""
    monkeypatch.chdir(tmp_path)
    player = tmp_path / "p.json"
    player.write_text("{}")
    code, out, err = run_cli(capsys, *[str(player) if a == "PLAYER" else a for a in argv], "--out", "")
    assert_one_clear_line(code, err)
    assert "--out: is empty" in err
    assert out == ""
    assert [p.name for p in tmp_path.iterdir()] == ["p.json"]


@pytest.mark.slow
@pytest.mark.parametrize("control", [LOCK, KIND_FILE])
@pytest.mark.parametrize("shape", ["FIFO", "LINK_TO_BIG_FILE", "LINK_TO_DEVICE", "FOLDER"])
def test_control_files_that_are_not_small_regular_files_are_refused_at_once(tmp_path, capsys, control, shape):
    """A FIFO as the lock gave "Illegal seek" with a traceback; a link to a 4 GB file as the kind
    file was read whole.  The control files are read only as small regular files, never through
    a link, never with a blocking open."""
    out = tmp_path / "out"
    out.mkdir()
    path = out / control
    if shape == "FIFO":
        os.mkfifo(path)
    elif shape == "LINK_TO_BIG_FILE":
        big = tmp_path / "big"
        with open(big, "wb") as handle:
            handle.truncate(4 * 1024**3)  # sparse: 4 GB that take no disk
        path.symlink_to(big)
    elif shape == "LINK_TO_DEVICE":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    start = time.monotonic()
    done = run_bounded(
        ["tournament", "dtd", "random", "always-large", "--games", "20", "--quiet", "--out", out], tmp_path
    )
    assert_one_clear_line(done.returncode, done.stderr)
    assert any(words in done.stderr for words in ("regular file", "symbolic link", "is a folder", "Is a directory"))
    assert time.monotonic() - start < 60
    assert sorted(p.name for p in out.iterdir()) == [control]


def test_an_oversized_kind_file_is_an_unknown_folder(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / KIND_FILE).write_text("evolve" + " " * 100)
    code, _, err = run_cli(capsys, *EVOLVE, "--out", out)
    assert_one_clear_line(code, err)
    assert "too large" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["games", "--json"],
        ["games"],
        ["play", "dtd", "random", "random", "--games", "100", "--json"],
        ["--help"],
    ],
    ids=["games-json", "games-text", "play-json", "help"],
)
def test_a_full_standard_output_is_one_line_and_a_failure(tmp_path, argv):
    """``> /dev/full`` ended in an OSError traceback (or, for short output, a message from the
    interpreter's last flush); a closed pipe stays silent and successful."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*FSMARENA, *argv], cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60
        )
    assert_one_clear_line(done.returncode, done.stderr)
    assert "cannot write to standard output: No space left on device" in done.stderr


@hostile
@given(
    content=st.binary(max_size=200) | st.sampled_from([b"evolve\n", b"train", b" study \n", b"\xff\xfe"]),
    shape=st.sampled_from(["file", "link", "fifo", "folder", "missing"]),
)
def test_any_kind_file_is_read_or_refused_never_another_error(tmp_path_factory, content, shape):
    """The control-file reader: a small regular file gives its kind (or "unknown"), no file gives
    None (then the folder's own files decide), anything else one FsmarenaError."""
    from fsmarena.outdir import KINDS, folder_kind

    out = tmp_path_factory.mktemp("out")
    marker = out / KIND_FILE
    if shape == "file":
        marker.write_bytes(content)
    elif shape == "link":
        (out / "target").write_bytes(content)
        marker.symlink_to(out / "target")
    elif shape == "fifo":
        os.mkfifo(marker)
    elif shape == "folder":
        marker.mkdir()
    try:
        kind = folder_kind(out)
    except FsmarenaError:
        assert shape in ("link", "fifo", "folder") or len(content) > 64
        return
    assert shape in ("file", "missing")
    if shape == "missing":
        assert kind is None
    else:
        text = content.decode("ascii", "replace").strip()
        assert kind == (text if text in KINDS else "unknown")


@hostile
@given(
    value=json_trees,
    cut=st.integers(0, 400),
    noise=st.sampled_from(["", '"', "[", "{", "1e400", ",", "\\", "true"]),
)
def test_the_budgeted_parser_reads_what_json_reads_or_refuses_in_one_line(monkeypatch, value, cut, noise):
    """Valid JSON under the limits parses to what the standard parser gives; mutated text (cut,
    with a character inserted) parses or is one FsmarenaError; a budget too small for the value
    is refused, never half-read."""
    text = json.dumps(value)
    assert loads(text) == value
    mutated = text[:cut] + noise + text[cut:]
    try:
        loads(mutated)
    except FsmarenaError:
        pass
    with monkeypatch.context() as patch:
        patch.setattr(limits, "MAX_JSON_PARSED_BYTES", 7)  # less than any one string, container or number
        if any(c in text for c in '[{"') or any(ch.isdigit() for ch in text):
            with pytest.raises(FsmarenaError, match="MAX_JSON_PARSED_BYTES"):
                loads(text)
