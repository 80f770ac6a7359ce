"""The tuning stage: every tuned family's settings searched before it trains, at equal cost.

A competitor that declares a search space tunes its settings::

    [[competitors]]
    name = "q-learning-tuned"
    method = "train"
    params = { algo = "q-learning" }
    tune = { alpha = { float = [0.02, 0.5], log = true }, epsilon = { float = [0.01, 0.3], log = true } }

Before any replicate of a part trains (:attr:`fsmarena.studies.stage.Stage.prepare`), at every
budget level of the run, a seeded search (:mod:`fsmarena.tuning`: random search, or Optuna's TPE
with ``algorithm = "optuna"``) trains the family with trial settings at the level's budget and
scores each trained player against the tuning opponents over ``eval_games`` games each, on seeds
no stream of the study uses (:data:`fsmarena.tuning.family.TUNING_KEY`): settings are never chosen
on the games that judge them.  Every tuned family gets the same tuning budget, the games of
``tuning_runs`` training runs at the level (a scale field, default 10), so the tuning costs of two
families are within the 10% their budgets are.  The best trial's settings then replace the
family's, in the plan (and its fingerprint) its replicates train with.  Scoring games are not
counted, as a learning curve's are not.

Settings: the study's ``tuning`` table (``opponents``, default the panel; ``eval_games``, default
1000; ``algorithm``, ``random`` or ``optuna``) and each scale's ``tuning_runs``.  Each family's
search is recorded in ``<part>/tuning/<competitor>.json`` (written after every trial, resumed);
the stage's result, every tuned family's record, is kept by the store and shown by the report's
tuning section (:mod:`fsmarena.tuning.report`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Mapping

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json
from fsmarena.stored_values import check_stored
from fsmarena.studies.budgets import UNIT_PARAMS
from fsmarena.studies.protocol import Competitor, Plan, Study
from fsmarena.studies.runner import StudyData
from fsmarena.studies.stage import PrepareContext, Stage, StageContext
from fsmarena.tuning.family import FamilyObjective
from fsmarena.tuning.record import finished_record, identity, run_tuning
from fsmarena.tuning.search import planned_trials
from fsmarena.tuning.space import parse_space

#: the ``tuning`` table's defaults: scoring games per trial and opponent, the search, runs per family
EVAL_GAMES = 1000
ALGORITHMS = ("random", "optuna")
TUNING_RUNS = 10
MAX_TUNING_RUNS = 1000


def options(study: Study) -> dict[str, Any]:
    """The study's ``tuning`` table with its defaults: ``opponents``, ``eval_games``, ``algorithm``."""
    given = dict(study.options.get("tuning", {}))
    return {
        "opponents": list(given.get("opponents", study.panel)),
        "eval_games": given.get("eval_games", EVAL_GAMES),
        "algorithm": given.get("algorithm", "random"),
    }


def tuning_runs(study: Study, scale: str) -> int:
    """Training runs' worth of games each tuned family searches with at ``scale``."""
    return int(study.scales[scale].options.get("tuning_runs", TUNING_RUNS))


def check(study: Study) -> None:
    """At least one tuned competitor, each with a valid space that leaves its budget to the study
    and training on its own; a well-formed ``tuning`` table and ``tuning_runs``."""
    if not any(c.tune for c in study.competitors):
        raise FsmarenaError(f"{study.source}: stage 'tuning' needs a competitor with a search space (tune)")
    for c in study.competitors:
        if c.tune:
            _check_space(study, c)
    given = study.options.get("tuning", {})
    if not isinstance(given, Mapping) or set(given) - {"opponents", "eval_games", "algorithm"}:
        raise FsmarenaError(f"{study.source}: field 'tuning' takes only opponents, eval_games and algorithm")
    o = options(study)
    if not o["opponents"] or not all(isinstance(name, str) for name in o["opponents"]):
        raise FsmarenaError(f"{study.source}: tuning.opponents must name at least one player")
    games = o["eval_games"]
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= limits.MAX_GAMES:
        raise FsmarenaError(f"{study.source}: tuning.eval_games must be a whole number from 1 to {limits.MAX_GAMES:,}")
    if o["algorithm"] not in ALGORITHMS:
        raise FsmarenaError(f"{study.source}: tuning.algorithm must be one of {', '.join(ALGORITHMS)}")
    for name, scale in study.scales.items():
        runs = scale.options.get("tuning_runs", TUNING_RUNS)
        if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_TUNING_RUNS:
            raise FsmarenaError(
                f"{study.source}: scale '{name}': tuning_runs must be a whole number from 1 to {MAX_TUNING_RUNS}"
            )


def _check_space(study: Study, c: Competitor) -> None:
    where = f"{study.source}: competitor '{c.name}'"
    parse_space(c.tune, f"{where}: tune")
    if UNIT_PARAMS.get(c.method) in c.tune:
        raise FsmarenaError(
            f"{where}: tune cannot search '{UNIT_PARAMS[c.method]}': the study sets every family's budget"
        )
    if c.needs:
        raise FsmarenaError(f"{where}: a family that trains against other families' champions cannot be tuned")


