"""How a study scales: the same study serially and on a 2-worker dask LocalCluster.

``fsmarena bench dtd --case "study speed-up"`` runs ``dtd-thesis`` at quick scale once in one
process (``--jobs 1``) and once on a LocalCluster of two single-threaded worker processes,
prints both times and their ratio (the speed-up), and checks that the two runs wrote identical
tables.  ``--case "study speed-up (test"`` is a seconds-long smoke test of the machinery (too
small to scale) and ``--case "study speed-up (paper"`` does the same at paper scale (about 1.3
hours in all on 2 cores; measured 1.74x).  Replicates are independent tasks of 1-40
CPU-seconds, so two workers approach 2x; shared caches and memory bandwidth, the scheduler
in the main process and the stage barriers keep it below.

Each run is the ``fsmarena study`` command in a process of its own, as a user runs it (the
library does not import the command line); the interpreter's start, under a second, is part of
both timings.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from fsmarena.errors import FsmarenaError
from fsmarena.games.bench import BenchCase


def _run(scale: str, out: Path, workers: int) -> None:
    parallel = ["--dask", "local", "--jobs", str(workers)] if workers > 1 else ["--jobs", "1"]
    study = ["study", "dtd-thesis", "--scale", scale, "--out", str(out), "--quiet", "--no-figures", *parallel]
    done = subprocess.run([sys.executable, "-m", "fsmarena", *study], stdout=subprocess.PIPE, text=True, check=False)
    sys.stderr.write(done.stdout)  # the study's summary must not mix with bench --json
    code = done.returncode
    if code != 0:
        raise FsmarenaError(f"the {scale}-scale study failed (exit {code})")


def _tables(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "tables").iterdir()) if p.name != "timing.csv"}


def scaling_cases(game) -> list[BenchCase]:
    cases = []
    for scale in ("test", "quick", "paper"):
        runs: dict[str, Path] = {}  # the temporary folder exists only while the case runs

        def two_workers(n: int, seed: int, scale: str = scale, runs: dict[str, Path] = runs) -> None:
            runs["folder"] = Path(tempfile.mkdtemp(prefix=f"fsmarena-scaling-{scale}-"))
            _run(scale, runs["folder"] / "two", workers=2)

        def one_process(n: int, seed: int, scale: str = scale, runs: dict[str, Path] = runs) -> None:
            folder = runs.pop("folder")
            try:
                _run(scale, folder / "one", workers=1)
                if _tables(folder / "one") != _tables(folder / "two"):
                    raise FsmarenaError("the serial and the 2-worker studies wrote different tables")
            finally:
                shutil.rmtree(folder, ignore_errors=True)

        cases.append(
            BenchCase(
                name=f"study speed-up ({scale} dtd-thesis, 2 dask workers vs 1 process)",
                engine=two_workers,
                plain=one_process,
                engine_games=1,
                plain_games=1,
                unit="studies",
                target="ratio >= 1.7 (paper scale)",
                opt_in=True,
                warmup=False,
                workers=True,
            )
        )
    return cases
