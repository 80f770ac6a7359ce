"""The data of the exact-values report: a one-player study whose game has an exact model.

Every final player is scored by the exact value of its policy (stored beside its curve by the
study's methods), so the tables compare each family with the game's optimum instead of with
opponents.  The game gives its optimum and optimal policy through its capability
(:class:`fsmarena.games.capabilities.ExactModel`), and the chart of that policy by its registry
entry (``GameEntry.policy_figure``): :func:`exact_reference` gathers them as data.  The text is
:mod:`fsmarena.studies.exact_report`'s, the curves and gaps :mod:`fsmarena.figures.exact_values`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from fsmarena import limits
from fsmarena.fileio import Fields
from fsmarena.games.capabilities import ExactModel
from fsmarena.games.registry import entry, resolve
from fsmarena.methods.exact import exact_model
from fsmarena.studies.runner import Record, StudyData

#: the share of the optimum a learner must reach
TARGET = 0.99


@dataclass(frozen=True)
class ExactReference:
    """What a game's exact model gives the report: the reference value and the policy reaching it.

    ``policy_rows`` are written to ``tables/optimal_policy.csv``; ``policy_intro`` says how to
    read them and ``policy_caption`` captions ``draw_policy(stem)``, the game's own drawing of
    the policy (None: no figure)."""

    value: Fraction
    policy_rows: list[dict[str, Any]]
    policy_text: str
    policy_intro: str
    policy_caption: str = ""
    draw_policy: Callable[[Path], Sequence[Path]] | None = None


def exact_reference(game: ExactModel, policy_figure: str = "") -> ExactReference:
    """The optimum of ``game`` and its optimal policy as rows (a list cell, such as dice, written
    as its items run together), as text and, with a ``policy_figure`` target, as a chart."""
    value, table = game.exact_optimum()
    return ExactReference(
        value=value,
        policy_rows=[
            {k: "".join(map(str, v)) if isinstance(v, list) else v for k, v in row.items()}
            for row in game.policy_rows(table)
        ],
        policy_text=game.policy_text(table),
        policy_intro=game.policy_intro,
        policy_caption=game.policy_caption,
        draw_policy=partial(resolve(policy_figure, "policy figure"), game, table) if policy_figure else None,
    )


def study_reference(data: StudyData) -> ExactReference:
    """The reference of a study's game (its exact model, as the study's methods require)."""
    return exact_reference(exact_model(data.game), entry(data.game.name).policy_figure)


def _quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    q1, median, q3 = np.percentile(np.asarray(values, float), [25, 50, 75])
    return float(q1), float(median), float(q3)


def stored_info(rec: Record) -> dict[str, Any]:
    """What a task of this study stored beside its curve (the exact-value methods), validated: a
    damaged result file or published store is one clear error, not a wrong table."""
    f = Fields(rec.info, f"result {rec.competitor}/r{rec.replicate:03d}: info")
    numbers = {
        key: f.number_in(key, -1e9, 1e9) for key in ("exact_value", "sampled_mean", "sampled_ci_low", "sampled_ci_high")
    }
    return {
        **numbers,
        "sampled_games": f.int_in("sampled_games", 1, limits.MAX_GAMES),
        "exact_evaluations": f.int_in("exact_evaluations", 0, 2**62, 0),
        "curve_value": f.float_array("curve_value", (len(rec.curve_games),), -1e9, 1e9).tolist(),
    }


def tables(data: StudyData, reference: ExactReference) -> dict[str, list[dict[str, Any]]]:
    """Every table of the report, from the result files and the game's reference only."""
    plan_ = data.plan
    best = float(reference.value)
    values, curves, timing, summary = [], [], [], []
    for c in plan_.competitors:
        family = data.family(c.name)
        for rec in family:
            info = stored_info(rec)
            value = info["exact_value"]  # exact_of(the final player), stored with the result
            inside = info["sampled_ci_low"] <= value <= info["sampled_ci_high"]
            values.append(
                {
                    "competitor": c.name,
                    "method": c.label,
                    "replicate": rec.replicate,
                    "kind": c.method,
                    "games": rec.games,
                    "exact_evaluations": info["exact_evaluations"],
                    "exact_value": value,
                    "gap": best - value,
                    "gap_pct": 100 * (best - value) / best,
                    "fraction": value / best,
                    "reaches_target": value >= TARGET * best,
                    "sampled_games": info["sampled_games"],
                    "sampled_mean": info["sampled_mean"],
                    "sampled_ci_low": info["sampled_ci_low"],
                    "sampled_ci_high": info["sampled_ci_high"],
                    "exact_inside_ci": inside,
                    "train_seed": rec.seed,
                }
            )
            for games, exact in zip(rec.curve_games, info["curve_value"]):
                curves.append(
                    {
                        "competitor": c.name,
                        "method": c.label,
                        "replicate": rec.replicate,
                        "games": games,
                        "exact_value": exact,
                        "fraction": exact / best,
                    }
                )
            timing.append(
                {
                    "competitor": c.name,
                    "replicate": rec.replicate,
                    "train_seconds": rec.train_seconds,
                    "cpu_seconds": getattr(rec, "cpu_seconds", 0.0),
                }
            )
        mine = [row for row in values if row["competitor"] == c.name]
        exact = [row["exact_value"] for row in mine]
        q1, median, q3 = _quartiles(exact)
        summary.append(
            {
                "competitor": c.name,
                "method": c.label,
                "replicates": len(mine),
                "games_median": int(np.median([row["games"] for row in mine])),
                "median": median,
                "q1": q1,
                "q3": q3,
                "min": min(exact),
                "max": max(exact),
                "gap_median": best - median,
                "gap_median_pct": 100 * (best - median) / best,
                "fraction_median": median / best,
                "fraction_min": min(exact) / best,
                "reaching_target": sum(row["reaches_target"] for row in mine),
                "exact_inside_ci": sum(row["exact_inside_ci"] for row in mine),
            }
        )
    return {
        "values": values,
        "values_summary": summary,
        "curves": curves,
        "optimal_policy": reference.policy_rows,
        "timing": timing,
    }
