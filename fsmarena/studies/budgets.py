"""Budgets counted one way: the simulated games each family of a study consumes.

Every family's budget is the number of simulated games its training consumes (docs/statistics.md,
"Budgets"): evolution, every game of every fitness evaluation (not the games that measure its
learning curve); reinforcement learning, every training game; policy search, every game that
judges a candidate.  Exact planners, exact-fitness evolution and builtin strategies consume none:
they are references and take no part in matching.

Each study method says, from its resolved settings alone, how many games a task will consume
(``<method function>_games(settings, game)`` beside the method, found by
:func:`fsmarena.methods.base.planned_games`), so a plan can be checked before anything runs; the runner
records what every task did consume and refuses a task whose count disagrees.

A study's families must meet the same budget within :data:`TOLERANCE` at every scale, level and
part.  A scale may declare its budget levels in games (``levels = [468750, 2000000]``): each
family is then *configured* for each level, its unit of training (generations, episodes, games:
:data:`UNIT_PARAMS`) solved from the level (:func:`solve_units`), so a comparison at a level
uses runs whose schedules were set for that level, never a learning curve read part way.  The
check runs when a study is loaded (:func:`check_budgets`, called by
:func:`fsmarena.studies.study_file.study_from_dict`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.base import Game
from fsmarena.methods.base import MethodContext, check_method, planned_games

if TYPE_CHECKING:  # pragma: no cover - typing only (the protocol imports this module)
    from fsmarena.studies.protocol import Plan, Study

#: how far apart (relative to the smallest) the families' budgets of one scale may be
TOLERANCE = 0.10

#: the parameter that sets how much a method trains: a scale's ``levels`` solve it per family
UNIT_PARAMS = {
    "evolve": "generations",
    "evolve-variant": "generations",
    "evolve-exact": "generations",
    "train": "episodes",
    "train-variant": "episodes",
    "train-exact": "episodes",
    "train-mlp": "games",
    "deep": "episodes",
}

#: the largest unit count the solver tries (far above any budget a study can afford)
MAX_UNITS = 1 << 34

#: the field a scale declared before levels replaced it; refused at load with this line
REMOVED_FIELD = "compare_at_smallest_budget"
REMOVED_MESSAGE = (
    "compare_at_smallest_budget was removed: declare the scale's budgets in games, levels = [games, ...], "
    "and every family is configured for each level (docs/statistics.md, Budgets)"
)


def read_levels(scale: Mapping[str, Any], budgets: Mapping[str, Any], methods: Mapping[str, str]) -> tuple[int, ...]:
    """A scale's optional ``levels``: 1 to 8 different budgets in games, returned ascending.  A
    budgets table may then not set the unit the levels solve (``generations`` of an evolved
    family...), which would be replaced without a word."""
    if "levels" not in scale:
        return ()
    values = scale["levels"]
    if (
        not isinstance(values, list)
        or not 1 <= len(values) <= 8
        or any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= limits.MAX_GAMES for v in values)
        or len(set(values)) != len(values)
    ):
        raise FsmarenaError(f"'levels' must be 1 to 8 different whole numbers of games from 1 to {limits.MAX_GAMES:,}")
    for name, table in budgets.items():
        unit = UNIT_PARAMS.get(methods.get(name, ""))
        if unit is not None and isinstance(table, Mapping) and unit in table:
            raise FsmarenaError(f"budgets.{name} sets '{unit}', which the scale's levels solve: remove it")
    return tuple(sorted(values))


def solve_units(
    method: str,
    params: Mapping[str, Any],
    game_name: str,
    game_params: Mapping[str, str],
    level: int,
    context: tuple[str, tuple[str, ...]] = ("random", ()),
    label: str = "",
) -> int | None:
    """The count of ``method``'s unit (:data:`UNIT_PARAMS`) whose planned games come closest to
    ``level`` (the smaller count on a tie), other settings as in ``params``; None for a method
    without a unit or one that consumes no games (exact fitness, planners, builtins).
    ``context``: the study's curve opponent and the competitor's ``needs``; ``label``: the
    competitor's name, for errors."""
    key = json.dumps(dict(params), sort_keys=True, default=str)
    return _solve(method, key, game_name, tuple(sorted(game_params.items())), int(level), context, label or method)


@lru_cache(maxsize=4096)
def _solve(
    method: str,
    key: str,
    game_name: str,
    game_params: tuple,
    level: int,
    context: tuple[str, tuple[str, ...]],
    label: str,
) -> int | None:
    unit = UNIT_PARAMS.get(method)
    if unit is None:
        return None
    game, params = get_game(game_name, dict(game_params)), json.loads(key)
    if unit in params:  # a value no run reads is refused like one a run reads
        try:
            check_method(method, MethodContext(game, params, 0, label, [], context[0], context[1]))
        except FsmarenaError as exc:
            raise FsmarenaError(f"{exc} (the value of '{unit}' in its params, which the levels replace)") from None

    def games(count: int) -> int:
        ctx = MethodContext(game, {**params, unit: count}, 0, label, [], context[0], context[1])
        return planned_games(method, check_method(method, ctx), game)

    if games(1) <= 0:
        return None
    low, high = 1, 1
    while games(high) < level:  # monotone in the unit: double, then halve
        low, high = high, high * 2
        if high > MAX_UNITS:
            raise FsmarenaError(f"no number of {unit} of '{method}' reaches {level:,} games")
    while low < high:
        middle = (low + high) // 2
        low, high = (middle + 1, high) if games(middle) < level else (low, middle)
    below = max(low - 1, 1)
    return below if abs(games(below) - level) <= abs(games(low) - level) else low


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
    """Refuse a study whose families' budgets differ by more than :data:`TOLERANCE` at any
    scale, level or part (FsmarenaError, one line naming them, the families and their budgets
    in games)."""
    for part, single in study.parts().items():
        game = get_game(single.game, single.game_params)
        where = "" if part is None else f" ({part} {study.sweep[0] if study.sweep else ''})"
        for name, scale in single.scales.items():
            for level in scale.levels or (None,):
                at = "" if level is None else f", level {level:,} games"
                try:
                    budgets = plan_budgets(single.plan(name, level=level), game)
                except FsmarenaError as exc:
                    raise FsmarenaError(f"scale '{name}'{at}{where}: {exc}") from None
                shown = mismatch(budgets)
                if shown:
                    raise FsmarenaError(
                        f"scale '{name}'{at}{where}: the families' budgets differ by more than {TOLERANCE:.0%} "
                        f"(simulated games per replicate: {shown}); give budgets within {TOLERANCE:.0%} of each "
                        "other, or declare levels = [games, ...] and let each family be configured for them"
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
