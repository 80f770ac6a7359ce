"""The report layout of a study with a target and a table (31): its tables, figures and sections,
from the study data and the raw counts of its confirmation matches and table
(:mod:`fsmarena.studies.stage_confirm`, :mod:`fsmarena.studies.stage_table`), for a run just finished
and a published store alike (:mod:`fsmarena.studies.report` writes it).

Tables added to the generic ones (``tables/``):

* ``families.csv``: the target question per family - the mean win rate of its champions
  against the reference over replicates (95% interval over them), its best champion's panel rate
  (selected, so biased upwards) and the same champion's win rate on fresh confirmation games
  (95% Wilson interval: one fixed player), the gap to the target and a verdict computed from
  that interval;
* ``table.csv``: every entrant at the table (win, draw, loss counts, win rate with its Wilson
  interval, how often each opponent won); ``table_summary.csv``: per group, a family's mean over
  its champions with the interval over them, a builtin's own rate with its Wilson interval, and
  the difference from the fair share.

Figures (:mod:`fsmarena.figures.target` and the generic ones): learning curves of the learners against
the reference and of the evolution runs against random (what each records), replicate outcomes
against the panel, the cross-play heat map and spread, every champion against the reference with
the target, the table, and the best automata.  Every number in the report comes from these tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from fsmarena.figures.curves import learning_curves
from fsmarena.figures.target import table_figure, versus_reference_figure
from fsmarena.fileio import write_text
from fsmarena.games.base import config_to_dict
from fsmarena.games.stats import wilson_interval
from fsmarena.methods.variants import variant
from fsmarena.stats import inference as inf
from fsmarena.studies.analysis import (
    Analysis,
    analyse,
    best_machine_figures,
    crossplay_figures,
    panel_figure,
    reliability_figure,
    to_csv,
)
from fsmarena.studies.machines import machines_section
from fsmarena.studies.provenance import figure_files
from fsmarena.studies.report import Layout, Report
from fsmarena.studies.report_text import estimate, figure, pct, pp, table
from fsmarena.studies.results import StudyResults
from fsmarena.studies.runner import StudyData
from fsmarena.studies.stage_confirm import reference_result

EVOLVE_METHODS = ("evolve", "evolve-variant")


# ---- tables -------------------------------------------------------------------------------------


def verdict(low: float, rate: float, high: float, target: float) -> str:
    """The target question in words, from a 95% interval."""
    if low >= target:
        return f"yes: the whole 95% interval is at or above {pct(target, 0)}"
    if rate >= target:
        return f"not shown: {pct(rate)} but the interval reaches down to {pct(low)}"
    short = f"{100 * (target - rate):.1f} pp below the target"
    if high >= target:
        return f"not shown: {short}, the interval reaches {pct(high)}"
    return f"no: {short} (interval up to {pct(high)})"


def family_rows(
    data: StudyData, analysis: Analysis, confirmed: Sequence[Mapping[str, Any]], reference: str, target: float
) -> list[dict[str, Any]]:
    """One row per competitor: the target question (module docstring)."""
    summary = {r["method"]: r for r in analysis.tables["panel_summary"] if r["opponent"] == reference}
    by_name = {r["competitor"]: r for r in confirmed}
    rows = []
    for c in data.plan.competitors:
        s = summary[c.label]
        conf = by_name[c.name]
        best = data.records[(c.name, conf["replicate"])].panel[reference]
        rate = conf["wins"] / conf["games"]
        low, high = wilson_interval(conf["wins"], conf["games"])
        rows.append(
            {
                "competitor": c.name,
                "method": c.label,
                "replicates": s["replicates"],
                "mean_win_rate": s["mean"],
                "mean_ci_low": s["ci_low"],
                "mean_ci_high": s["ci_high"],
                "all_equal": s["all_equal"],
                "best_replicate": conf["replicate"],
                "best_panel_games": best["games"],
                "best_panel_win_rate": best["wins"] / best["games"],
                "confirm_games": conf["games"],
                "confirm_wins": conf["wins"],
                "confirm_draws": conf["draws"],
                "confirm_losses": conf["losses"],
                "confirm_win_rate": rate,
                "confirm_ci_low": low,
                "confirm_ci_high": high,
                "gap_to_target": rate - target,
                "reaches_target": bool(low >= target),
                "verdict": verdict(low, rate, high, target),
            }
        )
    return rows


def table_rows(rows: Sequence[Mapping[str, Any]], opponents: Sequence[str]) -> list[dict[str, Any]]:
    """Every entrant at the 3-player table, with rates and intervals."""
    out = []
    for r in rows:
        low, high = wilson_interval(r["wins"], r["games"])
        row = {
            "entrant": r["entrant"],
            "group": r["group"],
            "games": r["games"],
            "wins": r["wins"],
            "draws": r["draws"],
            "losses": r["losses"],
            "win_rate": r["wins"] / r["games"],
            "ci_low": low,
            "ci_high": high,
        }
        for name, wins in zip(opponents, r["other_wins"]):
            row[f"{name}_win_rate"] = wins / r["games"]
        out.append(row)
    return out


def table_summary(
    rows: Sequence[Mapping[str, Any]], opponents: Sequence[str], seats: int, seed: int = 0
) -> list[dict[str, Any]]:
    """Per group: its rate with the interval its samples allow (``rate``, ``rate_low``,
    ``rate_high``; ``unit``): a family's mean over its champions with the interval over them
    (:func:`fsmarena.stats.inference.mean_interval`; the champions are the independent units), a single
    player's win rate with its Wilson interval over its games; the pooled counts; the difference
    from 1/seats.  A group is above the fair share when its interval is."""
    out = []
    for group in dict.fromkeys(r["group"] for r in rows):
        mine = [r for r in rows if r["group"] == group]
        games = sum(r["games"] for r in mine)
        wins = sum(r["wins"] for r in mine)
        if len(mine) > 1:
            mean = inf.mean_interval([r["win_rate"] for r in mine], inf.generator(seed, "table", group))
            rate, low, high, alike, unit = (
                mean.value,
                max(mean.low, 0.0),
                min(mean.high, 1.0),
                mean.degenerate,
                "champions",
            )
        else:
            low, high = wilson_interval(wins, games)
            rate, alike, unit = wins / games, False, "games"
        row = {
            "group": group,
            "entrants": len(mine),
            "games": games,
            "wins": wins,
            "pooled_win_rate": wins / games,
            "unit": unit,
            "rate": rate,
            "rate_low": low,
            "rate_high": high,
            "all_equal": alike,
            "fair_share": 1 / seats,
            "above_fair_share": low > 1 / seats,
        }
        for name in opponents:
            row[f"{name}_win_rate"] = float(np.mean([r[f"{name}_win_rate"] for r in mine]))
        out.append(row)
    return out


def draw_figures(
    data: StudyData,
    analysis: Analysis,
    families: Sequence[Mapping[str, Any]],
    summary: Sequence[Mapping[str, Any]],
    rows: Sequence[Mapping[str, Any]],
    study: "TargetSettings",
) -> None:
    """Every figure of the report into ``figures/`` (keys in ``analysis.figures``)."""

    plan, folder, label = data.plan, data.out / "figures", analysis.labels
    names = [c.name for c in plan.competitors]
    evolved = {c.name for c in plan.competitors if c.method in EVOLVE_METHODS}
    for key, chosen, opponent in (
        ("learning_curves", [n for n in names if n not in evolved], plan.study.curve_opponent),
        ("evolution_curves", [n for n in names if n in evolved], data.evolution_curve_opponent()),
    ):
        curves = {label[n]: [(r.curve_games, r.curve_win) for r in data.family(n)] for n in chosen}
        curves = {k: v for k, v in curves.items() if any(len(x) for x, _ in v)}
        if curves:
            analysis.figures[key] = learning_curves(curves, folder / key, opponent=opponent)
    panel_figure(analysis, names, plan.study.panel, folder)
    crossplay_figures(analysis, names, folder)
    reliability_figure(analysis, names, plan.study.curve_opponent, folder)
    panel = [[_panel_point(rec.panel[study.reference]) for rec in data.family(c.name)] for c in plan.competitors]
    analysis.figures["versus_reference"] = versus_reference_figure(
        panel, families, study.reference, study.target, folder / "versus_reference", study.reference_result
    )
    analysis.figures["table"] = table_figure(
        summary, rows, study.table_players, study.table_opponents, folder / "table"
    )
    analysis.figures.update(best_machine_figures(data, analysis, folder))


def _panel_point(counts: Mapping[str, Any]) -> tuple[float, float, float]:
    """One champion's panel record against the reference: rate and Wilson interval (one player)."""
    low, high = wilson_interval(int(counts["wins"]), int(counts["games"]))
    return counts["wins"] / counts["games"], low, high


