"""A study over several player counts (``fsmarena study vautour``): one definition, a league each.

A definition such as ``fsmarena/games/vautour/vautour.toml`` is an ordinary study definition (competitors,
panel, scales) with three more fields read here: ``players`` (the player counts, e.g. ``[2, 3]``), ``reference``
(the builtin every method is measured against, ``prize-rank``) and, per scale,
``league_games``.  For each player count the definition becomes a complete study on the
generic runner, with ``players`` added to the game parameters, run and reported in
``DIR/<n>-players/`` exactly like any other study (replicates, panel, cross-play in two-player
games, standard report).  Then, per player count, a league (:mod:`fsmarena.studies.multiseat`) seats
every champion, every builtin and the *field* (each other seat drawing a builtin at random,
every game) against copies of each other; when the game is solvable, every champion's exact
exploitability is measured (:mod:`fsmarena.studies.exploitability`); and
:mod:`fsmarena.studies.player_counts_report` writes the combined tables, figures and ``DIR/report.md``.
A finished run is stored and published like any study (:mod:`fsmarena.studies.driver_store`).

Seeds: each player count's study uses the master seed as the generic runner does; the league
of ``n`` players uses ``SeedSequence(master, spawn_key=(LEAGUE_KEY + n,))``.  Every result file
is reused on a re-run (``DIR/vautour.json`` marks the folder with the plans' fingerprints), so
an interrupted study resumes to the same results, for any ``--jobs``.  A game declares such a
study by pointing its ``studies=`` entry at a function returning :func:`load` of its file.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json, write_json
from fsmarena.games import get_game
from fsmarena.games.players import Mixture, resolve_player
from fsmarena.outdir import has_user_files
from fsmarena.stored_values import check_stored
from fsmarena.studies.analysis import analyse
from fsmarena.studies.exploitability import run_exploitability
from fsmarena.studies.methods import MethodContext, check_method
from fsmarena.studies.multiseat import LeagueResult, league, pairings
from fsmarena.studies.player_counts_report import PartData, PlayerCountRun, write_player_counts_report
from fsmarena.studies.protocol import (
    FORMAT_VERSION,
    DriverRun,
    Plan,
    Study,
    StudyDriver,
    read_toml,
    study_from_dict,
)
from fsmarena.studies.report import write_report
from fsmarena.studies.report_text import estimate
from fsmarena.studies.runner import StudyData, champion_label, run_study
from fsmarena.version import __version__

#: the run's marker (its name is the first study's; kept so that existing runs resume)
MARKER = "vautour.json"
#: spawn keys of the leagues' random streams: LEAGUE_KEY + number of players
LEAGUE_KEY = 2**32 + 16
FIELD = "field"


@dataclass(frozen=True)
class PlayerCountStudy(StudyDriver):
    """The base study and the fields that make it a several-player-count study."""

    base: Study
    players: tuple[int, ...]
    reference: str
    league_games: Mapping[str, int]

    @property
    def name(self) -> str:
        return self.base.name

    def study(self, players: int) -> Study:
        """The definition for one player count (a complete study for the generic runner)."""
        return dataclasses.replace(
            self.base,
            name=f"{self.base.name}-{players}p",
            title=f"{self.base.title} ({players} players)",
            game_params={**self.base.game_params, "players": str(players)},
        )

    def plans(self, scale: str, seed: int | None = None) -> dict[int, Plan]:
        return {n: self.study(n).plan(scale, seed) for n in self.players}

    def run_driver(self, run: DriverRun) -> dict[str, Any]:
        """``fsmarena study <name> ...``: run or resume, write the report, return the summary."""
        return run_player_counts(self, run)

    def summary_lines(self, summary: dict[str, Any]) -> list[str]:
        lines: list[str] = []
        for n, rows in summary["reference"].items():
            lines.append(
                f"{n} players: win rate against {self.reference} (mean over champions, 95% interval over them)"
            )
            width = max(len(r["group"]) for r in rows) + 2
            for r in rows:
                shown = estimate(
                    r["win_rate"], r["ci_low"], r["ci_high"], r["all_equal"], r["pairings"], unit="pairings"
                )
                lines.append(f"  {r['group'].ljust(width)}{shown}")
        lines.append(f"report: {summary['report']}")
        return lines


def load(path: Path) -> PlayerCountStudy:
    """Read and validate the definition (the generic fields by the generic reader)."""
    data = read_toml(path)
    base = study_from_dict(
        data, f"study file {path.name}", extra_fields=("players", "reference"), extra_scale_fields=("league_games",)
    )
    source = Fields(data, f"study file {path.name}")
    players = source.get("players", list)
    if (
        not players
        or not all(isinstance(p, int) and not isinstance(p, bool) and 2 <= p <= 5 for p in players)
        or len(set(players)) != len(players)
    ):
        raise source.fail("'players' must be a list of different player counts between 2 and 5")
    reference = source.get("reference", str)
    if reference not in base.panel:
        raise source.fail(f"the reference '{reference}' must be one of the panel's builtins")
    if "players" in base.game_params:
        raise source.fail("give the player counts in 'players', not in game_params")
    games = {}
    for scale, table in data.get("scales", {}).items():
        value = table.get("league_games") if isinstance(table, dict) else None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise source.fail(f"scale '{scale}' needs a positive whole number 'league_games'")
        games[scale] = value
    return PlayerCountStudy(base, tuple(players), reference, games)


# ---- the run ----------------------------------------------------------------------------------


def check_plans(plans: Mapping[int, Plan]) -> None:
    """Every game, builtin and competitor setting, before anything is written."""
    for plan in plans.values():
        game = get_game(plan.study.game, plan.study.game_params)
        for name in plan.study.panel + (plan.study.curve_opponent,):
            resolve_player(name, game)
        for c in plan.competitors:
            check_method(
                c.method, MethodContext(game, dict(c.params), 0, c.name, [], plan.study.curve_opponent, c.needs)
            )


def claim(out: Path, study: PlayerCountStudy, scale: str, plans: Mapping[int, Plan]) -> None:
    """Make ``out`` this run's folder: new, empty, or marked by the same plans."""
    ours = {
        "study": study.name,
        "scale": scale,
        "seed": next(iter(plans.values())).seed,
        "fingerprints": {str(n): p.fingerprint for n, p in plans.items()},
        "league_games": study.league_games[scale],
    }
    marker = out / MARKER
    if out.exists() and not out.is_dir():
        raise FsmarenaError(f"output path {out} is not a folder")
    if marker.exists():
        theirs = Fields(read_json(marker, "study marker"), f"study marker {marker}").data
        if {k: theirs.get(k) for k in ours} != ours:
            raise FsmarenaError(
                f"{out} holds another run (study '{theirs.get('study')}', scale {theirs.get('scale')}, "
                f"seed {theirs.get('seed')}): choose another --out"
            )
        return
    if has_user_files(out):  # the lock and kind files of fsmarena.outdir do not count
        raise FsmarenaError(f"{out} is not empty and holds no study results; choose a new or empty --out")
    write_json(marker, {"format_version": FORMAT_VERSION, **ours, "fsmarena": __version__})


