"""Running a study: one task per (replicate, competitor), resumable, then the cross-play.

Layout of the output folder ``DIR``::

    study.json                      ownership marker: study, scale, seed, plan fingerprint
    replicates/<competitor>/rNNN.json   one finished task: player, curve, panel results, seeds
                                    (and, in a solvable zero-sum game, each curve point's exploitability)
    players/<competitor>/rNNN.json      the final player, loadable by ``fsmarena play``
    raw/crossplay.json              every champion pairing's win/draw/loss counts

A task trains one competitor in one replicate and measures the final player against every
builtin of the study's panel.  Its result file records the simulated games the training
consumed (``games``, the family's budget: :mod:`fsmarena.studies.budgets`); a task whose count differs
from what its method's settings plan is refused before anything is written.  This process
writes its result file atomically as soon as it arrives, so workers need no access to ``DIR``
(on a cluster they may be other machines with other disks; the champions a task ``needs``
travel with it).  Tasks run in dependency stages
(a competitor that ``needs`` others runs after them, with their champions of the same
replicate), in parallel with joblib.  A re-run of the same command skips every task whose
result file exists and validates, so an interrupted study finishes with exactly the results
of an uninterrupted one: each task's randomness comes only from its own seed (see
:mod:`fsmarena.studies.protocol`).  It trusts nothing else: a skipped task's player file is read back
and written again from its result file when it is missing, damaged or another player
(:func:`reusable_tasks`).

In a game that declares :class:`fsmarena.games.capabilities.ZeroSumSolvable` and is solvable with the
study's parameters, a task also measures the exact exploitability of the player of every
learning-curve point (the method's snapshots, see :class:`fsmarena.methods.base.Trained`), for every
reward the game solves (``solve_rewards``), and stores it beside the curve
(``curve_exploitability``: reward -> one value per curve point), so a study can plot how far
training is from the equilibrium against the games it consumed.  Other games' result files are
unchanged.

``DIR`` must be new, empty or hold a run of the same study, scale and seed; a folder holding
anything else is refused before anything is written.  When the study's definition changed since
(a family added, removed or changed), the run goes on in the same folder: a task is kept when
its result carries this plan's fingerprint of that task (:meth:`Plan.task_fingerprint`, which
every family the change did not touch keeps), and every stage after training runs again.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, check_output_file, dumps, read_json, write_json
from fsmarena.games import get_game
from fsmarena.games.base import Game
from fsmarena.games.capabilities import ZeroSumSolvable
from fsmarena.games.crossplay import CrossplayResult
from fsmarena.games.match import play_match
from fsmarena.games.outside_player import OutsidePlayer
from fsmarena.games.players import Player, load_player, player_from_json, player_to_json, resolve_player
from fsmarena.methods.base import MethodContext, Trained, get_method, planned_games, require_method
from fsmarena.methods.generic import outside_player
from fsmarena.outdir import claim_folder, has_user_files
from fsmarena.parallel import iter_tasks
from fsmarena.stored_values import check_stored
from fsmarena.studies.budgets import plan_budgets, smallest_budget
from fsmarena.studies.competitors import check_competitors
from fsmarena.studies.protocol import FORMAT_VERSION, Plan, seed_int
from fsmarena.text import clean_text
from fsmarena.version import __version__

MARKER = "study.json"


@dataclass
class Record:
    """One finished task, as read back from its result file."""

    competitor: str
    replicate: int
    seed: int
    player: Player
    games: int
    curve_games: list[int]
    curve_win: list[float]
    panel: dict[str, dict[str, float]]
    info: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    train_seconds: float = 0.0
    panel_seconds: float = 0.0
    cpu_seconds: float = 0.0
    #: per reward, the exploitability of the player at each curve point (None: not measured, or
    #: too large to measure); None for games without the exact measure
    curve_exploitability: dict[str, list[float | None]] | None = None
    #: the result as read (its file's content, validated), which a published store keeps without the player
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class StudyData:
    """Every replicate of one finished plan, and what the stages measured of its champions:
    what statistics, figures and the report read."""

    plan: Plan
    game: Game
    records: dict[tuple[str, int], Record]
    out: Path
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the fsmarena and package versions and the platform a published run recorded
    #: (:mod:`fsmarena.studies.store`); None: a run of this very installation
    environment: dict[str, str] | None = None
    #: what a published run kept of the measures that play its players (machine sizes,
    #: fingerprints, best-known lines: :mod:`fsmarena.studies.store`); None: measure the players themselves
    kept: dict[str, Any] | None = None
    #: each stage's result, by stage name (:mod:`fsmarena.studies.stage`), in the order they ran
    stages: dict[str, Any] = field(default_factory=dict)

    @property
    def crossplay(self) -> CrossplayResult | None:
        """The cross-play stage's counts (None where it did not run: one-seat games)."""
        return self.stages.get("crossplay")

    def family(self, competitor: str) -> list[Record]:
        """The records of every replicate of one competitor, in replicate order."""
        return [self.records[(competitor, r)] for r in range(self.plan.competitor(competitor).replicates)]

    def budget(self, competitor: str) -> int:
        """The family's budget: the median of the simulated games its replicates consumed."""
        return int(np.median([r.games for r in self.family(competitor)]))

    def evolution_curve_opponent(self) -> str:
        """Whom the evolved families' learning curves were measured against: the study's curve
        opponent, as the learners' curves are, or ``random`` for a run made before evolution
        measured its curves against it (its records name no ``curve_opponent``).  A one-player
        game's curves are scores played alone: the study's curve opponent names no player there."""
        if self.game.n_seats == 1:
            return self.plan.study.curve_opponent
        named = sorted(
            {str(r.info.get("curve_opponent", "random")) for r in self.records.values() if "generations" in r.info}
        )
        return " or ".join(named) if named else self.plan.study.curve_opponent


