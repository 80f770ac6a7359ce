"""The protocol and the results against the builtin panel: every parameter and seed, each
family's win rates with their intervals, the learning curves, the comparison at the smallest
budget, and how reliable one run is."""

from __future__ import annotations

from typing import Any

from fsmarena.games.base import config_to_dict
from fsmarena.stats import inference as inf
from fsmarena.studies.analysis import Analysis, reliability_groups
from fsmarena.studies.budgets import at_smallest_budget
from fsmarena.studies.report_text import figure, pct, section, summary_cell, table
from fsmarena.studies.runner import StudyData


def protocol_section(data: StudyData, analysis: Analysis) -> str:
    plan, study = data.plan, data.plan.study
    params = config_to_dict(data.game.config)
    games_used: dict[str, list[int]] = {}
    for row in analysis.tables["seeds"]:
        games_used.setdefault(row["competitor"], []).append(row["games_consumed"])
    rows = []
    for c in plan.competitors:
        settings = ", ".join(f"{k}={v}" for k, v in c.params.items()) or "–"
        used = sorted(games_used.get(c.name, [0]))
        rows.append(
            [f"`{c.name}`", c.label, f"`{c.method}`", settings, ", ".join(c.needs) or "–", f"{used[len(used) // 2]:,}"]
        )
    text = [
        "## Protocol\n",
        f"- **Study** `{study.name}` version {study.version}, scale **{plan.scale.name}**"
        + (f" ({plan.scale.description})" if plan.scale.description else "")
        + f"; protocol fingerprint `{plan.fingerprint}`.",
        f"- **Game** `{study.game}` with parameters: " + ", ".join(f"{k}={v}" for k, v in params.items()) + ".",
        "- **Replicates**: "
        + ", ".join(f"{c.name} {c.replicates}" for c in plan.competitors)
        + " independent replicates.",
        f"- **Master seed** {plan.seed}. Replicate *r* uses `SeedSequence({plan.seed}).spawn(R)[r]`; "
        "each competitor's training and panel evaluation use children of it keyed by a hash of the "
        "competitor's name (the integer training seeds are listed in `tables/seeds.csv`); the cross-play "
        f"uses `SeedSequence({plan.seed}, spawn_key=(2**32,))`. Results do not depend on `--jobs`.",
        f"- **Panel**: every final player plays {plan.scale.panel_games:,} games against each of "
        + ", ".join(f"`{p}`" for p in study.panel)
        + " (seats swapped in half of them).",
        f"- **Learning curves**: win rate against `{study.curve_opponent}` vs simulated games consumed, "
        "as recorded by each method.",
    ]
    if data.crossplay is not None:
        cp = data.crossplay
        text.append(
            f"- **Cross-play**: all {len(cp.labels)} champions (every competitor and replicate) meet every other "
            f"champion: {len(cp.pairs):,} pairings, {int(cp.games.sum()):,} games "
            f"({int(cp.games.min())}–{int(cp.games.max())} per pairing), seats swapped in half. Each family pair's "
            f"games per pairing are chosen so that it pools at least {plan.crossplay_games_needed():,} games: a 95% "
            f"Wilson half-width of at most {100 * plan.scale.crossplay_halfwidth:.1f} percentage points for the "
            "pooled win rate."
        )
    text += [
        "",
        "Competitors (parameters at this scale; games = simulated games consumed per replicate, median):",
        "",
        table(["name", "label", "method", "parameters", "trained against champions of", "games"], rows),
        "",
    ]
    if data.settings:
        text += ["<details><summary>Every setting of every competitor, package defaults included</summary>\n", "```"]
        text += [
            f"{name}: " + ", ".join(f"{k}={v}" for k, v in values.items()) for name, values in data.settings.items()
        ]
        text += ["```\n", "</details>\n"]
    return "\n".join(text)


def _evolved_against(data: StudyData) -> str:
    """The learning curves' caption note when the evolved families' curves were measured against
    another player than the study's curve opponent (runs made before evolution measured them
    against it); "" otherwise."""
    evolved = data.evolution_curve_opponent()
    return "" if evolved == data.plan.study.curve_opponent else f" (evolved families: against {evolved})"


