"""Where a result comes from: package versions and platform, compute time, and the closing
"Reproduce" and "Files" sections every study report ends with.

A published run keeps the environment it was produced in (:mod:`fsmarena.studies.store`); a report
names that one, not the installation that renders it.
"""

from __future__ import annotations

import platform
import sys
from importlib import metadata
from typing import TYPE_CHECKING, Sequence

from fsmarena.studies.report_text import table
from fsmarena.studies.runner import StudyData
from fsmarena.version import __version__

if TYPE_CHECKING:  # annotations only: the results object's report reads this module
    from fsmarena.studies.results import StudyResults

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


def compute_section(results: StudyResults) -> str:
    """The "Compute" section of every report: per competitor (and part of a sweep), the replicate
    tasks' median wall-clock and CPU seconds and their total CPU, and this invocation's wall time."""
    rows, total = [], task_cpu_seconds(results)
    for part, data in results.parts.items():
        for c in data.plan.competitors:
            records = data.family(c.name)
            wall = sorted(r.train_seconds + r.panel_seconds for r in records)
            cpu = sorted(r.cpu_seconds for r in records)
            cells = [
                c.label,
                len(records),
                f"{wall[len(wall) // 2]:.1f}",
                f"{cpu[len(cpu) // 2]:.1f}",
                f"{sum(cpu):.0f}",
            ]
            rows.append(cells if results.study.sweep is None else [part, *cells])
    columns = ["method", "tasks", "median wall s", "median CPU s", "total CPU s"]
    if results.study.sweep is not None:
        columns.insert(0, results.study.sweep[0])
    text = [
        "## Compute\n",
        "Per replicate task (training + panel), each on one core: wall-clock and CPU seconds. CPU "
        "time is what a task costs whatever else the machine runs; both vary from run to run and are kept out "
        "of the result tables (`tables/timing.csv`).\n",
        table(columns, rows),
        f"\nTotal CPU time of the replicate tasks{_at(results.level)}: {total / 60:.1f} min (the measures after "
        "training, statistics and figures not included).",
    ]
    if results.levels:  # the smaller budget levels ran too: their tasks, and the run's whole cost
        smaller = [f"{task_cpu_seconds(run) / 60:.1f} min{_at(level)}" for level, run in sorted(results.levels.items())]
        whole = sum(task_cpu_seconds(run) for run in results.at_every_level().values())
        text.append(f"At the smaller budget levels: {', '.join(smaller)}; every level together: {whole / 60:.1f} min.")
    if results.wall_seconds is not None:
        text.append(f"Wall-clock time of this invocation: {results.wall_seconds / 60:.1f} min.")
    return "\n".join(text) + "\n"


def task_cpu_seconds(results: StudyResults) -> float:
    """The CPU seconds of every replicate task of ``results`` (every part, one budget level)."""
    return sum(
        r.cpu_seconds for data in results.parts.values() for c in data.plan.competitors for r in data.family(c.name)
    )


def _at(level: int | None) -> str:
    """The words ' at N games' naming a budget level; nothing for a scale without levels."""
    return "" if level is None else f" at {level:,} games"


def figure_files(figures: bool) -> list[str]:
    """The "Files" line of the figures, only when figures were written."""
    return ["`figures/*.png`, `figures/*.pdf`: the figures (PDF is vector)"] if figures else []


def reproduce_section(
    results: StudyResults,
    files: Sequence[str],
    kept: str = "finished replicates are kept",
    packages: Sequence[str] = (),
) -> str:
    """The closing "Reproduce" and "Files" sections every study report ends with: the exact
    command, what a re-run keeps, package versions and platform (the environment a published run
    recorded, else this installation's, with ``packages`` beyond the usual), then one bullet per
    output file."""
    environment = next(iter(results.parts.values())).environment
    found = dict(environment) if environment is not None else run_environment(packages)
    where = found.pop("platform", "not recorded")
    return "\n".join(
        [
            "## Reproduce\n",
            "```\n" + results.command + "\n```\n",
            f"Re-running the same command in the same folder resumes an interrupted run ({kept}) and gives the same "
            "results; any `--jobs` or `--dask` cluster gives the same results.\n",
            table(["package", "version"], [[k, val] for k, val in found.items()]),
            f"\nPlatform: {where}.\n",
            "## Files\n",
            "".join(f"- {line}\n" for line in files),
        ]
    )