def champion_label(competitor: str, replicate: int) -> str:
    return f"{competitor}/r{replicate:03d}"


def result_path(out: Path, competitor: str, replicate: int) -> Path:
    return out / "replicates" / competitor / f"r{replicate:03d}.json"


def player_path(out: Path, competitor: str, replicate: int) -> Path:
    return out / "players" / competitor / f"r{replicate:03d}.json"


# ---- ownership -------------------------------------------------------------------------------


def claim(out: Path, plan: Plan, log: Callable[[str], None] = lambda message: None) -> bool:
    """Make ``out`` this plan's folder; True if it already was a run of the same study, scale
    and seed (a resumed run; when its plan was another, the marker now names this one).

    Refuses, without writing anything, a folder that holds another study's results or any
    other files.
    """
    marker = out / MARKER
    if out.exists() and not out.is_dir():
        raise FsmarenaError(f"output path {out} is not a folder")
    if marker.exists():
        fields = Fields(read_json(marker, "study marker"), f"study marker {marker}")
        theirs = (fields.get("study", str), fields.get("scale", str), fields.get("seed", int))
        ours = (plan.study.name, plan.scale.name, plan.seed)
        if theirs != ours:
            raise FsmarenaError(
                f"{out} holds the results of study '{clean_text(theirs[0], 80)}' (scale {clean_text(theirs[1], 40)}, "
                f"seed {theirs[2]}), not of this run ('{ours[0]}', scale {ours[1]}, seed {ours[2]}); choose another --out"
            )
        if fields.get("fingerprint", str) != plan.fingerprint:
            log(
                f"{out} was run with another definition of study '{plan.study.name}' (protocol "
                f"{clean_text(fields.get('fingerprint', str), 40)}, now {plan.fingerprint}): the tasks of every family "
                "it did not change are kept, the others and every stage after training run again"
            )
            _write_marker(marker, plan)
        return True
    if has_user_files(out):  # the lock and kind files of fsmarena.outdir do not count
        raise FsmarenaError(f"{out} is not empty and holds no study results; choose a new or empty --out")
    _write_marker(marker, plan)
    return False


def _write_marker(marker: Path, plan: Plan) -> None:
    write_json(
        marker,
        {
            "format_version": FORMAT_VERSION,
            "study": plan.study.name,
            "scale": plan.scale.name,
            "seed": plan.seed,
            "fingerprint": plan.fingerprint,
            "fsmarena": __version__,
            "plan": plan.to_json(),
        },
    )


