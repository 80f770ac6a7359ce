"""The statistical tests of a study report and its conclusions in plain words.

Each conclusion says exactly what its statistic allows (docs/statistics.md): "ahead by X
[lo, hi]" for a declared question whose Holm-adjusted p is below 0.05 (or a cross-play pair
whose champion-level interval excludes zero and whose sign test agrees), "level" when the
interval lies within +-1 pp, otherwise "cannot be separated" with the difference the
replicates would have detected with 80% power.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from fsmarena.stats import comparisons as st
from fsmarena.studies.analysis import Analysis
from fsmarena.studies.crossplay_report import crossplay_overview, crossplay_phrase, crossplay_row
from fsmarena.studies.report_text import estimate, p_is, pp, pval, sentences, summary_cell, table, within_rates
from fsmarena.studies.runner import StudyData

ALPHA = st.ALPHA


def test_family(analysis: Analysis) -> tuple[int, list[str]]:
    """The declared tests Holm corrects over together: their number and the measures they span."""
    tables = [("panel_tests", None), ("crossplay_league_tests", "league")]
    measures: list[str] = []
    count = 0
    for key, name in tables:
        for row in analysis.tables.get(key, []):
            if row["declared"]:
                count += 1
                measure = name or f"against `{row['opponent']}`"
                if measure not in measures:
                    measures.append(measure)
    return count, measures


def replicate_check(analysis: Analysis) -> str:
    """Whether the replicate counts can answer every declared question, said before the results:
    which tests cannot reach Holm's level and how many replicates a family they would need; for
    those that can, the difference the observed spread would detect with 80% power."""
    rows = [r for key in ("panel_tests", "crossplay_league_tests") for r in analysis.tables.get(key, [])]
    declared = [r for r in rows if r["declared"]]
    if not declared:
        return ""
    alpha = declared[0]["holm_alpha"]
    short = st.unreachable(declared)
    if not short:
        largest = max((r["detectable"] for r in declared if math.isfinite(r["detectable"])), default=math.nan)
        return (
            f"The replicate counts can reach Holm's level {alpha:.3g} on all {len(declared)} declared tests. "
            f"The largest difference they would miss with 80% power is {pp(largest).replace('+', '')}."
        )
    pairs = sorted({f"{r['method_a']} vs {r['method_b']}" for r in short})
    counts = sorted({f"{r['replicates_a']} and {r['replicates_b']}" for r in short})
    return (
        f"**Too few replicates**: {len(short)} of the {len(declared)} declared tests cannot reach Holm's level "
        f"{alpha:.3g} whatever the data ({'; '.join(pairs)}; {', '.join(counts)} replicates). "
        f"That needs at least {st.replicates_needed(alpha)} replicates a family."
    )


def declared_statement(analysis: Analysis, questions: Sequence[Any]) -> str:
    """Which tests Holm corrects over: every declared question on every measure, as one family
    (printed: how many tests, which questions, which measures)."""
    count, measures = test_family(analysis)
    over = f"Holm corrects over all {count} declared tests at once ({', '.join(measures)})."
    if questions:
        asked = "; ".join(f"{analysis.labels[a]} vs {analysis.labels[b]}" for a, b in questions)
        plural = "s" if len(questions) != 1 else ""
        return (
            f"The study declares {len(questions)} question{plural} in advance: {asked}. "
            f"{over} Every other pair is exploratory (raw p only)."
        )
    return f"This study declares no questions, so every pair of families is tested. {over}"


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
                    estimate(r["difference"], *within_rates(r["difference_low"], r["difference_high"]), fmt=pp),
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
    """The difference the replicate counts would have detected; "none" where no exact test could
    reach Holm's level, or where it would be beyond the ±100 pp a difference of rates can take."""
    if not row["attainable"] or row["detectable"] > 1.0:
        return "none"
    return pp(row["detectable"]).replace("+", "") if math.isfinite(row["detectable"]) else "–"


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
            + f": the rank test decides, and with {first['replicates_a']} and {first['replicates_b']} replicates "
            f"it cannot reach Holm's level {alpha:.3g}"
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
        return f"{measure}: {leader} ahead by {lead} ({p_is(row['p_holm'], 'Holm p')}, A₁₂ = {a12:.2f})"
    if verdict == "level":
        return f"{measure}: level ({shown}, within ±{100 * st.LEVEL_MARGIN:.0f} pp)"
    alpha = row["holm_alpha"] if math.isfinite(row["holm_alpha"]) else ALPHA
    if verdict == "unattainable":
        return (
            f"{measure}: the rank test decides, and with {row['replicates_a']} and {row['replicates_b']} "
            f"replicates it cannot reach Holm's level {alpha:.3g}"
        )
    if low > 0 or high < 0:  # the interval of the means excludes 0; the corrected rank test does not reject
        return (
            f"{measure}: not separated by the rank test at Holm's level ({p_is(row['p_holm'], 'Holm p')}, "
            f"A₁₂ = {a12:.2f}), though the uncorrected 95% interval of the difference of means excludes zero "
            f"({shown})"
        )
    return (
        f"{measure}: cannot be separated ({shown}, {p_is(row['p_holm'], 'Holm p')}); a difference of "
        f"{_detectable(row)} would have been detected with 80% power (α = {alpha:.3g})"
    )


def conclusions(data: StudyData, analysis: Analysis) -> str:
    """Plain-words findings, each saying exactly what its statistic allows (module docstring)."""
    study = data.plan.study
    lines = ["## Conclusions\n"]
    check = replicate_check(analysis)
    if check:
        lines.append(f"- {check}")
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
        pair = crossplay_row(analysis, a, b)
        if pair is not None:
            parts.append("cross-play: " + crossplay_phrase(pair))
        if parts:
            lines.append(f"  - **{a} vs {b}**: " + sentences(parts))
    if "crossplay_family" in analysis.tables:
        lines += crossplay_overview(analysis)
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