def objective(study: Study, plan: Plan, competitor: Competitor) -> FamilyObjective:
    """What tuning ``competitor`` optimises: its method and parameters at the plan's level, scored
    against the tuning opponents, on the tuning streams of the plan's seed."""
    o = options(study)
    s = plan.study
    return FamilyObjective(
        s.game,
        competitor.method,
        dict(competitor.params),
        competitor.name,
        tuple(o["opponents"]),
        o["eval_games"],
        plan.seed,
        dict(s.game_params),
        s.curve_opponent,
    )


def record_path(out: Path, competitor: str) -> Path:
    return out / "tuning" / f"{competitor}.json"


def search(ctx: PrepareContext, competitor: Competitor) -> dict[str, Any]:
    """``competitor``'s finished search in the part's folder: run (resumed) now, or, reading a
    finished run, read back (one clear error if it is missing or unfinished)."""
    goal = objective(ctx.study, ctx.plan, competitor)
    space = parse_space(competitor.tune, f"competitor '{competitor.name}': tune")
    one_run = goal.cost({})  # the family's budget at this level
    budget = tuning_runs(ctx.study, ctx.scale) * one_run
    algorithm = options(ctx.study)["algorithm"]
    path = record_path(ctx.out, competitor.name)
    if not ctx.run:
        found = finished_record(path, identity(goal, space, budget, algorithm, ctx.plan.study.name))
        if found is None:
            raise FsmarenaError(f"{ctx.out} is not a finished run: the tuning of '{competitor.name}' did not finish")
        return found
    planned = (
        [games for _, games in planned_trials(space, goal.cost, budget, goal.seed)] if algorithm == "random" else []
    )
    _check_costs(competitor, planned, one_run)  # before anything runs, where the trials are known
    ctx.log(f"tuning {competitor.name}: {budget:,} games ({algorithm} search), recorded in {path}")
    record = run_tuning(goal, space, budget, algorithm, ctx.plan.study.name, path, ctx.jobs)
    _check_costs(competitor, [trial["games"] for trial in record["trials"]], one_run)
    return record


def _check_costs(competitor: Competitor, trial_games: list[int], budget: int) -> None:
    """Every trial must consume the family's budget: a setting that changes it (a population, the
    games per pair) would leave the tuned family at another budget than the study's."""
    if any(games != budget for games in trial_games):
        raise FsmarenaError(
            f"competitor '{competitor.name}': its search space changes the games a training run consumes "
            f"(a trial would consume {max(trial_games):,} where its budget is {budget:,}): search only "
            "settings that leave the budget as the study sets it"
        )


def prepare(ctx: PrepareContext) -> Plan:
    """The plan with every tuned family's chosen settings (module docstring)."""
    competitors = []
    for c in ctx.plan.competitors:
        if c.tune:
            c = dataclasses.replace(c, params={**c.params, **search(ctx, c)["chosen"]})
        competitors.append(c)
    return dataclasses.replace(ctx.plan, competitors=tuple(competitors))


def applies(data: StudyData) -> bool:
    return any(c.tune for c in data.plan.competitors)


def run(ctx: StageContext) -> dict[str, dict[str, Any]]:
    """Every tuned family's finished record, as :func:`prepare` searched (or checked) it before
    training: read back from the part's folder."""
    found = {}
    for c in ctx.data.plan.competitors:
        if c.tune:
            path = record_path(ctx.data.out, c.name)
            found[c.name] = _read_record(Fields(read_json(path, "tuning record"), f"tuning record {path}"), c)
    return found


def to_json(result: dict[str, dict[str, Any]], ctx: StageContext) -> dict[str, Any]:
    return result


def read(raw: Any, source: str, ctx: StageContext) -> dict[str, dict[str, Any]]:
    """Stored records: one per tuned family of the plan, each well formed, finished, and
    choosing the settings the family's replicates trained with."""
    plan = ctx.data.plan
    tuned = {c.name: c for c in plan.competitors if c.tune}
    stored = Fields(raw, source)
    if set(stored.data) != set(tuned):
        raise stored.fail(f"must hold exactly the tuning of {', '.join(tuned)}")
    check_stored(raw, source)
    return {name: _read_record(Fields(stored.get(name, dict), f"{source}: {name}"), c) for name, c in tuned.items()}


def _read_record(f: Fields, competitor: Competitor) -> dict[str, Any]:
    if f.get("complete", bool) is not True:
        raise f.fail("is not a finished search")
    chosen = f.get("chosen", dict)
    if set(chosen) != set(competitor.tune) or any(competitor.params.get(k) != v for k, v in chosen.items()):
        raise f.fail("did not choose the settings its family trained with")
    trials = f.get("trials", list)
    games = 0
    for i, raw in enumerate(trials):
        t = Fields(raw, f"{f.source}: trial {i}")
        if t.get("index", int) != i or set(t.get("settings", dict)) != set(competitor.tune):
            raise t.fail("is not the search's trial in order")
        games += t.int_in("games", 1, limits.MAX_GAMES)
        t.number_in("score", 0.0, 1e12)
    if not trials or f.get("tuning_games", int) != games:
        raise f.fail("its tuning games are not the sum of its trials'")
    f.get("identity", dict), f.get("defaults", dict), f.get("scoring_games", int)
    f.number_in("chosen_score", 0.0, 1e12)
    return dict(f.data)


STAGE = Stage("tuning", run, to_json, read, applies, check, compares=True, prepare=prepare)