# ---- exploitability along the curve ----------------------------------------------------------


def measures_exploitability(game: Game) -> bool:
    """Whether the game gives every player an exact exploitability (a solvable zero-sum game)."""
    return isinstance(game, ZeroSumSolvable) and game.solvable()


def curve_exploitability(game: Game, trained: Trained) -> dict[str, list[float | None]]:
    """Per reward the game solves, the exploitability of each snapshot of ``trained``, one per
    curve point (all None when the method keeps no snapshots; None for a player whose best
    response is too large to compute).  Equal snapshots are measured once."""
    assert isinstance(game, ZeroSumSolvable)
    rewards = game.solve_rewards
    if not trained.snapshots:
        return {reward: [None] * len(trained.curve_games) for reward in rewards}
    if len(trained.snapshots) != len(trained.curve_games):
        raise FsmarenaError(
            f"{trained.player.label}: {len(trained.snapshots)} snapshots for {len(trained.curve_games)} curve points"
        )
    keys = [dumps({**player_to_json(player, game), "label": ""}) for player in trained.snapshots]
    distinct = dict(zip(keys, trained.snapshots))
    known = {
        (reward, key): _exploitability(game, player, reward) for key, player in distinct.items() for reward in rewards
    }
    return {reward: [known[reward, key] for key in keys] for reward in rewards}


def _exploitability(game: ZeroSumSolvable, player: Player, reward: str) -> float | None:
    """One player's exploitability for one reward; None when its best response is too large."""
    try:
        return float(game.exploitability(player, reward)["exploitability"])
    except FsmarenaError:  # a tree too large for a player with memory
        return None


# ---- tasks ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Task:
    plan: Plan
    competitor: str
    replicate: int
    settings: dict[str, Any]
    #: the player files (JSON) of the champions this task ``needs``, same replicate
    opponents: tuple[dict[str, Any], ...]


def _run_task(task: _Task) -> dict[str, Any]:
    """Train and measure against the panel (in the worker); returns the result file's content."""
    plan, name, r = task.plan, task.competitor, task.replicate
    study = plan.study
    game = get_game(study.game, study.game_params)
    competitor = plan.competitor(name)
    opponents = [
        player_from_json(data, game, f"champion '{need}' of replicate {r}")
        for need, data in zip(competitor.needs, task.opponents)
    ]
    seed = seed_int(plan.task_seed(r, name, "train"))
    label = champion_label(name, r)
    ctx = MethodContext(game, dict(competitor.params), seed, label, opponents, study.curve_opponent, competitor.needs)
    cpu_start = time.process_time()
    start = time.perf_counter()
    trained = get_method(competitor.method)(ctx)
    train_seconds = time.perf_counter() - start
    player = trained.player
    player.label = label
    start = time.perf_counter()
    panel = {}
    seeds = plan.task_seed(r, name, "panel").spawn(len(study.panel))
    for opponent, child in zip(study.panel, seeds):
        stats = play_match(game, player, resolve_player(opponent, game), plan.scale.panel_games, child)
        panel[opponent] = {
            "games": stats.games,
            "wins": stats.wins,
            "draws": stats.draws,
            "losses": stats.losses,
            "score": stats.score,
            "opp_score": stats.opp_score,
        }
    panel_seconds = time.perf_counter() - start
    extra: dict[str, Any] = {}
    if measures_exploitability(game):
        start = time.perf_counter()
        extra["curve_exploitability"] = curve_exploitability(game, trained)
        extra["exploitability_seconds"] = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    planned = planned_games(competitor.method, task.settings, game)
    if trained.games != planned:  # a method's accounting is wrong: its budget would be misreported
        raise FsmarenaError(
            f"competitor '{name}' replicate {r} consumed {trained.games:,} simulated games; "
            f"its settings plan {planned:,} (fsmarena/studies/budgets.py)"
        )
    return {
        "format_version": FORMAT_VERSION,
        "fingerprint": plan.task_fingerprint(name),
        "competitor": name,
        "replicate": r,
        "seed": seed,
        "player": player_to_json(player, game),
        "games": int(trained.games),
        "curve_games": [int(g) for g in trained.curve_games],
        "curve_win": [float(w) for w in trained.curve_win],
        "panel": panel,
        "info": trained.info,
        "settings": task.settings,
        "train_seconds": train_seconds,
        "panel_seconds": panel_seconds,
        "cpu_seconds": cpu_seconds,
        **extra,
    }


