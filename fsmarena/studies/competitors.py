"""A study's competitors checked against their methods before anything runs.

Every competitor's parameters at every scale of the study file go through its method's check
(:func:`fsmarena.methods.base.check_method`), so a typo in the paper scale fails a test run.
"""

from __future__ import annotations

from typing import Any, Mapping

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game
from fsmarena.methods.base import MethodContext, check_method
from fsmarena.studies.protocol import Competitor, Plan


def check_competitors(plan: Plan, game: Game) -> dict[str, dict[str, Any]]:
    """The resolved settings of every competitor of ``plan`` (:func:`check_method`), after
    checking the whole study file: every competitor at every other scale too, and every value
    of a competitor's ``params`` that a scale's budgets replace, in that scale's company.  A
    value no run of this scale reads (``generations = -3`` under budgets that all set
    ``generations``, a typo in the paper scale found by a test run) is refused like one it
    reads, rather than kept silently until a run trips on it (FsmarenaError, one line)."""
    study = plan.study
    for scale in study.scales:
        if scale == plan.scale.name:
            continue
        try:
            for competitor in study.plan(scale, plan.seed).competitors:
                check_method(competitor.method, _check_context(plan, game, competitor.params, competitor))
        except FsmarenaError as exc:
            raise FsmarenaError(f"scale '{scale}': {exc}") from None
    for scale, budgets in study.scales.items():
        for competitor in study.plan(scale, plan.seed).competitors:
            params = next(c.params for c in study.competitors if c.name == competitor.name)
            for key in sorted(set(params) & set(budgets.budgets.get(competitor.name, {}))):
                ctx = _check_context(plan, game, {**competitor.params, key: params[key]}, competitor)
                try:
                    check_method(competitor.method, ctx)
                except FsmarenaError as exc:
                    raise FsmarenaError(
                        f"{exc} (the value of '{key}' in its params, which scale '{scale}' replaces)"
                    ) from None
    return {c.name: check_method(c.method, _check_context(plan, game, c.params, c)) for c in plan.competitors}


def _check_context(plan: Plan, game: Game, params: Mapping[str, Any], competitor: Competitor) -> MethodContext:
    """The context :func:`check_method` checks ``params`` of ``competitor`` in (no champions
    yet: only the names it ``needs``)."""
    return MethodContext(game, dict(params), 0, competitor.name, [], plan.study.curve_opponent, competitor.needs)
