"""The package as a user installs it: a wheel built from the repository holds every module and
every data file (study definitions, rules pages) and runs the main job's study.

Slow (a wheel build and a study at the test scale in a fresh process): ``.ci/run`` runs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_a_wheel_built_from_the_repository_installs_and_runs_the_main_job(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(ROOT)],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = dist.glob("fsmarena-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    sources = {p.relative_to(ROOT).as_posix() for p in (ROOT / "fsmarena").rglob("*.py")}
    data = {
        p.relative_to(ROOT).as_posix()
        for ext in ("*.toml", "rules.md")
        for p in (ROOT / "fsmarena" / "games").rglob(ext)
    }
    assert sources | data <= names, sorted((sources | data) - names)[:5]
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(site), str(wheel)], check=True
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    where = subprocess.run(
        [sys.executable, "-c", "import fsmarena; print(fsmarena.__file__)"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert Path(where.strip()).is_relative_to(site)  # the wheel's copy, not the checkout
    run = subprocess.run(
        [sys.executable, "-m", "fsmarena", "study", "dtd-thesis", "--scale", "test", "--out", "out", "--quiet"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out" / "report.md").is_file() and (tmp_path / "out" / "figures").is_dir()