def _save_result(out: Path, result: dict[str, Any]) -> None:
    """Write a finished task's player and result files (atomically; the player first, so a
    result file always has its player beside it)."""
    name, r = result["competitor"], result["replicate"]
    write_json(player_path(out, name, r), result["player"])
    write_json(result_path(out, name, r), result)


def read_record(out: Path, plan: Plan, game: Game, competitor: str, replicate: int, settings: dict[str, Any]) -> Record:
    """Read and validate one task's result file (FsmarenaError if missing, not this plan's, or
    computed under other resolved settings, e.g. by a version with other defaults)."""
    path = result_path(out, competitor, replicate)
    return parse_record(
        read_json(path, "study result"), f"study result {path}", plan, game, competitor, replicate, settings
    )


def parse_record(
    data: Any,
    source: str,
    plan: Plan,
    game: Game,
    competitor: str,
    replicate: int,
    settings: dict[str, Any],
    player: Player | None = None,
) -> Record:
    """Validate one task's result (the content of its result file) into a :class:`Record`.

    ``player`` stands in for the result's own player when given: a published store
    (:mod:`fsmarena.studies.store`) keeps every result but no player."""
    f = Fields(data, source)
    if f.get("format_version", int) != FORMAT_VERSION:
        raise f.fail("unsupported format_version")
    # a task's own fingerprint; a run before task fingerprints wrote the whole plan's
    if f.get("fingerprint", str) not in (plan.task_fingerprint(competitor), plan.fingerprint):
        raise f.fail("belongs to another study protocol")
    if f.get("competitor", str) != competitor or f.get("replicate", int) != replicate:
        raise f.fail("competitor or replicate does not match its file name")
    if f.get("settings", dict) != settings:
        raise f.fail("computed with other settings (another version of a method's defaults?)")
    curve_games = f.get("curve_games", list)
    curve_win = f.get("curve_win", list)
    if len(curve_games) != len(curve_win):
        raise f.fail("curve_games and curve_win differ in length")
    curve_games = f.int_array("curve_games", (len(curve_games),), 0, 2**62).tolist()
    curve_win = f.float_array("curve_win", (len(curve_win),), 0.0, 1.0).tolist()
    exploitability = _read_curve_exploitability(f, len(curve_games), game)
    panel_data = Fields(f.get("panel", dict), f"{f.source}: panel")
    panel = {}
    for opponent in plan.study.panel:
        entry = Fields(panel_data.get(opponent, dict), f"{f.source}: panel '{opponent}'")
        counts = {k: entry.int_in(k, 0, plan.scale.panel_games) for k in ("games", "wins", "draws", "losses")}
        if (
            counts["games"] != plan.scale.panel_games
            or counts["wins"] + counts["draws"] + counts["losses"] != counts["games"]
        ):
            raise f.fail(f"inconsistent panel counts against '{opponent}'")
        panel[opponent] = {**counts, "score": entry.get("score", float), "opp_score": entry.get("opp_score", float)}
    check_stored(data, source)  # every count, rate, time and seed in range (fsmarena.stored_values)
    if player is None:
        player = _outside(f, plan, game, competitor)
    return Record(
        competitor=competitor,
        replicate=replicate,
        seed=f.get("seed", int),
        player=player if player is not None else player_from_json(f.get("player", dict), game, f"{f.source}: player"),
        games=f.get("games", int),
        curve_games=curve_games,
        curve_win=curve_win,
        panel=panel,
        info=f.get("info", dict, {}),
        settings=settings,
        train_seconds=f.get("train_seconds", float, 0.0),
        panel_seconds=f.get("panel_seconds", float, 0.0),
        cpu_seconds=f.get("cpu_seconds", float, 0.0),
        curve_exploitability=exploitability,
        raw=dict(data),
    )


