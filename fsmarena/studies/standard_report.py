"""The standard study report: families against the builtin panel, cross-play, tests, machines.

Its sections (:data:`fsmarena.studies.registry.STANDARD_SECTIONS`), each built by its own module:
the protocol with every parameter and seed, results against the builtin panel, learning curves and
the reliability of one run (:mod:`fsmarena.studies.panel_report`); the best known table policy
(:mod:`fsmarena.studies.reference_line`); cross-play: heat map, spread, league
(:mod:`fsmarena.studies.crossplay_report`); the statistical tests and the conclusions in plain
words (:mod:`fsmarena.studies.comparison_report`); the policies and machines
(:mod:`fsmarena.studies.machines`).  Every number comes from the tables
(:func:`fsmarena.studies.analysis.analyse`), never from memory.
"""

from __future__ import annotations

from typing import Any

from fsmarena import progress
from fsmarena.studies.analysis import Analysis, analyse
from fsmarena.studies.provenance import figure_files
from fsmarena.studies.reference_line import ensure_lines
from fsmarena.studies.report import Layout, Report
from fsmarena.studies.report_text import summary_cell
from fsmarena.studies.results import StudyResults


def prepare(results: StudyResults, figures: bool) -> tuple[Analysis, None]:
    """The generic tables (and figures) of the study's one part."""
    with progress.bar(None, "analysis"):
        return analyse(results.only, figures), None


def summary(report: Report) -> dict[str, Any]:
    """The summary, as rows a page quotes by key: every family's win rate against each panel
    opponent, ``<competitor>.vs.<opponent>`` (``mean``, ``ci_low``, ``ci_high``, ``median``, ...); with a
    cross-play, every family's league win rate, ``<competitor>.league`` (``mean``, ``ci_low``,
    ``ci_high``, ...), and every ordered pair of families, ``<competitor>.crossplay.<other>``
    (``net``, ``net_ci_low``, ``net_ci_high``, ``win_rate``, ``champions_ahead``, ``sign_p``, ...); with a
    best known table policy, its win rate against each opponent, ``best-known.<opponent>`` (``win``,
    ``ci_low``, ``ci_high``, ``confirm_games``); every family's budget, the median games its
    replicates consumed, ``<competitor>.budget`` (``games``); and the lines the command prints."""
    data, analysis = report.data, report.analysis
    assert analysis is not None
    names = {c.label: c.name for c in data.plan.competitors}
    tables = analysis.tables
    return {
        "budgets": [{"competitor": f"{c.name}.budget", "games": data.budget(c.name)} for c in data.plan.competitors],
        "panel": [
            {"competitor": f"{names[row['method']]}.vs.{row['opponent']}", **_without(row, "method", "opponent")}
            for row in tables["panel_summary"]
        ],
        "league": [
            {"competitor": f"{names[row['method']]}.league", **_without(row, "method")}
            for row in tables.get("crossplay_league_summary", [])
        ],
        "crossplay": [
            {
                "competitor": f"{row['family']}.crossplay.{row['opponent_family']}",
                **_without(row, "family", "opponent_family", "method", "opponent_method"),
            }
            for row in tables.get("crossplay_family", [])
            if row["family"] != row["opponent_family"]
        ],
        "best_known": [
            {
                "competitor": f"best-known.{line['opponent']}",
                "win": line["win"],
                "ci_low": line["win_ci95"][0],
                "ci_high": line["win_ci95"][1],
                "confirm_games": line["confirm_games"],
            }
            for line in ensure_lines(data)
        ],
        "panel_summary": tables["panel_summary"],
        "crossplay_family": tables.get("crossplay_family", []),
        "lines": summary_lines(report),
    }


def _without(row: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in keys}


def summary_lines(report: Report) -> list[str]:
    """What ``fsmarena study`` prints: every family's win rate against the curve opponent."""
    study, analysis = report.data.plan.study, report.analysis
    assert analysis is not None
    opponent = study.curve_opponent if study.curve_opponent in study.panel else study.panel[0]
    rows = [r for r in analysis.tables["panel_summary"] if r["opponent"] == opponent]
    width = max(len(r["method"]) for r in rows) + 2
    return [
        f"win rate vs {opponent} (mean over replicates, 95% CI)",
        *(f"  {r['method'].ljust(width)}{summary_cell(r)}" for r in rows),
        f"report: {report.path}",
    ]


def files(report: Report) -> list[str]:
    """The "Files" section's bullets."""
    assert report.analysis is not None
    return [
        "`study.json`: the protocol (every parameter) and its fingerprint",
        "`tables/*.csv`: every number in this report",
        *figure_files(bool(report.analysis.figures)),
        "`players/<competitor>/rNNN.json`: every final player (`fsmarena play` accepts them)",
        "`replicates/<competitor>/rNNN.json`: raw per-replicate results; `raw/crossplay.json`: raw cross-play counts",
    ]


LAYOUT = Layout(prepare, summary, files)
