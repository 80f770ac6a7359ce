"""The league stage: at the part's player count, every champion, every builtin of the panel and
the *field* (each other seat drawing a builtin at random, every game) against copies of each
other (:mod:`fsmarena.games.multiseat`).

Settings: the study's ``reference`` (a builtin of the panel, the one the league report measures
every family against) and each scale's ``league_games`` (games per ordered pair of groups).  The
league of ``n`` players uses ``SeedSequence(master, spawn_key=(LEAGUE_KEY + n,))``; its counts are
cached in ``<part>/raw/league.json`` and reused for the same plan and size.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json, write_json
from fsmarena.games import get_game
from fsmarena.games.multiseat import LeagueResult, league, pairings
from fsmarena.games.players import Mixture, resolve_player
from fsmarena.league.tables import FIELD
from fsmarena.stored_values import check_stored
from fsmarena.studies.protocol import FORMAT_VERSION, Plan, Study
from fsmarena.studies.runner import StudyData, champion_label
from fsmarena.studies.stage import Stage, StageContext

#: spawn keys of the leagues' random streams: LEAGUE_KEY + number of players
LEAGUE_KEY = 2**32 + 16


def check(study: Study) -> None:
    """``reference`` must be one of the panel's builtins; every scale needs a positive whole
    number of ``league_games``."""
    reference = study.options.get("reference")
    if not isinstance(reference, str) or reference not in study.panel:
        raise FsmarenaError(f"{study.source}: the reference '{reference}' must be one of the panel's builtins")
    for name, scale in study.scales.items():
        value = scale.options.get("league_games")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise FsmarenaError(f"{study.source}: scale '{name}' needs a positive whole number 'league_games'")


def league_games(study: Study, scale: str) -> int:
    """Games per ordered pair of groups at ``scale``."""
    return int(study.scales[scale].options["league_games"])


def entrant_names(plan: Plan) -> tuple[list[str], list[str]]:
    """The league's groups and labels, entrant by entrant: every champion (group = its
    competitor's label), every builtin of the panel (its own group) and the field."""
    groups, labels = [], []
    for c in plan.competitors:
        groups += [c.label] * c.replicates
        labels += [champion_label(c.name, r) for r in range(c.replicates)]
    names = [*plan.study.panel, FIELD]
    return groups + names, labels + names


def entrants(data: StudyData) -> tuple[list, list[str], list[str]]:
    """League entrants (:func:`entrant_names`): the players, their groups and labels; the field
    draws a builtin per seat and game."""
    plan, game = data.plan, data.game
    players: list = [rec.player for c in plan.competitors for rec in data.family(c.name)]
    players += [resolve_player(name, game) for name in plan.study.panel]
    players.append(Mixture([resolve_player(name, game) for name in plan.study.panel], label=FIELD))
    groups, labels = entrant_names(plan)
    return players, groups, labels


def run_league(ctx: StageContext) -> LeagueResult:
    """The league of the part's player count (cached in ``<part>/raw/league.json``)."""
    data, log = ctx.data, ctx.log
    plan, needed = data.plan, league_games(ctx.study, ctx.scale)
    path = data.out / "raw" / "league.json"
    if path.exists():
        try:
            cached = read_league(read_json(path, "league file"), f"league file {path}", plan, needed)
            log(f"{data.game.n_seats}-player league: reusing the finished games")
            return cached
        except FsmarenaError:
            pass
    players, groups, labels = entrants(data)
    seats = data.game.n_seats
    log(f"{seats}-player league: {len(players)} entrants, {needed:,} games per ordered pair of groups")
    seed = np.random.SeedSequence(plan.seed, spawn_key=(LEAGUE_KEY + seats,))
    result = league(data.game, players, groups, needed, seed, ctx.jobs, desc=f"league ({seats} players)")
    result.labels = labels
    write_json(path, to_json(result, plan, needed))
    return result


def to_json(result: LeagueResult, plan: Plan, needed: int) -> dict[str, Any]:
    return {"format_version": FORMAT_VERSION, "fingerprint": plan.fingerprint, "needed": needed, **result.to_json()}


def read_league(raw: Any, source: str, plan: Plan, needed: int) -> LeagueResult:
    """A league's counts (its file, or a published store's copy) validated against the plan:
    this plan's and size's, its entrants, and every pairing with the games the plan gives it."""
    f = Fields(raw, source)
    check_stored(raw, source)
    if f.get("fingerprint", str) != plan.fingerprint or f.get("needed", int) != needed:
        raise f.fail("belongs to another study protocol or league size")
    result = LeagueResult.from_json(raw, source)
    groups, labels = entrant_names(plan)
    seats = get_game(plan.study.game, plan.study.game_params).n_seats
    first, other, games = pairings(groups, needed, seats)
    if (
        result.labels != labels
        or result.groups != groups
        or result.seats != seats
        or not (
            np.array_equal(result.first, first)
            and np.array_equal(result.other, other)
            and np.array_equal(result.games, games)
        )
    ):
        raise f.fail("its entrants or pairings are not this study's")
    return result


def _to_json(result: LeagueResult, ctx: StageContext) -> dict[str, Any]:
    return to_json(result, ctx.data.plan, league_games(ctx.study, ctx.scale))


def _read(raw: Any, source: str, ctx: StageContext) -> LeagueResult:
    return read_league(raw, source, ctx.data.plan, league_games(ctx.study, ctx.scale))


STAGE = Stage("league", run_league, _to_json, _read, check=check, compares=True)
