"""The standard study report: ``DIR/report.md``, written from the tables (never from memory).

Sections, each built by its own module: the question; the protocol with every parameter and
seed, results against the builtin panel, learning curves and the reliability of one run
(:mod:`fsmarena.studies.panel_report`); the best known table policy (:mod:`fsmarena.studies.reference_line`);
cross-play: heat map, spread, league (:mod:`fsmarena.studies.crossplay_report`); the statistical tests
and the conclusions in plain words (:mod:`fsmarena.studies.comparison_report`); the policies and
machines (:mod:`fsmarena.studies.machines`); compute time, the exact command and package versions
(:mod:`fsmarena.studies.provenance`).
"""

from __future__ import annotations

from pathlib import Path

from fsmarena.fileio import write_text
from fsmarena.studies.analysis import Analysis
from fsmarena.studies.comparison_report import conclusions, tests_section
from fsmarena.studies.crossplay_report import crossplay_section
from fsmarena.studies.machines import machines_section
from fsmarena.studies.panel_report import panel_section, protocol_section, reliability_section
from fsmarena.studies.provenance import compute_section, figure_files, reproduce_section, written_by
from fsmarena.studies.reference_line import reference_section
from fsmarena.studies.runner import StudyData


def write_report(data: StudyData, analysis: Analysis, command: str, wall_seconds: float | None = None) -> Path:
    """Write ``DIR/report.md``."""
    study = data.plan.study
    parts = [
        f"# {study.title}\n",
        f"Study `{study.name}` (version {study.version}), scale `{data.plan.scale.name}`, written by fsmarena "
        f"{written_by(data)}.\n",
        "## Question\n",
        study.question.strip() + "\n",
        protocol_section(data, analysis),
        panel_section(data, analysis),
        reference_section(data),
        crossplay_section(data, analysis),
        reliability_section(data, analysis),
        tests_section(analysis, study.questions),
        machines_section(data, analysis),
        conclusions(data, analysis),
        compute_section(analysis, wall_seconds),
        reproduce_section(
            command,
            [
                "`study.json`: the protocol (every parameter) and its fingerprint",
                "`tables/*.csv`: every number in this report",
                *figure_files(analysis),
                "`players/<competitor>/rNNN.json`: every final player (`fsmarena play` accepts them)",
                "`replicates/<competitor>/rNNN.json`: raw per-replicate results; `raw/crossplay.json`: raw cross-play "
                "counts",
            ],
            environment=data.environment,
        ),
    ]
    path = data.out / "report.md"
    write_text(path, "\n".join(p for p in parts if p) + "\n")
    return path
