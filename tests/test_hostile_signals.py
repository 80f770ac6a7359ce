"""Workers and signals: SIGINT, SIGTERM and SIGKILL with ``--jobs 2`` end cleanly (no orphaned
worker afterwards; those are ``slow``), Ctrl-C while the workers start, a ``numpy.py`` in the
working directory.

Every case ends as the README promises (:mod:`hostile_helpers` says how).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_helpers import (
    FSMARENA,
    run_bounded,
)

from fsmarena import cli

# ---- workers and signals ---------------------------------------------------------------------


def _alive(pids: list[int]) -> list[int]:
    import psutil

    living = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                living.append(pid)
        except psutil.NoSuchProcess:
            pass
    return living


def _ctrl_c_as_from_a_terminal() -> None:
    """In the child before it starts: Ctrl-C at its default, as a shell leaves it.  A child
    inherits an ignored SIGINT (Python then installs no handler, and neither does fsmarena,
    which respects it), and a test worker may hold it ignored for a moment (a pool starting
    in another test's leftover state); the interrupt tests are about the default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_in_its_own_session(argv: list[str], cwd: Path) -> subprocess.Popen:
    """``fsmarena ARGV`` started as from a terminal, in a process group of its own (a failed
    check can kill the whole group), its output captured as text."""
    return subprocess.Popen(
        [*FSMARENA, *argv],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_ctrl_c_as_from_a_terminal,
    )


#: a command whose worker-pool thread fails while the run is being interrupted, as loky's queue
#: manager can (``KeyError`` on a work item the shutdown already dropped; seen once in CI), or
#: logs the failure with its traceback, as dask's event loop does through tornado's logger when
#: the interrupt cancels a call not yet started (``NameError`` in ``distributed.utils.sync``'s
#: ``cancel``; seen in the signal tests on a loaded machine)
_POOL_THREAD_FAILS_ON_INTERRUPT = """
import logging, signal, sys, threading, time
import fsmarena.commands.play as play
from fsmarena import cli

logging.basicConfig(format="%(asctime)s - %(name)s - %(levelname)s - %(message)s")  # as distributed's

def run(args):
    def queue_manager():
        cli._stopping.wait(10)
        {failure}
    thread = threading.Thread(target=queue_manager, name="ExecutorManagerThread")
    thread.start()
    try:
        # raise_signal, not os.kill: it signals this (the main) thread, so the sleep is cut short
        # at once; a process-directed kill may land on the other thread, and on a loaded machine
        # the main thread then sleeps on until the pool thread's own timeout
        signal.raise_signal(signal.{sig})
        time.sleep(10)
    finally:
        thread.join()
    return 0

play.run = run
sys.exit(cli.main(["play", "dtd", "random", "random"]))
"""


#: how the pool thread fails: it raises, or it logs the error with a traceback and goes on
FAILURES = {
    "raises": "raise KeyError(93)",
    "logs": 'logging.getLogger("tornado.application").error("Exception in callback", exc_info=NameError("future"))',
}


@pytest.mark.parametrize("failure", FAILURES)
@pytest.mark.parametrize(
    "sig, status, message",
    [("SIGINT", 130, "fsmarena: interrupted"), ("SIGTERM", 143, "fsmarena: terminated")],
)
def test_a_pool_thread_failing_during_an_interrupt_adds_nothing_to_the_one_line(
    tmp_path, sig, status, message, failure
):
    script = _POOL_THREAD_FAILS_ON_INTERRUPT.format(sig=sig, failure=FAILURES[failure])
    done = subprocess.run(
        [sys.executable, "-P", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_ctrl_c_as_from_a_terminal,
    )
    assert done.returncode == status, done.stderr
    assert done.stderr.strip() == message


def test_the_run_after_an_interrupted_one_logs_and_reports_as_before(capsys):
    """Stopping switches library logging off for the rest of that run only (in-process callers
    run several commands in a row)."""
    before = logging.root.manager.disable
    cli._stop()
    try:
        assert logging.root.manager.disable == logging.CRITICAL and cli._stopping.is_set()
        assert cli.main(["games"]) == 0
        assert logging.root.manager.disable == before and not cli._stopping.is_set()
    finally:
        logging.disable(before)
        cli._stopping.clear()


@pytest.mark.slow
def test_workers_do_not_import_from_the_working_directory(tmp_path):
    marker = tmp_path / "executed"
    (tmp_path / "numpy.py").write_text(f"open({str(marker)!r}, 'w').write('x')\nraise SystemExit('evil')\n")
    done = run_bounded(
        ["play", "dtd", "random", "random", "--games", "20000", "--jobs", "2", "--quiet"], tmp_path, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert not marker.exists()


def _ignores_ctrl_c(pid: int) -> bool:
    """Whether process ``pid`` ignores SIGINT now (Linux: the ``SigIgn`` mask of
    ``/proc/PID/status``), as fsmarena does while it starts a pool (fsmarena.parallel)."""
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) >> (signal.SIGINT - 1) & 1)
    raise AssertionError(f"no SigIgn line for process {pid}")


def _signal_once_started(process: subprocess.Popen, tmp_path: Path, sig: int, command: str) -> list[int]:
    """Send ``sig`` once the run's two workers exist and the run has finished starting them
    (it no longer ignores Ctrl-C, which it does while a pool starts: a signal then would be
    lost, by design), and with dask once a generation is logged; returns the workers' process
    ids.  Conditions the run shows, not a fixed wait: under load, starting takes any time."""
    import psutil

    deadline = time.monotonic() + 120

    def started() -> bool:
        if len(psutil.Process(process.pid).children(recursive=True)) < 2 or _ignores_ctrl_c(process.pid):
            return False
        return command != "evolve-dask" or (tmp_path / "evo" / "logbook.csv").exists()

    while not started():
        assert process.poll() is None, "the run ended before it was signalled"
        assert time.monotonic() < deadline, "the workers never started"
        time.sleep(0.05)
    children = [c.pid for c in psutil.Process(process.pid).children(recursive=True)]
    if sig == signal.SIGINT:
        os.killpg(process.pid, sig)  # as a terminal's Ctrl-C: the whole foreground group
    else:
        process.send_signal(sig)
    return children


@pytest.mark.slow
@pytest.mark.parametrize(
    "sig, status, message",
    [
        (signal.SIGINT, 130, "fsmarena: interrupted"),
        (signal.SIGTERM, 143, "fsmarena: terminated"),
        (signal.SIGKILL, -signal.SIGKILL, None),
    ],
    ids=["sigint", "sigterm", "sigkill"],
)
@pytest.mark.parametrize("command", ["play", "evolve", "evolve-dask"])
def test_signals_with_two_jobs_end_cleanly_and_leave_no_worker(tmp_path, sig, status, message, command):

    evolve = ["evolve", "dtd", "--genome", "fsm", "--protocol", "round-robin", "--population", "30"]
    evolve += ["--games-per-pair", "200", "--generations", "100000", "--quiet", "--out", str(tmp_path / "evo")]
    argv = {
        "play": ["play", "dtd", "random", "random", "--games", "500000000", "--jobs", "2", "--quiet"],
        "evolve": [*evolve, "--jobs", "2"],
        "evolve-dask": [*evolve, "--dask", "local"],  # a LocalCluster's two worker processes
    }[command]
    process = _start_in_its_own_session(argv, tmp_path)
    try:
        children = _signal_once_started(process, tmp_path, sig, command)
        _, err = process.communicate(timeout=60)
    finally:  # a failed check must not leave a run of 100,000 generations behind
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == status, err
    if message:
        assert err.strip() == message
    deadline = time.monotonic() + 20
    while _alive(children) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _alive(children) == [], "orphaned worker processes"
    if command != "play" and sig != signal.SIGKILL:  # after SIGKILL the next run removes them
        assert not [p for p in (tmp_path / "evo").rglob("*.tmp-*")]  # no half-written file left


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.05, 0.1, 0.2, 0.4])
def test_ctrl_c_while_the_workers_start_is_one_line(tmp_path, delay):
    """A Ctrl-C while loky workers were still importing printed their own KeyboardInterrupt
    tracebacks (18 lines each) before "fsmarena: interrupted", or interrupted this process
    half-way through starting the pool ("cannot join thread before it is started").  The
    workers now start with SIGINT ignored; a Ctrl-C in the fraction of a second the pool takes
    to start is ignored too, and a second one stops the run."""
    import psutil

    argv = ["play", "dtd", "random", "random", "--games", "500000000", "--jobs", "2", "--quiet"]
    process = _start_in_its_own_session(argv, tmp_path)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            commands = [" ".join(child.cmdline()) for child in psutil.Process(process.pid).children(recursive=True)]
            if any("loky" in command and "resource_tracker" not in command for command in commands):
                break
            time.sleep(0.002)
        time.sleep(delay)
        os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole foreground group
        try:
            _, err = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # it came while the pool started: pressed again
            os.killpg(process.pid, signal.SIGINT)
            _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    assert err.strip() == "fsmarena: interrupted"
