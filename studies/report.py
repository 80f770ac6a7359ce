"""The study report: ``DIR/report.md``, written from the tables (never from memory).

Sections: the question; the protocol with every parameter and seed; results against the
builtin panel, learning curves, cross-play (heat map, spread, league); the reliability of one
run; the statistical tests; the policies and machines; conclusions in plain words, generated
from the numbers and saying exactly what they allow (docs/statistics.md): "ahead by X [lo, hi]"
for a declared question whose Holm-adjusted p is below 0.05 (or a cross-play pair whose
champion-level interval excludes zero and whose sign test agrees), "level" when the interval
lies within +-1 pp, otherwise "cannot be separated" with the difference the replicates would
have detected with 80% power; compute time; the exact command and package versions.
"""

from __future__ import annotations

import math
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Sequence

from fsmarena.fileio import write_text
from fsmarena.version import __version__
from games.base import config_to_dict
from studies import inference as inf
from studies import statistics as st
from studies.analysis import Analysis, reliability_groups
from studies.budgets import at_smallest_budget
from studies.reference_line import reference_section
from studies.runner import StudyData

ALPHA = st.ALPHA
PACKAGES = ("numpy", "scipy", "deap", "matplotlib", "joblib", "networkx")


def pct(x: float, digits: int = 1) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{100 * x:.{digits}f}%"


def pp(x: float) -> str:
    return "–" if not math.isfinite(x) else f"{100 * x:+.1f} pp"


def pval(p: float) -> str:
    if not math.isfinite(p):
        return "–"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def estimate(
    value: float,
    low: float,
    high: float,
    all_equal: bool = False,
    replicates: int = 0,
    fmt: Callable[[float], str] = pct,
    unit: str = "replicates",
) -> str:
    """An estimate with its interval in brackets; a sample whose values are all equal is said to
    be so ("all 5 replicates 100.0%", "+100.0 pp (all 60 games alike)"), never given a
    zero-width interval."""
    if all_equal:
        return (
            f"all {replicates} {unit} {fmt(value)}"
            if unit == "replicates"
            else f"{fmt(value)} (all {replicates} {unit} alike)"
        )
    if not (math.isfinite(low) and math.isfinite(high)):
        return fmt(value)
    return f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


