"""The Stupide Vautour study (``fsmarena study vautour``): one definition, several player counts.

``studies/vautour.toml`` is an ordinary study definition (competitors, panel, scales) with
three more fields read here: ``players`` (the player counts, e.g. ``[2, 3]``), ``reference``
(the builtin every method is measured against, ``prize-rank``) and, per scale,
``league_games``.  For each player count the definition becomes a complete study on the
generic runner, with ``players`` added to the game parameters, run and reported in
``DIR/<n>-players/`` exactly like any other study (replicates, panel, cross-play in two-player
games, standard report).  Then, per player count, a league (:mod:`studies.multiseat`) seats
every champion, every builtin and the *field* (each other seat drawing a builtin at random,
every game) against copies of each other, and :mod:`games.vautour.report` writes the
combined tables, figures and ``DIR/report.md``.

Seeds: each player count's study uses the master seed as the generic runner does; the league
of ``n`` players uses ``SeedSequence(master, spawn_key=(LEAGUE_KEY + n,))``.  Every result file
is reused on a re-run (``DIR/vautour.json`` marks the folder with the plans' fingerprints), so
an interrupted study resumes to the same results, for any ``--jobs``.
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
from fsmarena.outdir import has_user_files
from fsmarena.version import __version__
from games import get_game
from games.players import resolve_player
from studies.methods import MethodContext, check_method
from studies.multiseat import LeagueResult, league
from studies.protocol import (
    DEFINITIONS,
    FORMAT_VERSION,
    DriverRun,
    Plan,
    Study,
    StudyDriver,
    read_toml,
    study_from_dict,
)
from studies.runner import StudyData, champion_label, measures_exploitability, run_study
from studies.stacks import Mixture

DEFINITION = DEFINITIONS / "vautour.toml"
#: the reduced two-player game the exact solution covers (every champion's exploitability)
SMALL_DEFINITION = DEFINITIONS / "vautour_small.toml"
EXPLOIT_FILE = "exploitability.json"
MARKER = "vautour.json"
#: spawn keys of the leagues' random streams: LEAGUE_KEY + number of players
LEAGUE_KEY = 2**32 + 16
FIELD = "field"


@dataclass(frozen=True)
class VautourStudy(StudyDriver):
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
        """``fsmarena study vautour ...``: run or resume, write the report, return the summary."""
        return run_vautour(self, run)

    def summary_lines(self, summary: dict[str, Any]) -> list[str]:
        from studies.report import pct

        lines: list[str] = []
        for n, rows in summary["reference"].items():
            lines.append(
                f"{n} players: win rate against {self.reference} (champions pooled over replicates, 95% Wilson CI)"
            )
            width = max(len(r["group"]) for r in rows) + 2
            for r in rows:
                lines.append(
                    f"  {r['group'].ljust(width)}{pct(r['win_rate'])}  [{pct(r['ci_low'])}, {pct(r['ci_high'])}]"
                )
        lines.append(f"report: {summary['report']}")
        return lines


def load(path: Path = DEFINITION) -> VautourStudy:
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
    return VautourStudy(base, tuple(players), reference, games)


def load_small() -> VautourStudy:
    """The reduced two-player study (``studies/vautour_small.toml``)."""
    return load(SMALL_DEFINITION)


# ---- exploitability (two players, a deck the exact solution covers) ---------------------------


def run_exploitability(data: StudyData, log: Callable[[str], None]) -> list[dict[str, Any]] | None:
    """The exact exploitability of every champion, every builtin of the panel and the
    equilibrium, with the games each champion's training simulated; ``None`` when the game is
    not solvable.  Win/draw/loss (the engine's reward): best-response value, the equilibrium's
    value against the player, exploitability; every other reward the game solves (points):
    ``exploitability_<reward>``.  Cached in ``<folder>/raw/exploitability.json``."""
    from fsmarena import progress

    game: Any = data.game
    plan = data.plan
    if not measures_exploitability(game):
        return None
    rewards = list(game.solve_rewards)
    path = data.out / "raw" / EXPLOIT_FILE
    if path.exists():
        try:
            f = Fields(read_json(path, "exploitability file"), f"exploitability file {path}")
            if f.get("fingerprint", str) == plan.fingerprint and f.get("rewards", list, []) == rewards:
                log("exploitability: reusing the computed values")
                return list(f.get("rows", list))
        except FsmarenaError:
            pass
    _, equilibrium = game.solve_equilibrium("wdl")
    entrants: list[tuple[str, str, int, Any]] = [("equilibrium", "equilibrium", 0, equilibrium)]
    for c in plan.competitors:
        for rec in data.family(c.name):
            entrants.append((champion_label(c.name, rec.replicate), c.label, int(rec.games), rec.player))
    entrants += [(name, name, 0, resolve_player(name, game)) for name in plan.study.panel]
    rows = []
    log(f"exploitability of {len(entrants)} players (exact best responses)")
    with progress.bar(len(entrants), "exploitability", "player") as bar:
        for label, group, games, player in entrants:
            start = time.perf_counter()
            values, note = _measures(game, player, rewards)
            rows.append(
                {
                    "player": label,
                    "group": group,
                    "games": games,
                    **values,
                    "seconds": round(time.perf_counter() - start, 3),
                    "note": note,
                }
            )
            bar.update(1)
    write_json(
        path, {"format_version": FORMAT_VERSION, "fingerprint": plan.fingerprint, "rewards": rewards, "rows": rows}
    )
    return rows


def _measures(game: Any, player: Any, rewards: list[str]) -> tuple[dict[str, float | None], str]:
    """One player's row values (see :func:`run_exploitability`; all None and the reason when
    its tree is too large)."""
    keys = ["best_response_value", "equilibrium_value", "exploitability"] + [f"exploitability_{r}" for r in rewards[1:]]
    try:
        first = game.exploitability(player, rewards[0])
        others = [game.exploitability(player, r)["exploitability"] for r in rewards[1:]]
        return dict(zip(keys, [first[k] for k in keys[:3]] + others)), ""
    except FsmarenaError as exc:  # a tree too large for a player with memory
        return dict.fromkeys(keys), str(exc)


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


def claim(out: Path, study: VautourStudy, scale: str, plans: Mapping[int, Plan]) -> None:
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


def entrants(data: StudyData) -> tuple[list, list[str], list[str]]:
    """League entrants: every champion (group = its competitor's label), every builtin of the
    panel (its own group) and the field (a builtin drawn per seat and game)."""
    plan, game = data.plan, data.game
    players, groups, labels = [], [], []
    for c in plan.competitors:
        for rec in data.family(c.name):
            players.append(rec.player)
            groups.append(c.label)
            labels.append(champion_label(c.name, rec.replicate))
    builtins = [resolve_player(name, game) for name in plan.study.panel]
    for name, player in zip(plan.study.panel, builtins):
        players.append(player)
        groups.append(name)
        labels.append(name)
    players.append(Mixture([resolve_player(name, game) for name in plan.study.panel], label=FIELD))
    groups.append(FIELD)
    labels.append(FIELD)
    return players, groups, labels


def run_league(data: StudyData, needed: int, jobs: int, log: Callable[[str], None]) -> LeagueResult:
    """The league of one player count (cached in ``<folder>/raw/league.json``)."""
    plan = data.plan
    players, groups, labels = entrants(data)
    path = data.out / "raw" / "league.json"
    if path.exists():
        try:
            raw = read_json(path, "league file")
            f = Fields(raw, f"league file {path}")
            if f.get("fingerprint", str) == plan.fingerprint and f.get("needed", int) == needed:
                cached = LeagueResult.from_json(raw, f.source)
                if cached.labels == labels and cached.groups == groups:
                    log(f"{game_players(data)}-player league: reusing the finished games")
                    return cached
        except FsmarenaError:
            pass
    seats = game_players(data)
    log(f"{seats}-player league: {len(players)} entrants, {needed:,} games per ordered pair of groups")
    seed = np.random.SeedSequence(plan.seed, spawn_key=(LEAGUE_KEY + seats,))
    result = league(data.game, players, groups, needed, seed, jobs, desc=f"league ({seats} players)")
    result.labels = labels
    write_json(
        path, {"format_version": FORMAT_VERSION, "fingerprint": plan.fingerprint, "needed": needed, **result.to_json()}
    )
    return result


def game_players(data: StudyData) -> int:
    return data.game.n_seats


def run_vautour(study: VautourStudy, run: DriverRun) -> dict[str, Any]:
    """Run (or resume) every player count's study and league; write every report."""
    from games.vautour.report import write_vautour_report
    from studies.analysis import analyse
    from studies.report import write_report

    started = time.perf_counter()
    scale, out, jobs, log = run.scale, run.out, run.jobs, run.log
    study.check_scale(scale, study.league_games)
    plans = study.plans(scale, run.seed)
    check_plans(plans)
    claim(out, study, scale, plans)
    results = {}
    exploits: dict[int, list[dict[str, Any]]] = {}
    for n, plan in plans.items():
        data = run_study(plan, folder(out, n), jobs, log)
        # the generic tables and report; this study's figures are drawn by its own report
        # (a policy map of 675 states would take minutes and say little)
        analysis = analyse(data, figures=False)
        write_report(data, analysis, f"{run.command}  # the {n}-player part", None)
        results[n] = (data, analysis, run_league(data, study.league_games[scale], jobs, log))
        rows = run_exploitability(data, log)
        if rows is not None:
            exploits[n] = rows
    log("tables, figures and report")
    return write_vautour_report(
        study, scale, results, out, run.figures, run.command, time.perf_counter() - started, exploitability=exploits
    )
