"""What every hostile-input test file shares (tests/test_hostile_*.py, tests/test_robustness.py):
small commands to damage, the interpreter as the console script runs it, the one-clear-line
check, a folder's output files, and a child ``fsmarena`` with time and memory limits.

The promise every hostile case is held to (the README's): one line on stderr (``fsmarena:
error: ...``), exit status 2 (130 for Ctrl-C, 143 for SIGTERM), no traceback, no partial output,
in bounded time and memory."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from fsmarena.outdir import CONTROL_FILES

#: tabular training small enough for a test
TRAIN = [
    "train",
    "dtd",
    "--algo",
    "q-learning",
    "--episodes",
    "2000",
    "--batch",
    "1000",
    "--eval-every",
    "1000",
    "--eval-games",
    "100",
    "--seed",
    "1",
    "--quiet",
]
EVOLVE_BASE = [
    "evolve",
    "dtd",
    "--genome",
    "fsm",
    "--protocol",
    "round-robin",
    "--population",
    "4",
    "--games-per-pair",
    "2",
    "--seed",
    "1",
    "--quiet",
]
EVOLVE = [*EVOLVE_BASE, "--generations", "2"]
RESUME = [*EVOLVE_BASE, "--generations", "3", "--resume"]
#: the interpreter as the console script runs it: -P keeps the working directory off sys.path
FSMARENA = [sys.executable, "-P", "-m", "fsmarena"]
MEMORY_LIMIT = 3 * 1024**3  # address space: numpy, numba and scipy map a lot, but not gigabytes more
hostile = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def assert_one_clear_line(code: int, err: str, status: int = 2) -> None:
    assert code == status, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    if status == 2:
        assert lines[0].startswith("fsmarena: error:"), err


def files(folder: Path) -> dict[str, bytes]:
    """Every output file under ``folder`` (the folder's lock and kind files excluded)."""
    if not folder.exists():
        return {}
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in CONTROL_FILES
    }


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_bounded(argv: list[str], cwd: Path, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    """``fsmarena ARGV`` in a child process with a time limit and an address-space limit."""
    return subprocess.run(
        [*FSMARENA, *map(str, argv)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit_memory,
        **kwargs,
    )


#: JSON-like trees whose strings hold brackets and quotes (the nesting reader's hard cases)
json_trees = st.recursive(
    st.none() | st.integers() | st.text(alphabet='[]{}"\\ ,:a1', max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=30,
)

#: a study file with knobs a test turns to make it impossible (``str.format`` fields)
STUDY_TOML = """
name = "hostile"
version = 1
game = "dtd"
seed = 1
panel = ["random"]
{extra}
[[competitors]]
name = "rnd"
method = "train"
params = {{ algo = "q-learning", episodes = 1000 }}

[scales.test]
replicates = 1
panel_games = {panel_games}
crossplay_halfwidth = {halfwidth}
"""


def builtin_study(name: str) -> str:
    """A study definition of two builtin families on divide-the-dollar, named ``name``: the
    smallest finished study folder a hostile case can damage (seconds at the test scale). Builtins
    are fixed players: each runs once, r000, whatever the scale's replicates."""
    return f"""
name = "{name}"
version = 1
game = "dtd"
seed = 1
panel = ["random"]

[[competitors]]
name = "small"
method = "builtin"
params = {{ player = "always-small" }}

[[competitors]]
name = "large"
method = "builtin"
params = {{ player = "always-large" }}

[scales.test]
replicates = 2
panel_games = 20
crossplay_halfwidth = 0.4
"""
