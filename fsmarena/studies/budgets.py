"""Budgets counted one way: the simulated games each family of a study consumes.

Every family's budget is the number of simulated games its training consumes (docs/statistics.md,
"Budgets"): evolution, every game of every fitness evaluation (not the games that measure its
learning curve); reinforcement learning, every training game; policy search, every game that
judges a candidate.  Exact planners, exact-fitness evolution and builtin strategies consume none:
they are references and take no part in matching.

Each study method says, from its resolved settings alone, how many games a task will consume
(``<method function>_games(settings, game)`` beside the method, found by
:func:`fsmarena.studies.methods.planned_games`), so a plan can be checked before anything runs; the runner
records what every task did consume and refuses a task whose count disagrees.

A study's families must meet the same budget within :data:`TOLERANCE` at every scale, unless the
scale declares ``compare_at_smallest_budget = true``: then the report compares the families at the
smallest family's budget, read off the learning curves (:func:`curve_value_at`).  The check runs
when a study is loaded (:func:`check_budgets`, called by :func:`fsmarena.studies.protocol.study_from_dict`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.base import Game
from fsmarena.studies.methods import MethodContext, check_method, planned_games

if TYPE_CHECKING:  # pragma: no cover - typing only (the protocol imports this module)
    from fsmarena.studies.protocol import Plan, Study

#: how far apart (relative to the smallest) the families' budgets of one scale may be
TOLERANCE = 0.10


def plan_budgets(plan: "Plan", game: Game, settings: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, int]:
    """Games each competitor of ``plan`` consumes per replicate, from its resolved settings
    (resolved here when ``settings`` is not given)."""
    budgets = {}
    for c in plan.competitors:
        resolved = settings[c.name] if settings is not None else _resolve(plan, game, c)
        budgets[c.name] = planned_games(c.method, resolved, game)
    return budgets


def _resolve(plan: "Plan", game: Game, competitor: Any) -> dict[str, Any]:
    ctx = MethodContext(
        game, dict(competitor.params), 0, competitor.name, [], plan.study.curve_opponent, competitor.needs
    )
    return check_method(competitor.method, ctx)


def mismatch(budgets: Mapping[str, int]) -> str:
    """ "" when every family that consumes games meets the same budget within :data:`TOLERANCE`,
    else the families and their budgets, smallest first (for one error line)."""
    consuming = {name: games for name, games in budgets.items() if games > 0}
    if not consuming or max(consuming.values()) <= (1 + TOLERANCE) * min(consuming.values()):
        return ""
    ordered = sorted(consuming.items(), key=lambda item: (item[1], item[0]))
    return ", ".join(f"{name} {games:,}" for name, games in ordered)


def check_budgets(study: "Study") -> None:
    """Refuse a study whose families' budgets differ by more than :data:`TOLERANCE` at a scale
    that does not declare ``compare_at_smallest_budget`` (FsmarenaError, one line naming the
    scale, the families and their budgets in games)."""
    game = get_game(study.game, study.game_params)
    for name, scale in study.scales.items():
        if scale.compare_at_smallest_budget:
            continue
        try:
            budgets = plan_budgets(study.plan(name), game)
        except FsmarenaError as exc:
            raise FsmarenaError(f"scale '{name}': {exc}") from None
        shown = mismatch(budgets)
        if shown:
            raise FsmarenaError(
                f"scale '{name}': the families' budgets differ by more than {TOLERANCE:.0%} "
                f"(simulated games per replicate: {shown}); give budgets within {TOLERANCE:.0%} of each other "
                "or declare compare_at_smallest_budget = true in the scale"
            )


def smallest_budget(budgets: Mapping[str, int]) -> int:
    """The smallest budget of a family that consumes games (0 when none does)."""
    consuming = [games for games in budgets.values() if games > 0]
    return min(consuming) if consuming else 0


def curve_value_at(games: int, curve_games: Sequence[int], curve_win: Sequence[float]) -> float | None:
    """A learning curve's value after ``games`` games consumed, interpolated linearly between its
    points; None when the curve does not reach that far (or starts after it)."""
    x, y = np.asarray(curve_games, float), np.asarray(curve_win, float)
    if not len(x) or games < x[0] or games > x[-1]:
        return None
    return float(np.interp(games, x, y))


#: methods whose learning curve measures the champion against ``random`` whatever the study's
#: curve opponent (:func:`fsmarena.evo.run.evolve` measures every curve point there)
RANDOM_CURVE_METHODS = ("evolve", "evolve-variant")


def curve_opponent(method: str, study_curve_opponent: str) -> str:
    """The opponent a competitor's learning curve is measured against."""
    return "random" if method in RANDOM_CURVE_METHODS else study_curve_opponent


def at_smallest_budget(plan: "Plan", families: Mapping[str, Sequence[Any]]) -> tuple[int, list[dict[str, Any]]]:
    """The smallest family's budget and, per family that consumes games, its learning curves'
    values there: ``families[name]`` holds the records of its replicates (``games``,
    ``curve_games``, ``curve_win``).  Each row: competitor, label, budget (median games consumed),
    curve opponent, replicates whose curve reaches the budget, and the median and quartiles of
    their values there (None when no curve reaches it)."""
    budgets = {c.name: int(np.median([r.games for r in families[c.name]])) for c in plan.competitors}
    target = smallest_budget(budgets)
    rows = []
    for c in plan.competitors:
        if budgets[c.name] <= 0:
            continue
        values = [curve_value_at(target, r.curve_games, r.curve_win) for r in families[c.name]]
        known = [v for v in values if v is not None]
        q1, median, q3 = (float(q) for q in np.percentile(known, [25, 50, 75])) if known else (None, None, None)
        rows.append(
            {
                "competitor": c.name,
                "label": c.label,
                "budget": budgets[c.name],
                "opponent": curve_opponent(c.method, plan.study.curve_opponent),
                "replicates": len(known),
                "median": median,
                "q1": q1,
                "q3": q3,
            }
        )
    return target, rows