# ---- report -------------------------------------------------------------------------------------


def answer_section(
    data: StudyData, analysis: Analysis, families: Sequence[Mapping[str, Any]], study: "TargetSettings"
) -> str:
    reference, target = study.reference, study.target
    rows = [
        [
            f["method"],
            f["replicates"],
            estimate(f["mean_win_rate"], f["mean_ci_low"], f["mean_ci_high"], f["all_equal"], f["replicates"]),
            f"r{f['best_replicate']:03d}: {pct(f['best_panel_win_rate'])} ({f['best_panel_games']:,})",
            f"{pct(f['confirm_win_rate'], 2)} [{pct(f['confirm_ci_low'], 2)}, {pct(f['confirm_ci_high'], 2)}]",
            pp(f["gap_to_target"]),
            f["verdict"],
        ]
        for f in families
    ]
    reached = [f["method"] for f in families if f["reaches_target"]]
    best = max(families, key=lambda f: f["confirm_win_rate"])
    games = families[0]["confirm_games"]
    if reached:
        headline = (
            f"**Yes**: {', '.join(reached)} win{'s' if len(reached) == 1 else ''} at least "
            f"{pct(target, 0)} of 1v1 games against `{reference}` on {games:,} fresh games with seats "
            "swapped (the whole 95% interval at or above the target)."
        )
    else:
        headline = (
            f"**Not at this scale**: no family's best champion is shown to win {pct(target, 0)} of 1v1 games "
            f"against `{reference}`. The closest is {best['method']} with {pct(best['confirm_win_rate'], 2)} "
            f"[{pct(best['confirm_ci_low'], 2)}, {pct(best['confirm_ci_high'], 2)}] on {games:,} fresh games "
            f"({pp(best['gap_to_target'])} from the target); every family's distance is in the table."
        )
    return "\n".join(
        [
            f"## Answer: who wins {pct(target, 0)} of 1v1 games against {reference}?\n",
            headline,
            "",
            f"For each family: the mean win rate of its champions (one per replicate) against `{reference}` on the "
            "panel games with the 95% t-interval over replicates, and its best champion on those panel games (a "
            "selected maximum, biased upwards). Then the same champion on fresh confirmation games against "
            f"`{reference}` with seats swapped, 95% Wilson interval: the number the question is answered with "
            "(`tables/families.csv`)."
            + (
                f" {study.reference_result[1][:1].upper() + study.reference_result[1][1:]} reported "
                f"{pct(study.reference_result[0])}."
                if study.reference_result
                else ""
            )
            + "\n",
            table(
                [
                    "family",
                    "replicates",
                    f"mean vs {reference} [95% CI]",
                    "best on panel (games)",
                    f"best on {games:,} fresh games [95% CI]",
                    "vs target",
                    "verdict",
                ],
                rows,
            ),
            "",
            figure(
                analysis,
                "versus_reference",
                f"Every champion against {reference} on its panel games (dots, 95% "
                "Wilson intervals) and each family's best champion on the fresh confirmation games (diamond); "
                f"dashed: the {pct(target, 0)} target"
                + (f", dotted: {study.reference_result[1]}." if study.reference_result else "."),
                data.out,
            ),
        ]
    )


