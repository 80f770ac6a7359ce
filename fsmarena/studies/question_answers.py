"""Every question a study declares answered in its own sentence, from the data, at its budget.

A study declares ``questions`` (pairs of competitors, docs/statistics.md "Declared questions").
This section gives each one sentence per part: the difference of the two families' mean win
rates against the study's curve opponent, over replicates (the unit of replication), with its
95% interval (:func:`fsmarena.studies.inference.difference_interval`) and the Mann-Whitney test
that decides, Holm-corrected over the declared questions; a difference that cannot be separated
gives the difference the design would have detected (80% power).  Each sentence names the games
every family consumed, the budget its runs were configured for (docs/statistics.md, "Budgets").
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from fsmarena.studies import inference as inf
from fsmarena.studies.statistics import holm, mann_whitney

#: the level the declared questions are tested at (after Holm over the questions)
ALPHA = 0.05


def answer(
    a: str, b: str, xs: Sequence[float], ys: Sequence[float], budget: int, p_adjusted: float, seed: int = 0
) -> str:
    """One sentence answering "is ``a`` ahead of ``b``?" from the replicates' win rates ``xs``
    and ``ys`` at ``budget`` games, the test's Holm-adjusted p-value given."""
    gap = inf.difference_interval(xs, ys, inf.generator(seed, a, b))
    shown = f"{100 * gap.value:+.1f} pp [{100 * gap.low:+.1f}, {100 * gap.high:+.1f}]"
    counts = f"{len(xs)} and {len(ys)} replicates, {budget:,} games each"
    test = f"Mann-Whitney p = {p_adjusted:.3g} after Holm over the declared questions"
    if p_adjusted < ALPHA and gap.low > 0:
        return f"**{a} is ahead of {b}** at {budget:,} games: {shown} ({counts}; {test})."
    if p_adjusted < ALPHA and gap.high < 0:
        return f"**{b} is ahead of {a}** at {budget:,} games: {a} − {b} {shown} ({counts}; {test})."
    detectable = inf.detectable_difference(inf.two_sample_error(xs, ys), ALPHA)
    return (
        f"**{a} and {b} cannot be separated** at {budget:,} games: {a} − {b} {shown} ({counts}; {test}); "
        f"a difference of {100 * detectable:.1f} pp would have been detected with 80% power."
    )


def win_rates(records: Sequence[Any], opponent: str) -> list[float]:
    """Each replicate's win rate against ``opponent`` (its panel games)."""
    return [r.panel[opponent]["wins"] / r.panel[opponent]["games"] for r in records if opponent in r.panel]


def part_answers(data: Any, questions: Sequence[tuple[str, str]], opponent: str) -> list[str]:
    """The sentences of one part (a finished plan's :class:`~fsmarena.studies.runner.StudyData`)."""
    plan = data.plan
    asked = [(a, b, win_rates(data.family(a), opponent), win_rates(data.family(b), opponent)) for a, b in questions]
    raw = [mann_whitney(xs, ys)["p"] for _a, _b, xs, ys in asked]
    adjusted = holm([1.0 if not np.isfinite(p) else p for p in raw])
    lines = []
    for (a, b, xs, ys), p in zip(asked, adjusted):
        games = [r.games for r in (*data.family(a), *data.family(b))]
        label_a, label_b = plan.competitor(a).label, plan.competitor(b).label
        lines.append(f"- {answer(label_a, label_b, xs, ys, int(np.median(games)) if games else 0, p, plan.seed)}")
    return lines


def section(results: Any, figures: bool = True) -> str:
    """The declared questions answered (Markdown; "" for a study that declares none)."""
    study = results.study
    if not study.questions:
        return ""
    opponent = study.curve_opponent if study.curve_opponent in study.panel else (study.panel or ("random",))[0]
    out = [
        "## The declared questions answered",
        "",
        f"Each declared question, from the replicates' win rates against `{opponent}`, at the budget every "
        "family was configured for; interval: 95% over replicates.",
        "",
    ]
    for part, data in results.parts.items():
        if part is not None:
            out += [f"### {results.part_name(part)}", ""]
        out += [*part_answers(data, study.questions, opponent), ""]
    return "\n".join(out)
