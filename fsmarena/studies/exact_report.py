"""The exact-values report: ``DIR/report.md``, tables and figures of a one-player study whose
game has an exact model, every final policy scored by its exact value against the optimum.

Sections: the question; the protocol; the results (exact values of the final policies, their
gap to the optimum, a sampled check of each); the reference value from the game's exact model
and the policy reaching it (what the game's hook gives, :class:`fsmarena.studies.exact_values.ExactReference`);
conclusions; compute; how to reproduce.  The data is :mod:`fsmarena.studies.exact_values`'s.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from fsmarena.figures.exact_values import exact_value_curves, final_gaps
from fsmarena.figures.outcomes import outcome_ecdfs
from fsmarena.figures.style import family_colors
from fsmarena.fileio import write_text
from fsmarena.games.base import config_to_dict
from fsmarena.studies.analysis import to_csv
from fsmarena.studies.exact_values import TARGET, ExactReference, exact_reference, tables
from fsmarena.studies.provenance import reproduce_section, written_by
from fsmarena.studies.report_text import image, table
from fsmarena.studies.results import StudyResults
from fsmarena.studies.runner import StudyData
from fsmarena.studies.sections import shared_sections


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


def report(
    data: StudyData,
    result: dict[str, list[dict[str, Any]]],
    drawn: dict[str, Any],
    reference: ExactReference,
    command: str,
    wall_seconds: float | None,
    shared: str = "",
) -> Path:
    """Write ``DIR/report.md`` from the tables and the game's reference."""
    plan_, study, game = data.plan, data.plan.study, data.game
    best_fraction = reference.value
    best = float(best_fraction)
    summary = result["values_summary"]
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
    value_rows = []
    for row in summary:
        evaluations = max(v["exact_evaluations"] for v in result["values"] if v["competitor"] == row["competitor"])
        effort = (
            f"{row['games_median']:,}"
            if row["games_median"]
            else f"0 ({evaluations:,} exact evaluations)"
            if evaluations
            else "0 (model)"
        )
        value_rows.append(
            [
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
        )
    learners = [r for r in summary if r["games_median"] > 0]
    reached = [r["method"] for r in learners if r["reaching_target"] == r["replicates"]]
    missed = [r for r in learners if r["reaching_target"] < r["replicates"]]
    conclusions = []
    if reached:
        names = reached[0] if len(reached) == 1 else ", ".join(reached[:-1]) + " and " + reached[-1]
        conclusions.append(
            f"- Every replicate of {names} reached at least {100 * TARGET:.0f}% of the "
            f"optimum (exact value) with its budget of simulated games."
        )
    for r in missed:
        conclusions.append(
            f"- {r['method']}: {r['reaching_target']} of {r['replicates']} replicates reached "
            f"{100 * TARGET:.0f}% of the optimum (median {100 * r['fraction_median']:.2f}%, worst "
            f"{100 * r['fraction_min']:.2f}%)."
        )
    exact_refs = [r for r in summary if r["games_median"] == 0]
    for r in exact_refs:
        conclusions.append(
            f"- {r['method']} (no simulated game): median {100 * r['fraction_median']:.2f}% of the optimum."
        )
    total_inside = sum(r["exact_inside_ci"] for r in summary)
    total = sum(r["replicates"] for r in summary)
    conclusions.append(
        f"- Sampled check: the exact value lies inside the 95% interval of the sampled mean score for "
        f"{total_inside} of {total} final players (about 95% expected)."
    )
    spread = [r for r in result["values"] if r["kind"] == "plan"]
    if spread:
        r = spread[0]
        sd = (r["sampled_ci_high"] - r["sampled_ci_low"]) / (2 * 1.959964) * math.sqrt(r["sampled_games"])
        why = (
            f"- Why sampling is costly here: one game's score under the optimal policy has a standard deviation "
            f"of about {sd:.1f} points, while a 1% gap is {0.01 * best:.3f} points; the learners average every "
            "state-action's returns over the whole run."
        )
        if any(c.method == "evolve-exact" for c in plan_.competitors):
            why += (
                " A genetic algorithm with sampled fitness gets one noisy number per individual and generation "
                "(standard error about sd / sqrt(games per individual)), far larger than the difference between "
                "a parent and its mutated child, so selection is nearly blind at this budget; with the exact "
                "value as fitness the same algorithm gets close to the optimum."
            )
        conclusions.append(why)
    parts = [
        f"# {study.title}\n",
        f"Study `{study.name}` (version {study.version}), scale `{plan_.scale.name}`, written by fsmarena "
        f"{written_by(data)}.\n",
        "## Question\n",
        study.question.strip() + "\n",
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
        "the simulated games consumed so far. Each final player also plays "
        f"{result['values'][0]['sampled_games']:,} games as a sampled check.",
        "- Parameters not listed take the defaults of `fsmarena.rl.train.TrainConfig` with "
        f"{study.game}'s own training defaults (`{type(game).__name__}.train_defaults`) and of "
        "`fsmarena.evo.run.EvolveConfig`.\n",
        table(["name", "method", "kind", "parameters", "replicates"], competitor_rows),
        "",
        "## Results\n",
        f"The optimum is {best_fraction} ≈ {best:.6f} (exact). Values are the exact expected score of each "
        "replicate's final policy: median [inter-quartile range] and range over replicates; the gap is the "
        f"optimum minus the median. *≥ {100 * TARGET:.0f}%*: replicates whose exact value reaches "
        f"{100 * TARGET:.0f}% of the optimum (`tables/values.csv`, `tables/values_summary.csv`).\n",
        table(
            [
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
            ],
            value_rows,
        ),
        "",
        _figure(
            drawn.get("learning_curves"),
            "Exact value of the current policy against simulated games "
            "consumed (left) and its gap to the optimum in % (right, log scale): median and inter-quartile "
            f"band over replicates. Dashed: the optimum; dotted: {100 * TARGET:.0f}% of it (a 1% gap).",
            data.out,
        ),
        _figure(
            drawn.get("final_values"),
            "Gap of every final policy to the optimum, in % of the optimum (log "
            "scale; one dot per replicate, bar: median). Dotted: the 1% gap of the 99% criterion; gaps "
            "below 0.001% (the planners: rounding only) are drawn at 0.001%.",
            data.out,
        ),
        _figure(drawn.get("reliability"), getattr(drawn.get("reliability"), "caption", ""), data.out),
        "## The optimal policy\n",
        f"{reference.policy_intro} Full table with state values: `tables/optimal_policy.csv`.\n",
        _figure(drawn.get("optimal_policy"), reference.policy_caption, data.out),
        "<details><summary>The optimal policy as text</summary>\n\n```\n"
        + reference.policy_text
        + "\n```\n\n</details>\n",
        "## Conclusions\n",
        "\n".join(conclusions) + "\n",
        shared or None,
        "## Compute\n",
        "Seconds per replicate task (training, scoring and the sampled check), wall clock and CPU time of its "
        "process; wall-clock times depend on the machine's load (`tables/timing.csv`).\n",
        table(
            ["method", "median wall s / replicate", "median CPU s / replicate", "total CPU s"],
            [
                [c.label, f"{np.median(w):.1f}", f"{np.median(t):.1f}", f"{sum(t):.1f}"]
                for c in plan_.competitors
                for w, t in [
                    (
                        [r["train_seconds"] for r in result["timing"] if r["competitor"] == c.name],
                        [r["cpu_seconds"] for r in result["timing"] if r["competitor"] == c.name],
                    )
                ]
            ],
        ),
        (f"\nWall-clock time of this invocation: {wall_seconds / 60:.1f} min.\n" if wall_seconds is not None else ""),
        reproduce_section(
            command,
            [
                "`study.json`: the protocol and its fingerprint",
                "`tables/values.csv`, `tables/values_summary.csv`, `tables/curves.csv`, `tables/optimal_policy.csv`: "
                "every number in this report (`tables/timing.csv`: compute times)",
                "`figures/*.png`, `figures/*.pdf`: the figures",
                f"`players/<competitor>/rNNN.json`: every final player (`fsmarena play {study.game} FILE` plays it)",
                "`replicates/<competitor>/rNNN.json`: raw per-replicate results",
            ],
            environment=data.environment,
        ),
    ]
    path = data.out / "report.md"
    write_text(path, "\n".join(p for p in parts if p is not None) + "\n")
    return path


def finish(results: StudyResults, draw: bool) -> dict[str, Any]:
    """Tables, figures and report of a finished run; returns a summary for the command line."""
    data, command, wall_seconds = results.only, results.command, results.wall_seconds
    reference = exact_reference(data)
    result = tables(data, reference)
    for name, rows in result.items():
        write_text(data.out / "tables" / f"{name}.csv", to_csv(rows))
    drawn = figures(data, result, reference) if draw else {}
    path = report(data, result, drawn, reference, command, wall_seconds, shared_sections(results, draw))
    best = float(reference.value)
    lines = [
        f"exact value of the final policies (optimum {best:.6f}): median, % of optimum, replicates >= "
        f"{100 * TARGET:.0f}%"
    ]
    width = max(len(r["method"]) for r in result["values_summary"]) + 2
    for r in result["values_summary"]:
        lines.append(
            f"  {r['method'].ljust(width)}{r['median']:.4f}  {100 * r['fraction_median']:6.2f}%  "
            f"{r['reaching_target']}/{r['replicates']}"
        )
    lines.append(f"report: {path}")
    return {"report": str(path), "optimum": best, "values_summary": result["values_summary"], "lines": lines}
