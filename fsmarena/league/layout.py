"""The report layout of a study over several player counts (``report = "player-counts"``): tables,
figures and the sections of ``DIR/report.md`` from each part's study data, league and exploitability.

It reads only the results object (:class:`fsmarena.studies.results.StudyResults`), never a study
folder, so the same layout writes the report of a run just finished and of a published store.  Per
player count: the league tables (:mod:`fsmarena.league.tables`) and their text
(:mod:`fsmarena.league.report`), then, when the game is solvable, the exploitability
(:mod:`fsmarena.exploitability.report`); then the conclusions.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from fsmarena.exploitability import report as exploit_report
from fsmarena.exploitability.measure import REWARD_NAMES, curve_rows, least_exploitable_builtins
from fsmarena.figures.curves import learning_curves
from fsmarena.figures.exploitability import exploitability_curve_figure, exploitability_figure
from fsmarena.figures.heatmap import win_rate_heatmap
from fsmarena.figures.outcomes import outcome_boxes, outcome_ecdfs
from fsmarena.fileio import write_text
from fsmarena.games.base import config_to_dict
from fsmarena.league.report import findings, league_section
from fsmarena.league.tables import FIELD, LeagueTables, league_tables
from fsmarena.methods.variants import training_opponents
from fsmarena.studies.analysis import Analysis, analyse, best_machine_figures, to_csv
from fsmarena.studies.report import Layout, Report, write_report
from fsmarena.studies.report_text import estimate, table
from fsmarena.studies.results import StudyResults
from fsmarena.studies.runner import StudyData


def draw_league(t: LeagueTables, data: StudyData, analysis: Analysis, folder: Path) -> dict[str, list[Path]]:
    """The figures of one player count: the league heat map (centred at the fair share), the
    champions against each builtin, seen/unseen advantages and their distributions, the learning
    curves and the best machines."""

    order = t.families + t.builtins + [FIELD]
    matrix, low, high = (np.full((len(order), len(order)), np.nan) for _ in range(3))
    for i, g in enumerate(order):
        for j, h in enumerate(order):
            r = t.pairs.get((g, h))
            if r is not None:
                matrix[i, j], low[i, j], high[i, j] = r["win_rate"], r["ci_low"], r["ci_high"]
    n = t.n
    drawn: dict[str, list[Path]] = {
        "heatmap": win_rate_heatmap(
            matrix,
            order,
            folder / f"league_heatmap_{n}p",
            low,
            high,
            title=f"{n} players: row against {n - 1} {'copy' if n == 2 else 'copies'} of column",
            value_label="row's win rate",
            fair_share=1 / n,
        )
    }
    panels = {b: {f: t.champion_values(f, b, "win_rate") for f in t.families} for b in t.builtins}
    drawn["outcomes"] = outcome_boxes(
        panels, folder / f"champions_vs_builtins_{n}p", xlabel="win rate (%)", reference=1 / n
    )
    general = {
        part: {f: [r[f"{part}_advantage"] for r in t.general if r["family"] == f] for f in t.families}
        for part in ("seen", "unseen")
    }
    drawn["generalisation"] = outcome_boxes(
        general,
        folder / f"generalisation_{n}p",
        xlabel="mean advantage (pp)",
        reference=0.0,
        columns=2,
        title_prefix="builtins ",
    )
    drawn["reliability"] = outcome_ecdfs(
        {f"builtins {part}": general[part] for part in ("seen", "unseen")},
        folder / f"reliability_{n}p",
        xlabel="mean advantage (pp)",
    )
    plan = data.plan
    # evolved families' curves are measured against their own opponent; every other family's
    # (table learners, deep families) against the study's curve opponent
    for kind, opponent in (("train", plan.study.curve_opponent), ("evolve", data.evolution_curve_opponent())):
        curves = {
            c.label: [(r.curve_games, r.curve_win) for r in data.family(c.name)]
            for c in plan.competitors
            if c.method.startswith("evolve") == (kind == "evolve")
        }
        if any(len(x) for v in curves.values() for x, _ in v):
            drawn[f"curves_{kind}"] = learning_curves(curves, folder / f"curves_{kind}_{n}p", opponent=opponent)
    drawn.update(best_machine_figures(data, analysis, folder, players=n))
    return drawn


def _exploitability_text(data: StudyData, n: int, out: Path, figures: bool) -> str:
    """Tables, figures and text of one player count's exploitability ("" when not measured)."""
    rows = data.stages.get("exploitability")
    if rows is None:
        return ""
    write_text(out / "tables" / f"exploitability_{n}p.csv", to_csv(rows))
    curve = curve_rows(data)
    if curve:
        write_text(out / "tables" / f"exploitability_curve_{n}p.csv", to_csv(curve))
    players: list[Path] = []
    along: list[Path] = []
    if figures:
        players = exploitability_figure(rows, out / "figures" / f"exploitability_{n}p")
        if curve:
            rewards = list(dict.fromkeys(r["reward"] for r in curve))
            best = least_exploitable_builtins(rows, rewards)
            along = exploitability_curve_figure(
                curve, rewards, best, out / "figures" / f"exploitability_curve_{n}p", REWARD_NAMES
            )
    seed = data.plan.seed
    return "\n".join(
        [
            exploit_report.exploitability_section(rows, n, out, players, seed),
            exploit_report.exploitability_curve_section(curve, rows, n, out, along),
        ]
    )