def _outside(f: Fields, plan: Plan, game: Game, competitor: str) -> Player | None:
    """An outside player's result holds only its entry: the study that names that entry rebuilds
    it (:mod:`fsmarena.games.outside_player`); None for every other player (read from the file)."""
    stored = Fields(f.get("player", dict), f"{f.source}: player")
    if stored.get("kind", str) != OutsidePlayer.kind:
        return None
    c = plan.competitor(competitor)
    if c.method != "python" or stored.get("entry", str) != c.params.get("entry"):
        raise f.fail("holds an outside player its study does not name")
    return outside_player(stored.get("entry", str), game, champion_label(competitor, f.get("replicate", int)))


def _read_curve_exploitability(f: Fields, points: int, game: Game) -> dict[str, list[float | None]] | None:
    """The stored exploitability along the curve: required when the game measures it (per
    reward it solves, one value or null per curve point, each finite and at least 0 up to
    rounding), else absent."""
    if not measures_exploitability(game):
        return None
    assert isinstance(game, ZeroSumSolvable)
    stored = f.get("curve_exploitability", dict)  # missing: a file from before the measure, stale
    out: dict[str, list[float | None]] = {}
    for reward in game.solve_rewards:
        values = stored.get(reward)
        if (
            not isinstance(values, list)
            or len(values) != points
            or not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in values)
            or not all(v is None or (math.isfinite(v) and v >= -1e-6) for v in values)
        ):
            raise f.fail(f"curve_exploitability '{reward}' must hold one value of at least 0 (or null) per curve point")
        out[reward] = [None if v is None else float(v) for v in values]
    if set(stored) != set(out):
        raise f.fail(f"curve_exploitability must hold exactly the rewards {', '.join(out)}")
    return out


def reusable_tasks(
    out: Path, plan: Plan, game: Game, settings: dict[str, dict[str, Any]], log: Callable[[str], None]
) -> set[tuple[str, int]]:
    """The tasks of ``plan`` a re-run keeps, as ``(competitor, replicate)``: those whose result
    file validates (:func:`read_record`).  Nothing else in ``out`` is trusted:

    * a result file that is missing, damaged or stale is not reused: its task runs again, and
      both its files are checked now to be writable (a folder or a FIFO where a file belongs is
      refused in one line before any work, not after the training);
    * a kept task's player file (``players/``, what ``fsmarena play`` reads) is read with the
      player reader and compared with the player of its result file; missing, damaged (NaN,
      empty, nested too deeply, a link to a device or a folder) or different, it is written
      again from the result file, the very player a recomputation would give.
    """
    kept = set()
    for competitor in plan.competitors:
        for replicate in range(competitor.replicates):
            try:
                record = read_record(out, plan, game, competitor.name, replicate, settings[competitor.name])
            except FsmarenaError:  # missing, unreadable or stale: run it again (written atomically)
                check_output_file(result_path(out, competitor.name, replicate))
                check_output_file(player_path(out, competitor.name, replicate))
                continue
            _restore_player(out, game, record, log)
            kept.add((competitor.name, replicate))
    return kept


def _restore_player(out: Path, game: Game, record: Record, log: Callable[[str], None]) -> None:
    """Write a kept task's player file again from its result unless it holds that very player."""
    path = player_path(out, record.competitor, record.replicate)
    expected = player_to_json(record.player, game)
    try:
        if isinstance(record.player, OutsidePlayer) and read_json(path, "player file") == expected:
            return  # kept by its entry: no file reads it back alone
        if player_to_json(load_player(path, game), game) == expected:
            return
    except FsmarenaError:
        pass
    write_json(path, expected)  # a folder or a FIFO there is refused in one line
    log(f"{path} was missing, damaged or not its result's player: written again from its result file")


# ---- the whole run ----------------------------------------------------------------------------


