"""Where a result comes from: package versions and platform, compute time, and the closing
"Reproduce" and "Files" sections every study report ends with.

A published run keeps the environment it was produced in (:mod:`fsmarena.studies.store`); a report
names that one, not the installation that renders it.
"""

from __future__ import annotations

import platform
import sys
from importlib import metadata
from typing import Sequence

from fsmarena.studies.analysis import Analysis
from fsmarena.studies.report_text import table
from fsmarena.studies.runner import StudyData
from fsmarena.version import __version__

PACKAGES = ("numpy", "scipy", "deap", "matplotlib", "joblib", "networkx")


def versions(extra: Sequence[str] = ()) -> dict[str, str]:
    """Python, fsmarena and the versions of the packages a result depends on (plus ``extra``)."""
    found = {"python": platform.python_version(), "fsmarena": __version__}
    for name in (*PACKAGES, *extra):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def run_environment(extra: Sequence[str] = ()) -> dict[str, str]:
    """:func:`versions` and the ``platform`` of this installation: what a report names as the
    environment of a run (a published run keeps its own, :mod:`fsmarena.studies.store`)."""
    return {**versions(extra), "platform": f"{platform.platform()}, {sys.implementation.name}"}


def written_by(data: StudyData) -> str:
    """The fsmarena version that produced ``data``: the recorded one for a published run."""
    return (data.environment or {}).get("fsmarena", __version__)


def compute_section(analysis: Analysis, wall_seconds: float | None) -> str:
    per: dict[str, list[tuple[float, float]]] = {}
    for row in analysis.tables["timing"]:
        per.setdefault(analysis.labels[row["competitor"]], []).append(
            (row["train_seconds"] + row["panel_seconds"], row["cpu_seconds"])
        )
    rows = []
    for method, values in per.items():
        wall = sorted(w for w, _ in values)
        cpu = sorted(c for _, c in values)
        rows.append(
            [method, len(values), f"{wall[len(wall) // 2]:.1f}", f"{cpu[len(cpu) // 2]:.1f}", f"{sum(cpu):.0f}"]
        )
    total = sum(c for values in per.values() for _, c in values)
    text = [
        "## Compute\n",
        "Per replicate task (training + panel), each on one core: wall-clock and CPU seconds. CPU "
        "time is what a task costs whatever else the machine runs; both vary from run to run and are kept out "
        "of the result tables (`tables/timing.csv`).\n",
        table(["method", "tasks", "median wall s", "median CPU s", "total CPU s"], rows),
        f"\nTotal CPU time of the replicate tasks: {total / 60:.1f} min (cross-play, statistics and figures not "
        "included).",
    ]
    if wall_seconds is not None:
        text.append(f"Wall-clock time of this invocation: {wall_seconds / 60:.1f} min.")
    return "\n".join(text) + "\n"


def figure_files(analysis: Analysis) -> list[str]:
    """The "Files" line of the figures, only when figures were written."""
    return ["`figures/*.png`, `figures/*.pdf`: the figures (PDF is vector)"] if analysis.figures else []


def reproduce_section(
    command: str,
    files: Sequence[str],
    kept: str = "finished replicates are kept",
    extra_packages: Sequence[str] = (),
    environment: dict[str, str] | None = None,
) -> str:
    """The closing "Reproduce" and "Files" sections every study report ends with: the exact
    command, what a re-run keeps, package versions and platform (``environment``, as
    :func:`run_environment` gives; default: this installation's), then one bullet per output file."""
    found = dict(environment) if environment is not None else run_environment(extra_packages)
    where = found.pop("platform", "not recorded")
    return "\n".join(
        [
            "## Reproduce\n",
            "```\n" + command + "\n```\n",
            f"Re-running the same command in the same folder resumes an interrupted run ({kept}) and gives the same "
            "results; any `--jobs` or `--dask` cluster gives the same results.\n",
            table(["package", "version"], [[k, val] for k, val in found.items()]),
            f"\nPlatform: {where}.\n",
            "## Files\n",
            "".join(f"- {line}\n" for line in files),
        ]
    )