def summary_cell(row: dict) -> str:
    """A summary row's mean with its interval (:func:`estimate`)."""
    return estimate(row["mean"], row["ci_low"], row["ci_high"], bool(row.get("all_equal")), row["replicates"])


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A markdown table (cells already formatted)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


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
    environment of a run (a published run keeps its own, :mod:`studies.store`)."""
    return {**versions(extra), "platform": f"{platform.platform()}, {sys.implementation.name}"}


def written_by(data: StudyData) -> str:
    """The fsmarena version that produced ``data``: the recorded one for a published run."""
    return (data.environment or {}).get("fsmarena", __version__)


def figure(analysis: Analysis, key: str, caption: str, out: Path) -> str:
    """The Markdown of figure ``key`` of the analysis ("" when it was not drawn), under the
    caption the figure function wrote (it knows the replicates and the band), else ``caption``."""
    drawn = analysis.figures.get(key, [])
    return image(drawn, out, getattr(drawn, "caption", "") or caption)


def image(paths: Sequence[Path], out: Path, caption: str) -> str:
    """A PNG shown with its caption and a link to its PDF twin (paths relative to ``out``)."""
    if not paths:
        return ""
    png = next((p for p in paths if p.suffix == ".png"), paths[0])
    pdf = next((p for p in paths if p.suffix == ".pdf"), None)
    link = f" ([PDF]({pdf.relative_to(out).as_posix()}))" if pdf else ""
    return f"![{caption}]({png.relative_to(out).as_posix()})\n\n*{caption}*{link}\n"


# ---- sections ---------------------------------------------------------------------------------


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
                f"Win rate against {study.curve_opponent} (evolved families: against random) vs simulated games "
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


def section(heading: str, *body: str) -> str:
    """A heading with its body, or "" when the body is empty (no heading stands alone)."""
    shown = [b for b in body if b]
    return "\n".join([heading, *shown]) if shown else ""


def crossplay_section(data: StudyData, analysis: Analysis) -> str:
    if "crossplay_family" not in analysis.tables:
        return ""
    rows_in = analysis.tables["crossplay_family"]
    methods = list(dict.fromkeys(r["method"] for r in rows_in))
    rows = []
    for m in methods:
        cells = [m]
        for o in methods:
            r = next((x for x in rows_in if x["method"] == m and x["opponent_method"] == o), None)
            cells.append("–" if r is None else estimate(r["win_rate"], r["ci_low"], r["ci_high"]))
        rows.append(cells)
    spread_rows = [
        [
            r["method"],
            r["opponent_method"],
            f"{r['games']:,}",
            pct(r["win_rate"]),
            pct(r["loss_rate"]),
            estimate(r["net"], r["net_ci_low"], r["net_ci_high"], fmt=pp),
            f"{r['champions_ahead']}/{r['champions']} ahead, {r['opponents_ahead']} of theirs ahead; p = {pval(r['sign_p'])}",
            f"{pct(r['champion_median'])} ({pct(r['champion_q1'])}–{pct(r['champion_q3'])})",
            f"{pct(r['champion_min'])}–{pct(r['champion_max'])}",
        ]
        for r in rows_in
        if methods.index(r["method"]) < methods.index(r["opponent_method"])
    ]
    league = analysis.tables["crossplay_league_summary"]
    league_rows = [
        [r["method"], r["replicates"], summary_cell(r), f"{pct(r['median'])} ({pct(r['q1'])}–{pct(r['q3'])})"]
        for r in league
    ]
    text = [
        "### Cross-play\n",
        "Win rate of the row family's champions against the column family's, averaged over every pairing of "
        "their champions, with a 95% two-way cluster interval: both families' champions are samples, so the "
        "interval resamples the champions of each family independently (`tables/crossplay_family.csv`; "
        "docs/statistics.md). On the diagonal, a family's champions against each other (each game counted "
        "once, no interval). Draws make a row's and a column's rates sum to less than 100%.\n",
        table(["row \\ column"] + methods, rows),
        "",
        figure(
            analysis,
            "crossplay_heatmap",
            "Cross-play: row family's net score against the column family (wins − losses per 100 games), "
            "with its 95% champion-level interval.",
            data.out,
        ),
        "Head-to-head records with the net score (wins − losses per game, mean over pairings of champions, "
        "95% two-way cluster interval), the champion-level sign test (how many of the row's champions are "
        "ahead of the whole column family, how many of the column's are ahead of the whole row family; p: "
        "the larger of the two sign tests) and the spread over the row family's champions (each champion's "
        "win rate against the whole column family: median, inter-quartile range, range); each pair once, "
        "the other direction is in the CSV:\n",
        table(
            [
                "row",
                "column",
                "games",
                "win",
                "loss",
                "net score",
                "champions",
                "champions: median (IQR)",
                "champions: range",
            ],
            spread_rows,
        ),
        "",
        figure(
            analysis,
            "crossplay_spread",
            "Spread over replicates: each dot is one champion's win rate "
            "against all champions of the family named in the panel title.",
            data.out,
        ),
        "**League**: each champion's win rate against the champions of all *other* families "
        "(`tables/crossplay_league.csv`); mean with its 95% interval over replicates, median and IQR.\n",
        table(["method", "champions", "mean [95% CI]", "median (IQR)"], league_rows),
        "",
    ]
    return "\n".join(text)


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


def _tests_key(measure: str) -> tuple[str, str]:
    """The tests table and opponent of a reliability measure."""
    if measure == "league":
        return ("crossplay_league_tests", "other families")
    return ("panel_tests", measure.removeprefix("vs "))


def declared_statement(analysis: Analysis, questions: Sequence[Any]) -> str:
    """Which comparisons Holm corrects over: the study's declared questions, or, when it
    declares none, every pair (said so)."""
    if questions:
        asked = "; ".join(f"{analysis.labels[a]} vs {analysis.labels[b]}" for a, b in questions)
        return (
            f"The study declares {len(questions)} question{'s' if len(questions) != 1 else ''} in advance "
            f"(`questions` in its definition): {asked}. Holm corrects over these within each measure; "
            "the other pairs are exploratory (raw p only)."
        )
    return (
        "This study declares no questions in advance (`questions` in its definition), so every pair of "
        "families is tested and Holm corrects over all of them within each measure."
    )


def tests_section(analysis: Analysis, questions: Sequence[Any] = ()) -> str:
    def block(rows: list[dict]) -> str:
        return table(
            [
                "A",
                "B",
                "declared",
                "mean A − mean B [95% CI]",
                "U",
                "p",
                "p (Holm)",
                "A₁₂ [95% CI]",
                "r (rank-biserial)",
                "effect",
                "detectable (80% power)",
            ],
            [
                [
                    r["method_a"],
                    r["method_b"],
                    "yes" if r["declared"] else "no",
                    estimate(r["difference"], r["difference_low"], r["difference_high"], fmt=pp),
                    "–" if not math.isfinite(r["u"]) else f"{r['u']:.1f}",
                    pval(r["p"]),
                    pval(r["p_holm"]),
                    estimate(r["a12"], r["a12_low"], r["a12_high"], fmt=lambda x: f"{x:.2f}"),
                    f"{r['rank_biserial']:+.3f}",
                    r["effect"],
                    _detectable(r),
                ]
                for r in rows
            ],
        )

    text = [
        "### Statistical tests\n",
        "Two-sided Mann–Whitney U tests on the replicate outcomes; the difference of the means with its "
        "bootstrap interval; effect size Vargha–Delaney A₁₂ = P(A > B) + ½P(A = B) with its bootstrap "
        "interval (0.5: no difference; |A₁₂ − 0.5| ≥ 0.06, 0.14, 0.21: small, medium, large) and "
        "rank-biserial r = 2A₁₂ − 1. " + declared_statement(analysis, questions) + " Detectable: the "
        "difference of means the replicate counts would have detected with 80% power at Holm's first "
        'level α/m, from the observed spread (two-sample normal approximation); "none" when no exact '
        "test with these replicate counts can reach that level (`tables/panel_tests.csv`, "
        "`tables/crossplay_league_tests.csv`; docs/statistics.md).\n",
    ]
    by_opponent: dict[str, list[dict]] = {}
    for row in analysis.tables["panel_tests"]:
        by_opponent.setdefault(row["opponent"], []).append(row)
    for opponent, rows in by_opponent.items():
        text += [
            f"<details><summary>Win rate against <code>{opponent}</code></summary>\n",
            block(rows),
            "\n</details>\n",
        ]
    if "crossplay_league_tests" in analysis.tables:
        text += [
            "<details><summary>Cross-play league (win rate against the other families)</summary>\n",
            block(analysis.tables["crossplay_league_tests"]),
            "\n</details>\n",
        ]
    return "\n".join(text)


def _detectable(row: dict) -> str:
    if not row["attainable"]:
        return "none"
    return pp(row["detectable"]).replace("+", "") if math.isfinite(row["detectable"]) else "–"


def machines_section(data: StudyData, analysis: Analysis, heading: str = "### Policies and machines\n") -> str:
    """The policy map (when the study has tabular families), each family's best automaton, and
    what the machines do (:mod:`studies.machines`: effective sizes, fingerprints)."""
    text = [
        figure(
            analysis,
            "policy_map",
            "Tabular policies over the game's states: the action most "
            "replicates chose (colour) and the share that chose it (text).",
            data.out,
        )
    ]
    for name, replicate in analysis.best.items():
        text.append(
            figure(
                analysis,
                f"best_{name}",
                f"Best {analysis.labels[name]} (replicate {replicate}, highest "
                f"win rate against {data.plan.study.curve_opponent}); player file "
                f"`players/{name}/r{replicate:03d}.json`.",
                data.out,
            )
        )
    from studies.machines import machines_summary_section  # (it uses this module's helpers)

    # the heading only above drawings: the summary of what the machines do has its own
    return "\n".join(t for t in (section(heading, *text), machines_summary_section(data, analysis)) if t)


def conclusions(data: StudyData, analysis: Analysis) -> str:
    """Plain-words findings, each saying exactly what its statistic allows (module docstring)."""
    study = data.plan.study
    lines = ["## Conclusions\n"]
    opponent = study.curve_opponent if study.curve_opponent in study.panel else study.panel[0]
    summary = [r for r in analysis.tables["panel_summary"] if r["opponent"] == opponent]
    ranked = sorted(summary, key=lambda r: -r["mean"])
    questions = _question_labels(analysis, study.questions)
    if ranked:
        top = ranked[0]
        lines.append(
            f"- **Against `{opponent}`**, the highest mean win rate is {top['method']}'s "
            f"({summary_cell(top)}), the lowest {ranked[-1]['method']}'s ({summary_cell(ranked[-1])})."
        )
    if not questions and ranked:
        others = [r["method"] for r in ranked[1:]]
        questions = [(ranked[0]["method"], other) for other in others]
        lines.append(
            "- " + declared_statement(analysis, study.questions) + f" Below: {ranked[0]['method']}, the highest "
            f"against `{opponent}`, against each other family."
        )
    else:
        lines.append("- " + declared_statement(analysis, study.questions))
    for a, b in questions:
        rows = [(r, f"against `{r['opponent']}`") for r in analysis.tables["panel_tests"]]
        rows += [(r, "league") for r in analysis.tables.get("crossplay_league_tests", [])]
        parts = merged_phrases([(r, measure) for r, measure in rows if {r["method_a"], r["method_b"]} == {a, b}], a, b)
        pair = _crossplay_row(analysis, a, b)
        if pair is not None:
            parts.append("cross-play: " + crossplay_phrase(pair))
        if parts:
            lines.append(f"  - **{a} vs {b}**: " + "; ".join(parts) + ".")
    if "crossplay_family" in analysis.tables:
        lines += _crossplay_overview(analysis)
    budget: dict[str, list[int]] = {}
    for row in analysis.tables["seeds"]:
        budget.setdefault(analysis.labels[row["competitor"]], []).append(row["games_consumed"])
    finals = []
    for method, values in budget.items():
        curve = [r for r in analysis.tables["curves"] if r["method"] == method]
        if curve:
            finals.append(f"{method} {sorted(values)[len(values) // 2]:,}")
    if finals:
        lines.append(
            "- **Cost**: simulated games consumed per replicate (median): "
            + ", ".join(finals)
            + "; the learning curves show the win rate reached along the way."
        )
    return "\n".join(lines) + "\n"


def _question_labels(analysis: Analysis, questions: Sequence[Any]) -> list[tuple[str, str]]:
    return [(analysis.labels[a], analysis.labels[b]) for a, b in questions]


def merged_phrases(rows: Sequence[tuple[dict, str]], a: str, b: str) -> list[str]:
    """The phrases of one pair on every measure, the measures no test could separate at all
    said once (their reason is the same: too few replicates)."""
    unattainable = [(r, measure) for r, measure in rows if st.verdict(r) == "unattainable"]
    parts = [comparison_phrase(r, a, b, measure) for r, measure in rows if st.verdict(r) != "unattainable"]
    if unattainable:
        first = unattainable[0][0]
        alpha = first["holm_alpha"] if math.isfinite(first["holm_alpha"]) else ALPHA
        parts.append(
            ", ".join(measure for _, measure in unattainable)
            + f": cannot be separated; with {first['replicates_a']} and {first['replicates_b']} replicates no "
            f"test could reach Holm's level {alpha:.3g}"
        )
    return parts


def comparison_phrase(row: dict, a: str, b: str, measure: str) -> str:
    """One comparison of A and B on one measure in words, "" when ``row`` compares others."""
    if {row["method_a"], row["method_b"]} != {a, b}:
        return ""
    flip = row["method_a"] != a
    diff, low, high = row["difference"], row["difference_low"], row["difference_high"]
    if flip:
        diff, low, high = -diff, -high, -low
    a12 = 1 - row["a12"] if flip else row["a12"]
    shown = estimate(diff, low, high, fmt=pp)
    verdict = st.verdict(row)
    if verdict in ("ahead", "behind"):
        leader, lead = (a, shown) if diff > 0 else (b, estimate(-diff, -high, -low, fmt=pp))
        return f"{measure}: {leader} ahead by {lead} (Holm p = {pval(row['p_holm'])}, A₁₂ = {a12:.2f})"
    if verdict == "level":
        return f"{measure}: level ({shown}, within ±{100 * st.LEVEL_MARGIN:.0f} pp)"
    alpha = row["holm_alpha"] if math.isfinite(row["holm_alpha"]) else ALPHA
    if verdict == "unattainable":
        return (
            f"{measure}: cannot be separated; with {row['replicates_a']} and {row['replicates_b']} replicates no "
            f"test could reach Holm's level {alpha:.3g}"
        )
    return (
        f"{measure}: cannot be separated ({shown}, Holm p = {pval(row['p_holm'])}); a difference of "
        f"{_detectable(row)} would have been detected with 80% power (α = {alpha:.3g})"
    )


def _crossplay_row(analysis: Analysis, a: str, b: str) -> dict | None:
    rows = analysis.tables.get("crossplay_family", [])
    return next((r for r in rows if r["method"] == a and r["opponent_method"] == b), None)


def crossplay_phrase(row: dict) -> str:
    """The cross-play of the row's family against its opponent in words."""
    verdict = st.crossplay_verdict(row)
    net = estimate(row["net"], row["net_ci_low"], row["net_ci_high"], fmt=pp)
    champions = f"{row['champions_ahead']}/{row['champions']} champions ahead, sign test p = {pval(row['sign_p'])}"
    if verdict == "ahead":
        return f"{row['method']} ahead by {net} net ({champions})"
    if verdict == "behind":
        reverse = estimate(-row["net"], -row["net_ci_high"], -row["net_ci_low"], fmt=pp)
        return f"{row['opponent_method']} ahead by {reverse} net ({champions} for {row['method']})"
    if verdict == "level":
        return f"level ({net} net, within ±{100 * st.LEVEL_MARGIN:.0f} pp)"
    if not row.get("sign_attainable", True):
        return (
            f"cannot be separated ({net} net); with {row['champions']} and {row['opponent_champions']} champions "
            f"no sign test could reach {ALPHA}"
        )
    detectable = pp(row["detectable"]).replace("+", "")
    return (
        f"cannot be separated ({net} net, {champions}); a difference of {detectable} would have been "
        "detected with 80% power"
    )