def run_study(
    plan: Plan,
    out: str | Path,
    jobs: int = 1,
    log: Callable[[str], None] | None = None,
    prepare: Callable[[Plan], Plan] | None = None,
) -> StudyData:
    """Run (or resume) every task of ``plan`` in ``out`` (its stages run after: :mod:`fsmarena.studies.pipeline`).

    ``prepare``, called once ``out`` is claimed (its marker names ``plan``, the study as defined),
    returns the plan the tasks run with: the tuning stage's, with the tuned families' chosen settings."""
    out = Path(out)
    log = log or (lambda message: print(message, file=sys.stderr))
    game = get_game(plan.study.game, plan.study.game_params)
    for name in plan.study.panel + (plan.study.curve_opponent,):
        resolve_player(name, game)  # unknown builtins fail before any work
    check_competitors(plan, game)  # typos and impossible settings fail here, before anything is written
    for method in dict.fromkeys(c.method for c in plan.competitors):
        require_method(method)  # what training needs installed (an optional extra), before any task
    claim_folder(out, "study")  # locked for this run (idempotent if the command claimed it already)
    resumed = claim(out, plan, log)
    if prepare is not None:
        plan = prepare(plan)
    settings = check_competitors(plan, game)
    finished = reusable_tasks(out, plan, game, settings, log)
    log(
        f"{plan.study.name} at scale {plan.scale.name}: {len(plan.competitors)} competitors, "
        f"{sum(c.replicates for c in plan.competitors)} replicate tasks, seed {plan.seed}, into {out}"
    )
    log(budget_summary(plan, plan_budgets(plan, game, settings)))
    for number, stage in enumerate(plan.stages(), 1):
        todo = [
            _Task(
                plan,
                c.name,
                r,
                settings[c.name],
                tuple(
                    player_to_json(read_record(out, plan, game, need, r, settings[need]).player, game)
                    for need in c.needs
                ),
            )
            for c in stage
            for r in range(c.replicates)
            if (c.name, r) not in finished
        ]
        total = sum(c.replicates for c in stage)
        names = ", ".join(c.name for c in stage)
        if resumed or len(todo) < total:
            log(f"stage {number} ({names}): {total - len(todo)} of {total} tasks already done")
        if todo:
            for _, result in iter_tasks(
                _run_task, todo, jobs, desc=f"stage {number}: {names}", unit="task", ordered=False
            ):
                _save_result(out, result)
    records = {
        (c.name, r): read_record(out, plan, game, c.name, r, settings[c.name])
        for c in plan.competitors
        for r in range(c.replicates)
    }
    return StudyData(plan, game, records, out, settings)


def budget_summary(plan: Plan, budgets: dict[str, int]) -> str:
    """The plan's budgets in one line: each family's simulated games per replicate, and the
    level they were configured for (docs/statistics.md, "Budgets")."""
    shown = ", ".join(f"{name} {games:,}" for name, games in budgets.items())
    levels = plan.scale.levels
    how = "matched within 10%" if not levels else f"every family configured for level {_level(plan, budgets):,} games"
    return f"budgets (simulated games per replicate; 0: consumes none): {shown}; {how}"


def _level(plan: Plan, budgets: dict[str, int]) -> int:
    """The declared level nearest the families' smallest budget (the one the plan was made for)."""
    smallest = smallest_budget(budgets)
    return min(plan.scale.levels, key=lambda level: abs(level - smallest))


def finished_results(
    folder: Path, plan: Plan
) -> tuple[dict[Path, tuple[dict[str, Any], Record]], dict[str, dict[str, Any]]]:
    """Every result of ``plan``'s tasks in ``folder`` (by file, each read once and validated,
    with its record) and the resolved settings; one clear error when one is missing or another's."""
    game = get_game(plan.study.game, plan.study.game_params)
    settings = check_competitors(plan, game)
    found = {}
    for c in plan.competitors:
        for r in range(c.replicates):
            path = result_path(folder, c.name, r)
            try:
                result = read_json(path, "study result")
                record = parse_record(result, f"study result {path}", plan, game, c.name, r, settings[c.name])
            except FsmarenaError as exc:
                raise FsmarenaError(f"{folder} is not a finished run: {exc}") from None
            found[path] = (result, record)
    return found, settings
