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
from typing import Any

import numpy as np

from fsmarena import progress
from fsmarena.fileio import write_text
from fsmarena.studies.analysis import Analysis, analyse
from fsmarena.studies.comparison_report import conclusions, tests_section
from fsmarena.studies.crossplay_report import crossplay_section
from fsmarena.studies.machines import machines_section
from fsmarena.studies.panel_report import panel_section, protocol_section, reliability_section
from fsmarena.studies.provenance import compute_section, figure_files, reproduce_section, written_by
from fsmarena.studies.reference_line import ensure_lines, reference_section
from fsmarena.studies.report_text import summary_cell
from fsmarena.studies.results import StudyResults
from fsmarena.studies.runner import StudyData
from fsmarena.studies.sections import shared_sections


def standard_report(results: StudyResults, figures: bool) -> dict[str, Any]:
    """The standard report (:func:`write_standard`) written into the run's folder, and its summary,
    as rows a page quotes by key: every family's win rate against each panel opponent,
    ``<competitor>.vs.<opponent>`` (``mean``, ``ci_low``, ``ci_high``, ``median``, ...); with a
    cross-play, every family's league win rate, ``<competitor>.league`` (``mean``, ``ci_low``,
    ``ci_high``, ...), and every ordered pair of families, ``<competitor>.crossplay.<other>``
    (``net``, ``net_ci_low``, ``net_ci_high``, ``win_rate``, ``champions_ahead``, ``sign_p``, ...); with a
    best known table policy, its win rate against each opponent, ``best-known.<opponent>`` (``win``,
    ``ci_low``, ``ci_high``, ``confirm_games``); every family's budget, the median games its
    replicates consumed, ``<competitor>.budget`` (``games``); and the lines the command prints."""
    data = results.only
    with progress.bar(None, "analysis"):
        analysis = analyse(data, figures)
    path = write_standard(data, analysis, results.command, results.wall_seconds, shared_sections(results, figures))
    names = {c.label: c.name for c in data.plan.competitors}
    panel = [
        {
            "competitor": f"{names[row['method']]}.vs.{row['opponent']}",
            **{k: v for k, v in row.items() if k not in ("method", "opponent")},
        }
        for row in analysis.tables["panel_summary"]
    ]
    league = [
        {"competitor": f"{names[row['method']]}.league", **{k: v for k, v in row.items() if k != "method"}}
        for row in analysis.tables.get("crossplay_league_summary", [])
    ]
    pairs = [
        {
            "competitor": f"{row['family']}.crossplay.{row['opponent_family']}",
            **{k: v for k, v in row.items() if k not in ("family", "opponent_family", "method", "opponent_method")},
        }
        for row in analysis.tables.get("crossplay_family", [])
        if row["family"] != row["opponent_family"]
    ]
    best_known = [
        {
            "competitor": f"best-known.{line['opponent']}",
            "win": line["win"],
            "ci_low": line["win_ci95"][0],
            "ci_high": line["win_ci95"][1],
            "confirm_games": line["confirm_games"],
        }
        for line in ensure_lines(data)
    ]
    budgets = [
        {"competitor": f"{c.name}.budget", "games": int(np.median([r.games for r in data.family(c.name)]))}
        for c in data.plan.competitors
    ]
    return {
        "report": str(path),
        "budgets": budgets,
        "panel": panel,
        "league": league,
        "crossplay": pairs,
        "best_known": best_known,
        "panel_summary": analysis.tables["panel_summary"],
        "crossplay_family": analysis.tables.get("crossplay_family", []),
        "lines": summary_lines(data, analysis, path),
    }


def summary_lines(data: StudyData, analysis: Analysis, path: Path) -> list[str]:
    """What ``fsmarena study`` prints: every family's win rate against the curve opponent."""
    study = data.plan.study
    opponent = study.curve_opponent if study.curve_opponent in study.panel else study.panel[0]
    rows = [r for r in analysis.tables["panel_summary"] if r["opponent"] == opponent]
    width = max(len(r["method"]) for r in rows) + 2
    return [
        f"win rate vs {opponent} (mean over replicates, 95% CI)",
        *(f"  {r['method'].ljust(width)}{summary_cell(r)}" for r in rows),
        f"report: {path}",
    ]


def write_standard(
    data: StudyData, analysis: Analysis, command: str, wall_seconds: float | None = None, shared: str = ""
) -> Path:
    """Write ``DIR/report.md`` (``shared``: the sections every report holds, :mod:`fsmarena.studies.sections`)."""
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
        shared,
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