def table_section(
    data: StudyData, analysis: Analysis, summary: Sequence[Mapping[str, Any]], study: "TargetSettings", games: int
) -> str:
    seats, opponents = study.table_players, study.table_opponents
    rows = [
        [
            s["group"],
            s["entrants"],
            f"{s['games']:,}",
            estimate(s["rate"], s["rate_low"], s["rate_high"], s["all_equal"], s["entrants"], unit="entrants"),
            "its champions" if s["unit"] == "champions" else "its games",
            pp(s["rate"] - s["fair_share"]),
        ]
        + [pct(s[f"{o}_win_rate"]) for o in opponents]
        for s in summary
    ]
    above = [s["group"] for s in summary if s["above_fair_share"]]
    ranked = sorted(summary, key=lambda s: -s["rate"])
    words = (
        f"Above the fair share of 1/{seats} (the whole 95% interval above it): {', '.join(above) or 'nobody'}. "
        f"Highest win rate: {ranked[0]['group']} ({pct(ranked[0]['rate'])}); a highest rate is no claim that it "
        "leads the others."
    )
    return "\n".join(
        [
            f"## {seats} players: against {' + '.join(opponents)}\n",
            "Every champion trained in the 1v1 game, and the builtins "
            + ", ".join(f"`{r}`" for r in study.table_references)
            + f", sits at a {seats}-player table with `{'` and `'.join(opponents)}` in the other seats, every seating "
            f"arrangement equally often, {games:,} games each (the abstraction, features and automata inputs do not "
            "depend on the number of players, so the 1v1 players play here unchanged). A family's win rate is the "
            "mean over its champions with the 95% interval over them (Student-t below "
            f"{inf.MIN_BOOTSTRAP} champions; the champions are the independent units); a builtin's is its own rate "
            "with the Wilson interval over its games (one fixed player). How often each opponent won "
            "(`tables/table.csv`, `tables/table_summary.csv`).\n",
            table(
                ["group", "entrants", "games", "win rate [95% CI]", "interval over", f"vs 1/{seats}"]
                + [f"{o} won" for o in opponents],
                rows,
            ),
            "",
            words,
            "",
            figure(
                analysis,
                "table",
                f"The {seats}-player table: every entrant's win rate (dots) and the group's rate with its 95% "
                "interval (diamond: a family's mean over its champions, a builtin's own games); dashed: the fair share.",
                data.out,
            ),
        ]
    )


