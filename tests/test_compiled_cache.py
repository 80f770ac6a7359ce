"""Per-kernel compiled loops cached on disk (fsmarena.specialise): the cache notices every change
of the code it compiled, processes racing to create a module all work, an unwritable cache folder
and NUMBA_DISABLE_JIT still give the same results.

The scratch "kernel" below calls a compiled function of another module and is itself compiled
without numba's cache, so only fsmarena's cache can make a stale result appear: a run after the
callee changed must see the change (numba alone would reuse the old machine code).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fsmarena.rl.sequential as sequential
from fsmarena import specialise as specialise_module
from fsmarena.specialise import generated_name, specialise

ROOT = Path(__file__).resolve().parents[1]

CALLEE = """
import numba

@numba.njit
def bonus(x):
    return x + {increment}
"""
KERNEL = """
import numba
from {prefix}_callee import bonus

@numba.njit
def step(x):
    return bonus(x) * 2
"""
TEMPLATE = """
from fsmarena.specialise import kernel_function

k_step = kernel_function("step")
OFFSET = 3


def run(x):
    return k_step(x) + OFFSET
"""
#: run(4) by hand: (4 + increment) * 2 + 3
EXPECTED = {1: 13, 2: 15}

PROBE = """
import json, sys
import {prefix}_kernel as kernel, {prefix}_template as template
from fsmarena.specialise import generated_name, specialise
function = specialise(template.run, kernel)
stats = getattr(function, "stats", None)
value = function(4)
hits = sum(function.stats.cache_hits.values()) if stats else -1
print(json.dumps({{"name": generated_name(template.run, kernel), "value": int(value), "hits": hits,
                  "file": sys.modules[function.__module__].__file__, "compiled": stats is not None}}))