def protocol_section(results: StudyResults) -> str:
    """Every part's protocol: the game, the scale and seed, the league, what seen and unseen mean."""
    parts = _parts(results)
    first = next(iter(parts.values()))
    plan = first.plan
    params = config_to_dict(first.game.config)
    params.pop("players", None)
    rows = [
        [
            f"`{c.name}`",
            c.label,
            f"`{c.method}`",
            ", ".join(f"`{b}`" for b in training_opponents(c.method, dict(c.params))),
            ", ".join(f"{k}={v}" for k, v in c.params.items() if k not in ("opponents", "panel")),
            c.replicates,
            f"{sorted(r.games for r in first.family(c.name))[c.replicates // 2]:,}",
        ]
        for c in plan.competitors
    ]
    return "\n".join(
        [
            "## Protocol\n",
            f"- **Game** `{plan.study.game}` with {', '.join(str(n) for n in parts)} players and parameters "
            + ", ".join(f"{k}={val}" for k, val in params.items())
            + ". Learners and automata train on the same game with the parameters of their `game_params` "
            "(abstract bids); everybody meets in the study's game.",
            f"- **Scale** `{results.scale}`: "
            + (plan.scale.description or "")
            + f"; master seed {plan.seed}; "
            + ", ".join(f"{n} players: protocol fingerprint `{d.plan.fingerprint}`" for n, d in parts.items())
            + ".",
            "- **Per player count** a complete study on the generic runner in `<n>-players/` (learning curves "
            f"against `{plan.study.curve_opponent}`, {plan.scale.panel_games:,} games per champion and builtin, "
            "cross-play in the two-player game). Then a **league**: every champion, every builtin and the field "
            f"against copies of each other, at least {results.study.scales[results.scale].options['league_games']:,} games per ordered pair of groups, the "
            "single seat rotated over all seats; seeds `SeedSequence(master, spawn_key=(2**32 + 16 + n,))`.",
            "- **Seen / unseen**: each competitor's training opponents (its `opponents` or evolution `panel`) are "
            "its seen builtins; the other builtins of the panel are never met in training.",
            "- **Units**: every statement about a family rests on its champions (one per replicate), never on "
            "games pooled over champions (docs/statistics.md).",
            "",
            "Games: the simulated games each replicate's training consumed (median; with two players).",
            "",
            table(["name", "label", "method", "trained against", "parameters", "replicates", "games"], rows),
            "",
        ]
    )


@dataclass
class SweepFindings:
    """What the layout computes once: every part's league tables and analysis, and the text of
    every part's league and exploitability (tables and figures written)."""

    built: dict[int, tuple[LeagueTables, Analysis]]
    texts: list[str]


def _parts(results: StudyResults) -> dict[int, StudyData]:
    """The parts of the sweep, by player count."""
    return {n: data for n, data in results.parts.items() if n is not None}


def prepare(results: StudyResults, figures: bool) -> tuple[None, SweepFindings]:
    """Every part's league (and exploitability) tables, figures and text; a run of this
    installation also writes each part's generic report in its folder."""
    out, reference = results.out, results.study.options["reference"]
    assert out is not None
    built: dict[int, tuple[LeagueTables, Analysis]] = {}
    texts: list[str] = []
    for n, data in _parts(results).items():
        if results.manifest is None:
            _part_report(results, n, data)
        analysis = analyse(data, figures=False)
        t = league_tables(data, analysis, data.stages["league"], reference)
        for name, rows in t.csv_tables().items():
            write_text(out / "tables" / f"{name}.csv", to_csv(rows))
        drawn = draw_league(t, data, analysis, out / "figures") if figures else {}
        against = data.evolution_curve_opponent()
        texts.append(league_section(t, analysis, drawn, out, data.plan.study.curve_opponent, against))
        texts.append(_exploitability_text(data, n, out, figures))
        built[n] = (t, analysis)
    return None, SweepFindings(built, texts)


def _part_report(results: StudyResults, n: int, data: StudyData) -> None:
    """The generic report of one player count, in its own folder, without figures (the study's
    own are drawn by this layout)."""
    study = dataclasses.replace(data.plan.study, report="", sweep=None)
    part = StudyResults(
        study, results.scale, results.seed, {None: data}, f"{results.command}  # the {n}-player part", out=data.out
    )
    write_report(part, figures=False)