def evolution_section(data: StudyData, analysis: Analysis) -> str:
    against = data.evolution_curve_opponent()
    text = figure(
        analysis,
        "evolution_curves",
        f"Evolution runs: the champion of every measured generation against {against}, vs games simulated; "
        "median over replicates and inter-quartile band.",
        data.out,
    )
    if not text:
        return ""
    why = (
        "an evolution run records the champion of each measured generation, not the player it would return"
        if against == data.plan.study.curve_opponent
        else f"this run's evolution measured its champions against `{against}`"
    )
    return "\n".join(
        [
            "### Evolution curves\n",
            f"The learners' curves above are against the reference builtin; {why}, so these curves are drawn "
            "separately.\n",
            text,
        ]
    )


@dataclass(frozen=True)
class TargetSettings:
    """What the report reads of the study's confirmation and table stages
    (:mod:`fsmarena.studies.stage_confirm`, :mod:`fsmarena.studies.stage_table`), at the run's scale."""

    name: str
    target: float
    reference: str
    table_players: int
    table_opponents: tuple[str, ...]
    table_references: tuple[str, ...]
    confirm_games: Mapping[str, int]
    table_games: Mapping[str, int]
    #: a result from elsewhere shown beside the target (value, what it is); None: none
    reference_result: tuple[float, str] | None = None

    @classmethod
    def of(cls, results: StudyResults) -> "TargetSettings":
        study, scale = results.study, results.scale
        o, s = study.options, study.scales[scale].options
        return cls(
            study.name,
            float(o["target"]),
            o["reference"],
            o["table_players"],
            tuple(o["table_opponents"]),
            tuple(o.get("table_references", [])),
            {scale: s["confirm_games"]},
            {scale: s["table_games"]},
            reference_result(study),
        )


def summary_lines(study: TargetSettings, summary: Mapping[str, Any]) -> list[str]:
    """What ``fsmarena study`` prints: each family's best champion on fresh games, and its verdict."""
    lines = [
        f"1v1 against {study.reference}: best champion of each family on fresh games "
        f"(95% Wilson CI); target {pct(study.target, 0)}"
    ]
    width = max(len(r["method"]) for r in summary["families"]) + 2
    for r in summary["families"]:
        lines.append(
            f"  {r['method'].ljust(width)}{pct(r['confirm_win_rate'])}  "
            f"[{pct(r['confirm_ci_low'])}, {pct(r['confirm_ci_high'])}]  {r['verdict']}"
        )
    lines.append(f"report: {summary['report']}")
    return lines