"""


def write_scratch(folder: Path, prefix: str, increment: int) -> None:
    """A scratch callee, kernel and template (module names start with ``prefix``)."""
    (folder / f"{prefix}_callee.py").write_text(CALLEE.format(increment=increment))
    (folder / f"{prefix}_kernel.py").write_text(KERNEL.format(prefix=prefix))
    (folder / f"{prefix}_template.py").write_text(TEMPLATE)


def environment(path: str, cache: Path, **extra: str) -> dict[str, str]:
    """This environment with ``path`` importable, the cache in ``cache``, numba on unless ``extra`` says."""
    settings = {key: value for key, value in os.environ.items() if key != "NUMBA_DISABLE_JIT"}
    return {**settings, "PYTHONPATH": path, "FSMARENA_CACHE_DIR": str(cache), **extra}


def probe(folder: Path, prefix: str, cache: Path, **extra: str) -> dict:
    """Specialise the scratch template in a fresh process: its module name, run(4), numba cache hits."""
    settings = environment(f"{folder}{os.pathsep}{ROOT}", cache, **extra)
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(prefix=prefix)], env=settings, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_changed_callee_gives_a_new_module_and_its_new_result(tmp_path):
    cache = tmp_path / "cache"
    write_scratch(tmp_path, "alpha", increment=1)
    first = probe(tmp_path, "alpha", cache)
    again = probe(tmp_path, "alpha", cache)
    write_scratch(tmp_path, "alpha", increment=2)
    changed = probe(tmp_path, "alpha", cache)

    assert first["value"] == again["value"] == EXPECTED[1]
    assert first["hits"] == 0 and again["hits"] == 1  # the second process loaded the machine code
    assert again["name"] == first["name"]
    assert changed["name"] != first["name"]
    assert changed["value"] == EXPECTED[2] and changed["hits"] == 0
    generated = sorted(path.name for path in (cache / "specialised").glob("*.py"))
    assert generated == sorted([first["name"] + ".py", changed["name"] + ".py"])


def test_the_name_follows_the_source_of_every_reachable_module(tmp_path, monkeypatch):
    write_scratch(tmp_path, "beta", increment=1)
    monkeypatch.syspath_prepend(str(tmp_path))
    import beta_kernel
    import beta_template

    before = generated_name(beta_template.run, beta_kernel)
    assert generated_name(beta_template.run, beta_kernel) == before
    (tmp_path / "beta_callee.py").write_text(CALLEE.format(increment=1) + "\n# an edit\n")
    after_callee = generated_name(beta_template.run, beta_kernel)
    (tmp_path / "beta_kernel.py").write_text(KERNEL.format(prefix="beta") + "\n# an edit\n")
    after_kernel = generated_name(beta_template.run, beta_kernel)
    assert len({before, after_callee, after_kernel}) == 3
    # the project's own modules (here fsmarena.jit, which every generated module uses) count too
    monkeypatch.setattr(specialise_module, "_package_files", lambda top: [Path(specialise_module.__file__)])
    assert generated_name(beta_template.run, beta_kernel) not in {before, after_callee, after_kernel}


def test_an_inline_template_is_its_own_module_compiled_into_its_callers(tmp_path, monkeypatch):
    """``inline=True`` gives a module of its own whose function numba compiles into every
    compiled caller (``inline="always"``), with the same result as the called one."""
    write_scratch(tmp_path, "delta", increment=1)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("FSMARENA_CACHE_DIR", str(tmp_path / "cache"))
    import delta_kernel
    import delta_template

    called = specialise(delta_template.run, delta_kernel)
    assert generated_name(delta_template.run, delta_kernel, inline=True) != generated_name(
        delta_template.run, delta_kernel
    )
    specialise_module._LOADED.pop((delta_template.__name__, "run", delta_kernel.__name__))
    inlined = specialise(delta_template.run, delta_kernel, inline=True)
    assert inlined.targetoptions.get("inline") == "always"
    assert called.targetoptions.get("inline", "never") == "never"
    assert inlined(4) == called(4) == EXPECTED[1]


def test_the_toolkit_is_hashed_by_subpackage_and_own_module_not_as_a_whole():
    """A compiled learner over a game's kernel reaches the games and learners (and the
    specialiser itself), so those sources are hashed; the studies, figures, evolution and the
    command line are not, so editing a report recompiles nothing."""
    import fsmarena.games.dtd.kernel as kernel

    files = specialise_module._reachable_files([sequential.__name__, kernel.__name__])
    hashed = {path.relative_to(ROOT / "fsmarena").parts[0] for path in files}
    assert {"games", "rl", "specialise.py"} <= hashed
    assert not hashed & {"studies", "figures", "evo", "commands", "cli.py"}
    assert all(path.suffix == ".py" for path in files)


@pytest.mark.slow
def test_racing_processes_produce_one_valid_module(tmp_path):
    cache = tmp_path / "cache"
    write_scratch(tmp_path, "gamma", increment=1)
    settings = environment(f"{tmp_path}{os.pathsep}{ROOT}", cache)
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", PROBE.format(prefix="gamma")], env=settings, stdout=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    results = [json.loads(racer.communicate(timeout=300)[0].strip().splitlines()[-1]) for racer in racers]
    assert all(racer.returncode == 0 for racer in racers)
    assert {result["value"] for result in results} == {EXPECTED[1]}
    assert len({result["name"] for result in results}) == 1
    files = sorted((cache / "specialised").iterdir())
    assert [path.name for path in files if path.is_file()] == [results[0]["name"] + ".py"]  # no temporary left
    assert probe(tmp_path, "gamma", cache)["hits"] == 1  # and it is a valid cached module


def test_a_damaged_generated_file_is_rewritten_and_a_good_one_kept(tmp_path):
    folder = tmp_path / "specialised"
    path = specialise_module._write(folder, "fsmarena_specialised_x", "VALUE = 1\n")
    assert path is not None and path.read_text() == "VALUE = 1\n"
    stamp = path.stat().st_mtime_ns, path.stat().st_ino
    assert specialise_module._write(folder, "fsmarena_specialised_x", "VALUE = 1\n") == path
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == stamp  # untouched: numba's cache key stays valid
    path.write_text("VALUE = 1\nraise SystemExit  # damaged\n")
    specialise_module._write(folder, "fsmarena_specialised_x", "VALUE = 1\n")
    assert path.read_text() == "VALUE = 1\n"
    assert [p.name for p in folder.iterdir()] == [path.name]


@pytest.mark.slow
def test_an_unwritable_cache_folder_compiles_in_memory(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    write_scratch(tmp_path, "delta", increment=2)
    result = probe(tmp_path, "delta", blocker / "cache")
    assert result["value"] == EXPECTED[2]
    assert result["compiled"] and result["file"].startswith("<")


def test_numba_disabled_runs_the_template_as_python(tmp_path):
    write_scratch(tmp_path, "epsilon", increment=1)
    result = probe(tmp_path, "epsilon", tmp_path / "cache", NUMBA_DISABLE_JIT="1")
    assert result["value"] == EXPECTED[1] and not result["compiled"]


def test_a_template_must_be_a_plain_module_level_function():
    def nested(x):
        return x

    with pytest.raises(TypeError, match="plain module-level function"):
        specialise(nested, sequential)


def test_a_template_runs_only_specialised():
    with pytest.raises(TypeError, match="bound per kernel"):
        sequential.k_step(np.zeros(1), np.zeros(1), 0)


TRAIN = """
import sys
import numpy as np
from fsmarena.games.dtd.game import DivideTheDollar
from fsmarena.rl.train import TrainConfig, train

config = TrainConfig("q-learning", episodes=3000, eval_every=3000, eval_games=100)
result = train(DivideTheDollar(), config, seed=11)
np.save(sys.argv[1], result.q)
"""


@pytest.mark.slow
def test_a_cached_runner_trains_bit_identically_to_a_fresh_one(tmp_path):
    """Seed equality: freshly generated and compiled, loaded from the cache, compiled in memory."""
    runs = {"fresh": tmp_path / "cache", "cached": tmp_path / "cache", "memory": tmp_path / "a_file" / "cache"}
    (tmp_path / "a_file").write_text("not a folder")
    for label, cache in runs.items():
        settings = environment(str(ROOT), cache)
        done = subprocess.run(
            [sys.executable, "-c", TRAIN, str(tmp_path / f"{label}.npy")], env=settings, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    fresh = np.load(tmp_path / "fresh.npy")
    assert np.count_nonzero(fresh) > 0
    assert np.array_equal(fresh, np.load(tmp_path / "cached.npy"))
    assert np.array_equal(fresh, np.load(tmp_path / "memory.npy"))
