"""Freed memory kept for reuse (:mod:`fsmarena.allocator`): measured in page faults, in fresh
processes (the setting is per process and cannot be undone)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from fsmarena import allocator
from fsmarena.cli import main

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc only")

#: frees 40 arrays of 1 MiB at once, five times (a batch's temporaries), after two rounds to
#: settle; prints the page faults of the five rounds and whether the thresholds were set
CYCLES = """
import resource, sys
import numpy as np
from fsmarena import allocator
kept = allocator.keep_freed_memory() if sys.argv[1] == "keep" else False

def batch():
    arrays = [np.ones(1 << 17) for _ in range(40)]
    del arrays

batch(); batch()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    batch()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before, kept)
"""

#: the page faults of five rounds when every page of 40 MiB is taken back each time
RETAKEN = 5 * (40 << 20) // os.sysconf("SC_PAGE_SIZE")


def clean_environ() -> dict[str, str]:
    """This process's environment without any malloc setting."""
    names = (*allocator.USER_SETTINGS, "GLIBC_TUNABLES")
    return {name: value for name, value in os.environ.items() if name not in names}


def faults(mode: str, **environ: str) -> tuple[int, bool]:
    out = subprocess.run(
        [sys.executable, "-c", CYCLES, mode],
        env={**clean_environ(), **environ},
        capture_output=True,
        text=True,
        check=True,
    )
    count, kept = out.stdout.split()
    return int(count), kept == "True"


@glibc
def test_kept_memory_is_reused_without_page_faults():
    default, kept = faults("default")
    assert not kept and default > RETAKEN // 2  # glibc's own rule gives the pages back every round
    reused, kept = faults("keep")
    assert kept and reused < RETAKEN // 50


@glibc
@pytest.mark.parametrize(
    "setting", [{"MALLOC_TRIM_THRESHOLD_": "131072"}, {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"}]
)
def test_a_users_malloc_setting_is_left_alone(setting):
    count, kept = faults("keep", **setting)
    assert not kept and count > RETAKEN // 2


#: the loky workers' state, from a fresh process (a worker pool this test process started
#: earlier, or an environment another test left, would say nothing about them)
WORKERS = """
from fsmarena import allocator
from fsmarena.parallel import run_tasks
print(run_tasks(lambda task: allocator.active(), [0, 1], jobs=2))
"""


@pytest.mark.slow
@glibc
def test_the_command_line_and_its_workers_keep_freed_memory(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(allocator, "keep_freed_memory", lambda: calls.append(True))
    assert main(["games"]) == 0
    assert calls == [True]
    out = subprocess.run(
        [sys.executable, "-c", WORKERS], env=clean_environ(), capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["[True,", "True]"]


def test_other_c_libraries_are_not_touched(monkeypatch):
    monkeypatch.setattr(allocator, "_applied", False)
    monkeypatch.setattr(platform, "libc_ver", lambda: ("", ""))
    assert allocator.keep_freed_memory() is False and not allocator.active()
