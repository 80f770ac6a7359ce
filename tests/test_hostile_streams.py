"""Standard output and error that cannot be written (``fsmarena.output_guard``): closed, full or
a broken pipe, for a few commands.  Standard output that fails is one line on stderr and exit
status 2; standard error that fails loses its messages and nothing else; never a traceback.

The reproducers run the real console command on real descriptors (``>&-``, ``2>&-``); the
other states run in-process, with streams that fail as the operating system's do."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys

import pytest
from hostile_helpers import FSMARENA, assert_one_clear_line

from fsmarena import progress
from fsmarena.cli import main
from fsmarena.output_guard import GuardedStream

PLAY = ["play", "dtd", "random", "random", "--games", "50", "--quiet"]
COMMANDS = {
    "games": ["games"],
    "games-json": ["games", "--json"],
    "play": PLAY,
    "play-json": [*PLAY, "--json"],
    "help": ["--help"],
}


class _Failing(io.StringIO):
    """A text stream whose writes and flushes fail as a full disk or a broken pipe does."""

    def __init__(self, error: OSError):
        super().__init__()
        self.error = error

    def write(self, text):
        raise self.error

    def flush(self):
        raise self.error


def _stream(state: str):
    if state == "closed":
        return None
    if state == "full":
        return _Failing(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    return _Failing(BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE)))


def _run(monkeypatch, argv, stdout, stderr) -> int:
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    try:
        return main(argv)
    except SystemExit as exc:  # --help ends through argparse's exit
        return int(exc.code or 0)


@pytest.mark.parametrize("state", ["closed", "full", "broken-pipe"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_standard_output_that_cannot_be_written_is_one_line_and_status_2(monkeypatch, state, command):
    err = io.StringIO()
    code = _run(monkeypatch, COMMANDS[command], _stream(state), err)
    assert_one_clear_line(code, err.getvalue())
    wanted = {"closed": "it is closed", "full": "No space left on device", "broken-pipe": "Broken pipe"}[state]
    assert "fsmarena: error: cannot write to standard output: " in err.getvalue()
    assert wanted in err.getvalue()


@pytest.mark.parametrize("state", ["closed", "full", "broken-pipe"])
def test_standard_error_that_cannot_be_written_loses_only_its_messages(monkeypatch, state):
    """A valid command still prints its results and succeeds; an invalid one still fails with
    status 2 (its line lost); neither raises."""
    out = io.StringIO()
    assert _run(monkeypatch, [*PLAY, "--json"], out, _stream(state)) == 0
    assert '"games": 50' in out.getvalue()
    out = io.StringIO()
    assert _run(monkeypatch, ["play", "dtd", "nobody", "random"], out, _stream(state)) == 2
    assert out.getvalue() == ""


def test_progress_bars_ask_no_missing_stream(monkeypatch):
    """``progress`` asked a missing stderr whether it is a terminal (AttributeError)."""
    monkeypatch.setattr(sys, "stderr", None)
    assert progress.enabled() is False
    monkeypatch.setattr(sys, "stderr", GuardedStream(None, "standard error", 2, strict=False))
    assert progress.enabled() is False


def _console(argv, **streams) -> subprocess.CompletedProcess:
    return subprocess.run([*FSMARENA, *argv], text=True, timeout=120, **streams)


@pytest.mark.slow
def test_a_closed_standard_output_is_one_line_not_a_traceback(tmp_path):
    """``fsmarena games >&-`` ended in ``AttributeError: 'NoneType' object has no attribute
    'write'``, exit status 1."""
    done = _console(
        ["games"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        close_fds=True,
        preexec_fn=lambda: os.close(1),
    )
    assert_one_clear_line(done.returncode, done.stderr)
    assert "cannot write to standard output: it is closed" in done.stderr


@pytest.mark.slow
def test_a_closed_standard_error_lets_a_valid_play_succeed(tmp_path):
    """``fsmarena play ... 2>&-`` printed nothing and exited 1 (the progress module asked the
    missing stderr whether it is a terminal)."""
    done = _console(
        PLAY[:-1], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=lambda: os.close(2)
    )
    assert done.returncode == 0
    assert "win" in done.stdout


@pytest.mark.slow
def test_a_broken_pipe_on_standard_output_is_one_line_and_status_2(tmp_path):
    """The reader is gone before the first write (a pipe whose reading end is closed)."""
    reading, writing = os.pipe()
    os.close(reading)
    try:
        done = _console(["games", "--json"], cwd=tmp_path, stdout=writing, stderr=subprocess.PIPE)
    finally:
        os.close(writing)
    assert_one_clear_line(done.returncode, done.stderr)
    assert "cannot write to standard output: the reader closed the pipe (Broken pipe)" in done.stderr


@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.parametrize("command", ["games", "play", "help"])
def test_a_full_standard_error_never_shows_and_never_changes_the_status(tmp_path, command):
    """``2> /dev/full``: nothing to report for a valid command (status 0), nor the
    interpreter's complaint at exit (status 120) when an invalid one's line is lost."""
    with open("/dev/full", "w") as full:
        done = _console(COMMANDS[command], cwd=tmp_path, stdout=subprocess.PIPE, stderr=full)
        assert done.returncode == 0 and done.stdout
        bad = _console(["play", "dtd", "nobody", "random"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=full)
        assert bad.returncode == 2 and bad.stdout == ""