def panel_section(data: StudyData, analysis: Analysis) -> str:
    study = data.plan.study
    summary = analysis.tables["panel_summary"]
    methods = list(dict.fromkeys(r["method"] for r in summary))
    games = {c.label: sorted(r.games for r in data.family(c.name)) for c in data.plan.competitors}
    rows = []
    for m in methods:
        used = games.get(m, [0])
        cells = [m, f"{used[len(used) // 2]:,}"]
        for opp in study.panel:
            cells.append(summary_cell(next(x for x in summary if x["method"] == m and x["opponent"] == opp)))
        rows.append(cells)
    text = [
        "## Results\n",
        "### Against the builtin panel\n",
        "Mean win rate of the final players of each method (one per replicate), with the 95% interval "
        f"over replicates (bootstrap; Student-t below {inf.MIN_BOOTSTRAP} replicates; `tables/panel_summary.csv`; "
        "per player: `tables/panel.csv`); games: the simulated games each replicate consumed (its budget).\n",
        table(["method", "games"] + [f"vs `{o}`" for o in study.panel], rows),
        "",
        budget_section(data),
        figure(
            analysis,
            "panel_outcomes",
            "Replicate outcomes against each builtin: one dot per final "
            "player, boxes at the quartiles, whiskers at the extremes.",
            data.out,
        ),
        section(
            "### Learning curves\n",
            figure(
                analysis,
                "learning_curves",
                f"Win rate against {study.curve_opponent}{_evolved_against(data)} vs simulated games "
                "consumed, on one log axis from 1,000 games: median over replicates (line) and inter-quartile band.",
                data.out,
            ),
        ),
    ]
    return "\n".join(text)


def _median_and_quartiles(row: dict[str, Any]) -> str:
    """A family's curves read at one budget: median [inter-quartile range] (n), without a
    zero-width "interval" when the quartiles coincide."""
    if row["median"] is None:
        return "no curve reaches it"
    if row["q1"] == row["q3"]:
        return f"{pct(row['median'])}, quartiles equal (n={row['replicates']})"
    return f"{pct(row['median'])} [{pct(row['q1'])}, {pct(row['q3'])}] (n={row['replicates']})"


def budget_section(data: StudyData) -> str:
    """At a scale that declares ``compare_at_smallest_budget``: every family's learning curves
    read at the smallest family's budget (docs/statistics.md, "Budgets"); "" otherwise."""
    plan = data.plan
    if not plan.scale.compare_at_smallest_budget:
        return ""
    target, found = at_smallest_budget(plan, {c.name: data.family(c.name) for c in plan.competitors})
    rows = [
        [
            r["label"],
            f"{r['budget']:,}",
            f"`{r['opponent']}`",
            _median_and_quartiles(r),
        ]
        for r in found
    ]
    return "\n".join(
        [
            "### At the same budget\n",
            f"The families' budgets differ at this scale (declared in the study file), so they are compared at the "
            f"smallest family's budget, {target:,} simulated games: each replicate's learning curve read there "
            "(interpolated between its points), median [inter-quartile range] over replicates. Rows against "
            "different opponents do not compare with each other.\n",
            table(["method", "budget (games)", "curve against", f"win rate at {target:,} games"], rows),
            "",
        ]
    )


def reliability_section(data: StudyData, analysis: Analysis) -> str:
    """How reliable one run is: the quantiles of every family's replicate outcomes against the
    curve opponent and in the league (the ECDF figure), and P(one run of A beats the median
    run of B) for the compared pairs."""
    names = [c.name for c in data.plan.competitors]
    groups = reliability_groups(analysis, names, data.plan.study.curve_opponent)
    if not groups:
        return ""
    header = ["measure", "method", "runs"] + [f"{round(100 * q)}%" for q in inf.QUANTILES]
    rows = [
        [measure, method, len(values)] + [pct(q) for q in inf.quantiles(values)]
        for measure, panel in groups.items()
        for method, values in panel.items()
        if values
    ]
    chances = []
    for measure, panel in groups.items():
        present = [m for m, values in panel.items() if values]
        chances.append(f"P(a run of the row beats the median run of the column), {measure}:\n")
        chances.append(
            table(
                ["row \\ column", *present],
                [
                    [a] + ["–" if a == b else pct(inf.beats_median(panel[a], panel[b]), 0) for b in present]
                    for a in present
                ],
            )
        )
        chances.append("")
    return "\n".join(
        [
            "### Reliability of one run\n",
            "What one run of a method gives, rather than the mean of many: the quantiles of the replicate "
            "outcomes (each replicate is one independent run), and the chance that one run of a method beats "
            "the median run of another (ties count one half).\n",
            table(header, rows),
            "",
            *chances,
            figure(
                analysis,
                "reliability",
                "Empirical distribution of every family's replicate outcomes: the share of runs at or below "
                "each win rate.",
                data.out,
            ),
        ]
    )
