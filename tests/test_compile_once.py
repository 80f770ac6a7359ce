"""No compiled function of fsmarena is compiled twice for what is the same call once literals
are widened: numba types a call while it is still inferring its arguments' types, so a count
started at ``0`` or a constant like ``52`` passed to another compiled function compiles that
function once more for ``Literal[int](0)`` beside ``int64`` (docs/performance.md).  Checked on empty caches (a warm
cache loads the callers' machine code without typing their calls) in a process of its own, for
every kernel's functions called from Python, the driver's loop (a match of every game, which
compiles what the loop calls: a literal passed there once compiled the loop's seat choice twice)
and the sequential training loop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import gc, json, sys
import numpy as np
from numba.core import types
from numba.core.registry import CPUDispatcher
from fsmarena.cli import main
from fsmarena.games.kernel import kernel_of, params_of
from fsmarena.games.registry import entries, resolve

for entry in entries():
    if not entry.kernel:
        continue
    game = resolve(entry.game, "game")(None)
    k, p = kernel_of(game), params_of(game)
    deal = np.zeros(k.deal_size(p), dtype=np.int64)
    s = np.zeros(k.state_size(p), dtype=np.int64)
    k.draw_deal(p, deal)
    k.reset(p, s, deal)
    k.observe_part(p, k.part_data(game.config), s, 0, 0, np.zeros(1))
    # the driver's loop and everything it calls from compiled code (step, legal, the builtins)
    first = sorted(game.builtin_players())[0]
    seats = [first] if game.n_seats == 1 else [first, "random"]
    assert main(["play", entry.name, *seats, "--games", "20", "--quiet"]) == 0
assert main(["train", "dtd", "--algo", "mc", "--episodes", "20", "--quiet", "--out", sys.argv[1]]) == 0
twice = []
for d in gc.get_objects():
    if isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith("fsmarena"):
        widened = [tuple(types.unliteral(t) for t in sig) for sig in d.signatures]
        if len(set(widened)) < len(widened):
            twice.append(f"{d.py_func.__module__}.{d.py_func.__qualname__}: {d.signatures}")
print(json.dumps(sorted(twice)))
"""


@pytest.mark.slow
def test_no_compiled_function_is_compiled_again_for_literal_arguments(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), FSMARENA_CACHE_DIR=str(tmp_path / "fsmarena"))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "train")],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == []
