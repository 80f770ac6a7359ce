"""The exact-values report: ``DIR/report.md``, tables and figures of a one-player study whose
game has an exact model, every final policy scored by its exact value against the optimum.

Sections: the protocol; the results (exact values of the final policies, their gap to the
optimum, a sampled check of each); the reference value from the game's exact model and the policy
reaching it (:class:`fsmarena.studies.exact_values.ExactReference`); the conclusions.  The data is :mod:`fsmarena.studies.exact_values`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmarena.errors import FsmarenaError
from fsmarena.figures.exact_values import exact_value_curves, final_gaps
from fsmarena.figures.outcomes import outcome_ecdfs
from fsmarena.figures.style import family_colors
from fsmarena.fileio import write_text
from fsmarena.games import game_class
from fsmarena.games.base import config_to_dict
from fsmarena.games.capabilities import ExactModel
from fsmarena.studies.analysis import to_csv
from fsmarena.studies.exact_values import TARGET, ExactReference, study_reference, tables
from fsmarena.studies.protocol import Study
from fsmarena.studies.report import Layout, Report
from fsmarena.studies.report_text import image, table
from fsmarena.studies.results import StudyResults
from fsmarena.studies.runner import StudyData


def figures(data: StudyData, result: dict[str, list[dict[str, Any]]], reference: ExactReference) -> dict[str, Any]:
    """Learning curves, final values and the optimal policy (PNG and PDF in ``figures/``)."""
    folder = data.out / "figures"
    best = float(reference.value)
    drawn: dict[str, Any] = {}
    palette = family_colors([c.label for c in data.plan.competitors])  # one colour per family in every figure
    families = {}
    for c in data.plan.competitors:
        runs = [(r["games"], r["exact_value"]) for r in result["curves"] if r["competitor"] == c.name]
        if not runs or all(g == 0 for g, _ in runs):
            continue  # planners and exact-fitness evolution simulate no game: nothing to draw on this axis
        families[c.label] = [
            (
                [r["games"] for r in result["curves"] if r["competitor"] == c.name and r["replicate"] == k],
                [r["exact_value"] for r in result["curves"] if r["competitor"] == c.name and r["replicate"] == k],
            )
            for k in range(c.replicates)
        ]
    drawn["learning_curves"] = exact_value_curves(
        families, best, folder / "learning_curves", target=TARGET, colors=palette
    )
    finals = {
        c.label: [r["exact_value"] for r in result["values"] if r["competitor"] == c.name]
        for c in data.plan.competitors
    }
    drawn["final_values"] = final_gaps(finals, best, folder / "final_values", target=TARGET, colors=palette)
    shares = {label: [v / best for v in values] for label, values in finals.items()}
    drawn["reliability"] = outcome_ecdfs(
        {"final policy": shares}, folder / "reliability", xlabel="exact value (% of the optimum)", colors=palette
    )
    if reference.draw_policy is not None:
        drawn["optimal_policy"] = reference.draw_policy(folder / "optimal_policy")
    return drawn


# ---- report -----------------------------------------------------------------------------------


def _f(x: float, digits: int = 4) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _figure(paths: Any, caption: str, out: Path) -> str:
    return image(paths or [], out, caption)


@dataclass
class ExactFindings:
    """What the layout computes once: the game's exact reference, the tables and the figures drawn."""

    reference: ExactReference
    tables: dict[str, list[dict[str, Any]]]
    drawn: dict[str, Any]
    #: the values summary at each smaller budget level of the run (every family configured for it)
    levels: dict[int, list[dict[str, Any]]] = field(default_factory=dict)


def prepare(results: StudyResults, draw: bool) -> tuple[None, ExactFindings]:
    """The exact values' tables (as CSV files) and figures of the study's one part."""
    data = results.only
    reference = study_reference(data)
    result = tables(data, reference)
    for name, rows in result.items():
        write_text(data.out / "tables" / f"{name}.csv", to_csv(rows))
    levels = {
        level: tables(run.only, study_reference(run.only))["values_summary"]
        for level, run in sorted(results.levels.items())
    }
    return None, ExactFindings(reference, result, figures(data, result, reference) if draw else {}, levels)


def protocol(report: Report) -> str:
    """Every parameter, the seeds, and how a policy is scored."""
    plan_, study, game = report.data.plan, report.study, report.data.game
    competitor_rows = [
        [
            f"`{c.name}`",
            c.label,
            f"`{c.method}`",
            ", ".join(f"{k}={v}" for k, v in c.params.items()) or "–",
            c.replicates,
        ]
        for c in plan_.competitors
    ]
    sampled = report.findings.tables["values"][0]["sampled_games"]
    return "\n".join(
        [
            "## Protocol\n",
            f"- **Game** `{study.game}` with parameters: "
            + ", ".join(f"{k}={val}" for k, val in config_to_dict(game.config).items())
            + ".",
            f"- **Scale** {plan_.scale.name}"
            + (f": {plan_.scale.description}" if plan_.scale.description else "")
            + f"; protocol fingerprint `{plan_.fingerprint}`.",
            f"- **Master seed** {plan_.seed}: replicate *r* of a competitor trains with a seed derived from "
            f"`SeedSequence({plan_.seed})` keyed by *r* and the competitor's name (`tables/values.csv`, column "
            "`train_seed`); results do not depend on `--jobs`.",
            "- **Scoring**: the exact expected score of every final policy (backward induction over the known "
            "model), never a sample; the learning curves are the exact value of the policy of the moment against "
            f"the simulated games consumed so far. Each final player also plays {sampled:,} games as a sampled check.",
            "- Parameters not listed take the defaults of `fsmarena.rl.train.TrainConfig` with "
            f"{study.game}'s own training defaults (`{type(game).__name__}.train_defaults`) and of "
            "`fsmarena.evo.run.EvolveConfig`.\n",
            table(["name", "method", "kind", "parameters", "replicates"], competitor_rows),
            "",
        ]
    )


def _value_row(row: dict[str, Any], values: list[dict[str, Any]]) -> list[Any]:
    """One family's line of the results table."""
    evaluations = max(v["exact_evaluations"] for v in values if v["competitor"] == row["competitor"])
    effort = (
        f"{row['games_median']:,}"
        if row["games_median"]
        else f"0 ({evaluations:,} exact evaluations)"
        if evaluations
        else "0 (model)"
    )
    return [
        row["method"],
        row["replicates"],
        effort,
        f"{_f(row['median'])} [{_f(row['q1'])}, {_f(row['q3'])}]",
        f"{_f(row['min'])}–{_f(row['max'])}",
        f"{_f(row['gap_median'])} ({row['gap_median_pct']:.2f}%)",
        f"{100 * row['fraction_median']:.2f}%",
        f"{100 * row['fraction_min']:.2f}%",
        f"{row['reaching_target']} of {row['replicates']}",
        f"{row['exact_inside_ci']} of {row['replicates']}",
    ]


RESULT_COLUMNS = [
    "method",
    "replicates",
    "simulated games",
    "exact value: median [IQR]",
    "range",
    "gap (median)",
    "% of optimum (median)",
    "% of optimum (worst)",
    f"≥ {100 * TARGET:.0f}%",
    "exact value inside sampled 95% CI",
]


def results(report: Report) -> str:
    """Every family's exact values against the optimum, and the figures of them."""
    found: ExactFindings = report.findings
    best_fraction = found.reference.value
    drawn, out = found.drawn, report.data.out
    rows = [_value_row(row, found.tables["values"]) for row in found.tables["values_summary"]]
    return "\n".join(
        [
            "## Results\n",
            f"The optimum is {best_fraction} ≈ {float(best_fraction):.6f} (exact). Values are the exact expected score "
            "of each replicate's final policy: median [inter-quartile range] and range over replicates; the gap is the "
            f"optimum minus the median. *≥ {100 * TARGET:.0f}%*: replicates whose exact value reaches "
            f"{100 * TARGET:.0f}% of the optimum (`tables/values.csv`, `tables/values_summary.csv`).\n",
            table(RESULT_COLUMNS, rows),
            "",
            _figure(
                drawn.get("learning_curves"),
                "Exact value of the current policy against simulated games "
                "consumed (left) and its gap to the optimum in % (right, log scale): median and inter-quartile "
                f"band over replicates. Dashed: the optimum; dotted: {100 * TARGET:.0f}% of it (a 1% gap).",
                out,
            ),
            _figure(
                drawn.get("final_values"),
                "Gap of every final policy to the optimum, in % of the optimum (log "
                "scale; one dot per replicate, bar: median). Dotted: the 1% gap of the 99% criterion; gaps "
                "below 0.001% (the planners: rounding only) are drawn at 0.001%.",
                out,
            ),
            _figure(drawn.get("reliability"), getattr(drawn.get("reliability"), "caption", ""), out),
        ]
    )


def optimal_policy(report: Report) -> str:
    """The policy reaching the optimum, as a figure and as text."""
    reference: ExactReference = report.findings.reference
    return "\n".join(
        [
            "## The optimal policy\n",
            f"{reference.policy_intro} Full table with state values: `tables/optimal_policy.csv`.\n",
            _figure(report.findings.drawn.get("optimal_policy"), reference.policy_caption, report.data.out),
            "<details><summary>The optimal policy as text</summary>\n\n```\n"
            + reference.policy_text
            + "\n```\n\n</details>\n",
        ]
    )


def conclusions(report: Report) -> str:
    """Who reached the target, the sampled check, and why sampling is costly here."""
    summary, values = report.findings.tables["values_summary"], report.findings.tables["values"]
    learners = [r for r in summary if r["games_median"] > 0]
    reached = [r["method"] for r in learners if r["reaching_target"] == r["replicates"]]
    lines = []
    if reached:
        names = reached[0] if len(reached) == 1 else ", ".join(reached[:-1]) + " and " + reached[-1]
        lines.append(
            f"- Every replicate of {names} reached at least {100 * TARGET:.0f}% of the "
            f"optimum (exact value) with its budget of simulated games."
        )
    for r in learners:
        if r["reaching_target"] < r["replicates"]:
            lines.append(
                f"- {r['method']}: {r['reaching_target']} of {r['replicates']} replicates reached "
                f"{100 * TARGET:.0f}% of the optimum (median {100 * r['fraction_median']:.2f}%, worst "
                f"{100 * r['fraction_min']:.2f}%)."
            )
    lines += at_smaller_levels(report)
    for r in summary:
        if r["games_median"] == 0:
            lines.append(
                f"- {r['method']} (no simulated game): median {100 * r['fraction_median']:.2f}% of the optimum."
            )
    lines.append(
        f"- Sampled check: the exact value lies inside the 95% interval of the sampled mean score for "
        f"{sum(r['exact_inside_ci'] for r in summary)} of {sum(r['replicates'] for r in summary)} final players "
        "(about 95% expected)."
    )
    spread = [r for r in values if r["kind"] == "plan"]
    if spread:
        lines.append(_why_sampling_is_costly(report, spread[0]))
    return "## Conclusions\n\n" + "\n".join(lines) + "\n"


def at_smaller_levels(report: Report) -> list[str]:
    """One sentence per smaller budget level of the scale: how many replicates of each family
    that consumes games reached the target there, every family configured for that level."""
    lines = []
    for level, found in report.findings.levels.items():
        counts = [f"{r['method']} {r['reaching_target']} of {r['replicates']}" for r in found if r["games_median"] > 0]
        lines.append(
            f"- Every family configured for {level:,} simulated games: replicates reaching {100 * TARGET:.0f}% of "
            f"the optimum, {', '.join(counts)}."
        )
    return lines


def _why_sampling_is_costly(report: Report, r: dict[str, Any]) -> str:
    best = float(report.findings.reference.value)
    sd = (r["sampled_ci_high"] - r["sampled_ci_low"]) / (2 * 1.959964) * math.sqrt(r["sampled_games"])
    why = (
        f"- Why sampling is costly here: one game's score under the optimal policy has a standard deviation "
        f"of about {sd:.1f} points, while a 1% gap is {0.01 * best:.3f} points; the learners average every "
        "state-action's returns over the whole run."
    )
    if any(c.method == "evolve-exact" for c in report.data.plan.competitors):
        why += (
            " A genetic algorithm with sampled fitness gets one noisy number per individual and generation "
            "(standard error about sd / sqrt(games per individual)), far larger than the difference between "
            "a parent and its mutated child, so selection is nearly blind at this budget; with the exact "
            "value as fitness the same algorithm gets close to the optimum."
        )
    return why


def summary(report: Report) -> dict[str, Any]:
    """The optimum, every family's exact values, and the lines the command prints."""
    found: ExactFindings = report.findings
    best = float(found.reference.value)
    lines = [
        f"exact value of the final policies (optimum {best:.6f}): median, % of optimum, replicates >= "
        f"{100 * TARGET:.0f}%"
    ]
    width = max(len(r["method"]) for r in found.tables["values_summary"]) + 2
    for r in found.tables["values_summary"]:
        lines.append(
            f"  {r['method'].ljust(width)}{r['median']:.4f}  {100 * r['fraction_median']:6.2f}%  "
            f"{r['reaching_target']}/{r['replicates']}"
        )
    lines.append(f"report: {report.path}")
    at_levels = [
        {**row, "competitor": f"{row['competitor']}.at-{level}"} for level, rows in found.levels.items() for row in rows
    ]
    return {
        "optimum": best,
        "values_summary": found.tables["values_summary"],
        "values_at_levels": at_levels,
        "lines": lines,
    }


def files(report: Report) -> list[str]:
    """The "Files" section's bullets."""
    return [
        "`study.json`: the protocol and its fingerprint",
        "`tables/values.csv`, `tables/values_summary.csv`, `tables/curves.csv`, `tables/optimal_policy.csv`: "
        "every number in this report (`tables/timing.csv`: compute times)",
        "`figures/*.png`, `figures/*.pdf`: the figures",
        f"`players/<competitor>/rNNN.json`: every final player (`fsmarena play {report.study.game} FILE` plays it)",
        "`replicates/<competitor>/rNNN.json`: raw per-replicate results",
    ]


def check(study: Study) -> None:
    """The report scores policies by exact values: the study's game must have an exact model."""
    if not issubclass(game_class(study.game), ExactModel):
        raise FsmarenaError(f"{study.source}: report 'exact-values' needs a game with an exact model, not {study.game}")


LAYOUT = Layout(prepare, summary, files, check=check)
