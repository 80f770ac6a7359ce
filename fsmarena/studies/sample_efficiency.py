"""Sample efficiency: every family against the simulated games it consumed, and at equal cost.

Families are compared at equal cost, in games consumed (docs/statistics.md, "Budgets").  This
section of every study's report says two things:

* **along the way**: each family's learning curve (the measure the study's curves record:
  win rate against its curve opponent, or share of the optimum in a one-player game) read at
  every power of ten from 10^3 games up to the budget and at the budget itself, mean over
  replicates with its 95% interval (:func:`fsmarena.stats.inference.mean_interval`), linear
  between a curve's points (:func:`fsmarena.studies.budgets.curve_value_at`).  A learner read part
  way through a run is handicapped: its exploration and step size were scheduled for the whole
  budget; so these cells describe, they do not compare;
* **at each configured budget**: where the scale declares several budget ``levels``, every family
  was run configured for each (:mod:`fsmarena.studies.pipeline`); the table gives each family's
  final players there, and each declared pair's cross-play at that budget.  Those are the
  comparisons at equal cost; the declared questions are answered at each of them
  (:mod:`fsmarena.studies.question_answers`).
"""

from __future__ import annotations

import math
from typing import Any

from fsmarena.stats import comparisons as st
from fsmarena.studies.analysis import labelled_crossplay_tables
from fsmarena.studies.budgets import TOLERANCE, curve_value_at, mismatch
from fsmarena.studies.crossplay_report import crossplay_phrase
from fsmarena.studies.question_answers import win_rates
from fsmarena.studies.report_text import summary_cell, table
from fsmarena.studies.runner import StudyData

#: the first point of the table, in games (the curves' log axis starts there too)
FIRST_POINT = 1000


def points(budget: int) -> list[int]:
    """The games at which the curves are read: every power of ten from :data:`FIRST_POINT`
    below ``budget`` (the largest family's)."""
    found = []
    games = FIRST_POINT
    while games < budget:
        found.append(games)
        games *= 10
    return found


def rate_cell(values: list[float], seed: int, what: str, competitor: str) -> str:
    """Replicates' rates as a mean with its 95% interval, clipped to [0, 1]
    (:func:`fsmarena.stats.comparisons.summarize`); "–" without values."""
    if not values:
        return "–"
    return summary_cell(st.summarize({competitor: values}, what, seed=seed)[0])


def curve_cell(data: StudyData, competitor: str, games: int) -> str:
    """The family's mean curve value after ``games`` games with its 95% interval over
    replicates; "–" when a replicate's curve has no value there (not yet measured, or ended)."""
    values = [curve_value_at(games, r.curve_games, r.curve_win) for r in data.family(competitor)]
    if any(v is None for v in values):
        return "–"
    return rate_cell([float(v) for v in values if v is not None], data.plan.seed, f"curve-{games}", competitor)


def budgets(data: StudyData) -> dict[str, int]:
    """Each family's budget (:meth:`~fsmarena.studies.runner.StudyData.budget`), by competitor."""
    return {c.name: data.budget(c.name) for c in data.plan.competitors}


def curved(data: StudyData) -> list[Any]:
    """The competitors with a learning curve in every replicate."""
    return [c for c in data.plan.competitors if all(r.curve_games for r in data.family(c.name))]


def measure(data: StudyData) -> str:
    """What the curves record, in words."""
    if data.game.n_seats == 1:
        return "share of the optimal value"
    return f"win rate against `{data.plan.study.curve_opponent}`"


def along_the_way(data: StudyData) -> str:
    """The table of every family's curve at each power of ten and at the budget."""
    families, games = curved(data), budgets(data)
    if not families or max(games.values()) <= 0:
        return ""
    read_at = points(max(games.values()))
    consuming = [n for n in games.values() if n > 0]
    unequal = (
        f"The families' budgets in this run differ by more than {TOLERANCE:.0%} (from {min(consuming):,} to "
        f"{max(consuming):,} games), so their ends are no comparison at equal cost; compare them in one column."
        if mismatch(games)
        else ""
    )
    header = ["family", "games", *(f"{n:,} games" for n in read_at), "end of its run"]
    rows = [
        [
            label(data, c),
            f"{games[c.name]:,}",
            *(curve_cell(data, c.name, n) for n in read_at),
            final_cell(data, c.name),
        ]
        for c in families
    ]
    return "\n".join(
        [
            f"Each family's {measure(data)} along its training, read off every replicate's learning curve at "
            "each power of ten of games consumed and at the end of its run (games: the median each replicate "
            "consumed): mean over replicates with its 95% interval; – where a replicate's curve has no point there.",
            "A learner read part way through its run is handicapped, since its exploration and step size were "
            "scheduled for the whole budget; the comparisons at equal cost use runs configured for each budget.",
            *([unequal] if unequal else []),
            "",
            table(header, rows),
            "",
        ]
    )


def label(data: StudyData, competitor: Any) -> str:
    """A family's row label, naming the opponent its curve was measured against where that is
    not the study's curve opponent (evolved families of runs made before evolution measured
    its curves against it)."""
    evolved = data.evolution_curve_opponent()
    other = evolved != data.plan.study.curve_opponent and "generations" in data.family(competitor.name)[0].info
    return f"{competitor.label} (against `{evolved}`)" if other else competitor.label


def curve_ends(data: StudyData, competitor: str) -> list[float]:
    """Each replicate's last learning-curve point (its final player's, where the curve ends at the budget)."""
    return [r.curve_win[-1] for r in data.family(competitor) if r.curve_win]


