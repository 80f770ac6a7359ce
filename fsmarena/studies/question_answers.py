"""Every question a study declares answered in its own sentence, from the data, at its budget.

A study declares ``questions`` (pairs of competitors, docs/statistics.md "Declared questions").
This section gives each one sentence per part and budget level (a scale with several ``levels``
runs every family configured for each: :mod:`fsmarena.studies.pipeline`): the difference of the two families' mean win
rates against the study's curve opponent, over replicates (the unit of replication), with its
95% interval (:func:`fsmarena.stats.inference.difference_interval`) and the Mann-Whitney test
that decides, Holm-corrected over the declared questions; a difference that cannot be separated
gives the difference the design would have detected (80% power).  Each sentence names the games
every family consumed, the budget its runs were configured for (docs/statistics.md, "Budgets").
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from fsmarena.stats import inference as inf
from fsmarena.stats.comparisons import holm, mann_whitney
from fsmarena.studies.budgets import mismatch
from fsmarena.studies.report_text import within_rates

#: the level the declared questions are tested at (after Holm over the questions)
ALPHA = 0.05


def answer(
    a: str, b: str, xs: Sequence[float], ys: Sequence[float], budget: str, p_adjusted: float, seed: int = 0
) -> str:
    """One sentence answering "is ``a`` ahead of ``b``?" from the replicates' win rates ``xs``
    and ``ys`` at ``budget`` (its words: "1,000 games"), the test's Holm-adjusted p-value given."""
    gap = inf.difference_interval(xs, ys, inf.generator(seed, a, b))
    shown = difference_points(gap.value, *within_rates(gap.low, gap.high))
    counts = f"{len(xs)} and {len(ys)} replicates"
    test = f"Mann-Whitney p = {p_adjusted:.3g} after Holm over the declared questions"
    if p_adjusted < ALPHA and gap.low > 0:
        return f"**{a} is ahead of {b}** at {budget}: {shown} ({counts}; {test})."
    if p_adjusted < ALPHA and gap.high < 0:
        return f"**{b} is ahead of {a}** at {budget}: {a} − {b} {shown} ({counts}; {test})."
    if gap.low > 0 or gap.high < 0:  # the interval and the deciding test disagree: say which decides
        return (
            f"**{a} and {b} are not separated by the rank test** at {budget}, though the 95% interval of "
            f"{a} − {b} excludes zero: {shown} ({counts}; {test}, which decides)."
        )
    if p_adjusted < ALPHA:  # the rank test separates them, the difference of means does not
        ahead, behind = (a, b) if _a12(xs, ys) > 0.5 else (b, a)
        return (
            f"**{ahead} is ahead of {behind} by the rank test** at {budget}, though the 95% interval of the "
            f"difference of means includes zero: {a} − {b} {shown} ({counts}; {test}, which decides)."
        )
    detectable = inf.detectable_difference(inf.two_sample_error(xs, ys), ALPHA)
    power = (
        f"a difference of {_digits(detectable)} pp would have been detected with 80% power"
        if detectable <= 1.0
        else "no difference a rate can show (±100 pp) would have been detected with 80% power"
    )
    return f"**{a} and {b} cannot be separated** at {budget}: {a} − {b} {shown} ({counts}; {test}); {power}."


def _a12(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Vargha and Delaney's A: the chance that a replicate of the first family beats one of the
    second (ties count half), the effect the Mann-Whitney test tests."""
    x, y = np.asarray(xs, float)[:, None], np.asarray(ys, float)[None, :]
    return float(np.mean((x > y) + 0.5 * (x == y)))


def _digits(x: float) -> str:
    """Percentage points with the decimals a small difference needs (0.02, not 0.0)."""
    return f"{100 * x:.1f}" if abs(x) >= 0.0005 or x == 0 else f"{100 * x:.2g}"


def difference_points(value: float, low: float, high: float) -> str:
    """A difference with its interval in percentage points; two more decimals when every end
    would print as 0.0 (a difference of hundredths of a point is not zero)."""
    digits = 3 if any(0 < abs(x) < 0.0005 for x in (value, low, high)) else 1
    return f"{100 * value:+.{digits}f} pp [{100 * low:+.{digits}f}, {100 * high:+.{digits}f}]"


def budget_words(a_games: Sequence[int], b_games: Sequence[int]) -> str:
    """The games two families consumed: one number when their medians are within the budget
    tolerance, both (and said unequal) otherwise."""
    a, b = (int(np.median(g)) if len(g) else 0 for g in (a_games, b_games))
    if not mismatch({"a": a, "b": b}):
        return f"{int(np.median([*a_games, *b_games])) if len(a_games) + len(b_games) else 0:,} games"
    return f"{a:,} and {b:,} games (unequal budgets)"


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
        budget = budget_words([r.games for r in data.family(a)], [r.games for r in data.family(b)])
        label_a, label_b = plan.competitor(a).label, plan.competitor(b).label
        lines.append(f"- {answer(label_a, label_b, xs, ys, budget, p, plan.seed)}")
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
        f"Each declared question, from the replicates' win rates against `{opponent}`, at the budget each family "
        "ran (every family configured for it where the scale declares budget levels); interval: 95% over replicates.",
        "",
    ]
    runs = results.at_every_level()
    for level, run in runs.items():
        if len(runs) > 1:
            out += [f"### Every family configured for {level:,} games", ""]
        for part, data in run.parts.items():
            if part is not None:
                out += [f"{'####' if len(runs) > 1 else '###'} {results.part_name(part)}", ""]
            out += [*part_answers(data, study.questions, opponent), ""]
    return "\n".join(out)