def protocol(report: Report) -> str:
    """The protocol of every part."""
    return protocol_section(report.results)


def leagues(found: SweepFindings) -> str:
    """Every part's league and exploitability."""
    return "\n".join(text for text in found.texts if text)


def conclusions(found: SweepFindings) -> str:
    """The findings of every part's league, and what "against copies" means."""
    lines = ["## Conclusions\n"]
    for t, analysis in found.built.values():
        lines += findings(t, analysis)
    if any(t.n >= 3 for t, _ in found.built.values()):  # copies of one builtin meet only at 3 seats or more
        lines.append(
            '- In games of three or more, "against B" means against copies of B: identical deterministic '
            "builtins bid the same cards and cancel each other (e.g. two `max` players never win a bid), which "
            "makes such columns easy; the *field* column, where each other seat draws a builtin per game, is the "
            "harder and more realistic test."
        )
    return "\n".join(lines) + "\n"


def files(report: Report) -> list[str]:
    """The "Files" section's bullets."""
    return [
        "`tables/*_<n>p.csv`: every number of this report, per player count",
        *(["`figures/*.png`, `figures/*.pdf`: the figures"] if report.figures else []),
        "`<n>-players/`: the generic study of each player count (its own `report.md`, tables, players, raw "
        "results; `raw/league.json`: the league's raw counts)",
    ]


def summary(report: Report) -> dict[str, Any]:
    """The run's summary (:func:`run_summary`)."""
    found: SweepFindings = report.findings
    return run_summary(report.results, found.built, report.path)


def run_summary(
    results: StudyResults, built: Mapping[int, tuple[LeagueTables, Analysis]], path: Path
) -> dict[str, Any]:
    """The run's summary: per player count each family against the reference (the command's
    lines), and one row per family and player count (``<competitor>.<n>p``) with what a page
    may quote: head-to-head and field results, unseen advantage, exploitability."""
    parts = _parts(results)
    families = []
    for n, (t, analysis) in built.items():
        names = {label: name for name, label in analysis.labels.items()}
        head = t.champion_level(t.reference)
        field = t.champion_level(FIELD, "win_rate")
        unseen = {r["method"]: r for r in t.summary if r["opponent"] == "unseen"}
        exploit = parts[n].stages.get("exploitability") or []
        for f in t.families:
            row: dict[str, Any] = {
                "competitor": f"{names[f]}.{n}p",
                "vs_reference_advantage": head[f].value,
                "vs_reference_advantage_low": head[f].low,
                "vs_reference_advantage_high": head[f].high,
                "field_win_rate": field[f].value,
                "field_win_rate_low": field[f].low,
                "field_win_rate_high": field[f].high,
            }
            if f in unseen:
                row.update({f"unseen_advantage_{k}": unseen[f][k] for k in ("mean", "ci_low", "ci_high")})
            values = [r["exploitability"] for r in exploit if r["group"] == f and r["exploitability"] is not None]
            if values:
                row["exploitability_median"] = sorted(values)[len(values) // 2]
            families.append(row)
        families.append(
            {"competitor": f"{t.reference}.{n}p", "field_win_rate": t.pairs[(t.reference, FIELD)]["win_rate"]}
        )
    reference_rows = {
        str(n): [
            {
                "group": f,
                **{
                    k: t.pairs[(f, t.reference)][k]
                    for k in ("win_rate", "ci_low", "ci_high", "all_equal", "pairings", "advantage")
                },
            }
            for f in t.families
        ]
        for n, (t, _) in built.items()
    }
    return {
        "study": results.study.name,
        "scale": results.scale,
        "seed": next(iter(parts.values())).plan.seed,
        "fingerprints": {str(n): data.plan.fingerprint for n, data in parts.items()},
        "reference": reference_rows,
        "families": families,
        "lines": summary_lines(results.study.options["reference"], reference_rows, path),
    }


def summary_lines(reference: str, rows: Mapping[str, list[dict[str, Any]]], path: Path) -> list[str]:
    """What ``fsmarena study`` prints: per player count, each family against the reference."""
    lines: list[str] = []
    for n, found in rows.items():
        lines.append(f"{n} players: win rate against {reference} (mean over champions, 95% interval over them)")
        width = max(len(r["group"]) for r in found) + 2
        for r in found:
            shown = estimate(r["win_rate"], r["ci_low"], r["ci_high"], r["all_equal"], r["pairings"], unit="pairings")
            lines.append(f"  {r['group'].ljust(width)}{shown}")
    lines.append(f"report: {path}")
    return lines


LAYOUT = Layout(prepare, summary, files)