def final_cell(data: StudyData, competitor: str) -> str:
    """The family's curve value at the end of its own run (its last point)."""
    return rate_cell(curve_ends(data, competitor), data.plan.seed, "curve-end", competitor)


def at_each_budget(runs: dict[int | None, Any], part: int | None) -> str:
    """At every configured budget level: each family's final players (:func:`final_values`),
    and each declared pair's cross-play there."""
    datas = {level: run.parts[part] for level, run in runs.items() if level is not None}
    first = next(iter(datas.values()))
    what = final_measure(first)
    if not what:
        return ""
    header = ["family", *(f"configured for {level:,} games" for level in datas)]
    rows = [[c.label, *(final_cell_at(d, c.name) for d in datas.values())] for c in first.plan.competitors]
    text = [
        f"Each family was run again configured for every budget level of this scale (its generations or episodes "
        f"solved for the level), and its final players measured: {what}, mean over replicates with its 95% "
        "interval, the games they consumed in brackets.",
        "These are the comparisons at equal cost; the declared questions are answered at each level below.",
        "",
        table(header, rows),
        "",
    ]
    return "\n".join(text + crossplay_at_levels(datas))


def final_measure(data: StudyData) -> str:
    """What :func:`final_values` measures, in words ("" when the study measures neither)."""
    if data.game.n_seats == 1:
        return "the exact share of the optimal value"
    opponent = data.plan.study.curve_opponent
    return f"win rate against `{opponent}`" if opponent in data.plan.study.panel else ""


def final_values(data: StudyData, competitor: str) -> list[float]:
    """Each replicate's final player measured: in a one-player game its share of the optimum
    (the last point of its curve, the final player's), else its win rate against the curve
    opponent (its panel games)."""
    if data.game.n_seats == 1:
        return curve_ends(data, competitor)
    return win_rates(data.family(competitor), data.plan.study.curve_opponent)


def final_summary(data: StudyData, competitor: str) -> dict[str, Any] | None:
    """The family's final players at one level (:func:`final_values`): mean, 95% interval
    clipped to [0, 1] and replicates (:func:`fsmarena.stats.comparisons.summarize`); None without values."""
    values = final_values(data, competitor)
    return st.summarize({competitor: values}, "final", seed=data.plan.seed)[0] if values else None


def final_cell_at(data: StudyData, competitor: str) -> str:
    """The family's final players at one level, and the games they consumed."""
    row = final_summary(data, competitor)
    return "–" if row is None else f"{summary_cell(row)} ({data.budget(competitor):,})"


def crossplay_at_levels(datas: dict[int, StudyData]) -> list[str]:
    """Each declared pair's cross-play at every level that ran one (a sentence per pair and level)."""
    lines = []
    for level, data in datas.items():
        questions = data.plan.study.questions
        if data.crossplay is None or not questions:
            continue
        rows, _ = labelled_crossplay_tables(data)
        label = {c.name: c.label for c in data.plan.competitors}
        for a, b in questions:
            found = [r for r in rows if r["family"] == a and r["opponent_family"] == b]
            if found and math.isfinite(found[0]["net"]):
                lines.append(
                    f"- Cross-play at {level:,} games, {label[a]} vs {label[b]}: {crossplay_phrase(found[0])}."
                )
    if not lines:
        return []
    return ["Cross-play of the declared pairs at each level (net score, wins − losses per game):", "", *lines, ""]


def section(results: Any, figures: bool = True) -> str:
    """The sample-efficiency section of every study's report (module docstring)."""
    runs = results.at_every_level()
    out = ["## Sample efficiency", ""]
    for part, data in results.parts.items():
        text = along_the_way(data)
        if text:
            out += ([f"### {results.part_name(part)}: along the way", ""] if part is not None else []) + [text]
    if len(runs) > 1:
        out += ["### At each configured budget", ""]
        for part in results.parts:
            if part is not None:
                out += [f"#### {results.part_name(part)}", ""]
            out.append(at_each_budget(runs, part))
    return "\n".join(out) if len(out) > 2 else ""


def level_summary(results: Any) -> dict[str, Any]:
    """What a page quotes and the command prints of each configured budget level: rows keyed
    ``<competitor>.at-<level>.final`` (``.<part>`` added in a sweep) with ``mean``, ``ci_low``,
    ``ci_high``, ``replicates`` and ``games`` (the median consumed) of its final players
    (:func:`final_values`), and the lines of a scale with several levels.  Empty for a scale
    without levels."""
    rows, lines = [], []
    runs = {level: run for level, run in results.at_every_level().items() if level is not None}
    for level, run in runs.items():
        for part, data in run.parts.items():
            what = final_measure(data)
            if not what:
                continue
            suffix = f".{results.part_name(part)}" if part is not None else ""
            shown = len(runs) > 1 and level != results.level  # the top level's lines are the layout's own
            if shown:
                where = f" ({results.part_name(part)})" if part is not None else ""
                lines.append(f"{what}, every family configured for {level:,} games{where}")
            width = max(len(c.label) for c in data.plan.competitors) + 2
            for c in data.plan.competitors:
                row = final_summary(data, c.name)
                if row is None:
                    continue
                games = data.budget(c.name)
                rows.append(
                    {
                        "competitor": f"{c.name}.at-{level}.final{suffix}",
                        **{k: row[k] for k in ("mean", "ci_low", "ci_high", "replicates")},
                        "games": games,
                    }
                )
                if shown:
                    lines.append(f"  {c.label.ljust(width)}{summary_cell(row)} ({games:,} games)")
    return {"levels": rows, "level_lines": lines}