@dataclass
class TargetFindings:
    """What the layout computes once: the study's target settings, the target question per family,
    and the table of more players (every entrant, and per group)."""

    settings: TargetSettings
    families: list[dict[str, Any]]
    table: list[dict[str, Any]]
    table_summary: list[dict[str, Any]]


def prepare(results: StudyResults, figures: bool) -> tuple[Analysis, TargetFindings]:
    """The generic tables, the target question per family and the table, as CSV files (and figures)."""
    data, study = results.only, TargetSettings.of(results)
    analysis = analyse(data, figures=False)
    families = family_rows(data, analysis, data.stages["confirm"], study.reference, study.target)
    rows = table_rows(data.stages["table"], study.table_opponents)
    summary = table_summary(rows, study.table_opponents, study.table_players, data.plan.seed)
    for name, content in (("families", families), ("table", rows), ("table_summary", summary)):
        analysis.tables[name] = list(content)
        write_text(data.out / "tables" / f"{name}.csv", to_csv(content))
    if figures:
        draw_figures(data, analysis, families, summary, rows, study)
    return analysis, TargetFindings(study, families, rows, summary)


def answer(report: Report) -> str:
    """The target question answered, first."""
    assert report.analysis is not None
    return answer_section(report.data, report.analysis, report.findings.families, report.findings.settings)


def protocol(report: Report) -> str:
    """The confirmation and the table of more players, after the generic protocol."""
    study, plan = report.findings.settings, report.data.plan
    table_game = variant(report.data.game, {"players": study.table_players})
    return "\n".join(
        [
            f"- **Confirmation**: each family's best champion (most panel wins against `{study.reference}`) plays "
            f"{study.confirm_games[report.results.scale]:,} fresh games against it, seats swapped "
            f"(`SeedSequence({plan.seed}, spawn_key=(2**32 + 31, crc32(competitor)))`).",
            f"- **{study.table_players}-player table**: parameters "
            + ", ".join(f"{k}={v}" for k, v in config_to_dict(table_game.config).items())
            + f"; seeds `SeedSequence({plan.seed}, spawn_key=(2**32 + 32, crc32(entrant)))`.\n",
        ]
    )


def automata(data: StudyData, analysis: Analysis) -> str:
    """The best automata, a subsection of the 1v1 results."""
    return machines_section(data, analysis, heading="### Automata\n")


def table_of_more_players(report: Report) -> str:
    """The table of more players (a "##" section after the 1v1 subsections)."""
    assert report.analysis is not None
    study = report.findings.settings
    return table_section(
        report.data, report.analysis, report.findings.table_summary, study, study.table_games[report.results.scale]
    )


def summary(report: Report) -> dict[str, Any]:
    """What a published page may quote (``families`` and ``table`` rows) and the command's lines."""
    study, plan = report.findings.settings, report.data.plan
    names = {c.label: c.name for c in plan.competitors}
    found = {
        "study": study.name,
        "scale": report.results.scale,
        "seed": plan.seed,
        "fingerprint": plan.fingerprint,
        "report": str(report.path),
        "families": report.findings.families,
        # keyed by competitor name (a label may hold spaces, which a page's value marker cannot)
        "table": [
            {"competitor": f"table.{names.get(s['group'], s['group'])}", **s} for s in report.findings.table_summary
        ],
    }
    return {**found, "lines": summary_lines(study, found)}


def files(report: Report) -> list[str]:
    """The "Files" section's bullets."""
    assert report.analysis is not None
    return [
        "`study.json`: the protocol (every parameter) and its fingerprint",
        "`tables/*.csv`: every number in this report (`families.csv`: the answer; `table*.csv`: 3 players)",
        *figure_files(bool(report.analysis.figures)),
        "`players/<competitor>/rNNN.json`: every final player (`fsmarena play` accepts them)",
        "`replicates/<competitor>/rNNN.json`: raw per-replicate results; `raw/crossplay.json`, `raw/confirm.json`, "
        "`raw/table.json`: raw counts",
    ]


LAYOUT = Layout(
    prepare,
    summary,
    files,
    kept="finished replicates, cross-play, confirmation and table games are kept",
    packages=("scikit-learn",),
)