def folder(out: Path, players: int) -> Path:
    return out / f"{players}-players"


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


def run_league(data: StudyData, needed: int, jobs: int, log: Callable[[str], None]) -> LeagueResult:
    """The league of one player count (cached in ``<folder>/raw/league.json``)."""
    plan = data.plan
    path = data.out / "raw" / "league.json"
    if path.exists():
        try:
            cached = read_league(read_json(path, "league file"), f"league file {path}", plan, needed)
            log(f"{game_players(data)}-player league: reusing the finished games")
            return cached
        except FsmarenaError:
            pass
    players, groups, labels = entrants(data)
    seats = game_players(data)
    log(f"{seats}-player league: {len(players)} entrants, {needed:,} games per ordered pair of groups")
    seed = np.random.SeedSequence(plan.seed, spawn_key=(LEAGUE_KEY + seats,))
    result = league(data.game, players, groups, needed, seed, jobs, desc=f"league ({seats} players)")
    result.labels = labels
    write_json(
        path, {"format_version": FORMAT_VERSION, "fingerprint": plan.fingerprint, "needed": needed, **result.to_json()}
    )
    return result


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


def game_players(data: StudyData) -> int:
    return data.game.n_seats


def run_player_counts(study: PlayerCountStudy, run: DriverRun) -> dict[str, Any]:
    """Run (or resume) every player count's study and league; write every report."""
    started = time.perf_counter()
    scale, out, jobs, log = run.scale, run.out, run.jobs, run.log
    study.check_scale(scale, study.league_games)
    plans = study.plans(scale, run.seed)
    check_plans(plans)
    claim(out, study, scale, plans)
    parts = {}
    for n, plan in plans.items():
        data = run_study(plan, folder(out, n), jobs, log)
        # the generic tables and report; this study's figures are drawn by the combined report
        # (a policy map of 675 states would take minutes and say little)
        write_report(data, analyse(data, figures=False), f"{run.command}  # the {n}-player part", None)
        league_result = run_league(data, study.league_games[scale], jobs, log)
        parts[n] = PartData(data, league_result, run_exploitability(data, log))
    log("tables, figures and report")
    record = PlayerCountRun(
        study.name,
        study.base.title,
        study.base.version,
        study.base.question,
        scale,
        study.reference,
        study.league_games[scale],
        parts,
    )
    return write_player_counts_report(record, out, run.figures, run.command, time.perf_counter() - started)