def _crossplay_overview(analysis: Analysis) -> list[str]:
    rows = analysis.tables["crossplay_family"]
    methods = list(dict.fromkeys(r["method"] for r in rows))
    lines = [
        "- **Cross-play** (net score, wins − losses per game, over pairings of champions; a family is *ahead* "
        "when the 95% two-way cluster interval excludes zero and the champion-level sign test agrees, *level* "
        f"when the interval lies within ±{100 * st.LEVEL_MARGIN:.0f} pp; each pair at 95%, not corrected for "
        "the number of pairs):"
    ]
    for a in methods:
        found: dict[str, list[str]] = {"ahead": [], "level": [], "not separated": []}
        for b in methods:
            pair = _crossplay_row(analysis, a, b)
            if pair is None or a == b:
                continue
            verdict = st.crossplay_verdict(pair)
            net = estimate(pair["net"], pair["net_ci_low"], pair["net_ci_high"], fmt=pp)
            if verdict in found:
                found[verdict].append(f"{b} ({net})")
        text = f"  - {a} is ahead of " + ("; ".join(found["ahead"]) or "no other family")
        if found["level"]:
            text += "; level with " + "; ".join(found["level"])
        if found["not separated"]:
            text += "; cannot be separated from " + "; ".join(found["not separated"])
        lines.append(text + ".")
    return lines


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
